/**
 * Step detection in a per-second throughput series: finds the instants where throughput moves to a
 * new sustained level, such as DynamoDB's "split for heat" (capacity doubles each time a hot
 * partition splits) or a sustained drop.
 *
 * Method, and why:
 * 1. Drop the first and last second: a run starts and ends mid-second, so those seconds are partial
 *    (and the first may hold a catch-up burst); they must never read as a level change.
 * 2. Work in log space: throughput noise is roughly proportional to the level, and a doubling is the
 *    same distance (ln 2) whether it goes 200 → 400 or 2000 → 4000.
 * 3. Median-filter (5 s): removes dips or spikes of one or two seconds (a cutover hiccup, a GC pause)
 *    without blurring a step edge, which a mean filter would.
 * 4. Over-segment by binary segmentation (least squares, penalty 2σ²·ln n, σ the robust noise of the
 *    whole series, segments at least `minSegmentS` long). This proposes every plausible changepoint,
 *    including small ones; it is O(n · depth).
 * 5. Prune: repeatedly merge away the weakest changepoint whose two neighbouring segments fail the
 *    step test, until every remaining one passes. Level = median of the raw seconds of a segment.
 *    The test: the level ratio is at least `1 + minRelativeChange` (either direction), AND the
 *    change is at least `minNoiseMultiple` × the second-to-second noise of both segments. The second
 *    condition is what keeps a wobbling, unthrottled run (±30% from one second to the next, e.g. JVM
 *    warm-up) from being read as steps, while a clean doubling in ±15% noise stays far above it.
 *    Pruning after segmenting, rather than testing each split as binary segmentation goes, keeps a
 *    rise-and-fall (a → b → a) from being missed because no single split of it looks like a step.
 * Everything is deterministic; a 10,000-second series takes a few milliseconds.
 */

export interface Step {
  /** First second of the new level, counted from series[0]. */
  offsetS: number;
  /** Median throughput of the level before the step (ops/s). */
  fromOpsPerS: number;
  /** Median throughput of the level after the step (ops/s). */
  toOpsPerS: number;
  /** toOpsPerS / fromOpsPerS: above 1 for a step up, below 1 for a step down. */
  ratio: number;
}

export interface StepDetectionOptions {
  /** Shortest level that counts, in seconds. Default 5. */
  minSegmentS?: number;
  /** Smallest level change reported, as a fraction (0.15 = ×1.15 up or ÷1.15 down). Default 0.15. */
  minRelativeChange?: number;
  /** How many times the second-to-second noise (σ, log space) a change must exceed. Default 3. */
  minNoiseMultiple?: number;
}

const DEFAULT_MIN_SEGMENT_S = 5;
const DEFAULT_MIN_RELATIVE_CHANGE = 0.15;
const DEFAULT_MIN_NOISE_MULTIPLE = 3;
/** Seconds dropped at each end: the run starts and ends mid-second. */
const PARTIAL_EDGE_S = 1;
/** Median filter width (odd): wide enough to erase a 2-second dip, narrow enough to keep 5-s levels. */
const MEDIAN_WINDOW_S = 5;
/** MAD → σ for normally distributed noise. */
const MAD_TO_SIGMA = 1.4826;
/**
 * Noise floor (σ in log space, ~1%) for the segmentation penalty: on a perfectly flat synthetic
 * series σ would be 0 and rounding errors alone would split it into thousands of pieces.
 */
const MIN_PENALTY_SIGMA = 0.01;

/** Changepoints of `series` (successful ops in each second of one run), in time order. */
export function detectSteps(series: readonly number[], options: StepDetectionOptions = {}): Step[] {
  const minSegment = options.minSegmentS ?? DEFAULT_MIN_SEGMENT_S;
  const minRelativeChange = options.minRelativeChange ?? DEFAULT_MIN_RELATIVE_CHANGE;
  const minNoiseMultiple = options.minNoiseMultiple ?? DEFAULT_MIN_NOISE_MULTIPLE;
  if (!Number.isInteger(minSegment) || minSegment < 2) throw new RangeError(`minSegmentS must be an integer ≥ 2, got ${minSegment}`);
  if (!(minRelativeChange > 0)) throw new RangeError(`minRelativeChange must be > 0, got ${minRelativeChange}`);
  if (!(minNoiseMultiple >= 0)) throw new RangeError(`minNoiseMultiple must be ≥ 0, got ${minNoiseMultiple}`);
  const minLogChange = Math.log1p(minRelativeChange);
  for (const v of series) {
    if (!Number.isFinite(v) || v < 0) throw new RangeError(`throughput values must be finite and ≥ 0, got ${v}`);
  }

  const raw = series.slice(PARTIAL_EDGE_S, series.length - PARTIAL_EDGE_S);
  if (raw.length < 2 * minSegment) return [];
  // ln(max(v, 1)): an empty second (0 ops) must not become -∞; 1 op/s is "nothing" at any real scale.
  const logs = raw.map((v) => Math.log(Math.max(v, 1)));
  const smoothed = medianFilter(logs, MEDIAN_WINDOW_S);

  const sigma = Math.max(diffNoiseSigma(logs, 0, logs.length), MIN_PENALTY_SIGMA);
  const penalty = 2 * sigma * sigma * Math.log(logs.length);
  const candidates = binarySegmentation(smoothed, minSegment, penalty);

  const levels = pruneChangepoints(raw, logs, candidates, minLogChange, minNoiseMultiple);
  return levels.slice(1).map((after, i) => {
    const from = levels[i]?.level ?? Number.NaN;
    return { offsetS: after.lo + PARTIAL_EDGE_S, fromOpsPerS: from, toOpsPerS: after.level, ratio: after.level / from };
  });
}

/**
 * Chart label: "+2.0× at 00:30" for a step up, "−2.0× at 01:10" for a step down (the factor is
 * always ≥ 1, the sign gives the direction), time as mm:ss (h:mm:ss past an hour) since series[0].
 * With `startEpochS` (epoch seconds of series[0]) the UTC wall-clock time is appended, to match the
 * clock in the run's own logs: "+2.0× at 00:30 (10:10:38 UTC)".
 */
export function formatStep(step: Step, startEpochS?: number): string {
  const up = step.ratio >= 1;
  const factor = up ? step.ratio : 1 / step.ratio;
  // A fall to nothing (an outage) or a rise from nothing has no factor: said as such, not as ∞×.
  const change = step.toOpsPerS === 0 ? 'to 0 ops/s' : step.fromOpsPerS === 0 ? 'from 0 ops/s' : `${up ? '+' : '−'}${factor.toFixed(1)}×`;
  const label = `${change} at ${formatElapsed(step.offsetS)}`;
  if (startEpochS === undefined) return label;
  const clock = new Date((startEpochS + step.offsetS) * 1000).toISOString().slice(11, 19);
  return `${label} (${clock} UTC)`;
}

function formatElapsed(totalS: number): string {
  const s = Math.max(0, Math.round(totalS));
  const two = (n: number) => String(n).padStart(2, '0');
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = s % 60;
  return hours > 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `${two(minutes)}:${two(seconds)}`;
}

/** Element `i` of an array the caller has bounds-checked. */
function at(values: readonly number[], i: number): number {
  const v = values[i];
  if (v === undefined) throw new RangeError(`index ${i} out of range`);
  return v;
}

/** Median; typed-array sort because it is numeric and several times faster than a comparator sort. */
function median(values: ArrayLike<number>): number {
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  const upper = sorted[mid] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? Number.NaN) + upper) / 2;
}

/** Running median over a centred window, shrunk at the ends so that every second keeps a value. */
function medianFilter(values: readonly number[], width: number): number[] {
  const half = width >> 1;
  const window = new Float64Array(width);
  return values.map((_, i) => {
    const lo = Math.max(0, i - half);
    const hi = Math.min(values.length, i + half + 1);
    // Insertion sort into a reused buffer: the window is a handful of values.
    for (let j = lo; j < hi; j++) {
      const v = at(values, j);
      let k = j - lo;
      for (; k > 0 && (window[k - 1] ?? 0) > v; k--) window[k] = window[k - 1] ?? 0;
      window[k] = v;
    }
    const n = hi - lo;
    const mid = n >> 1;
    return n % 2 === 1 ? (window[mid] ?? 0) : ((window[mid - 1] ?? 0) + (window[mid] ?? 0)) / 2;
  });
}

/**
 * Robust σ of second-to-second noise in values[lo, hi): from the median absolute first difference
 * (÷√2, since a difference carries the noise of two seconds). Differences rather than deviations from
 * the segment median, so that a slow drift within a level or a leftover step edge hardly counts.
 */
function diffNoiseSigma(values: readonly number[], lo: number, hi: number): number {
  if (hi - lo < 2) return 0;
  const diffs: number[] = [];
  for (let i = lo + 1; i < hi; i++) diffs.push(Math.abs(at(values, i) - at(values, i - 1)));
  return (MAD_TO_SIGMA * median(diffs)) / Math.SQRT2;
}

/**
 * Least-squares binary segmentation: split [lo, hi) where the squared error drops most, if it drops by
 * more than `penalty`, and recurse. Returns the changepoints (index of the first value of each new
 * segment), sorted.
 */
function binarySegmentation(values: readonly number[], minSegment: number, penalty: number): number[] {
  // Prefix sums of values centred on their mean, so that squared errors do not cancel catastrophically.
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sum = new Float64Array(values.length + 1);
  const sumSq = new Float64Array(values.length + 1);
  values.forEach((v, i) => {
    const c = v - mean;
    sum[i + 1] = (sum[i] ?? 0) + c;
    sumSq[i + 1] = (sumSq[i] ?? 0) + c * c;
  });
  const cost = (lo: number, hi: number): number => {
    const s = (sum[hi] ?? 0) - (sum[lo] ?? 0);
    return (sumSq[hi] ?? 0) - (sumSq[lo] ?? 0) - (s * s) / (hi - lo);
  };

  const changepoints: number[] = [];
  // Explicit stack rather than recursion: depth is unbounded on a long, busy series.
  const pending: Array<[number, number]> = [[0, values.length]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [lo, hi] = next;
    if (hi - lo < 2 * minSegment) continue;
    const whole = cost(lo, hi);
    let bestGain = penalty;
    let bestSplit = -1;
    for (let t = lo + minSegment; t <= hi - minSegment; t++) {
      const gain = whole - cost(lo, t) - cost(t, hi);
      if (gain > bestGain) {
        bestGain = gain;
        bestSplit = t;
      }
    }
    if (bestSplit < 0) continue;
    changepoints.push(bestSplit);
    pending.push([lo, bestSplit], [bestSplit, hi]);
  }
  return changepoints.sort((a, b) => a - b);
}

interface Segment {
  lo: number;
  hi: number;
  level: number;
  logLevel: number;
  noise: number;
}

function describeSegment(raw: readonly number[], logs: readonly number[], lo: number, hi: number): Segment {
  const level = median(raw.slice(lo, hi));
  return { lo, hi, level, logLevel: Math.log(Math.max(level, 1)), noise: diffNoiseSigma(logs, lo, hi) };
}

/**
 * Keep only the changepoints whose neighbouring levels differ enough (see the module comment). The
 * weakest failing changepoint goes first, because removing it changes its neighbours' levels.
 */
function pruneChangepoints(
  raw: readonly number[],
  logs: readonly number[],
  candidates: readonly number[],
  minLogChange: number,
  minNoiseMultiple: number,
): Segment[] {
  const bounds = [0, ...candidates, raw.length];
  const segments: Segment[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) segments.push(describeSegment(raw, logs, at(bounds, i), at(bounds, i + 1)));

  // Strength of the boundary between segments[i - 1] and segments[i]: its log change over the
  // change it needs; below 1 fails.
  const strength = (i: number): number => {
    const before = segments[i - 1];
    const after = segments[i];
    if (before === undefined || after === undefined) throw new RangeError(`no boundary ${i}`);
    const change = Math.abs(after.logLevel - before.logLevel);
    const needed = Math.max(minLogChange, minNoiseMultiple * Math.max(before.noise, after.noise));
    return change / needed;
  };

  for (;;) {
    let weakest = -1;
    let weakestStrength = 1;
    for (let i = 1; i < segments.length; i++) {
      const s = strength(i);
      if (s < weakestStrength) {
        weakestStrength = s;
        weakest = i;
      }
    }
    if (weakest < 0) break;
    const before = segments[weakest - 1];
    const after = segments[weakest];
    if (before === undefined || after === undefined) throw new RangeError(`no boundary ${weakest}`);
    segments.splice(weakest - 1, 2, describeSegment(raw, logs, before.lo, after.hi));
  }
  return segments;
}
