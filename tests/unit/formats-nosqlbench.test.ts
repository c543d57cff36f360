import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { hdrLogFormat } from '../../src/formats/hdr-log.ts';
import { nosqlbenchFormat, nosqlbenchOp } from '../../src/formats/nosqlbench.ts';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import { detectFormat } from '../../src/formats/registry.ts';
import { opKind } from '../../src/model/naming.ts';
import type { HistogramSeries, IntervalsSeries, ParsedFile } from '../../src/model/types.ts';

const DIR = join(import.meta.dirname, '../fixtures/nosqlbench');
const fixture = (name: string) => readFileSync(join(DIR, name), 'utf8');
const STATS = 'nb-5.17.9-diag-rate2000.histostats.csv';
const LOG = 'nb-5.17.9-diag-rate2000.histograms.log';
/** `cycles=8000` on the command line of that run (SOURCES.md). */
const CYCLES = 8000;

async function parse(name: string, text: string): Promise<ParsedFile> {
  const outcome = await readText(`run/${name}`, text);
  if (isFailed(outcome)) throw new Error(outcome.errors.map((e) => e.message).join('; '));
  return outcome;
}

/** The histostats rows of one tag, read by the test: the 15 comma-separated fields as numbers after the tag. */
function statsRows(text: string, tag: string): { line: number; fields: number[] }[] {
  return text
    .split('\n')
    .map((l, i) => ({ l, line: i + 1 }))
    .filter(({ l }) => l.startsWith(`Tag=${tag},`))
    .map(({ l, line }) => ({ line, fields: l.split(',').slice(1).map(Number) }));
}

describe('NoSQLBench', () => {
  it('recognises both logs from their content; plain HdrHistogram logs stay generic', () => {
    for (const f of [STATS, LOG, 'nb-5.17.9-diag-cyclerate2000.histostats.csv', 'nb-5.17.9-diag-cyclerate2000.histograms.log']) {
      expect(detectFormat(fixture(f), 'unknown')?.id, f).toBe('nosqlbench');
    }
    const ycsb = readFileSync(join(import.meta.dirname, '../fixtures/corpus/sweep-uniform-a/target-1000/client1-READ.hdr'), 'utf8');
    expect(nosqlbenchFormat.detect(ycsb, 'client1-READ.hdr')).toBe(0);
    expect(hdrLogFormat.detect(fixture(LOG), 'x.log')).toBeGreaterThan(0);
  });

  it('op names: the cycle is the operation, its response time the intended one; other timers are not read', () => {
    expect(nosqlbenchOp('cycles_servicetime')).toBe('cycles');
    expect(nosqlbenchOp('cycles_responsetime')).toBe('Intended-cycles');
    expect(nosqlbenchOp('cql-keyvalue.cycles.servicetime')).toBe('cql-keyvalue.cycles');
    expect(nosqlbenchOp('cql-keyvalue.cycles.responsetime')).toBe('Intended-cql-keyvalue.cycles');
    expect(opKind(nosqlbenchOp('main.cycles.responsetime')!)).toBe('intended');
    for (const other of ['result', 'result_success', 'main.result-success', 'bind', 'execute', 'strides_servicetime', 'tries', 'read_input', 'tokenfiller', 'verifier']) expect(nosqlbenchOp(other), other).toBeNull();
  });

  it('histostats: per interval the count as printed, in total the cycles the run was given; ns figures in µs', async () => {
    const text = fixture(STATS);
    const file = await parse(STATS, text);
    expect(file.errors).toEqual([]);
    expect(file.series.map((s) => s.op)).toEqual(['cycles']);
    const cycles = file.series[0] as IntervalsSeries;
    const rows = statsRows(text, 'cycles_servicetime');
    expect(cycles.rows.map((r) => r.count)).toEqual(rows.map((r) => r.fields[2]));
    expect(cycles.rows.reduce((a, r) => a + r.count, 0)).toBe(CYCLES);
    // #[StartTime: …] plus the row's start; the header's unit is NANOSECONDS.
    const startTime = Number(/#\[StartTime: ([\d.]+)/.exec(text)![1]);
    expect(cycles.timeBase).toBe('absolute');
    expect(cycles.rows[0]!.startUs).toBe(Math.round((startTime + rows[0]!.fields[0]!) * 1e6));
    expect(cycles.rows[0]!.lengthUs).toBe(Math.round(rows[0]!.fields[1]! * 1e6));
    expect(cycles.unit).toBe('us');
    // Fields after the tag: start, length, count, min, p25 … p9999, max.
    expect(cycles.rows.map((r) => r.max)).toEqual(rows.map((r) => (r.fields[2]! > 0 ? r.fields[13]! / 1000 : null)));
    expect(cycles.rows.map((r) => r.percentiles['p99.9'])).toEqual(rows.map((r) => (r.fields[2]! > 0 ? r.fields[11]! / 1000 : undefined)));
    expect(file.producer?.settings?.session).toMatch(/^\w+$/);
  });

  it('histostats columns are what their labels say in this version: p99.99 is the max wherever fewer than 10,000 values', () => {
    // Every timer's rows: Tag=…, start, length, count, min, p25 … p9999, max.
    const rows = fixture(STATS)
      .split('\n')
      .filter((l) => l.startsWith('Tag='))
      .map((l) => l.split(',').map(Number));
    const small = rows.filter((f) => f[3]! > 0 && f[3]! < 10_000);
    expect(small.length).toBeGreaterThan(10);
    for (const f of small) expect(f[13]).toBe(f[14]);
  });

  it('histostats written before July 2022 (p0.25 … p0.9999 under the labels p25 … p9999) are read as what they are', async () => {
    // HistoStatsCSVWriter before bdd8317: getValueAtPercentile(0.25D) … (0.9999D). With 2000
    // values, p0.9999 is near the minimum, far from the max.
    const old = [
      '#logging histograms for session scenario_20210601_120000_000',
      '#[Histogram log format version 1.0]',
      '#[StartTime: 1622548800.000 (seconds since epoch), Tue Jun 01 12:00:00 UTC 2021]',
      '#[TimeUnit: NANOSECONDS]',
      '#Tag,Interval_Start,Interval_Length,count,min,p25,p50,p75,p90,p95,p98,p99,p999,p9999,max',
      'Tag=keyvalue.cycles.servicetime,0.5,1.000,2000,100000,100351,100351,100351,100351,100351,100351,100351,100351,100351,9000447',
    ].join('\n');
    const file = await parse('old.csv', old);
    expect(file.errors).toEqual([]);
    const row = (file.series[0] as IntervalsSeries).rows[0]!;
    expect(file.series[0]!.op).toBe('keyvalue.cycles');
    expect(Object.keys(row.percentiles)).toEqual(['p0.25', 'p0.5', 'p0.75', 'p0.9', 'p0.95', 'p0.98', 'p0.99', 'p0.999', 'p0.9999']);
    const current = await parse(STATS, fixture(STATS));
    expect(Object.keys((current.series[0] as IntervalsSeries).rows.find((r) => r.count > 0)!.percentiles)).toEqual(['p25', 'p50', 'p75', 'p90', 'p95', 'p98', 'p99', 'p99.9', 'p99.99']);
  });

  it('histogram log: only the cycles timer, in ns: each interval as its line gives it (start, length, max)', async () => {
    const text = fixture(LOG);
    const file = await parse(LOG, text);
    expect(file.errors).toEqual([]);
    const cycles = file.series as HistogramSeries[];
    expect(cycles.map((s) => [s.op, s.unit, s.timeBase])).toEqual([['cycles', 'ns', 'absolute']]);
    const lines = text.split('\n').filter((l) => l.startsWith('Tag=cycles_servicetime,'));
    const startTime = Number(/#\[StartTime: ([\d.]+)/.exec(text)![1]);
    expect(cycles[0]!.intervals.map((i) => i.line)).toEqual(lines.map((l) => text.split('\n').indexOf(l) + 1));
    for (const [i, interval] of cycles[0]!.intervals.entries()) {
      const [, start, length] = lines[i]!.split(',').map(Number);
      expect(interval.startUs).toBe(Math.round((startTime + start!) * 1e6));
      expect(interval.lengthUs).toBe(Math.round(length! * 1e6));
    }
    // HistogramLogWriter prints each interval's max in ms (ns / 1e6, 3 decimals): the merged max,
    // in µs from the ns histograms, is the largest of them.
    const { analysis } = await loadFiles([join(DIR, LOG)]);
    expect(analysis.runs[0]!.ops.cycles!.max! / 1000).toBeCloseTo(Math.max(...lines.map((l) => Number(l.split(',')[3]))), 3);
  });

  it('bad input: a row cut mid-interval fails alone with its line; CRLF reads the same; a second session restarts the clock', async () => {
    const lines = fixture(STATS).split('\n');
    const at = lines.findIndex((l) => l.startsWith('Tag=cycles_servicetime,'));
    const cut = await parse('cut.csv', [...lines.slice(0, at), lines[at]!.slice(0, 40)].join('\n'));
    expect(cut.errors).toEqual([{ file: 'run/cut.csv', line: at + 1, message: expect.stringMatching(/^expected 15 fields/) }]);
    expect(cut.skippedLines).toBe(1);
    const lf = await parse(STATS, fixture(STATS));
    const crlf = await parse(STATS, fixture(STATS).replace(/\n/g, '\r\n'));
    expect(crlf.series).toEqual(lf.series);
    const other = fixture('nb-5.17.9-diag-cyclerate2000.histostats.csv');
    const both = await parse('both.csv', `${fixture(STATS)}${other}`);
    expect(both.errors).toEqual([]);
    const rows = (both.series[0] as IntervalsSeries).rows;
    const second = Number(/#\[StartTime: ([\d.]+)/.exec(other)![1]);
    const firstOther = statsRows(other, 'cycles_servicetime')[0]!;
    expect(rows.find((r) => r.line === lines.length + firstOther.line - 1)!.startUs).toBe(Math.round((second + firstOther.fields[0]!) * 1e6));
    const log = fixture(LOG);
    expect((await parse(LOG, log.replace(/\n/g, '\r\n'))).series).toEqual((await parse(LOG, log)).series);
  });

  it('a log with no cycles timer says so', async () => {
    const text = fixture(STATS)
      .split('\n')
      .filter((l) => !l.startsWith('Tag=cycles'))
      .join('\n');
    const file = await parse('none.csv', text);
    expect(file.series).toEqual([]);
    expect(file.errors).toEqual([expect.objectContaining({ line: 0, message: expect.stringMatching(/^no cycles timer/) })]);
  });
});
