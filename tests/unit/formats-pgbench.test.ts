import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { pgbenchFormat } from '../../src/formats/pgbench.ts';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import { detectFormat } from '../../src/formats/registry.ts';
import type { IntervalsSeries, ParsedFile, RawSeries, PrintedSeries } from '../../src/model/types.ts';
import { latencies } from '../helpers/raw-samples.ts';

const DIR = join(import.meta.dirname, '../fixtures/pgbench');
const path = (run: string, file: string) => join(DIR, run, file);
const fixture = (run: string, file: string) => readFileSync(path(run, file), 'utf8');

async function parse(name: string, text: string): Promise<ParsedFile> {
  const outcome = await readText(`run/${name}`, text);
  if (isFailed(outcome)) throw new Error(outcome.errors.map((e) => e.message).join('; '));
  expect(outcome.format).toBe('pgbench');
  return outcome;
}

const series = <K extends ParsedFile['series'][number]['kind']>(file: ParsedFile, kind: K, op: string) =>
  file.series.find((s) => s.kind === kind && s.op === op) as Extract<ParsedFile['series'][number], { kind: K }> | undefined;

/** The log's rows as fields, read by the test itself. */
const rows = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => l.trim().split(/\s+/));

/** A figure the report prints (`label: 123` or `label = 1.234 ms`), read by the test itself. */
function printed(text: string, label: string): string {
  const line = text.split('\n').find((l) => l.startsWith(label));
  if (!line) throw new Error(`no "${label}" in the report`);
  return line.slice(label.length).replace(/^\s*[:=]\s*/, '').trim();
}

const nearestRank = (sorted: readonly number[], p: number) => sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];

/** ms printed with 3 decimals → µs, by string arithmetic. */
const micros = (ms: string) => Number(ms.replace('.', ''));

describe('pgbench: per-transaction log (-l)', () => {
  it('merges the threads’ logs exactly: nearest rank over the logged latencies, count as the report says', async () => {
    const files = ['pgbench_log.23603', 'pgbench_log.23603.1'];
    const logged = files.flatMap((f) => rows(fixture('pg15-plain', f)).map((r) => Number(r[2]))).sort((a, b) => a - b);
    const { analysis, ...loaded } = await loadFiles(files.map((f) => path('pg15-plain', f)));
    expect(loaded.errors).toEqual([]);
    expect(loaded.files.map((f) => f.format)).toEqual(['pgbench', 'pgbench']);
    const op = analysis.runs[0]!.ops.script0!;
    expect(op.exact).toBe(true);
    expect(op.source).toBe('raw');
    expect(op.count).toBe(Number(printed(fixture('pg15-plain', 'stdout.txt'), 'number of transactions actually processed').split('/')[0]));
    for (const [p, key] of [[50, 'p50'], [90, 'p90'], [95, 'p95'], [99, 'p99'], [99.9, 'p99.9']] as const) expect(op[key], key).toBe(nearestRank(logged, p));
    expect(op.min).toBe(logged[0]);
    expect(op.max).toBe(logged[logged.length - 1]);
    // Latency in µs (pgbench docs: "time is the total elapsed transaction time in microseconds").
    expect(op.mean).toBeCloseTo(logged.reduce((a, b) => a + b, 0) / logged.length, 6);
    // Each sample is timed by its completion: time_epoch s + time_us µs.
    const file = loaded.files[0]!;
    const raw = series(file, 'raw', 'script0') as RawSeries;
    const first = rows(fixture('pg15-plain', files[0]!))[0]!;
    expect(raw.firstMs).toBe(Number(first[4]) * 1000 + Math.floor(Number(first[5]) / 1000));
  });

  it('--rate: the logged latency includes the schedule lag, so it is Intended-script0; script0 is latency − lag', async () => {
    for (const run of ['pg15-overload', 'pg13-overload']) {
      const log = run === 'pg15-overload' ? 'pgbench_log.24600' : 'pgbench_log.20017';
      const r = rows(fixture(run, log));
      const file = await parse(log, fixture(run, log));
      expect(file.errors).toEqual([]);
      const intended = latencies(series(file, 'raw', 'Intended-script0') as RawSeries);
      const actual = latencies(series(file, 'raw', 'script0') as RawSeries);
      expect(intended).toEqual(r.map((x) => Number(x[2])).sort((a, b) => a - b));
      expect(actual).toEqual(r.map((x) => Number(x[2]) - Number(x[6])).sort((a, b) => a - b));
      // pgbench's own report: its latency average (from scheduled starts) is the logged times' mean.
      const report = fixture(run, 'stdout.txt');
      const mean = intended.reduce((a, b) => a + b, 0) / intended.length;
      expect(Math.abs(mean - micros(printed(report, 'latency average').replace(' ms', '')))).toBeLessThanOrEqual(0.5);
      const lag = r.reduce((a, x) => a + Number(x[6]), 0) / r.length;
      expect(Math.abs(lag - micros(/avg (\S+)/.exec(printed(report, 'rate limit schedule lag'))![1]!))).toBeLessThanOrEqual(0.5);
    }
  });

  it('skipped (--latency-limit) and failed transactions are counted per second as script0-FAILED, as the report counts them', async () => {
    for (const [run, log] of [
      ['pg15-rate-limit', 'pgbench_log.23901'],
      ['pg13-rate-limit', 'pgbench_log.18730'],
      ['pg15-failures', 'pgbench_log.24207'],
    ] as const) {
      const text = fixture(run, log);
      const report = fixture(run, 'stdout.txt');
      const file = await parse(log, text);
      expect(file.errors, run).toEqual([]);
      const done = rows(text).filter((r) => /^\d+$/.test(r[2]!));
      const notDone = rows(text).filter((r) => !/^\d+$/.test(r[2]!));
      expect((series(file, 'raw', 'script0') as RawSeries).samples, run).toBe(Number(printed(report, 'number of transactions actually processed')));
      const failed = series(file, 'intervals', 'script0-FAILED') as IntervalsSeries;
      const reportFailed = (label: string) => (report.includes(label) ? Number(printed(report, label).split(' ')[0]) : 0);
      expect(failed.rows.reduce((a, x) => a + x.count, 0), run).toBe(reportFailed('number of failed transactions') + reportFailed('number of transactions skipped'));
      const perSecond = new Map<number, number>();
      for (const r of notDone) perSecond.set(Number(r[4]) * 1e6, (perSecond.get(Number(r[4]) * 1e6) ?? 0) + 1);
      expect(failed.rows.map((x) => [x.startUs, x.count])).toEqual([...perSecond].sort((a, b) => a[0] - b[0]));
      expect(done.length + notDone.length).toBe(file.lines);
    }
  });

  it('PostgreSQL 15 column 7 is retries, not lag, when a failed transaction has a value there', async () => {
    const file = await parse('pgbench_log.24207', fixture('pg15-failures', 'pgbench_log.24207'));
    expect(series(file, 'raw', 'Intended-script0')).toBeUndefined();
    expect(latencies(series(file, 'raw', 'script0') as RawSeries)).toEqual(
      rows(fixture('pg15-failures', 'pgbench_log.24207'))
        .filter((r) => /^\d+$/.test(r[2]!))
        .map((r) => Number(r[2]))
        .sort((a, b) => a - b),
    );
    expect(file.producer?.settings?.['retries column (--max-tries)']).toBe('yes');
  });

  it('names each script by its number; counts match the report’s per-script blocks', async () => {
    const file = await parse('pgbench_log.9713', fixture('pg15-multi-script', 'pgbench_log.9713'));
    const report = fixture('pg15-multi-script', 'stdout.txt');
    const blocks = [...report.matchAll(/^ - (\d+) transactions \(/gm)].map((m) => Number(m[1]));
    expect((series(file, 'raw', 'script0') as RawSeries).samples).toBe(blocks[0]);
    expect((series(file, 'raw', 'script1') as RawSeries).samples).toBe(blocks[1]);
  });
});

describe('pgbench: aggregated log (--aggregate-interval)', () => {
  const cases = [
    ['pg13-aggregate', 'pgbench_log.18904', 6],
    ['pg13-aggregate-rate', 'pgbench_log.19043', 10],
    ['pg13-aggregate-rate-limit', 'pgbench_log.19128', 11],
    ['pg15-aggregate', 'pgbench_log.23917', 15],
    ['pg15-aggregate-rate-limit', 'pgbench_log.23945', 15],
    ['pg15-aggregate-retries', 'pgbench_log.24323', 15],
    ['pg15-aggregate-failures-rate', 'pgbench_log.24424', 15],
  ] as const;

  it('every version’s layout: exact count, mean, stddev (from the sums), min and max per interval', async () => {
    for (const [run, log, columns] of cases) {
      const text = fixture(run, log);
      const r = rows(text).map((x) => x.map(Number));
      expect(r.every((x) => x.length === columns), run).toBe(true);
      const file = await parse(log, text);
      expect(file.errors, run).toEqual([]);
      const throttled = columns === 10 || columns === 11 || (columns === 15 && r[0]![6]! > 0);
      const exact = series(file, 'intervals', throttled ? 'Intended-script0' : 'script0') as IntervalsSeries;
      expect(exact.timeBase).toBe('absolute');
      exact.rows.forEach((row, i) => {
        const [start, cnt, sum, sum2, min, max] = r[i]!;
        // Up to PostgreSQL 14 num_transactions also counts the skipped ones (column 11), which have no latency.
        const n = columns === 11 ? cnt! - r[i]![10]! : cnt;
        expect(row.startUs).toBe(start! * 1e6);
        expect(row.count).toBe(n);
        expect(row.mean).toBeCloseTo(sum! / n!, 9);
        expect(row.stddev).toBeCloseTo(Math.sqrt(sum2! / n! - (sum! / n!) ** 2), 6);
        expect([row.min, row.max]).toEqual([min, max]);
        // pgbench writes every interval: each start is one interval after the previous one.
        if (i > 0) expect(row.lengthUs).toBe((start! - r[i - 1]![0]!) * 1e6);
      });
      if (throttled) {
        // The service time's mean is exact from the sums; its extremes and spread are not known.
        const service = series(file, 'intervals', 'script0') as IntervalsSeries;
        service.rows.forEach((row, i) => expect(row.mean).toBeCloseTo((r[i]![2]! - r[i]![6]!) / (r[i]![1]! - (columns === 11 ? r[i]![10]! : 0)), 9));
        expect(service.rows.every((row) => row.min === null && row.max === null && row.stddev === null)).toBe(true);
      }
    }
  });

  it('interval counts add up to the report’s count, short of the last interval pgbench does not write', async () => {
    for (const [run, log] of cases) {
      const file = await parse(log, fixture(run, log));
      const counted = (series(file, 'intervals', 'script0') as IntervalsSeries).rows.reduce((a, x) => a + x.count, 0);
      const processed = Number(printed(fixture(run, 'stdout.txt'), 'number of transactions actually processed'));
      const widest = Math.max(...rows(fixture(run, log)).map((x) => Number(x[1])));
      expect(counted, run).toBeLessThanOrEqual(processed);
      expect(processed - counted, run).toBeLessThanOrEqual(widest);
    }
  });

  it('skipped and (with --failures-detailed) failed transactions per interval are script0-FAILED', async () => {
    const limited = await parse('l', fixture('pg13-aggregate-rate-limit', 'pgbench_log.19128'));
    expect((series(limited, 'intervals', 'script0-FAILED') as IntervalsSeries).rows.map((x) => x.count)).toEqual(rows(fixture('pg13-aggregate-rate-limit', 'pgbench_log.19128')).map((x) => Number(x[10])));
    const detailed = await parse('d', fixture('pg15-aggregate-failures-rate', 'pgbench_log.24424'));
    const expected = rows(fixture('pg15-aggregate-failures-rate', 'pgbench_log.24424')).map((x) => Number(x[10]) + Number(x[13]) + Number(x[14]));
    expect((series(detailed, 'intervals', 'script0-FAILED') as IntervalsSeries).rows.map((x) => x.count)).toEqual(expected.filter((n) => n > 0));
    // Without --failures-detailed PostgreSQL 15 writes 0 for failures: nothing is claimed.
    const retries = await parse('r', fixture('pg15-aggregate-retries', 'pgbench_log.24323'));
    expect(series(retries, 'intervals', 'script0-FAILED')).toBeUndefined();
  });
});

describe('pgbench: report and progress', () => {
  it('whole-run summary as printed: the latency average is the mean (measured with a stddev, else computed by pgbench from run time, and said)', async () => {
    const plain = await parse('stdout.txt', fixture('pg15-plain', 'stdout.txt'));
    const s = series(plain, 'printed', 'script0') as PrintedSeries;
    expect([s.count, s.mean, s.stddev]).toEqual([300, 3842, null]);
    expect(plain.producer?.version).toBe('15.18 (Debian 15.18-0+deb12u1)');
    expect(plain.producer?.settings?.['latency average']).toBe('3.842 ms');
    expect(plain.producer?.settings?.['latency average, how']).toMatch(/run time × clients ÷ transactions/);
    const measured = await parse('stdout.txt', fixture('pg15-aggregate', 'stdout.txt'));
    const m = series(measured, 'printed', 'script0') as PrintedSeries;
    expect([m.count, m.mean, m.stddev]).toEqual([1189, 6716, 12781]);
    expect(measured.producer?.settings?.['latency average, how']).toBeUndefined();
    // PostgreSQL 13 prints tps twice and no version line.
    const old = await parse('stdout.txt', fixture('pg13-plain', 'stdout.txt'));
    expect((series(old, 'printed', 'script0') as PrintedSeries).count).toBe(200);
    expect(old.producer?.settings?.tps).toBe('1245.915802 (including connections establishing); 1313.196964 (excluding connections establishing)');
  });

  it('a plain report (no --progress) between a harness’s start/stop lines: count and mean as printed, nothing skipped', async () => {
    const text = fixture('pg15-report-harness', 'stdout.txt');
    const file = await parse('stdout.txt', text);
    expect([file.errors, file.skippedLines]).toEqual([[], 0]);
    const s = series(file, 'printed', 'script0') as PrintedSeries;
    expect([s.count, s.mean]).toEqual([Number(printed(text, 'number of transactions actually processed')), micros(printed(text, 'latency average').replace(' ms', ''))]);
    expect(file.series.map((x) => x.op)).toEqual(['script0']);
    expect(file.producer?.settings?.['maximum number of tries']).toBe('1');
    expect(file.producer?.settings?.['initial connection time']).toBe(printed(text, 'initial connection time'));
  });

  it('a mean "(including failures)" covers the failed transactions too: it goes to all requests, the counts stay exact', async () => {
    const text = fixture('pg15-report-failures', 'stdout.txt');
    const file = await parse('stdout.txt', text);
    expect(file.errors).toEqual([]);
    const processed = Number(printed(text, 'number of transactions actually processed'));
    const failed = Number(/^(\d+)/.exec(printed(text, 'number of failed transactions'))![1]);
    expect(failed).toBeGreaterThan(0);
    const byOp = (op: string) => series(file, 'printed', op) as PrintedSeries;
    expect([byOp('script0').count, byOp('script0').mean]).toEqual([processed, null]);
    expect([byOp('script0-FAILED').count, byOp('script0-FAILED').mean]).toEqual([failed, null]);
    const mean = micros(/^(\S+) ms \(including failures\)$/.exec(printed(text, 'latency average'))![1]!);
    expect([byOp('script0 (including failures)').count, byOp('script0 (including failures)').mean]).toEqual([processed + failed, mean]);
    // The engine counts each transaction once: processed + failed.
    const { analysis } = await loadFiles([join(DIR, 'pg15-report-failures', 'stdout.txt')]);
    expect(analysis.runs[0]?.ops['script0 (including failures)']?.mean).toBe(mean);
    expect([analysis.runs[0]?.ops.script0?.count, analysis.runs[0]?.ops['script0-FAILED']?.count]).toEqual([processed, failed]);
  });

  it('--rate: the printed latency average is the intended one; the service mean is it minus the average lag', async () => {
    const text = fixture('pg15-rate-limit', 'stdout.txt');
    const file = await parse('stdout.txt', text);
    const intended = series(file, 'printed', 'Intended-script0') as PrintedSeries;
    const actual = series(file, 'printed', 'script0') as PrintedSeries;
    const lag = micros(/avg (\S+)/.exec(printed(text, 'rate limit schedule lag'))![1]!);
    expect(intended.mean).toBe(micros(printed(text, 'latency average').replace(' ms', '')));
    expect(intended.stddev).toBe(micros(printed(text, 'latency stddev').replace(' ms', '')));
    expect(actual.mean).toBe((intended.mean as number) - lag);
    expect((series(file, 'printed', 'script0-FAILED') as PrintedSeries).count).toBe(215);
  });

  it('progress lines become intervals: count = tps × length (a rate, so within rounding of the report’s count)', async () => {
    const text = fixture('pg15-aggregate', 'stdout.txt');
    const file = await parse('stdout.txt', text);
    const progress = series(file, 'intervals', 'script0') as IntervalsSeries;
    const lines = [...text.matchAll(/^progress: (\S+) s, (\S+) tps, lat (\S+) ms stddev ([^,\s]+)/gm)];
    expect(progress.timeBase).toBe('relative');
    expect(progress.rows.map((r) => [r.startUs + r.lengthUs, r.count, r.mean, r.stddev])).toEqual(lines.map((m) => [Number(m[1]) * 1e6, Math.round(Number(m[2])), micros(m[3]!), micros(m[4]!)]));
    const total = progress.rows.reduce((a, r) => a + r.count, 0);
    expect(Math.abs(total - 1189)).toBeLessThanOrEqual(lines.length);
    // With --progress-timestamp the times are epoch seconds.
    const stamped = await parse('stdout.txt', fixture('pg15-progress-timestamp', 'stdout.txt'));
    const rowsStamped = (series(stamped, 'intervals', 'script0') as IntervalsSeries).rows;
    expect((series(stamped, 'intervals', 'script0') as IntervalsSeries).timeBase).toBe('absolute');
    expect(rowsStamped.map((r) => r.startUs + r.lengthUs)).toEqual([1795566132498000, 1795566133498000, 1795566134498000]);
  });

  it('progress failures and skips are exact counts (script0-FAILED); with lag the intervals split into intended and service means', async () => {
    const failures = await parse('stdout.txt', fixture('pg15-failures', 'stdout.txt'));
    expect((series(failures, 'intervals', 'script0-FAILED') as IntervalsSeries).rows.map((r) => r.count)).toEqual([367, 321, 359]);
    const limited = await parse('stdout.txt', fixture('pg15-rate-limit', 'stdout.txt'));
    expect((series(limited, 'intervals', 'script0-FAILED') as IntervalsSeries).rows.map((r) => r.count)).toEqual([82, 58, 75]);
    expect((series(limited, 'intervals', 'Intended-script0') as IntervalsSeries).rows[0]!.mean).toBe(6491);
    expect((series(limited, 'intervals', 'script0') as IntervalsSeries).rows[0]!.mean).toBe(6491 - 453);
  });

  it('several scripts: per-script summaries; progress lines, of all scripts, under a name never counted twice', async () => {
    const text = fixture('pg15-multi-script', 'stdout.txt');
    const file = await parse('stdout.txt', text);
    const blocks = [...text.matchAll(/^ - (\d+) transactions \(.*\n.*\n - latency average = (\S+) ms\n - latency stddev = (\S+) ms/gm)];
    expect(blocks).toHaveLength(2);
    // Per script, and the report's own figures of them all (its first "latency average", computed from run time).
    expect(file.series.filter((s) => s.kind === 'printed').map((s) => [s.op, (s as PrintedSeries).count, (s as PrintedSeries).mean, (s as PrintedSeries).stddev])).toEqual([
      ...blocks.map((m, i) => [`script${i}`, Number(m[1]), micros(m[2]!), micros(m[3]!)]),
      ['all scripts (all requests)', Number(/^number of transactions actually processed: (\d+)/m.exec(text)![1]), micros(/^latency average = (\S+) ms$/m.exec(text)![1]!), null],
    ]);
    // The same report with the progress lines of a run: they go to "all scripts (all requests)" too.
    const progress = fixture('pg15-aggregate', 'stdout.txt').split('\n').filter((l) => l.startsWith('progress: '));
    const withProgress = await parse('stdout.txt', [...progress, text].join('\n'));
    expect(withProgress.series.map((s) => `${s.op}:${s.kind}`)).toEqual(['script0:printed', 'script1:printed', 'all scripts (all requests):printed', 'all scripts (all requests):intervals']);
  });
});

describe('pgbench: detection and bad input', () => {
  it('claims its logs and reports, and not a table of numbers that only looks alike', () => {
    expect(detectFormat(fixture('pg15-plain', 'pgbench_log.23603'), 'unknown')?.id).toBe('pgbench');
    expect(detectFormat(fixture('pg13-aggregate', 'pgbench_log.18904'), 'unknown')?.id).toBe('pgbench');
    const hgrm = readFileSync(join(import.meta.dirname, '../fixtures/corpus/tagged-from-sweep/merged-READ.hgrm'), 'utf8');
    expect(pgbenchFormat.detect(hgrm, 'x')).toBe(0);
    // An aggregated row whose sum cannot come from its count, min and max is not pgbench's.
    expect(pgbenchFormat.detect('1795565363 301 1 26876970332 519 72476\n1795565364 881 2124873 33746778187 457 111457\n', 'x')).toBe(0);
    // Epoch seconds in the wrong column, or a client id that is a timestamp: not a transaction log.
    expect(pgbenchFormat.detect('1795565041 1 24215 0 1795565041 292627\n', 'x')).toBe(0);
  });

  it('a log cut mid-line: the cut row is reported with its line, the rows before it kept', async () => {
    const text = fixture('pg15-plain', 'pgbench_log.23603');
    const cut = text.slice(0, text.indexOf('\n', 2000) + 12);
    const lines = cut.split('\n');
    const file = await parse('pgbench_log.23603', cut);
    expect(file.errors.map((e) => e.line)).toEqual([lines.length]);
    expect(file.skippedLines).toBe(1);
    expect((series(file, 'raw', 'script0') as RawSeries).samples).toBe(lines.length - 1);
  });

  it('two runs in one file: the second is reported where it starts and not read; the first is kept', async () => {
    const log = fixture('pg15-plain', 'pgbench_log.23603');
    const twice = await parse('pgbench_log', log + log);
    expect(twice.errors.map((e) => e.line)).toEqual([151]);
    expect(twice.errors[0]!.message).toMatch(/second run/);
    expect(twice.skippedLines).toBe(150);
    expect((series(twice, 'raw', 'script0') as RawSeries).samples).toBe(150);
    const agg = fixture('pg15-aggregate', 'pgbench_log.23917');
    const aggTwice = await parse('pgbench_log', agg + agg);
    expect(aggTwice.errors.map((e) => e.line)).toEqual([5]);
    expect((series(aggTwice, 'intervals', 'script0') as IntervalsSeries).rows).toHaveLength(4);
    const report = fixture('pg15-plain', 'stdout.txt');
    const reports = await parse('stdout.txt', report + fixture('pg15-aggregate', 'stdout.txt'));
    expect(reports.errors.map((e) => e.line)).toEqual([15]);
    expect((series(reports, 'printed', 'script0') as PrintedSeries).count).toBe(300);
  });

  it('a report cut inside its summary says so; CRLF line ends read the same', async () => {
    const text = fixture('pg15-rate-limit', 'stdout.txt');
    const cut = text.slice(0, text.indexOf('number of transactions actually processed'));
    const file = await parse('stdout.txt', cut);
    expect(file.errors.map((e) => [e.line, e.message])).toEqual([[0, expect.stringMatching(/report that starts at line 6 has no "number of transactions actually processed"/)]]);
    // The progress intervals before the cut are kept.
    expect((series(file, 'intervals', 'script0') as IntervalsSeries).rows).toHaveLength(3);
    for (const [run, name] of [
      ['pg15-rate-limit', 'pgbench_log.23901'],
      ['pg15-rate-limit', 'stdout.txt'],
      ['pg13-aggregate-rate-limit', 'pgbench_log.19128'],
    ] as const) {
      const lf = await parse(name, fixture(run, name));
      const crlf = await parse(name, fixture(run, name).replace(/\n/g, '\r\n'));
      expect(crlf).toEqual(lf);
    }
  });

  it('a log with transaction numbers missing reads as a sample (--sampling-rate): said, its rows kept', async () => {
    const all = fixture('pg15-plain', 'pgbench_log.23603').trim().split('\n');
    const sample = all.filter((_, i) => i % 5 === 0);
    const numbers = sample.map((l) => Number(l.split(' ')[1]));
    const gaps = numbers.slice(1).reduce((a, n, i) => a + n - numbers[i]! - 1, 0);
    const file = await parse('pgbench_log', `${sample.join('\n')}\n`);
    expect(file.errors.map((e) => [e.line, e.message])).toEqual([[0, expect.stringContaining(`skip ${gaps} transactions: a sampled log`)]]);
    expect((series(file, 'raw', 'script0') as RawSeries).samples).toBe(sample.length);
  });

  it('a row with a fractional latency or a column more than the others is reported with its line', async () => {
    const lines = fixture('pg15-plain', 'pgbench_log.23603').split('\n');
    lines[2] = lines[2]!.replace(/^(\S+ \S+ )(\d+)/, '$1$2.5');
    lines[4] = `${lines[4]} 7`;
    const file = await parse('pgbench_log', lines.join('\n'));
    expect(file.errors.map((e) => e.line)).toEqual([3, 5]);
    expect((series(file, 'raw', 'script0') as RawSeries).samples).toBe(148);
  });
});
