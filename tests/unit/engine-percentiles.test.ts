import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db.ts';
import { openNodeDb } from '../../src/engine/node-db.ts';
import { groupSummaries } from '../../src/engine/group-merge.ts';
import { Store } from '../../src/engine/store.ts';
import { groupIntoRuns } from '../../src/model/grouping.ts';
import { HdrLayout } from '../../src/model/hdr-layout.ts';
import { addHistograms, max, mean, min, nextDown, valueAtPercentile } from '../../src/model/hdr-stats.ts';
import type { ParsedFile, SparseHistogram } from '../../src/model/types.ts';
import { prng } from '../../scripts/generate-data.ts';
import { indexedOf } from '../helpers/indexed.ts';
import { rawSeries } from '../helpers/raw-samples.ts';

/**
 * The SQL path against the JS reference implementation (itself checked against HdrHistogram's
 * Java code): random multi-client histograms, adversarial percentiles (one ulp around k·100/n),
 * and raw samples against a sort-based nearest rank.
 */

const precision = { significantDigits: 3, lowestDiscernibleValue: 1 };
const layout = new HdrLayout(precision);

function randomHistogram(rand: () => number, n: number): SparseHistogram {
  const counts = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const v = Math.floor(Math.exp(rand() * 14));
    const lo = layout.lowestEquivalentValue(v);
    counts.set(lo, (counts.get(lo) ?? 0) + 1 + Math.floor(rand() * 3));
  }
  const los = [...counts.keys()].sort((a, b) => a - b);
  const count = Float64Array.from(los, (lo) => counts.get(lo) ?? 0);
  return { lo: Float64Array.from(los), width: Float64Array.from(los, (lo) => layout.sizeOfEquivalentValueRange(lo)), count, totalCount: count.reduce((a, b) => a + b, 0) };
}

function hdrFile(client: string, intervals: SparseHistogram[]): ParsedFile {
  return {
    path: `run/${client}-READ.hdr`,
    format: 'hdr-log',
    series: [{ kind: 'histogram', op: 'READ', unit: 'us', precision, timeBase: 'absolute', intervals: intervals.map((histogram, i) => ({ startUs: 1e15 + i * 1e6, lengthUs: 1e6, histogram: indexedOf(precision, histogram), line: i + 1 })) }],
    errors: [],
    skippedLines: 0,
    lines: intervals.length,
  };
}

function nextUp(x: number): number {
  const b = new Float64Array([x]);
  const i = new BigInt64Array(b.buffer);
  i[0] = (i[0] as bigint) + 1n;
  return b[0] as number;
}

let db: Db;
beforeAll(async () => {
  db = await openNodeDb();
});

describe('SQL percentiles equal the reference', () => {
  it('on random merged histograms, for ordinary and adversarial percentiles', () => {
    const rand = prng(2024);
    for (let trial = 0; trial < 6; trial++) {
      const clients = Array.from({ length: 1 + Math.floor(rand() * 4) }, (_, c) => ({
        name: `client${c + 1}`,
        intervals: Array.from({ length: 1 + Math.floor(rand() * 5) }, () => randomHistogram(rand, 1 + Math.floor(rand() * 300))),
      }));
      const store = new Store(db);
      store.addRuns(groupIntoRuns(clients.map((c) => hdrFile(c.name, c.intervals))));
      const merged = addHistograms(clients.flatMap((c) => c.intervals.map((histogram) => ({ precision, histogram }))));
      const total = merged.totalCount;
      const tricky = [1, 2, 3, 7].flatMap((k) => [(k * 100) / total, nextUp((k * 100) / total)]).filter((p) => p > 0 && p <= 100);
      const percentiles = [50, 90, 99, 99.9, 99.99, 100, 33.333, ...tricky];
      const sel = { seriesIds: store.series.map((s) => s.id), groups: store.series.map(() => 0) };
      const stats = groupSummaries(store, sel, percentiles)[0];
      expect(stats?.values, `trial ${trial}`).toEqual(percentiles.map((p) => valueAtPercentile(merged, p)));
      expect(stats?.count).toBe(total);
      expect(stats?.min).toBe(min(merged));
      expect(stats?.max).toBe(max(merged));
      expect(stats?.mean).toBe(mean(merged));
    }
  });

  it("follows Java's order of operations, ceil((p·count)/100), where p/100·count would round differently", () => {
    const cases: { n: number; p: number }[] = [];
    for (let n = 2; n <= 60 && cases.length < 8; n++) {
      for (let k = 1; k < n; k++) {
        const p = nextUp((k * 100) / n);
        const requested = nextDown(p);
        if (Math.ceil((requested * n) / 100) !== Math.ceil((requested / 100) * n)) cases.push({ n, p });
      }
    }
    expect(cases.length).toBeGreaterThan(0);
    for (const { n, p } of cases) {
      const values = Array.from({ length: n }, (_, i) => i + 1);
      const histogram: SparseHistogram = { lo: Float64Array.from(values), width: Float64Array.from(values, () => 1), count: Float64Array.from(values, () => 1), totalCount: n };
      const store = new Store(db);
      store.addRuns(groupIntoRuns([hdrFile('client1', [histogram])]));
      expect(groupSummaries(store, { seriesIds: [0], groups: [0] }, [p])[0]?.values, `n=${n} p=${p}`).toEqual([valueAtPercentile(histogram, p)]);
    }
  });

  // Fractions too: a value read in a unit finer than its digits (0.25 µs steps here).
  it.each([1, 4])('on raw samples: exact nearest rank ⌈p/100 · n⌉ against a sort (values in 1/%i µs)', (steps) => {
    const rand = prng(99);
    const latency = Float64Array.from({ length: 997 }, () => Math.floor(rand() * 5000) / steps);
    const file: ParsedFile = {
      path: 'raw/client1-raw.csv',
      format: 'ycsb-raw',
      series: [rawSeries('READ', 'us', Float64Array.from(latency, (_, i) => 1.8e12 + i), latency)],
      errors: [],
      skippedLines: 0,
      lines: latency.length,
    };
    const store = new Store(db);
    store.addRuns(groupIntoRuns([file]));
    const sorted = [...latency].sort((a, b) => a - b);
    const percentiles = [0.1, 50, 90, 99, 99.9, 99.99, 100, (100 * 3) / 997];
    const values = groupSummaries(store, { seriesIds: [0], groups: [0] }, percentiles)[0]?.values;
    // Integer rank with exact arithmetic: p = a/b → ⌈a·n / (100·b)⌉.
    const rank = (p: number) => {
      const [i = '0', f = ''] = String(p).split('.');
      const num = BigInt(i + f);
      const den = 100n * 10n ** BigInt(f.length);
      const r = (num * BigInt(sorted.length) + den - 1n) / den;
      return Number(r < 1n ? 1n : r);
    };
    expect(values).toEqual(percentiles.map((p) => sorted[rank(p) - 1]));
  });
});
