import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { memtierFormat } from '../../src/formats/memtier.ts';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import { detectFormat } from '../../src/formats/registry.ts';
import { opKind } from '../../src/model/naming.ts';
import type { DistributionSeries, HistogramSeries, IntervalsSeries, ParsedFile, PrintedSeries } from '../../src/model/types.ts';

const DIR = join(import.meta.dirname, '../fixtures/memtier');
const fixture = (name: string) => readFileSync(join(DIR, name), 'utf8');

async function parse(name: string, text: string): Promise<ParsedFile> {
  const outcome = await readText(`run/${name}`, text);
  if (isFailed(outcome)) throw new Error(outcome.errors.map((e) => e.message).join('; '));
  return outcome;
}

const find = <K extends ParsedFile['series'][number]['kind']>(file: ParsedFile, kind: K, op: string) =>
  file.series.find((s) => s.kind === kind && s.op === op) as Extract<ParsedFile['series'][number], { kind: K }> | undefined;

/** ms printed with 3 decimals → µs, by string arithmetic in the test. */
const us = (ms: number) => Number(ms.toFixed(3).replace('.', ''));

type Json = Record<string, Record<string, unknown>>;

describe('memtier_benchmark', () => {
  it('recognises its JSON, table, logs and percentile prints from their content', () => {
    for (const f of ['memtier-2.3.0-redis-4s.json', 'memtier-2.3.0-redis-n400.stdout-stderr.txt', 'mt-4s_GET_command_run_1.hgrm', 'mt-4s_GET_command_run_1.txt']) {
      expect(detectFormat(fixture(f), 'unknown')?.id, f).toBe('memtier');
    }
    // A Java .hgrm (HdrHistogram's own column widths) stays the generic reader's.
    const java = readFileSync(join(import.meta.dirname, '../fixtures/corpus/tagged-from-sweep/merged-READ.hgrm'), 'utf8');
    expect(memtierFormat.detect(java, 'merged-READ.hgrm')).toBe(0);
  });

  it('JSON: per-second counts add up to each command’s Count; the whole-run figures come from its exact histogram', async () => {
    const text = fixture('memtier-2.3.0-redis-4s.json');
    const file = await parse('a.json', text);
    expect(file.errors).toEqual([]);
    expect(file.producer?.settings?.['whole-run figures']).toMatch(/exact HdrHistogram/);
    const doc = (JSON.parse(text) as Record<string, Json>)['ALL STATS']!;
    const startMs = (doc.Runtime as { 'Start time': number })['Start time'];
    for (const type of ['Sets', 'Gets']) {
      const entry = doc[type]!;
      const serie = entry['Time-Serie'] as Record<string, { Count: number; 'Max Latency'?: number; 'p99.00'?: number }>;
      const whole = find(file, 'distribution', type) as DistributionSeries;
      const periodic = find(file, 'intervals', type) as IntervalsSeries;
      expect(Object.values(serie).reduce((a, s) => a + s.Count, 0)).toBe(entry.Count);
      expect(periodic.rows.reduce((a, r) => a + r.count, 0)).toBe(entry.Count);
      // One series of whole-run figures per command: the histogram's, not the printed summary too.
      expect(find(file, 'printed', type)).toBeUndefined();
      expect([whole.totalCount, whole.unit, whole.allBuckets, whole.precision]).toEqual([entry.Count, 'us', true, { significantDigits: 2, lowestDiscernibleValue: 10 }]);
      // The histogram's largest bucket ends at the maximum memtier printed (ms with 3 decimals = µs).
      expect(whole.max).toBe(us(entry['Max Latency'] as number));
      expect(whole.rows.at(-1)?.totalCount).toBe(entry.Count);
      expect(periodic.timeBase).toBe('absolute');
      expect(periodic.rows[0]!.startUs).toBe(startMs * 1000);
      // A second with no request prints no figures.
      expect(periodic.rows.map((r) => r.max)).toEqual(Object.values(serie).map((s) => (s.Count > 0 ? us(s['Max Latency']!) : null)));
      expect(periodic.rows.map((r) => r.percentiles.p99)).toEqual(Object.values(serie).map((s) => (s.Count > 0 ? us(s['p99.00']!) : undefined)));
    }
    // Waits: none were sent, so nothing is reported for them.
    expect(file.series.some((s) => s.op === 'Waits')).toBe(false);
  });

  it('JSON through the engine: the same figures as the same run’s .hgrm log of that histogram; requests counted once', async () => {
    const json = await loadFiles([join(DIR, 'memtier-2.3.0-redis-4s.json')]);
    const log = await loadFiles([join(DIR, 'mt-4s_GET_command_run_1.hgrm')]);
    const fromJson = json.analysis.runs[0]!.ops.Gets!;
    const fromLog = log.analysis.runs[0]!.ops.Gets!;
    expect(fromJson.exact).toBe(true);
    for (const k of ['count', 'min', 'max', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'p99.99'] as const) expect(fromJson[k], k).toBe(fromLog[k]);
    expect(fromJson.mean).toBeCloseTo(fromLog.mean as number, 9);
    expect(fromJson.stddev).toBeCloseTo(fromLog.stddev as number, 9);
    const doc = (JSON.parse(fixture('memtier-2.3.0-redis-4s.json')) as Record<string, Json>)['ALL STATS']!;
    expect(json.analysis.runs[0]!.totalOps).toBe(doc.Totals!.Count);
    // memtier printed 0 as the Totals' average; the histogram gives its mean.
    expect(doc.Totals!['Average Latency']).toBe(0);
    expect(json.analysis.runs[0]!.ops['Totals (all requests)']?.mean).toBeGreaterThan(0);
  });

  it('one run’s JSON, .hgrm logs and prints in one folder (as memtier names them): one client, every request counted once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memtier-run-'));
    const run = join(dir, 'mt-4s');
    mkdirSync(run);
    for (const name of readdirSync(DIR).filter((n) => n.startsWith('mt-4s_'))) copyFileSync(join(DIR, name), join(run, name));
    // --json-out-file=mt-4s.json, its name when written (SOURCES.md).
    copyFileSync(join(DIR, 'memtier-2.3.0-redis-4s.json'), join(run, 'mt-4s.json'));
    try {
      const { analysis, ...loaded } = await loadFiles([run]);
      expect(loaded.errors).toEqual([]);
      const r = analysis.runs[0]!;
      const doc = (JSON.parse(fixture('memtier-2.3.0-redis-4s.json')) as Record<string, Json>)['ALL STATS']!;
      expect(r.clients.map((c) => c.client)).toEqual(['mt-4s']);
      expect(r.totalOps).toBe(doc.Totals!.Count);
      expect([r.ops.Gets?.count, r.ops.Sets?.count, r.ops.Gets?.exact]).toEqual([doc.Gets!.Count, doc.Sets!.Count, true]);
      expect(Object.keys(r.ops).sort()).toEqual(['Gets', 'Sets', 'Totals (all requests)']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Totals are every request again: kept, never counted', async () => {
    const file = await parse('a.json', fixture('memtier-2.3.0-redis-4s.json'));
    const totals = find(file, 'distribution', 'Totals (all requests)') as DistributionSeries;
    expect(opKind(totals.op)).toBe('derived');
    expect(totals.totalCount).toBe((find(file, 'distribution', 'Sets') as DistributionSeries).totalCount + (find(file, 'distribution', 'Gets') as DistributionSeries).totalCount);
  });

  it('arbitrary commands are named as memtier names them', async () => {
    const file = await parse('c.json', fixture('memtier-2.3.0-redis-commands.json'));
    expect(file.errors).toEqual([]);
    expect(file.series.filter((s) => s.kind === 'distribution').map((s) => s.op)).toEqual(['Incrs', 'Lpushs', 'Totals (all requests)']);
  });

  it('JSON without a histogram (memtier before 2.0, or one that does not decode): the printed figures, as bounds', async () => {
    const doc = JSON.parse(fixture('memtier-2.3.0-redis-4s.json')) as Record<string, Json>;
    const gets = doc['ALL STATS']!.Gets as Record<string, Record<string, unknown>>;
    delete gets['Percentile Latencies']!['Histogram log format'];
    (doc['ALL STATS']!.Sets as Record<string, Record<string, Record<string, unknown>>>)['Percentile Latencies']!['Histogram log format']!['Compressed Histogram'] = 'HISTFAAAnot-a-histogram';
    const file = await parse('old.json', JSON.stringify(doc));
    const summary = find(file, 'printed', 'Gets') as PrintedSeries;
    const pct = gets['Percentile Latencies'] as Record<string, number>;
    expect(summary.percentiles).toEqual({ p50: us(pct['p50.00']!), p99: us(pct['p99.00']!), 'p99.9': us(pct['p99.90']!) });
    expect(find(file, 'printed', 'Sets')?.count).toBe(doc['ALL STATS']!.Sets!.Count);
    expect(file.errors).toEqual([expect.objectContaining({ line: 0, message: expect.stringMatching(/^Sets: its Compressed Histogram does not decode/) })]);
  });

  it('HdrHistogram log: one interval from start to the end timestamp, µs, the command from the header; it agrees with the JSON', async () => {
    const log = fixture('mt-4s_GET_command_run_1.hgrm');
    const file = await parse('mt-4s_GET_command_run_1.hgrm', log);
    expect(file.errors).toEqual([]);
    expect(file.clientHint).toBe('mt-4s');
    const get = find(file, 'histogram', 'Gets') as HistogramSeries;
    expect(get.unit).toBe('us');
    const [start, end] = log.split('\n')[4]!.split(',');
    expect(get.intervals).toHaveLength(1);
    expect(get.intervals[0]!.startUs).toBe(Number(start!.replace('.', '')) * 1000);
    expect(get.intervals[0]!.lengthUs).toBe((Number(end!.replace('.', '')) - Number(start!.replace('.', ''))) * 1000);
    // The same run's JSON counted the GETs itself.
    const json = (JSON.parse(fixture('memtier-2.3.0-redis-4s.json')) as Record<string, Json>)['ALL STATS']!;
    expect(get.intervals[0]!.histogram.totalCount).toBe(json.Gets!.Count);
    const full = await parse('mt-4s_FULL_RUN_1.hgrm', fixture('mt-4s_FULL_RUN_1.hgrm'));
    expect(full.series.map((s) => [s.op, s.kind === 'histogram' ? s.intervals[0]!.histogram.totalCount : null])).toEqual([['Totals (all requests)', json.Totals!.Count]]);
  });

  it('merged p50 from the GET log equals the p50 memtier printed in its JSON for the same histogram', async () => {
    const { analysis, ...loaded } = await loadFiles([join(DIR, 'mt-4s_GET_command_run_1.hgrm')]);
    const json = (JSON.parse(fixture('memtier-2.3.0-redis-4s.json')) as Record<string, Json>)['ALL STATS']!;
    const pct = json.Gets!['Percentile Latencies'] as Record<string, number>;
    expect(loaded.errors).toEqual([]);
    expect(loaded.files[0]?.format).toBe('memtier');
    const get = analysis.runs[0]!.ops.Gets!;
    expect(get.exact).toBe(true);
    // memtier printed hdr_value_at_percentile(50) / 1000 of this very histogram.
    expect(get.p50).toBe(us(pct['p50.00']!));
    expect(get.count).toBe(json.Gets!.Count);
  });

  it('percentile print: values rounded to 10 µs are not read as exact; count, mean and max from the footer', async () => {
    const text = fixture('mt-4s_GET_command_run_1.txt');
    const file = await parse('mt-4s_GET_command_run_1.txt', text);
    expect(file.errors).toEqual([]);
    const footer = /#\[Mean\s*=\s*([\d.]+), StdDeviation\s*=\s*([\d.]+)\]\n#\[Max\s*=\s*([\d.]+), Total count\s*=\s*(\d+)\]/.exec(text)!;
    const s = find(file, 'printed', 'Gets') as PrintedSeries;
    expect(s).toMatchObject({ count: Number(footer[4]), mean: us(Number(footer[1])), stddev: us(Number(footer[2])), max: us(Number(footer[3])), percentiles: {} });
    expect(file.series.some((x) => x.kind === 'distribution')).toBe(false);
  });

  it('stdout with stderr: counts from the final progress line and the rates, as the same run’s JSON counted them', async () => {
    const file = await parse('out.txt', fixture('memtier-2.3.0-redis-n400.stdout-stderr.txt'));
    expect(file.errors).toEqual([]);
    const json = (JSON.parse(fixture('memtier-2.3.0-redis-n400.json')) as Record<string, Json>)['ALL STATS']!;
    for (const type of ['Sets', 'Gets']) expect((find(file, 'printed', type) as PrintedSeries).count, type).toBe(json[type]!.Count);
    const gets = find(file, 'printed', 'Gets') as PrintedSeries;
    const row = fixture('memtier-2.3.0-redis-n400.stdout-stderr.txt').split('\n').find((l) => l.startsWith('Gets '))!.trim().split(/\s+/);
    // The mean is printed to 10 ns (%15.05f ms).
    expect(gets.mean).toBe(Number(row[4]!.replace('.', '')) / 100);
    expect(gets.percentiles).toEqual({ p50: us(Number(row[5])), p99: us(Number(row[6])), 'p99.9': us(Number(row[7])) });
    expect(file.producer?.settings).toEqual({ Threads: '2', 'Connections per thread': '3', 'Requests per client': '400' });
  });

  it('the table alone, with no count anywhere, is not guessed: each row is refused with its line', async () => {
    const lines = fixture('memtier-2.3.0-redis-n400.stdout-stderr.txt').split('\n');
    const stdout = lines.filter((l) => !l.includes('[RUN #') && !l.startsWith('Writing') && !l.includes('Requests per client'));
    const file = await parse('stdout.txt', stdout.join('\n'));
    const setsLine = stdout.findIndex((l) => l.startsWith('Sets ')) + 1;
    expect(file.series).toEqual([]);
    expect(file.errors[0]).toMatchObject({ line: setsLine, message: expect.stringMatching(/^Sets: the table prints requests per second, not a count/) });
    // A requests run states its request count: threads × connections × requests per client.
    const withCount = lines.filter((l) => !l.includes('[RUN #'));
    const counted = await parse('stdout.txt', withCount.join('\n'));
    expect(counted.errors).toEqual([]);
    expect((find(counted, 'printed', 'Totals (all requests)') as PrintedSeries).count).toBe(2 * 3 * 400);
  });

  it('bad input: a cut JSON fails with its line; CRLF reads the same', async () => {
    const text = fixture('memtier-2.3.0-redis-n400.json');
    const cutAt = text.split('\n').length - 20;
    const cut = await parse('cut.json', text.split('\n').slice(0, cutAt).join('\n'));
    expect(cut.series).toEqual([]);
    expect(cut.errors).toEqual([expect.objectContaining({ line: 0, message: expect.stringMatching(/^the JSON document ends before it is complete .*: the file was cut short$/) })]);
    const broken = text.split('\n');
    const at = broken.findIndex((l) => l.includes('"Ops/sec"'));
    broken[at] = broken[at]!.replace(':', '');
    const bad = await parse('bad.json', broken.join('\n'));
    expect(bad.errors).toEqual([expect.objectContaining({ line: at + 1, message: expect.stringMatching(/^not valid JSON: /) })]);
    const lf = await parse('a.json', text);
    const crlf = await parse('a.json', text.replace(/\n/g, '\r\n'));
    expect(crlf.series).toEqual(lf.series);
    const log = fixture('mt-4s_GET_command_run_1.hgrm');
    expect((await parse('mt-4s_GET_command_run_1.hgrm', log.replace(/\n/g, '\r\n'))).series).toEqual((await parse('mt-4s_GET_command_run_1.hgrm', log)).series);
  });

  it('bad input: a log whose end timestamp is before its start, a print cut before its footer', async () => {
    const log = fixture('mt-4s_GET_command_run_1.hgrm').split('\n');
    const [start, end, ...rest] = log[4]!.split(',');
    log[4] = [end, start, ...rest].join(',');
    const file = await parse('bad.hgrm', log.join('\n'));
    expect(file.errors[0]).toMatchObject({ line: 5, field: 'EndTimestamp' });
    const print = fixture('mt-4s_GET_command_run_1.txt').split('\n');
    const cut = await parse('mt-4s_GET_command_run_1.txt', print.slice(0, 20).join('\n'));
    expect(cut.series).toEqual([]);
    expect(cut.errors).toEqual([expect.objectContaining({ line: 0, message: expect.stringMatching(/^no footer with the total count/) })]);
  });

  it('older JSON with -nan figures still reads', async () => {
    const text = fixture('memtier-2.3.0-redis-n400.json').replace('"Average Latency": 0.000', '"Average Latency": -nan');
    expect(text).toContain('-nan');
    const file = await parse('nan.json', text);
    expect(file.errors).toEqual([]);
  });
});
