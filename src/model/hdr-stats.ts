/**
 * Statistics of a SparseHistogram, reproducing HdrHistogram 2.2.2's AbstractHistogram getters
 * (getValueAtPercentile, getMean, getStdDeviation, getMinValue, getMaxValue) and Histogram.add,
 * plus 2.1.4's percentile rule (what YCSB 0.17 printed).
 *
 * Java walks the whole counts array; skipping empty buckets changes nothing, since a running count
 * only moves at non-empty ones. Floating-point steps follow Java's order of operations exactly
 * (Java's double arithmetic is IEEE 754 like JS), which is what makes the results bit-identical.
 */
import { hdrLayout, samePrecision, type HdrLayout } from './hdr-layout.ts';
import type { HdrPrecision, SparseHistogram } from './types.ts';

/** A histogram together with the precision that defines its bucket grid. */
export interface PrecisionHistogram {
  precision: HdrPrecision;
  histogram: SparseHistogram;
}

export function emptyHistogram(): SparseHistogram {
  return { lo: new Float64Array(0), width: new Float64Array(0), count: new Float64Array(0), totalCount: 0 };
}

/**
 * Bucket-wise sum (Java Histogram.add of each in turn). All histograms must share one precision,
 * otherwise their buckets do not line up: throws RangeError.
 */
export function addHistograms(list: readonly PrecisionHistogram[]): SparseHistogram {
  const first = list[0];
  if (first === undefined) return emptyHistogram();
  const layout = hdrLayout(first.precision);
  let buckets = 0;
  let maxIndex = -1;
  for (const item of list) {
    if (!samePrecision(item.precision, first.precision)) {
      throw new RangeError(
        `cannot add histograms of different precision (${describe(first.precision)} vs ${describe(item.precision)})`,
      );
    }
    const n = item.histogram.lo.length;
    buckets += n;
    if (n > 0) maxIndex = Math.max(maxIndex, layout.countsArrayIndex(item.histogram.lo[n - 1]!));
  }
  // Summing into a counts array indexed like Java's is fastest, but its length follows the largest
  // value, not the data (millions of slots for 5 significant digits): sparse inputs over a wide
  // range are merged pairwise instead.
  return maxIndex < DENSE_MIN_LENGTH || maxIndex < DENSE_SLOTS_PER_BUCKET * buckets
    ? addDense(list, layout, maxIndex)
    : addByMerging(list);
}

const DENSE_MIN_LENGTH = 1 << 16;
const DENSE_SLOTS_PER_BUCKET = 8;

function addDense(list: readonly PrecisionHistogram[], layout: HdrLayout, maxIndex: number): SparseHistogram {
  const acc = new Float64Array(maxIndex + 1);
  let totalCount = 0;
  for (const { histogram } of list) {
    const { lo, width, count } = histogram;
    for (let i = 0; i < lo.length; i++) {
      const index = layout.countsArrayIndex(lo[i]!);
      if (index > maxIndex || width[i] !== layout.sizeOfEquivalentValueRange(lo[i]!)) {
        throw new RangeError(`bucket at ${lo[i]} (width ${width[i]}) is out of order or not a bucket of this precision`);
      }
      acc[index] = acc[index]! + count[i]!;
    }
    totalCount += histogram.totalCount;
  }
  if (totalCount > Number.MAX_SAFE_INTEGER) throw new RangeError('total count of the sum exceeds 2^53');
  let n = 0;
  for (let index = 0; index <= maxIndex; index++) if (acc[index] !== 0) n++;
  const result = { lo: new Float64Array(n), width: new Float64Array(n), count: new Float64Array(n), totalCount };
  for (let index = 0, j = 0; index <= maxIndex; index++) {
    const c = acc[index]!;
    if (c === 0) continue;
    const value = layout.valueFromIndex(index);
    result.lo[j] = value;
    result.width[j] = layout.sizeOfEquivalentValueRange(value);
    result.count[j++] = c;
  }
  return result;
}

function addByMerging(list: readonly PrecisionHistogram[]): SparseHistogram {
  let level = list.map((item) => item.histogram);
  if (level.length === 1) {
    const { lo, width, count, totalCount } = level[0]!;
    return { lo: lo.slice(), width: width.slice(), count: count.slice(), totalCount };
  }
  // Pairwise rounds: O(buckets × log(histograms)).
  while (level.length > 1) {
    const next: SparseHistogram[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const b = level[i + 1];
      next.push(b === undefined ? level[i]! : mergeTwo(level[i]!, b));
    }
    level = next;
  }
  return level[0]!;
}

function describe(p: HdrPrecision): string {
  return `${p.significantDigits} digits, lowest ${p.lowestDiscernibleValue}`;
}

function mergeTwo(a: SparseHistogram, b: SparseHistogram): SparseHistogram {
  const { lo: aLo, width: aWidth, count: aCount } = a;
  const { lo: bLo, width: bWidth, count: bCount } = b;
  const na = aLo.length;
  const nb = bLo.length;
  const lo = new Float64Array(na + nb);
  const width = new Float64Array(na + nb);
  const count = new Float64Array(na + nb);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < na || j < nb) {
    const la = i < na ? aLo[i]! : Infinity;
    const lb = j < nb ? bLo[j]! : Infinity;
    if (la < lb) {
      lo[n] = la;
      width[n] = aWidth[i]!;
      count[n] = aCount[i++]!;
    } else if (lb < la) {
      lo[n] = lb;
      width[n] = bWidth[j]!;
      count[n] = bCount[j++]!;
    } else {
      if (aWidth[i] !== bWidth[j]) throw new RangeError(`bucket at ${la} has different widths in the two histograms`);
      lo[n] = la;
      width[n] = aWidth[i]!;
      count[n] = aCount[i++]! + bCount[j++]!;
    }
    n++;
  }
  const totalCount = a.totalCount + b.totalCount;
  if (totalCount > Number.MAX_SAFE_INTEGER) throw new RangeError('total count of the sum exceeds 2^53');
  return n === na + nb
    ? { lo, width, count, totalCount }
    : { lo: lo.slice(0, n), width: width.slice(0, n), count: count.slice(0, n), totalCount };
}

const bits = new DataView(new ArrayBuffer(8));

/** Java Math.nextAfter(x, Double.NEGATIVE_INFINITY): the largest double below x. */
export function nextDown(x: number): number {
  if (Number.isNaN(x) || x === -Infinity) return x;
  if (x === 0) return -Number.MIN_VALUE;
  bits.setFloat64(0, x);
  let hi = bits.getUint32(0);
  let lo = bits.getUint32(4);
  // The bit pattern of a positive double grows with its value, that of a negative one with its
  // magnitude: one step down is -1 on the pattern for x > 0 and +1 for x < 0.
  if (x > 0) {
    if (lo === 0) hi -= 1;
    lo = (lo - 1) >>> 0;
  } else {
    lo = (lo + 1) >>> 0;
    if (lo === 0) hi += 1;
  }
  bits.setUint32(0, hi);
  bits.setUint32(4, lo);
  return bits.getFloat64(0);
}

/** Java's (long) cast of a double: truncation, NaN to 0, saturating at the long range. */
function javaLong(x: number): number {
  if (Number.isNaN(x)) return 0;
  return Math.trunc(Math.min(Math.max(x, -(2 ** 63)), 2 ** 63));
}

/** Value of the first bucket whose cumulative count reaches `rank` (highest or lowest equivalent). */
export function valueAtRank(h: SparseHistogram, rank: number, lowest = false): number {
  const { lo, width, count } = h;
  let cumulative = 0;
  for (let i = 0; i < count.length; i++) {
    cumulative += count[i]!;
    if (cumulative >= rank) return lowest ? lo[i]! : lo[i]! + width[i]! - 1;
  }
  return 0;
}

/**
 * HdrHistogram 2.2.2 getValueAtPercentile: the highest value equivalent to the
 * ⌈percentile/100 × count⌉-th smallest value (at least the first), computed from one ulp below the
 * requested percentile; the lowest equivalent value for percentile 0; 0 when empty.
 */
export function valueAtPercentile(h: SparseHistogram, percentile: number): number {
  return valueAtRank(h, countAtPercentile(h.totalCount, percentile), percentile === 0);
}

/** The rank getValueAtPercentile reads: ⌈(nextDown(p) × count) / 100⌉ in doubles, in that order, at least 1. */
export function countAtPercentile(totalCount: number, percentile: number): number {
  const requested = Math.min(Math.max(nextDown(percentile), 0), 100);
  return Math.max(javaLong(Math.ceil((requested * totalCount) / 100)), 1);
}

/** HdrHistogram 2.1.4 getValueAtPercentile: target count rounded to nearest, `(long)(p/100 × count + 0.5)`. */
export function valueAtPercentileHdr214(h: SparseHistogram, percentile: number): number {
  const requested = Math.min(percentile, 100);
  const countAtPercentile = Math.max(javaLong((requested / 100) * h.totalCount + 0.5), 1);
  return valueAtRank(h, countAtPercentile, percentile === 0);
}

/** Java medianEquivalentValue of a bucket: lowest + (size >> 1). */
function median(lo: number, width: number): number {
  return lo + Math.floor(width / 2);
}

/** getMean: mean of bucket mid-points weighted by count; 0 when empty. */
export function mean(h: SparseHistogram): number {
  if (h.totalCount === 0) return 0;
  const { lo, width, count } = h;
  let totalValue = 0;
  for (let i = 0; i < count.length; i++) totalValue += median(lo[i]!, width[i]!) * count[i]!;
  return totalValue / h.totalCount;
}

/** getStdDeviation: population standard deviation of bucket mid-points; 0 when empty. */
export function stdDeviation(h: SparseHistogram): number {
  if (h.totalCount === 0) return 0;
  const m = mean(h);
  const { lo, width, count } = h;
  let geometricDeviationTotal = 0;
  for (let i = 0; i < count.length; i++) {
    const deviation = median(lo[i]!, width[i]!) - m;
    geometricDeviationTotal += deviation * deviation * count[i]!;
  }
  return Math.sqrt(geometricDeviationTotal / h.totalCount);
}

/**
 * getMinValue: 0 when empty or when the bucket of 0 has counts, else the lowest equivalent value of
 * the lowest non-empty bucket. Both cases are `lo` of the first bucket.
 */
export function min(h: SparseHistogram): number {
  return h.lo.length === 0 ? 0 : h.lo[0]!;
}

/**
 * getMaxValue: the highest equivalent value of the highest non-empty bucket, 0 when empty. (Java
 * returns 2^unitMagnitude - 1 instead of 0 for an empty histogram that was *decoded* with
 * lowestDiscernibleValue >= 2, an artefact of its internal max tracking; a fresh one gives 0.)
 */
export function max(h: SparseHistogram): number {
  const n = h.lo.length;
  return n === 0 ? 0 : h.lo[n - 1]! + h.width[n - 1]! - 1;
}
