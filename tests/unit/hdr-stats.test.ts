import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeHistogram, type DecodedHistogram } from '../../src/model/hdr-codec.ts';
import {
  addHistograms,
  max,
  mean,
  min,
  nextDown,
  stdDeviation,
  valueAtPercentile,
  valueAtPercentileHdr214,
} from '../../src/model/hdr-stats.ts';
import { hdrLayout } from '../../src/model/hdr-layout.ts';
import type { HdrPrecision, SparseHistogram } from '../../src/model/types.ts';

const CORPUS = join(import.meta.dirname, '..', 'fixtures', 'corpus');
const PERCENTILES = { p50: 50, p90: 90, p95: 95, p99: 99, 'p99.9': 99.9, 'p99.99': 99.99 } as const;
type PercentileKey = keyof typeof PERCENTILES;

interface Figures extends Record<PercentileKey, number> {
  count: number;
  mean: number;
  stddev: number;
  min: number;
  max: number;
}
interface ClientFigures extends Figures {
  file: string;
  intervals: number;
  hdr214Percentiles: Record<PercentileKey, number>;
}
interface OpOracle {
  merged: Figures;
  perClient: ClientFigures[];
  maxClientP95: number;
  maxClientP99: number;
}
interface RunOracle {
  run: string;
  dir: string;
  measurement: 'hdr' | 'raw';
  ops: Record<string, OpOracle>;
}
interface TaggedOracle {
  file: string;
  intervals: number;
  perTag: Record<string, Figures>;
}

const expected = JSON.parse(readFileSync(join(CORPUS, 'expected.json'), 'utf8')) as Record<
  string,
  { runs?: RunOracle[]; taggedLog?: TaggedOracle }
>;

/** Data lines of an interval log as [tag, base64 histogram] (tag '' when untagged). */
function logBlobs(path: string): [string, string][] {
  const out: [string, string][] = [];
  for (const line of readFileSync(join(CORPUS, path), 'utf8').split(/\r?\n/)) {
    if (line === '' || line.startsWith('#') || line.startsWith('"')) continue;
    const tag = line.startsWith('Tag=') ? line.slice(4, line.indexOf(',')) : '';
    out.push([tag, line.slice(line.lastIndexOf(',') + 1)]);
  }
  return out;
}

function relativeClose(actual: number, wanted: number): boolean {
  return actual === wanted || Math.abs(actual - wanted) <= 1e-9 * Math.abs(wanted);
}

/** Compares every oracle figure at once, so a failure lists all differing ones. */
function expectFigures(h: SparseHistogram, want: Figures, what: string): void {
  const got: Record<string, number | boolean> = {
    count: h.totalCount,
    min: min(h),
    max: max(h),
    meanClose: relativeClose(mean(h), want.mean),
    stddevClose: relativeClose(stdDeviation(h), want.stddev),
  };
  const wanted: Record<string, number | boolean> = {
    count: want.count,
    min: want.min,
    max: want.max,
    meanClose: true,
    stddevClose: true,
  };
  for (const [key, p] of Object.entries(PERCENTILES)) {
    got[key] = valueAtPercentile(h, p);
    wanted[key] = want[key as PercentileKey];
  }
  expect(got, what).toEqual(wanted);
}

const hdrRuns = Object.entries(expected).flatMap(([scenario, s]) =>
  (s.runs ?? []).filter((r) => r.measurement === 'hdr').map((r) => ({ scenario, run: r })),
);

describe('HdrHistogram 2.2.2 figures of the YCSB corpus (expected.json)', () => {
  it('covers every hdr run and every op of the oracle', () => {
    const ops = new Set(hdrRuns.flatMap(({ run }) => Object.keys(run.ops)));
    expect([...ops].sort()).toEqual(
      ['CLEANUP', 'Intended-CLEANUP', 'Intended-READ', 'Intended-UPDATE', 'READ', 'READ-FAILED', 'UPDATE', 'UPDATE-FAILED'],
    );
    expect(hdrRuns.length).toBe(9);
  });

  for (const { scenario, run } of hdrRuns) {
    for (const [op, oracle] of Object.entries(run.ops)) {
      it(`${scenario}/${run.run} ${op}: per client, merged, max of clients`, () => {
        const perFile: DecodedHistogram[][] = [];
        const clientP95: number[] = [];
        const clientP99: number[] = [];
        for (const client of oracle.perClient) {
          const blobs = logBlobs(join(run.dir, client.file));
          expect(blobs.length, client.file).toBe(client.intervals);
          const decoded = blobs.map(([, blob]) => decodeHistogram(blob));
          perFile.push(decoded);
          const sum = addHistograms(decoded);
          expectFigures(sum, client, `${run.dir}/${client.file}`);
          const hdr214: Record<string, number> = {};
          for (const [key, p] of Object.entries(PERCENTILES)) hdr214[key] = valueAtPercentileHdr214(sum, p);
          expect(hdr214, `${client.file} 2.1.4 percentiles`).toEqual(client.hdr214Percentiles);
          clientP95.push(valueAtPercentile(sum, 95));
          clientP99.push(valueAtPercentile(sum, 99));
        }
        expectFigures(addHistograms(perFile.flat()), oracle.merged, `${run.dir} ${op} merged`);
        expect(Math.max(...clientP95)).toBe(oracle.maxClientP95);
        expect(Math.max(...clientP99)).toBe(oracle.maxClientP99);
      });
    }
  }

  it('tagged log (V2 blobs written by 2.2.2): figures per tag', () => {
    const tagged = expected['tagged-from-sweep']!.taggedLog!;
    const byTag = new Map<string, DecodedHistogram[]>();
    const blobs = logBlobs(tagged.file);
    expect(blobs.length).toBe(tagged.intervals);
    for (const [tag, blob] of blobs) {
      expect(blob.startsWith('HISTF')).toBe(true);
      byTag.set(tag, [...(byTag.get(tag) ?? []), decodeHistogram(blob)]);
    }
    expect([...byTag.keys()].sort()).toEqual(Object.keys(tagged.perTag).sort());
    for (const [tag, want] of Object.entries(tagged.perTag)) {
      expectFigures(addHistograms(byTag.get(tag)!), want, `tag ${tag}`);
    }
  });
});

/** Values 1..n recorded once each (all in single-value buckets). */
function ramp(n: number): SparseHistogram {
  return {
    lo: Float64Array.from({ length: n }, (_, i) => i + 1),
    width: new Float64Array(n).fill(1),
    count: new Float64Array(n).fill(1),
    totalCount: n,
  };
}

function sparse(buckets: [lo: number, width: number, count: number][]): SparseHistogram {
  return {
    lo: Float64Array.from(buckets, (b) => b[0]),
    width: Float64Array.from(buckets, (b) => b[1]),
    count: Float64Array.from(buckets, (b) => b[2]),
    totalCount: buckets.reduce((s, b) => s + b[2], 0),
  };
}

const P3 = { significantDigits: 3, lowestDiscernibleValue: 1 };

describe('nextDown', () => {
  it('steps to the adjacent double below, across special cases', () => {
    expect(nextDown(1)).toBe(1 - 2 ** -53);
    expect(nextDown(2)).toBe(2 - 2 ** -52);
    expect(nextDown(-1)).toBe(-1 - 2 ** -52);
    expect(nextDown(0)).toBe(-Number.MIN_VALUE);
    expect(nextDown(-0)).toBe(-Number.MIN_VALUE);
    expect(nextDown(Number.MIN_VALUE)).toBe(0);
    expect(nextDown(2 ** -1022)).toBe(2 ** -1022 - Number.MIN_VALUE);
    expect(nextDown(Infinity)).toBe(Number.MAX_VALUE);
    expect(nextDown(-Number.MAX_VALUE)).toBe(-Infinity);
    expect(nextDown(-Infinity)).toBe(-Infinity);
    expect(nextDown(NaN)).toBeNaN();
    // Carry across the 32-bit halves of the bit pattern.
    expect(nextDown(2 ** 32 + 1 - 2 ** -20)).toBe(2 ** 32 + 1 - 2 ** -20 - 2 ** -20);
    expect(nextDown(1 + 2 ** -20)).toBe(1 + 2 ** -20 - 2 ** -52);
  });

  it('leaves no double between nextDown(x) and x', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, min: -Number.MAX_VALUE, max: Number.MAX_VALUE }), (x) => {
        const below = nextDown(x);
        expect(below).toBeLessThan(x);
        const mid = below / 2 + x / 2;
        expect(mid === below || mid === x).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('percentiles', () => {
  it('2.2.2: ⌈p/100 × n⌉-th value computed from one ulp below p, highest equivalent value', () => {
    const h = ramp(10);
    expect(valueAtPercentile(h, 94)).toBe(10);
    expect(valueAtPercentile(h, 90)).toBe(9);
    expect(valueAtPercentile(h, 100)).toBe(10);
    expect(valueAtPercentile(h, 150)).toBe(10);
    expect(valueAtPercentile(h, -5)).toBe(1);
    expect(valueAtPercentile(h, NaN)).toBe(1);
    expect(valueAtPercentile(sparse([[2048, 2, 1], [4096, 4, 1]]), 50)).toBe(2049);
    expect(valueAtPercentile(sparse([[2048, 2, 1], [4096, 4, 1]]), 0)).toBe(2048);
    expect(valueAtPercentile(sparse([]), 50)).toBe(0);
  });

  it('2.2.2: the one-ulp rule keeps the rank at 161 where 64.4 × 250 / 100 rounds to 161.00000000000003', () => {
    expect((64.4 * 250) / 100).toBeGreaterThan(161);
    expect(valueAtPercentile(ramp(250), 64.4)).toBe(161);
    expect(valueAtPercentile(ramp(375), 8.8)).toBe(33);
    // Java multiplies before dividing: with 7 values and a request one ulp above 100/7, the count
    // is (100/7 × 7) / 100 = 1, where 100/7 / 100 × 7 would give 1.0000000000000002 (rank 2).
    const p = 100 / 7 + 2 ** -49;
    expect(nextDown(p)).toBe(100 / 7);
    expect(valueAtPercentile(ramp(7), p)).toBe(1);
    // The 2.1.4 rule has no such correction but rounds to nearest instead.
    expect(valueAtPercentileHdr214(ramp(250), 64.4)).toBe(161);
  });

  it('2.1.4: target count rounded to nearest', () => {
    const h = ramp(10);
    expect(valueAtPercentileHdr214(h, 94)).toBe(9);
    expect(valueAtPercentileHdr214(h, 95)).toBe(10);
    expect(valueAtPercentileHdr214(h, 4)).toBe(1);
    expect(valueAtPercentileHdr214(h, 0)).toBe(1);
    expect(valueAtPercentileHdr214(h, 250)).toBe(10);
    expect(valueAtPercentileHdr214(sparse([[2048, 2, 3]]), 0)).toBe(2048);
    expect(valueAtPercentileHdr214(sparse([[2048, 2, 3]]), 10)).toBe(2049);
    expect(valueAtPercentileHdr214(sparse([]), 99)).toBe(0);
  });
});

describe('mean, standard deviation, min, max', () => {
  it('use bucket mid-points (lowest + width / 2 rounded down)', () => {
    const h = sparse([
      [0, 1, 1],
      [2048, 2, 3],
      [1048576, 1024, 2],
    ]);
    const m = (0 * 1 + 2049 * 3 + 1049088 * 2) / 6;
    expect(mean(h)).toBe(m);
    const sq = (0 - m) ** 2 * 1 + (2049 - m) ** 2 * 3 + (1049088 - m) ** 2 * 2;
    expect(stdDeviation(h)).toBe(Math.sqrt(sq / 6));
    expect(min(h)).toBe(0);
    expect(max(h)).toBe(1048576 + 1023);
  });

  it('min is the lowest equivalent value of the lowest non-empty bucket; empty histograms give 0', () => {
    expect(min(sparse([[2048, 2, 1]]))).toBe(2048);
    expect(min(sparse([[5, 1, 1], [9, 1, 4]]))).toBe(5);
    const empty = sparse([]);
    expect([min(empty), max(empty), mean(empty), stdDeviation(empty)]).toEqual([0, 0, 0, 0]);
  });
});

describe('addHistograms', () => {
  it('sums counts bucket by bucket, in value order', () => {
    const a = sparse([[1, 1, 2], [2048, 2, 1]]);
    const b = sparse([[0, 1, 1], [2048, 2, 4], [4096, 4, 1]]);
    const c = sparse([[3, 1, 7]]);
    const sum = addHistograms([a, b, c].map((histogram) => ({ precision: P3, histogram })));
    expect(sum).toEqual(sparse([[0, 1, 1], [1, 1, 2], [3, 1, 7], [2048, 2, 5], [4096, 4, 1]]));
    expect(a).toEqual(sparse([[1, 1, 2], [2048, 2, 1]]));
  });

  it('gives an independent copy for one histogram and an empty one for none', () => {
    const a = sparse([[1, 1, 2]]);
    const sum = addHistograms([{ precision: P3, histogram: a }]);
    expect(sum).toEqual(a);
    sum.count[0] = 99;
    expect(a.count[0]).toBe(2);
    expect(addHistograms([])).toEqual(sparse([]));
  });

  /** Random histograms of a precision (values snapped to buckets) and their sum by a plain Map. */
  function randomSums(precision: HdrPrecision, maxValue: number): void {
    const layout = hdrLayout(precision);
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: 0, max: maxValue }), { maxLength: 30 }), { maxLength: 12 }), (lists) => {
        const histograms = lists.map((values) => {
          const counts = new Map<number, number>();
          for (const v of values) {
            const lo = layout.lowestEquivalentValue(v);
            counts.set(lo, (counts.get(lo) ?? 0) + (v % 7) + 1);
          }
          return sparse([...counts.keys()].sort((x, y) => x - y).map((lo) => [lo, layout.sizeOfEquivalentValueRange(lo), counts.get(lo)!]));
        });
        const want = new Map<number, number>();
        for (const h of histograms) h.lo.forEach((lo, i) => want.set(lo, (want.get(lo) ?? 0) + h.count[i]!));
        const keys = [...want.keys()].sort((x, y) => x - y);
        const sum = addHistograms(histograms.map((histogram) => ({ precision, histogram })));
        expect(sum).toEqual(sparse(keys.map((lo) => [lo, layout.sizeOfEquivalentValueRange(lo), want.get(lo)!])));
      }),
      { numRuns: 200 },
    );
  }

  it('agrees with a plain sum: compact value ranges (summed in a counts array)', () => {
    randomSums(P3, 100_000);
  });

  it('agrees with a plain sum: few buckets spread over a huge range (merged pairwise)', () => {
    randomSums({ significantDigits: 5, lowestDiscernibleValue: 1 }, 2 ** 53 - 1);
  });

  it('refuses histograms of different precision, mismatched buckets and totals beyond 2^53', () => {
    const a = { precision: P3, histogram: sparse([[1, 1, 1]]) };
    expect(() => addHistograms([a, { precision: { significantDigits: 2, lowestDiscernibleValue: 1 }, histogram: sparse([]) }])).toThrow(
      RangeError,
    );
    expect(() => addHistograms([a, { precision: { significantDigits: 3, lowestDiscernibleValue: 1000 }, histogram: sparse([]) }])).toThrow(
      /different precision/,
    );
    expect(() => addHistograms([a, { precision: P3, histogram: sparse([[1, 2, 1]]) }])).toThrow(/not a bucket/);
    expect(() => addHistograms([a, { precision: P3, histogram: sparse([[9, 1, 1], [5, 1, 1]]) }])).toThrow(/out of order/);
    const big = { precision: P3, histogram: sparse([[1, 1, 2 ** 52]]) };
    expect(() => addHistograms([big, big])).toThrow(/2\^53/);
    const P5 = { significantDigits: 5, lowestDiscernibleValue: 1 };
    const far = { precision: P5, histogram: sparse([[2 ** 50, 2 ** 33, 2 ** 52]]) };
    expect(() => addHistograms([far, far])).toThrow(/2\^53/);
    const one = addHistograms([far]);
    expect(one).toEqual(far.histogram);
    expect(one.count).not.toBe(far.histogram.count);
    expect(() => addHistograms([far, { precision: P5, histogram: sparse([[2 ** 50, 2 ** 32, 1]]) }])).toThrow(/widths/);
  });

});
