/**
 * HdrHistogram bucket arithmetic, reproducing org.HdrHistogram.AbstractHistogram (2.2.2) exactly.
 *
 * Java works on 64-bit longs with shifts and Long.numberOfLeadingZeros; here values are JS numbers,
 * which are exact integers only below 2^53, and JS bit operators truncate to 32 bits. So shifts by
 * more than 31 become multiplications/divisions by exact powers of two (exact in binary floating
 * point), and the leading-zero count becomes a bit length computed in two 32-bit halves. Every
 * function here is exact for values up to Number.MAX_SAFE_INTEGER; callers keep data below that
 * (see `exactIndexLimit`).
 */
import type { HdrPrecision } from './types.ts';

/**
 * The precision of a histogram whose `outputPercentileDistribution` footer says `SubBuckets=`:
 * HdrHistogram sizes sub-buckets as 2^ceil(log2(2 × 10^digits)), so invert that. The
 * lowest discernible value is not printed; 1 is Java's default.
 */
export function precisionFromSubBuckets(subBuckets: number): HdrPrecision | null {
  for (let digits = 0; digits <= 5; digits++) {
    if (2 ** Math.ceil(Math.log2(2 * 10 ** digits)) === subBuckets) return { significantDigits: digits, lowestDiscernibleValue: 1 };
  }
  return null;
}

/** 2^k for k = 0..63, so that shifts wider than 31 bits stay exact. */
const POW2: Float64Array = (() => {
  const t = new Float64Array(64);
  for (let k = 0; k < 64; k++) t[k] = 2 ** k;
  return t;
})();

/** Number of bits needed to write a non-negative integer below 2^64 (Java: 64 - numberOfLeadingZeros). */
function bitLength(value: number): number {
  if (value < 4294967296) return 32 - Math.clz32(value);
  return 64 - Math.clz32(Math.floor(value / 4294967296));
}

export class HdrLayout {
  readonly unitMagnitude: number;
  readonly subBucketCountMagnitude: number;
  readonly subBucketHalfCountMagnitude: number;
  readonly subBucketCount: number;
  readonly subBucketHalfCount: number;
  /** (subBucketCount - 1) << unitMagnitude; exact as a number even when wider than 53 bits. */
  readonly subBucketMask: number;
  /**
   * Indices below this one hold only values whose whole bucket is at most Number.MAX_SAFE_INTEGER,
   * i.e. whose lowest/highest equivalent values are exact numbers. Data beyond it is refused.
   */
  readonly exactIndexLimit: number;
  /** 2^k table shared with hot loops elsewhere (the decoder inlines valueFromIndex). */
  readonly pow2: Float64Array = POW2;

  constructor(readonly precision: HdrPrecision) {
    const { significantDigits, lowestDiscernibleValue } = precision;
    if (!Number.isInteger(significantDigits) || significantDigits < 0 || significantDigits > 5) {
      throw new RangeError(`numberOfSignificantValueDigits must be between 0 and 5 (got ${significantDigits})`);
    }
    if (!Number.isSafeInteger(lowestDiscernibleValue) || lowestDiscernibleValue < 1) {
      throw new RangeError(
        `lowestDiscernibleValue must be an integer between 1 and 2^53-1 (got ${lowestDiscernibleValue})`,
      );
    }
    // Java derives both magnitudes through floating-point logarithms, not exact bit counts; for
    // lowestDiscernibleValue = 2^k - 1 with k >= 48 that rounds up to k. Same formula, same result
    // (checked against the JVM for every such k).
    const largestValueWithSingleUnitResolution = 2 * 10 ** significantDigits;
    this.unitMagnitude = Math.trunc(Math.log(lowestDiscernibleValue) / Math.log(2));
    this.subBucketCountMagnitude = Math.ceil(Math.log(largestValueWithSingleUnitResolution) / Math.log(2));
    this.subBucketHalfCountMagnitude = this.subBucketCountMagnitude - 1;
    this.subBucketCount = 2 ** this.subBucketCountMagnitude;
    this.subBucketHalfCount = this.subBucketCount / 2;
    this.subBucketMask = (this.subBucketCount - 1) * POW2[this.unitMagnitude]!;
    if (this.subBucketCountMagnitude + this.unitMagnitude > 62) {
      throw new RangeError('Cannot represent numberOfSignificantValueDigits worth of values beyond lowestDiscernibleValue');
    }
    this.exactIndexLimit = this.countsArrayIndex(Number.MAX_SAFE_INTEGER) + 1;
  }

  /** Java getBucketIndex: leadingZeroCountBase - numberOfLeadingZeros(value | subBucketMask). */
  bucketIndex(value: number): number {
    const bits = bitLength(value);
    const base = this.unitMagnitude + this.subBucketCountMagnitude;
    return bits > base ? bits - base : 0;
  }

  countsArrayIndex(value: number): number {
    assertValue(value);
    const bucketIndex = this.bucketIndex(value);
    const subBucketIndex = Math.floor(value / POW2[bucketIndex + this.unitMagnitude]!);
    return ((bucketIndex + 1) << this.subBucketHalfCountMagnitude) + (subBucketIndex - this.subBucketHalfCount);
  }

  /** Lowest value of the bucket at `index` (Java valueFromIndex). */
  valueFromIndex(index: number): number {
    if (!Number.isInteger(index) || index < 0 || index >= this.exactIndexLimit) {
      throw new RangeError(`counts index ${index} outside 0..${this.exactIndexLimit - 1}`);
    }
    let bucketIndex = (index >> this.subBucketHalfCountMagnitude) - 1;
    let subBucketIndex = (index & (this.subBucketHalfCount - 1)) + this.subBucketHalfCount;
    if (bucketIndex < 0) {
      subBucketIndex -= this.subBucketHalfCount;
      bucketIndex = 0;
    }
    return subBucketIndex * POW2[bucketIndex + this.unitMagnitude]!;
  }

  /**
   * Writes the lowest value and width of the buckets at counts indices `index[start..end)` into
   * `lo` and `width` from position `at`. The indices must be valid (below `exactIndexLimit`).
   */
  bucketBounds(index: Int32Array, start: number, end: number, lo: Float64Array, width: Float64Array, at: number): void {
    const halfMagnitude = this.subBucketHalfCountMagnitude;
    const halfCount = this.subBucketHalfCount;
    const unitMagnitude = this.unitMagnitude;
    // valueFromIndex inlined, without its checks: a hot loop over millions of buckets.
    for (let i = start, j = at; i < end; i++, j++) {
      const k = index[i]!;
      let bucket = (k >> halfMagnitude) - 1;
      let sub = (k & (halfCount - 1)) + halfCount;
      if (bucket < 0) {
        sub -= halfCount;
        bucket = 0;
      }
      const w = POW2[bucket + unitMagnitude]!;
      lo[j] = sub * w;
      width[j] = w;
    }
  }

  sizeOfEquivalentValueRange(value: number): number {
    assertValue(value);
    return POW2[this.unitMagnitude + this.bucketIndex(value)]!;
  }

  lowestEquivalentValue(value: number): number {
    assertValue(value);
    const size = POW2[this.bucketIndex(value) + this.unitMagnitude]!;
    return Math.floor(value / size) * size;
  }

  nextNonEquivalentValue(value: number): number {
    return this.lowestEquivalentValue(value) + this.sizeOfEquivalentValueRange(value);
  }

  highestEquivalentValue(value: number): number {
    return this.nextNonEquivalentValue(value) - 1;
  }

  /** Java: lowestEquivalentValue + (sizeOfEquivalentValueRange >> 1), i.e. the middle rounded up. */
  medianEquivalentValue(value: number): number {
    return this.lowestEquivalentValue(value) + Math.floor(this.sizeOfEquivalentValueRange(value) / 2);
  }

  /**
   * Java determineArrayLengthNeeded: the counts array length of a histogram with this precision and
   * `highestTrackableValue`. A header value above 2^53 arrives rounded to the nearest double, which
   * can add one bucket at the very top compared with Java; that bucket lies beyond
   * `exactIndexLimit`, so no data can land in it either way.
   */
  countsArrayLength(highestTrackableValue: number): number {
    if (Number.isNaN(highestTrackableValue) || highestTrackableValue < 2 * this.precision.lowestDiscernibleValue) {
      throw new RangeError(
        `highestTrackableValue (${highestTrackableValue}) cannot be < (2 * lowestDiscernibleValue)`,
      );
    }
    // getBucketsNeededToCoverValue with smallestUntrackableValue = 2^exponent: "<= value" is
    // "value has more than `exponent` bits", and "> Long.MAX_VALUE / 2" is "exponent >= 62".
    // A long is below 2^63; clamping there keeps bitLength in its domain.
    const bits = bitLength(Math.min(highestTrackableValue, POW2[63]!));
    let exponent = this.unitMagnitude + this.subBucketCountMagnitude;
    let bucketsNeeded = 1;
    while (bits > exponent) {
      if (exponent >= 62) {
        bucketsNeeded++;
        break;
      }
      exponent++;
      bucketsNeeded++;
    }
    return (bucketsNeeded + 1) * this.subBucketHalfCount;
  }
}

function assertValue(value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`histogram value must be an integer between 0 and 2^53-1 (got ${value})`);
  }
}

const layoutCache = new Map<string, HdrLayout>();
/** Real inputs use one or two precisions; the cap only stops corrupt headers from growing the cache. */
const LAYOUT_CACHE_LIMIT = 32;
let lastLayout: HdrLayout | null = null;

/** The (shared, immutable) layout of a precision; throws RangeError for a precision Java rejects. */
export function hdrLayout(precision: HdrPrecision): HdrLayout {
  // Consecutive histograms nearly always share a precision: skip building the cache key.
  if (
    lastLayout !== null &&
    lastLayout.precision.significantDigits === precision.significantDigits &&
    lastLayout.precision.lowestDiscernibleValue === precision.lowestDiscernibleValue
  ) {
    return lastLayout;
  }
  const key = `${precision.significantDigits}/${precision.lowestDiscernibleValue}`;
  let layout = layoutCache.get(key);
  if (layout === undefined) {
    layout = new HdrLayout({
      significantDigits: precision.significantDigits,
      lowestDiscernibleValue: precision.lowestDiscernibleValue,
    });
    if (layoutCache.size >= LAYOUT_CACHE_LIMIT) layoutCache.clear();
    layoutCache.set(key, layout);
  }
  lastLayout = layout;
  return layout;
}

export function samePrecision(a: HdrPrecision, b: HdrPrecision): boolean {
  return a.significantDigits === b.significantDigits && a.lowestDiscernibleValue === b.lowestDiscernibleValue;
}
