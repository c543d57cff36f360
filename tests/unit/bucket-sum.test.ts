import { describe, expect, it } from 'vitest';
import { prng } from '../../scripts/generate-data.ts';
import { BucketSum, bucketColumns, indexedColumns, inOrder, mergeAllInOrder, mergeInOrder, valuesInOrder } from '../../src/engine/bucket-sum.ts';
import { hdrLayout, HdrLayout } from '../../src/model/hdr-layout.ts';
import type { HdrPrecision } from '../../src/model/types.ts';

/** Sums by a different method: a Map keyed by the bucket's text. */
function reference(batches: { lo: number[]; width: number[] | null; n: number[] }[]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const b of batches) {
    b.lo.forEach((lo, i) => {
      const n = b.n[i] as number;
      if (n === 0) return;
      const key = `${lo}/${b.width ? b.width[i] : 1}`;
      sums.set(key, (sums.get(key) ?? 0) + n);
    });
  }
  return sums;
}

function drained(sum: BucketSum): Map<string, number> {
  const { columns, length } = sum.drain(bucketColumns(4));
  const out = new Map<string, number>();
  for (let k = 0; k < length; k++) {
    const key = `${columns.lo[k]}/${columns.width[k]}`;
    expect(out.has(key), `${key} drained twice`).toBe(false);
    out.set(key, columns.n[k] as number);
  }
  return out;
}

describe('BucketSum', () => {
  const precisions: (HdrPrecision | null)[] = [null, { significantDigits: 2, lowestDiscernibleValue: 1 }, { significantDigits: 3, lowestDiscernibleValue: 1000 }];
  for (const precision of precisions) {
    it(`sums what a Map sums (dense precision: ${precision ? JSON.stringify(precision) : 'none'})`, () => {
      const rand = prng(precision ? precision.significantDigits * 7 + precision.lowestDiscernibleValue : 3);
      const layouts = [new HdrLayout({ significantDigits: 2, lowestDiscernibleValue: 1 }), new HdrLayout({ significantDigits: 3, lowestDiscernibleValue: 1000 })];
      const sum = new BucketSum();
      for (let round = 0; round < 6; round++) {
        sum.usePrecision(precision);
        const batches = Array.from({ length: 1 + Math.floor(rand() * 30) }, () => {
          const size = Math.floor(rand() * 400);
          const lo: number[] = [];
          const width: number[] = [];
          for (let i = 0; i < size; i++) {
            const kind = rand();
            const value = Math.floor(rand() ** 4 * (kind < 0.05 ? 2 ** 53 : 5e6));
            if (kind < 0.8) {
              // A bucket of either precision: the dense one's, or one that must go to the table.
              const layout = layouts[Math.floor(rand() * 2)] as HdrLayout;
              const bucketLo = layout.lowestEquivalentValue(Math.min(value, 2 ** 52));
              lo.push(bucketLo);
              width.push(layout.sizeOfEquivalentValueRange(bucketLo));
            } else {
              // Not a bucket of any layout: an unaligned bound, an exact value, a fraction.
              lo.push(kind < 0.9 ? value + 0.5 : value);
              width.push(kind < 0.95 ? 1 : 2 ** Math.floor(rand() * 8));
            }
          }
          const n = lo.map(() => (rand() < 0.05 ? 0 : 1 + Math.floor(rand() * 1000)));
          return { lo, width: rand() < 0.1 ? null : width, n };
        });
        for (const b of batches) {
          const offset = Math.floor(rand() * 3);
          const pad = (xs: number[]) => Float64Array.from([...Array<number>(offset).fill(-1), ...xs]);
          sum.add(pad(b.lo), b.width ? pad(b.width) : null, pad(b.n), offset, offset + b.lo.length);
        }
        const want = reference(batches);
        expect(sum.size).toBe(want.size);
        expect(drained(sum)).toEqual(want);
        expect(sum.size).toBe(0);
      }
    });
  }

  it('sums buckets given by counts index as it sums their bounds, whatever precision it sums in', () => {
    const rand = prng(11);
    const indexedIn = new HdrLayout({ significantDigits: 2, lowestDiscernibleValue: 1 });
    for (const precision of [indexedIn.precision, { significantDigits: 3, lowestDiscernibleValue: 1000 }, null]) {
      const byIndex = new BucketSum();
      const byBounds = new BucketSum();
      byIndex.usePrecision(precision);
      byBounds.usePrecision(precision);
      // The layout object the sum uses for its own precision, or another one: both paths.
      const layout = precision === indexedIn.precision ? hdrLayout(precision) : indexedIn;
      for (let batch = 0; batch < 20; batch++) {
        // Later batches reach indices beyond the dense array's first size (4096), so that it grows
        // while it holds the earlier batches' sums.
        const top = batch < 10 ? 2000 : layout.exactIndexLimit;
        const index = Int32Array.from({ length: 2 + Math.floor(rand() * 300) }, () => Math.floor(rand() * top));
        const n = Float64Array.from(index, () => (rand() < 0.05 ? 0 : 1 + Math.floor(rand() * 50)));
        const start = Math.floor(rand() * 2);
        byIndex.addIndexed(layout, index, n, start, index.length);
        const bounds = bucketColumns(index.length);
        layout.bucketBounds(index, 0, index.length, bounds.lo, bounds.width, 0);
        byBounds.add(bounds.lo, bounds.width, n, start, index.length);
        // A value that is not a bucket of the indexed precision, between the indexed ones.
        byIndex.add(Float64Array.of(3.5), null, Float64Array.of(1), 0, 1);
        byBounds.add(Float64Array.of(3.5), null, Float64Array.of(1), 0, 1);
      }
      expect(drained(byIndex)).toEqual(drained(byBounds));
    }
  });

  it('drains buckets of its precision by counts index, and refuses when it holds others', () => {
    const layout = hdrLayout({ significantDigits: 2, lowestDiscernibleValue: 1 });
    const sum = new BucketSum();
    sum.usePrecision(layout.precision);
    sum.addIndexed(layout, Int32Array.of(5, 300, 5), Float64Array.of(1, 2, 3), 0, 3);
    // Bounds of a bucket of the precision land in the same slot as its index.
    sum.add(Float64Array.of(layout.valueFromIndex(300)), Float64Array.of(layout.sizeOfEquivalentValueRange(layout.valueFromIndex(300))), Float64Array.of(10), 0, 1);
    const { columns, length } = sum.drainIndexed(indexedColumns(1));
    const got = new Map(Array.from({ length }, (_, k) => [columns.index[k], columns.n[k]]));
    expect(got).toEqual(new Map([[5, 4], [300, 12]]));
    expect(sum.size).toBe(0);
    sum.add(Float64Array.of(3.5), null, Float64Array.of(1), 0, 1);
    expect(() => sum.drainIndexed(indexedColumns(1))).toThrow(/no counts index/);
  });

  it('keeps sums by counts index across the growth of its dense array, at its very end too', () => {
    const layout = hdrLayout({ significantDigits: 3, lowestDiscernibleValue: 1000 });
    const sum = new BucketSum();
    sum.usePrecision(layout.precision);
    // The dense array starts at 4096 slots: 4095 is its last, 4096 and 8192 each the first past an end.
    sum.addIndexed(layout, Int32Array.of(5, 4095), Uint32Array.of(1, 2), 0, 2);
    sum.addIndexed(layout, Int32Array.of(4096, 4096, 5), Uint32Array.of(3, 4, 5), 0, 3);
    sum.addIndexed(layout, Int32Array.of(8192, 4095), Float64Array.of(6, 7), 0, 2);
    expect(sum.total).toBe(28);
    const { columns, length } = sum.drainIndexed(indexedColumns(1));
    const got = new Map(Array.from({ length }, (_, k) => [columns.index[k], columns.n[k]]));
    expect(got).toEqual(new Map([[5, 6], [4095, 9], [4096, 7], [8192, 6]]));
  });

  it('drains in ascending lo when every bucket is of its precision, and declines otherwise', () => {
    const layout = hdrLayout({ significantDigits: 2, lowestDiscernibleValue: 1 });
    const sum = new BucketSum();
    sum.usePrecision(layout.precision);
    const index = Int32Array.from([900, 3, 511, 256, 3, 40, 700]);
    sum.addIndexed(layout, index, Float64Array.from(index, (_, i) => i + 1), 0, index.length);
    expect(sum.total).toBe(28);
    const sorted = sum.drainSorted(bucketColumns(1));
    const lo = [...(sorted?.columns.lo.subarray(0, sorted.length) ?? [])];
    expect(lo).toEqual([3, 40, 256, 511, 700, 900].map((k) => layout.valueFromIndex(k)));
    expect([...(sorted?.columns.n.subarray(0, sorted.length) ?? [])]).toEqual([2 + 5, 6, 4, 3, 7, 1]);
    expect([sum.size, sum.total]).toEqual([0, 0]);
    sum.add(Float64Array.of(3.5), null, Float64Array.of(1), 0, 1);
    expect(sum.drainSorted(bucketColumns(1))).toBeNull();
    expect(sum.size).toBe(1);
  });

  it('refuses a new precision while it holds buckets', () => {
    const sum = new BucketSum();
    sum.add(Float64Array.of(1), null, Float64Array.of(1), 0, 1);
    expect(() => sum.usePrecision({ significantDigits: 2, lowestDiscernibleValue: 1 })).toThrow(/only between sums/);
  });
});

describe('histograms in order', () => {
  /** Buckets of kinds that take each path: small whole values (dense), fractions, ns-sized values, one value in two widths. */
  function batch(rand: () => number, size: number): { lo: Float64Array; width: Float64Array; n: Float64Array } {
    const lo = new Float64Array(size);
    const width = new Float64Array(size);
    const n = new Float64Array(size);
    for (let i = 0; i < size; i++) {
      const kind = Math.floor(rand() * 4);
      lo[i] = kind === 0 ? Math.floor(rand() * 500) : kind === 1 ? Math.floor(rand() * 50) + 0.5 : kind === 2 ? 1e9 + Math.floor(rand() * 300) : Math.floor(rand() * 40) * 4;
      width[i] = kind === 3 ? (rand() < 0.5 ? 4 : 1) : 1;
      n[i] = Math.floor(rand() * 3);
    }
    return { lo, width, n };
  }
  const inOrderOf = (sums: Map<string, number>) =>
    [...sums]
      .map(([key, n]) => [...key.split('/').map(Number), n] as [number, number, number])
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const rows = (h: { lo: Float64Array; width: Float64Array; count: Float64Array }) => [...h.lo].map((lo, i) => [lo, h.width[i], h.count[i]]);

  it('a sum drained in order is ascending lo, the narrower bucket of a value first, without empty buckets', () => {
    const rand = prng(7);
    for (const size of [0, 1, 30, 2000]) {
      const b = batch(rand, size);
      const sum = new BucketSum();
      sum.add(b.lo, b.width, b.n, 0, size);
      const h = sum.drainInOrder();
      const expected = inOrderOf(reference([{ lo: [...b.lo], width: [...b.width], n: [...b.n] }]));
      expect(rows(h)).toEqual(expected);
      expect(h.totalCount).toBe(b.n.reduce((a, c) => a + c, 0));
      expect(h.lo.length).toBe(expected.length);
    }
  });

  it('merging histograms in order gives what summing their buckets gives', () => {
    const rand = prng(11);
    for (let trial = 0; trial < 20; trial++) {
      const batches = Array.from({ length: 1 + Math.floor(rand() * 5) }, () => batch(rand, Math.floor(rand() * 400)));
      const each = batches.map((b) => {
        const sum = new BucketSum();
        sum.add(b.lo, b.width, b.n, 0, b.lo.length);
        return sum.drainInOrder();
      });
      const merged = trial % 2 ? mergeAllInOrder(each) : each.reduce((a, b) => mergeInOrder(a, b));
      expect(rows(merged)).toEqual(inOrderOf(reference(batches.map((b) => ({ lo: [...b.lo], width: [...b.width], n: [...b.n] })))));
      expect(merged.totalCount).toBe(each.reduce((a, h) => a + h.totalCount, 0));
    }
  });

  it('valuesInOrder sums exact values as a BucketSum drained in order does, repeated values, -0 and zero counts too', () => {
    const rand = prng(29);
    for (const size of [0, 1, 7, 5000]) {
      const b = batch(rand, size);
      // Exact values only (width 1); some repeated, some -0.
      const values = Float64Array.from(b.lo, (v, i) => (i % 97 === 5 ? -0 : i % 11 === 3 ? (b.lo[i - 1] ?? v) : v));
      const sum = new BucketSum();
      sum.add(values, null, b.n, 0, size);
      const hashed = sum.drainInOrder();
      const sorted = valuesInOrder(values, b.n);
      expect(rows(sorted)).toEqual(rows(hashed));
      expect(sorted.totalCount).toBe(hashed.totalCount);
      expect(rows(sorted)).toEqual(inOrderOf(reference([{ lo: [...values].map((v) => v + 0), width: null, n: [...b.n] }])));
    }
  });

  it('inOrder orders any buckets so', () => {
    const rand = prng(13);
    const b = batch(rand, 3000);
    const h = inOrder(b, 100, 2500);
    const slice = { lo: [...b.lo.subarray(100, 2500)], width: [...b.width.subarray(100, 2500)], n: [...b.n.subarray(100, 2500)] };
    // One bucket per (lo, width) here only after summing: compare with the sum, row for row where unique.
    const summed = inOrderOf(reference([slice]));
    expect(new Set(rows(h).map(([lo, w]) => `${lo}/${w}`))).toEqual(new Set(summed.map(([lo, w]) => `${lo}/${w}`)));
    for (let i = 1; i < h.lo.length; i++) expect(h.lo[i - 1]! < h.lo[i]! || (h.lo[i - 1] === h.lo[i] && h.width[i - 1]! <= h.width[i]!)).toBe(true);
  });
});
