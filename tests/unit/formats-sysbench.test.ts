import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { sysbenchFormat } from '../../src/formats/sysbench.ts';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import type { DistributionSeries, IntervalsSeries, ParsedFile, PrintedSeries } from '../../src/model/types.ts';

const DIR = join(import.meta.dirname, '../fixtures/sysbench');
const fixture = (name: string) => readFileSync(join(DIR, name), 'utf8');

async function parse(name: string, text: string): Promise<ParsedFile> {
  const outcome = await readText(`run/${name}`, text);
  if (isFailed(outcome)) throw new Error(outcome.errors.map((e) => e.message).join('; '));
  expect(outcome.format).toBe('sysbench');
  return outcome;
}

const series = <K extends ParsedFile['series'][number]['kind']>(file: ParsedFile, kind: K, op: string) =>
  file.series.find((s) => s.kind === kind && s.op === op) as Extract<ParsedFile['series'][number], { kind: K }> | undefined;

/** ms printed with 2 or 3 decimals → µs, by string arithmetic. */
const micros = (ms: string) => {
  const [whole = '', fraction = ''] = ms.replace(/ms$/, '').split('.');
  return Number(whole + fraction.padEnd(3, '0'));
};

/** `key: value` of the final statistics, read by the test itself. */
function stat(text: string, key: string): string {
  const m = new RegExp(`^\\s+${key.replace(/[.()]/g, '\\$&')}:\\s+(\\S+)`, 'm').exec(text);
  if (!m) throw new Error(`no "${key}"`);
  return m[1]!;
}

/** The --histogram table as (value in µs, count), read by the test itself. */
function table(text: string): { value: number; count: number }[] {
  return [...text.matchAll(/^ +(\d+\.\d{3}) \|\**\s+(\d+)$/gm)].map((m) => ({ value: micros(m[1]!), count: Number(m[2]) }));
}

/** Nearest rank ⌈p/100 · n⌉ over the table's buckets, each value repeated by its count. */
function nearestRank(rows: readonly { value: number; count: number }[], p: number): number {
  const n = rows.reduce((a, r) => a + r.count, 0);
  const rank = Math.max(1, Math.ceil((p / 100) * n));
  let seen = 0;
  for (const r of rows) {
    seen += r.count;
    if (seen >= rank) return r.value;
  }
  throw new Error('rank beyond the table');
}

/** sysbench's buckets (sb_histogram.c, sb_logger.c): 1024 from 0.001 to 1e5 ms, logarithmic. */
const M = 1023 / Math.log(1e5 / 1e-3);
const bucketOf = (ms: number) => Math.floor(Math.log(ms / 1e-3) * M + 0.5);
const bucketValueMs = (i: number) => Math.exp(i / M) * 1e-3;

describe('sysbench: --histogram', () => {
  for (const name of ['sysbench-1.0.20-cpu-histogram.txt', 'sysbench-1.0.20-oltp-read-only-histogram.txt']) {
    it(`${name}: percentiles are nearest rank over the table, exact in sysbench's buckets`, async () => {
      const text = fixture(name);
      const rows = table(text);
      const { analysis, ...loaded } = await loadFiles([join(DIR, name)]);
      expect(loaded.errors).toEqual([]);
      const op = name.includes('oltp') ? 'transaction' : 'event';
      const figures = analysis.runs[0]!.ops[op]!;
      expect(figures.source).toBe('distribution');
      expect(figures.exact).toBe(true);
      for (const [p, key] of [[50, 'p50'], [90, 'p90'], [95, 'p95'], [99, 'p99'], [99.9, 'p99.9'], [99.99, 'p99.99']] as const) {
        expect(figures[key], key).toBe(nearestRank(rows, p));
      }
      // Every printed value is a bucket's value, rounded to 1 µs: the table is in sysbench's own buckets.
      for (const r of rows) expect(Math.abs(bucketValueMs(bucketOf(r.value / 1000)) * 1000 - r.value)).toBeLessThanOrEqual(0.5);
      // Its events are the run's, and sysbench's own 95th percentile (rank ⌊0.95·n + 0.5⌋, nearly
      // always the nearest rank) is the same bucket, printed with 2 decimals.
      expect(figures.count).toBe(Number(stat(text, 'total number of events')));
      expect(Math.round((figures.p95 as number) / 10)).toBe(micros(stat(text, '95th percentile')) / 10);
      // The printed minimum and maximum lie in the first and last buckets (values are ±0.9 % of theirs).
      expect(bucketOf(Number(stat(text, 'min')))).toBeGreaterThanOrEqual(bucketOf(rows[0]!.value / 1000) - 1);
      expect(figures.max).toBe(micros(stat(text, 'max')));
      expect(figures.mean).toBeCloseTo((micros(stat(text, 'sum')) / Number(stat(text, 'total number of events'))), 6);
    });
  }

  it('the table becomes one row per bucket with cumulative counts; a cut table says so', async () => {
    const text = fixture('sysbench-1.0.20-cpu-histogram.txt');
    const file = await parse('a.txt', text);
    const d = series(file, 'distribution', 'event') as DistributionSeries;
    const rows = table(text);
    let total = 0;
    expect(d.rows.map((r) => [r.value, r.totalCount])).toEqual(rows.map((r) => [r.value, (total += r.count)]));
    expect(d.unit).toBe('us');
    const cut = text.slice(0, text.indexOf('\n', text.indexOf('Latency histogram') + 3000) + 1);
    const partial = await parse('a.txt', cut);
    expect(partial.errors.map((e) => [e.line, e.message])).toEqual([[0, expect.stringMatching(/no final statistics/)]]);
  });
});

describe('sysbench: --histogram of several clients (issue #27)', () => {
  /** A client's table read here: printed value (ms, 3 decimals) → count. */
  function table(text: string): Map<number, number> {
    const out = new Map<number, number>();
    for (const m of text.matchAll(/^\s*(\d+\.\d{3}) \|\**\s+(\d+)$/gm)) out.set(Number((m[1] ?? '').replace('.', '')), (out.get(Number((m[1] ?? '').replace('.', ''))) ?? 0) + Number(m[2]));
    return out;
  }

  it('identical buckets: the clients’ tables sum exactly; every percentile is the nearest rank of the summed table', async () => {
    const names = ['client1.txt', 'client2.txt'].map((n) => join(DIR, 'cpu-histogram-2-clients', n));
    const { analysis } = await loadFiles(names);
    const run = analysis.runs[0];
    expect(run?.clients.map((c) => c.client)).toEqual(['client1', 'client2']);
    const op = run?.ops.event;
    const summed = new Map<number, number>();
    for (const n of names) for (const [v, c] of table(readFileSync(n, 'utf8'))) summed.set(v, (summed.get(v) ?? 0) + c);
    const values = [...summed].sort((a, b) => a[0] - b[0]);
    const total = values.reduce((a, [, c]) => a + c, 0);
    const atRank = (rank: number) => {
      let below = 0;
      for (const [v, c] of values) if ((below += c) >= rank) return v;
      return NaN;
    };
    expect([op?.count, op?.exact, op?.note, op?.bounds?.p99]).toEqual([total, true, undefined, undefined]);
    for (const [key, p] of [['p50', 50], ['p90', 90], ['p95', 95], ['p99', 99], ['p99.9', 99.9], ['p99.99', 99.99]] as const) {
      expect(op?.[key], key).toBe(atRank(Math.ceil((p / 100) * total)));
    }
    // The mean of the whole run: each client's sum ÷ events, weighted by its events.
    const sums = names.map((n) => /^\s+sum:\s+(\d+\.\d+)$/m.exec(readFileSync(n, 'utf8'))?.[1]).map((v) => Number((v ?? '').replace('.', '')) * 10);
    expect(op?.mean).toBeCloseTo((sums[0]! + sums[1]!) / total, 6);
    expect(op?.perClient.map((c) => c.exact)).toEqual([true, true]);
  });
});

describe('sysbench: interval reports and final statistics', () => {
  it('1.x tps lines: count = tps × interval (a rate: within rounding of the total), the interval’s percentile as printed', async () => {
    const text = fixture('sysbench-1.0.20-oltp-read-write-p99-errors.txt');
    const file = await parse('a.txt', text);
    expect(file.errors).toEqual([]);
    const lines = [...text.matchAll(/^\[ (\d+)s \] thds: \d+ tps: (\S+) .* lat \(ms,99%\): (\S+) err\/s: (\S+)/gm)];
    const intervals = series(file, 'intervals', 'transaction') as IntervalsSeries;
    expect(intervals.rows.map((r) => [r.startUs, r.lengthUs, r.count, r.percentiles.p99])).toEqual(lines.map((m) => [(Number(m[1]) - 1) * 1e6, 1e6, Math.round(Number(m[2])), micros(m[3]!)]));
    const events = Number(stat(text, 'total number of events'));
    expect(Math.abs(intervals.rows.reduce((a, r) => a + r.count, 0) - events)).toBeLessThanOrEqual(events * 0.01);
    // Ignored errors are failed attempts: exact in the final statistics, rates per interval.
    expect((series(file, 'printed', 'transaction-FAILED') as PrintedSeries).count).toBe(Number(stat(text, 'ignored errors')));
    expect((series(file, 'intervals', 'transaction-FAILED') as IntervalsSeries).rows.map((r) => r.count)).toEqual(lines.map((m) => Math.round(Number(m[4]))));
    const summary = series(file, 'printed', 'transaction') as PrintedSeries;
    expect([summary.count, summary.min, summary.max, summary.percentiles]).toEqual([events, micros(stat(text, 'min')), micros(stat(text, 'max')), { p99: micros(stat(text, '99th percentile')) }]);
    expect(summary.mean).toBeCloseTo(micros(stat(text, 'sum')) / events, 9);
  });

  it('1.x eps lines (non-database tests) are events; lines that hold no count (memory, --rate queue) are passed over', async () => {
    const cpu = await parse('a.txt', fixture('sysbench-1.0.20-cpu-histogram.txt'));
    expect((series(cpu, 'intervals', 'event') as IntervalsSeries).rows.map((r) => r.count)).toEqual([1365, 1622, 1488, 1849, 1809]);
    const memory = await parse('a.txt', fixture('sysbench-1.0.20-memory.txt'));
    expect(memory.errors).toEqual([]);
    expect(memory.series.map((s) => [s.kind, s.op])).toEqual([['printed', 'event']]);
    const rate = await parse('a.txt', fixture('sysbench-1.0.20-oltp-point-select-rate.txt'));
    expect(rate.errors).toEqual([]);
    expect((series(rate, 'intervals', 'transaction') as IntervalsSeries).rows).toHaveLength(4);
  });

  it('0.5 and 0.4: their own line and summary layouts, intervals as declared ("every 5 second(s)")', async () => {
    const reads = fixture('sysbench-0.5-oltp-ro-reads-per-s.res');
    const a = await parse('a.res', reads);
    expect(a.errors).toEqual([]);
    expect(a.producer?.version).toBe('0.5');
    const rows = (series(a, 'intervals', 'transaction') as IntervalsSeries).rows;
    const lines = [...reads.matchAll(/^\[ *(\d+)s\] threads: \d+, tps: (\S+), .*response time: (\S+)ms \(95%\)/gm)];
    expect(rows.map((r) => [r.startUs + r.lengthUs, r.count, r.percentiles.p95])).toEqual(lines.map((m) => [Number(m[1]) * 1e6, Math.round(Number(m[2]) * 5), micros(m[3]!)]));
    const summary = series(a, 'printed', 'transaction') as PrintedSeries;
    expect(summary.count).toBe(Number(stat(reads, 'total number of events')));
    // 0.5 prints the latency sum in seconds: the mean is sum ÷ events.
    expect(summary.mean).toBeCloseTo((Number(stat(reads, 'total time taken by event execution').replace('s', '')) * 1e6) / summary.count, 6);
    expect(summary.percentiles).toEqual({ p95: micros(stat(reads, 'approx.  95 percentile')) });
    const errors = await parse('b.res', fixture('sysbench-0.5-oltp-ro-errors-column.res'));
    expect((series(errors, 'intervals', 'transaction') as IntervalsSeries).rows[0]).toMatchObject({ startUs: 0, lengthUs: 2e6, count: 7092, percentiles: { p95: 120540 } });
    expect(series(errors, 'printed', 'transaction-FAILED')).toBeUndefined();
    const old = await parse('c.res', fixture('sysbench-0.4.12-oltp-ro.res'));
    expect(old.errors).toEqual([]);
    expect(series(old, 'printed', 'transaction')).toMatchObject({ count: 212131, min: 160, max: 990, percentiles: { p95: 350 } });
  });
});

describe('sysbench: bad input', () => {
  it('two runs in one file: the second is reported at its header and not read', async () => {
    const one = fixture('sysbench-1.0.20-cpu.txt');
    const file = await parse('a.txt', one + one);
    const lines = one.split('\n').length - 1;
    expect(file.errors.map((e) => e.line)).toEqual([lines + 1]);
    expect(file.skippedLines).toBe(lines);
    expect((series(file, 'printed', 'event') as PrintedSeries).count).toBe(Number(stat(one, 'total number of events')));
  });

  it('a run interrupted mid-interval keeps its interval lines and says the statistics are missing', async () => {
    const text = fixture('sysbench-1.0.20-oltp-read-write-p99-errors.txt');
    const cut = text.slice(0, text.indexOf('[ 3s ]') + 30);
    const file = await parse('a.txt', cut);
    const cutLine = cut.split('\n').length;
    expect(file.errors.map((e) => e.line)).toEqual([cutLine, 0]);
    expect((series(file, 'intervals', 'transaction') as IntervalsSeries).rows).toHaveLength(2);
  });

  it('CRLF line ends read the same; a damaged interval or histogram line is reported with its line', async () => {
    for (const name of ['sysbench-1.0.20-cpu-histogram.txt', 'sysbench-0.5-oltp-ro-errors-column.res']) {
      expect(await parse(name, fixture(name).replace(/\n/g, '\r\n'))).toEqual(await parse(name, fixture(name)));
    }
    const lines = fixture('sysbench-1.0.20-cpu-histogram.txt').split('\n');
    const interval = lines.findIndex((l) => l.startsWith('[ 2s ]'));
    const row = lines.findIndex((l) => l.includes('|***'));
    lines[interval] = lines[interval]!.replace('eps: ', 'eps: x');
    lines[row] = lines[row]!.replace(/\d+$/, '12x');
    const file = await parse('a.txt', lines.join('\n'));
    expect(file.errors.map((e) => e.line)).toEqual([interval + 1, row + 1, 0]);
    expect(file.errors[2]!.message).toMatch(/histogram .* holds \d+ events, the final statistics 8125/);
  });

  it('is recognised from its header, interval lines or statistics, and claims no pgbench report', () => {
    expect(sysbenchFormat.detect('sysbench 0.5:  multi-threaded system evaluation benchmark\n', 'x')).toBe(1);
    expect(sysbenchFormat.detect('[ 10s ] thds: 8 tps: 1234.56 qps: 24691.20 (r/w/o: 1.00/2.00/3.00) lat (ms,95%): 12.34 err/s: 0.00 reconn/s: 0.00\n', 'x')).toBeGreaterThan(0.9);
    const pgbench = readFileSync(join(import.meta.dirname, '../fixtures/pgbench/pg15-rate-limit/stdout.txt'), 'utf8');
    expect(sysbenchFormat.detect(pgbench, 'x')).toBe(0);
  });
});
