import { deriveSeed, Rng } from './rng.ts';

/**
 * Change points in a series of runs: where a figure (a p99, a throughput) moved for real, found by
 * divisive segmentation with a permutation test, after Matteson & James's E-Divisive (2014) as
 * MongoDB runs it in CI (Daly et al., ICPE 2020) and Apache Otava / Hunter (ICPE 2023) adapted it.
 *
 * What it does, on the logarithms of the values (changes are ratios: a p99 going from 4 to 5 ms is
 * the same news as from 40 to 50 ms):
 * 1. Each point's variance is its own uncertainty plus the series' run-to-run noise: the own part
 *    from the point's confidence interval (the run's block bootstrap), the run-to-run part τ²
 *    estimated robustly from successive differences (what they spread beyond the points' own).
 *    A run whose figure is uncertain (short, few samples past the percentile) weighs less; a
 *    series whose runs scatter more than their intervals say is not taken for a changing one.
 * 2. A single outlying run is pulled in: each value is clipped to ±CLIP deviations from the median
 *    of its neighbourhood of five runs. A median of five follows a step (three of five are on the
 *    new level right after it) but not one stray run, so one bad run cannot pose as a change while
 *    a step keeps its full height.
 * 3. Divisive search: within a segment, the stretch maximising the weighted two-sample statistic
 *    (ȳ_in − ȳ_out)² / (1/W_in + 1/W_out) against the rest of the segment — the α = 2 member of
 *    E-Divisive's energy family, which reacts to a change of level, weighted by each point's
 *    inverse variance — with at least `minSegment` runs in each piece. A stretch reaching an end
 *    of the segment is E-Divisive's single split; one inside it is a bump (a change and its
 *    reversal: circular binary segmentation, Olshen et al. 2004), which a single split misses
 *    when the levels either side are alike. Its significance is a permutation test (as E-Divisive's): the runs of the
 *    segment shuffled with their weights, the largest statistic over every split each time; the
 *    p-value is (1 + shuffles at least as large) / (1 + shuffles). The most significant split of all
 *    segments is kept and the search goes on in the two halves, until none is significant at `alpha`.
 * 4. Each change is reported with the weighted geometric means of the segments on either side
 *    (after the final segmentation, so between neighbouring changes), their ratio and its p-value.
 *
 * Deterministic: shuffles come from `seed` and the segment's bounds, so the app and the CLI find
 * the same changes. A change needs `minSegment` runs on each side: a regression that starts at the
 * newest run is not a change point yet (the `check` command's newest-run test is for that).
 */

export interface SeriesPoint {
  value: number;
  /** The point's own 95% interval; null when unknown (then only the run-to-run noise counts). */
  ciLow: number | null;
  ciHigh: number | null;
}

export interface ChangePoint {
  /** 0-based index of the first run after the change. */
  index: number;
  /** Weighted geometric mean of the segment before and after. */
  before: number;
  after: number;
  /** after ÷ before. */
  ratio: number;
  pValue: number;
}

export interface ChangePointOptions {
  /** Significance level of each split (default DEFAULT_ALPHA). */
  alpha?: number;
  /** Shuffles per permutation test (default DEFAULT_PERMUTATIONS). */
  permutations?: number;
  /** Fewest runs on either side of a change (default DEFAULT_MIN_SEGMENT). */
  minSegment?: number;
  seed?: number;
  /** Use the points' own intervals (default true); false treats every point alike (for calibration). */
  useIntervals?: boolean;
}

export const DEFAULT_ALPHA = 0.02;
export const DEFAULT_PERMUTATIONS = 999;
export const DEFAULT_MIN_SEGMENT = 3;
export const DEFAULT_CHANGEPOINT_SEED = 20_261_127;
/** Clip each log-value to this many standard deviations from its neighbourhood's median. */
export const CLIP = 3;
const Z_975 = 1.959963984540054;

const median = (values: readonly number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** Each point's own variance of its log-value, from its 95% interval (0 when it has none). */
function ownVariances(points: readonly SeriesPoint[], useIntervals: boolean): number[] {
  return points.map(({ ciLow, ciHigh }) => {
    if (!useIntervals || ciLow === null || ciHigh === null || !(ciLow > 0) || !(ciHigh >= ciLow)) return 0;
    const sd = (Math.log(ciHigh) - Math.log(ciLow)) / (2 * Z_975);
    return sd * sd;
  });
}

/**
 * The run-to-run variance beyond the points' own: successive differences spread as 2τ² plus the
 * two points' own variances; their median absolute size (÷ 0.6745, a normal's) ignores a step or
 * an outlier, which move one or two differences only.
 */
export function runToRunVariance(logs: readonly number[], own: readonly number[]): number {
  if (logs.length < 3) return 0;
  const diffs = logs.slice(1).map((y, i) => Math.abs(y - (logs[i] as number)));
  const sigmaD = median(diffs) / 0.6744897501960817;
  const ownPairs = own.slice(1).map((v, i) => v + (own[i] as number));
  return Math.max(0, (sigmaD * sigmaD - median(ownPairs)) / 2);
}

/** Segments longer than this are searched for single splits only: the search for a bump grows as the square of its length. */
export const MAX_BUMP_SEARCH = 120;

/**
 * The largest weighted statistic over [from, to) of `y` / `w` between a stretch [i, j) and the
 * rest: a single split (i = from or j = to) or a bump that goes and comes back (two changes, which
 * a single split can miss: the levels either side of it are alike). Every piece holds at least
 * `minSegment` runs. `cut` is where to cut first: the single split, or the end of the bump whose
 * own split is the larger (the search inside finds the other).
 */
function bestSplit(y: Float64Array, w: Float64Array, from: number, to: number, minSegment: number, prefixW: Float64Array, prefixWy: Float64Array): { stat: number; cut: number } {
  const n = to - from;
  prefixW[0] = 0;
  prefixWy[0] = 0;
  for (let k = 0; k < n; k++) {
    prefixW[k + 1] = (prefixW[k] as number) + (w[from + k] as number);
    prefixWy[k + 1] = (prefixWy[k] as number) + (w[from + k] as number) * (y[from + k] as number);
  }
  const totalW = prefixW[n] as number;
  const totalWy = prefixWy[n] as number;
  const stretch = (i: number, j: number) => {
    const inW = (prefixW[j] as number) - (prefixW[i] as number);
    const outW = totalW - inW;
    const inWy = (prefixWy[j] as number) - (prefixWy[i] as number);
    const diff = inWy / inW - (totalWy - inWy) / outW;
    return (diff * diff) / (1 / inW + 1 / outW);
  };
  let stat = 0;
  let cut = -1;
  let bump: [number, number] | null = null;
  for (let k = minSegment; k <= n - minSegment; k++) {
    const s = stretch(0, k);
    if (s > stat) {
      stat = s;
      cut = k;
    }
  }
  if (n <= MAX_BUMP_SEARCH) {
    for (let i = minSegment; i <= n - 2 * minSegment; i++) {
      for (let j = i + minSegment; j <= n - minSegment; j++) {
        const s = stretch(i, j);
        if (s > stat) {
          stat = s;
          bump = [i, j];
        }
      }
    }
  }
  if (bump) cut = stretch(0, bump[0]) >= stretch(0, bump[1]) ? bump[0] : bump[1];
  return { stat, cut: cut < 0 ? -1 : from + cut };
}

interface Candidate {
  cut: number;
  pValue: number;
  stat: number;
}

/** The best split of [from, to) and its permutation p-value, or null when the segment is too short. */
function testSegment(y: Float64Array, w: Float64Array, from: number, to: number, options: Required<Omit<ChangePointOptions, 'useIntervals'>>): Candidate | null {
  const { minSegment, permutations, seed } = options;
  if (to - from < 2 * minSegment) return null;
  const n = to - from;
  const prefixW = new Float64Array(n + 1);
  const prefixWy = new Float64Array(n + 1);
  const observed = bestSplit(y, w, from, to, minSegment, prefixW, prefixWy);
  if (observed.cut < 0) return null;
  const py = new Float64Array(n);
  const pw = new Float64Array(n);
  const order = new Uint32Array(n);
  const rng = new Rng(deriveSeed(seed, from, to));
  let atLeast = 0;
  for (let r = 0; r < permutations; r++) {
    for (let i = 0; i < n; i++) order[i] = i;
    for (let i = n - 1; i > 0; i--) {
      const j = rng.below(i + 1);
      const t = order[i] as number;
      order[i] = order[j] as number;
      order[j] = t;
    }
    for (let i = 0; i < n; i++) {
      py[i] = y[from + (order[i] as number)] as number;
      pw[i] = w[from + (order[i] as number)] as number;
    }
    // Relative tolerance: a shuffle equal to the observed up to rounding counts as at least as large.
    if (bestSplit(py, pw, 0, n, minSegment, prefixW, prefixWy).stat >= observed.stat * (1 - 1e-12)) atLeast++;
  }
  return { cut: observed.cut, stat: observed.stat, pValue: (1 + atLeast) / (1 + permutations) };
}

/** The change points of a series, in order; values must be positive (others make the series unusable: none are found). */
export function detectChangePoints(points: readonly SeriesPoint[], options: ChangePointOptions = {}): ChangePoint[] {
  const opts = {
    alpha: options.alpha ?? DEFAULT_ALPHA,
    permutations: options.permutations ?? DEFAULT_PERMUTATIONS,
    minSegment: Math.max(1, options.minSegment ?? DEFAULT_MIN_SEGMENT),
    seed: options.seed ?? DEFAULT_CHANGEPOINT_SEED,
  };
  const n = points.length;
  if (n < 2 * opts.minSegment || points.some((p) => !(p.value > 0 && Number.isFinite(p.value)))) return [];
  const logs = points.map((p) => Math.log(p.value));
  const own = ownVariances(points, options.useIntervals ?? true);
  const tau2 = runToRunVariance(logs, own);
  const variance = own.map((v) => v + tau2);
  // A series with no spread at all (every run the same figure) has nothing to detect.
  if (variance.every((v) => v === 0) && logs.every((y) => y === logs[0])) return [];
  const floor = Math.max(1e-18, ...variance) * 1e-9;
  const w = Float64Array.from(variance, (v) => 1 / Math.max(v, floor));
  const y = Float64Array.from(logs, (v, i) => {
    const m = median(logs.slice(Math.max(0, i - 2), Math.min(n, i + 3)));
    const limit = CLIP * Math.sqrt(Math.max(variance[i] as number, floor));
    return Math.min(m + limit, Math.max(m - limit, v));
  });

  const cuts: { at: number; pValue: number }[] = [];
  const segments: [number, number][] = [[0, n]];
  const tested = new Map<string, Candidate | null>();
  for (;;) {
    let best: { seg: number; c: Candidate } | null = null;
    segments.forEach(([from, to], seg) => {
      const key = `${from}:${to}`;
      if (!tested.has(key)) tested.set(key, testSegment(y, w, from, to, opts));
      const c = tested.get(key);
      if (c && c.pValue <= opts.alpha && (!best || c.pValue < best.c.pValue || (c.pValue === best.c.pValue && c.stat > best.c.stat))) best = { seg, c };
    });
    if (!best) break;
    const { seg, c } = best as { seg: number; c: Candidate };
    const [from, to] = segments[seg] as [number, number];
    segments.splice(seg, 1, [from, c.cut], [c.cut, to]);
    cuts.push({ at: c.cut, pValue: c.pValue });
  }
  cuts.sort((a, b) => a.at - b.at);
  // Levels between neighbouring changes, from the clipped values: a stray run does not move them.
  const level = (from: number, to: number) => {
    let sw = 0;
    let swy = 0;
    for (let i = from; i < to; i++) {
      sw += w[i] as number;
      swy += (w[i] as number) * (y[i] as number);
    }
    return Math.exp(swy / sw);
  };
  return cuts.map((c, i) => {
    const before = level(i === 0 ? 0 : (cuts[i - 1] as { at: number }).at, c.at);
    const after = level(c.at, i + 1 < cuts.length ? (cuts[i + 1] as { at: number }).at : n);
    return { index: c.at, before, after, ratio: after / before, pValue: c.pValue };
  });
}

/** The newest point against the points since the last change: its level, theirs, the ratio and a one-sided p-value. */
export interface NewestCheck {
  before: number;
  after: number;
  ratio: number;
  /** Of the newest point being this much higher (direction 1) or lower (−1) by chance. */
  pValue: number;
}

/** The standard normal's upper tail, P(Z > z) (Abramowitz & Stegun 7.1.26 on erfc; |error| < 1.5e-7). */
function normalUpperTail(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erfc = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * Math.exp(-x * x);
  return z >= 0 ? erfc / 2 : 1 - erfc / 2;
}

/**
 * Whether the newest point has moved, against the points from `from` (the last change's start) to
 * the one before it: a regression that starts at the newest run, which no later run confirms yet,
 * so the change-point search cannot call it. The same noise model as the search: each point's own
 * variance plus the series' run-to-run variance (estimated over the whole series); the level
 * before is their weighted mean of logs, and z = (newest − level) / √(its variance + the level's).
 * `direction` 1 asks whether it is higher (latency, errors), −1 lower (throughput).
 */
export function newestAgainst(points: readonly SeriesPoint[], from: number, direction: 1 | -1, useIntervals = true): NewestCheck | null {
  const n = points.length;
  if (n < 2 || from < 0 || from > n - 2 || points.some((p) => !(p.value > 0 && Number.isFinite(p.value)))) return null;
  const logs = points.map((p) => Math.log(p.value));
  const own = ownVariances(points, useIntervals);
  const tau2 = runToRunVariance(logs, own);
  const variance = own.map((v) => v + tau2);
  let sw = 0;
  let swy = 0;
  for (let i = from; i < n - 1; i++) {
    const w = 1 / Math.max(variance[i] as number, 1e-18);
    sw += w;
    swy += w * (logs[i] as number);
  }
  const level = swy / sw;
  const newest = logs[n - 1] as number;
  const sd = Math.sqrt((variance[n - 1] as number) + 1 / sw);
  const z = sd > 0 ? (direction * (newest - level)) / sd : direction * (newest - level) > 0 ? Infinity : 0;
  return { before: Math.exp(level), after: points[n - 1]!.value, ratio: Math.exp(newest - level), pValue: normalUpperTail(z) };
}
