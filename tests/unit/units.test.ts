import { beforeAll, describe, expect, it } from 'vitest';
import { analyseStore } from '../../src/engine/analyse.ts';
import { runChartQuery } from '../../src/engine/chart-queries.ts';
import type { Db } from '../../src/engine/db.ts';
import { openNodeDb } from '../../src/engine/node-db.ts';
import { Store } from '../../src/engine/store.ts';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import { groupIntoRuns } from '../../src/model/grouping.ts';
import { fileTallies } from '../../src/model/file-tally.ts';
import type { ParsedFile } from '../../src/model/types.ts';
import { DISTRIBUTION_PERCENTILES } from '../../src/model/percentiles.ts';

/**
 * Series keep the unit their producer records in (nanosecond samples stay exact integers); every
 * figure leaves the engine in µs. The same samples written in ns and in µs give the same figures.
 */

let db: Db;

/** Files parsed in the test (not on disk) in a store of their own, and their figures. */
function analyseParsed(db: Db, files: ParsedFile[]) {
  const store = new Store(db);
  store.addRuns(groupIntoRuns(files));
  return analyseStore(store, [], [], {}, fileTallies(files));
}
beforeAll(async () => {
  db = await openNodeDb();
});

/** 1,000 samples, 1..1000 µs, spread over 10 seconds, written in `unit`. */
function csv(unit: 'ns' | 'us'): string {
  const rows = Array.from({ length: 1000 }, (_, i) => `READ,${1795255808000 + i * 10},${unit === 'ns' ? (i + 1) * 1000 + 7 : i + 1}`);
  return `op,timestamp,latency_${unit}\n${rows.join('\n')}\n`;
}

async function parse(path: string, text: string): Promise<ParsedFile> {
  const f = await readText(path, text);
  if (isFailed(f)) throw new Error(f.errors[0]?.message);
  return f;
}

describe('latencies recorded in ns are reported in µs', () => {
  it('the summary of ns samples equals the µs figures, to the ns', async () => {
    const ns = await parse('ns/results.csv', csv('ns'));
    const us = await parse('us/results.csv', csv('us'));
    expect(ns.series[0]?.unit).toBe('ns');
    const a = analyseParsed(db, [ns, us]);
    const inNs = a.runs.find((r) => r.dir === 'ns')?.ops.READ;
    const inUs = a.runs.find((r) => r.dir === 'us')?.ops.READ;
    // Nearest rank over 1..1000: p99 is the 990th value; in ns every value carries 7 ns more.
    expect(inUs?.p99).toBe(990);
    expect(inNs?.p99).toBe(990.007);
    expect(inNs?.min).toBe(1.007);
    expect(inNs?.max).toBe(1000.007);
    expect(inNs?.mean).toBeCloseTo(500.507, 9);
    expect(inNs?.perClient[0]?.p50).toBe(500.007);
  });

  it('latency over time and the percentile distribution of ns samples are in µs', async () => {
    const store = new Store(db);
    store.addRuns(groupIntoRuns([await parse('ns/results.csv', csv('ns'))]));
    const overTime = runChartQuery(store, { kind: 'latency-over-time', runIds: [0], ops: ['READ'], percentile: 100, maxPoints: 100 });
    if (overTime.kind !== 'latency-over-time') throw new Error(overTime.kind);
    // Second k holds samples 100k+1 … 100k+100: its max is (100k + 100) µs + 7 ns.
    expect(overTime.series[0]?.values).toEqual(Array.from({ length: 10 }, (_, k) => ((100 * k + 100) * 1000 + 7) / 1000));
    const distribution = runChartQuery(store, { kind: 'percentile-distribution', runIds: [0], ops: ['READ'] });
    if (distribution.kind !== 'percentile-distribution') throw new Error(distribution.kind);
    const p50 = distribution.series[0]?.values[DISTRIBUTION_PERCENTILES.indexOf(50)];
    expect(p50).toBe(500.007);
  });
});

describe('figures a producer printed are reported in µs, whatever unit its series records in', () => {
  const run = (series: ParsedFile['series']): ParsedFile => ({ path: 'ms/client1.txt', format: 'generic-csv', series, errors: [], skippedLines: 0, lines: 1 });

  it('a summary and a periodic report in ms', () => {
    const summary = run([{ kind: 'printed', op: 'GET', unit: 'ms', count: 10, mean: 1.5, stddev: 0.25, min: 0.5, max: 12.25, percentiles: { p50: 1.25, p99: 9.5 }, returns: {} }]);
    const periodic = run([
      {
        kind: 'intervals',
        op: 'SET',
        unit: 'ms',
        timeBase: 'relative',
        rows: [
          { startUs: 0, lengthUs: 1e6, count: 3, mean: 2, stddev: null, min: 1, max: 4.5, percentiles: { p99: 4.25 }, line: 1 },
          { startUs: 1e6, lengthUs: 1e6, count: 1, mean: 6, stddev: null, min: 6, max: 6, percentiles: { p99: 6 }, line: 2 },
        ],
      },
    ]);
    const a = analyseParsed(db, [summary, { ...periodic, path: 'ms2/client1.txt' }]);
    const get = a.runs.find((r) => r.dir === 'ms')?.ops.GET;
    expect([get?.mean, get?.min, get?.max]).toEqual([1500, 500, 12250]);
    // One client's own summary: its printed percentiles are its figures (exactly as printed, in µs).
    expect(get?.perClient[0]?.p99).toBe(9500);
    const set = a.runs.find((r) => r.dir === 'ms2')?.ops.SET;
    expect([set?.count, set?.min, set?.max, set?.mean]).toEqual([4, 1000, 6000, 3000]);
    expect(set?.bounds?.p99).toEqual({ min: 4250, max: 6000 });
  });
});
