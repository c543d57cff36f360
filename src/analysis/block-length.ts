/**
 * How long a block of seconds must be to keep a run's autocorrelation, and how much a block
 * bootstrap of that length still falls short of the true variance (src/analysis/block-bootstrap.ts
 * resamples with it).
 */

export interface BlockLengthEstimate {
  /** Seconds per block. */
  blockLength: number;
  /** The lags Politis–White's flat-top window spans (2·m̂): where the series shows correlation. */
  window: number;
  /**
   * Ĝ / ĝ(0) under a flat-top window of `window` lags: the moving-block bootstrap's variance falls
   * short of the true one by about this ÷ b (Künsch 1989: its bias is −G/b), what blocks cut off of
   * the autocorrelation.
   */
  shortfall(window: number): number;
}

/**
 * Politis & White (2004), with Patton, Politis & White's (2009) correction: the block length that
 * minimises the mean squared error of the circular/moving-block bootstrap's variance estimate,
 * b = (2 Ĝ² / D̂)^(1/3) · n^(1/3) with D̂ = 4/3 ĝ(0)², from the autocovariances up to 2·m̂ under a
 * flat-top window; m̂ is the first lag after which K_n = max(5, ⌈log10 n⌉) autocorrelations in a row
 * are insignificant (|ρ| < 2·√(log10 n / n)). Rounded up and kept within [1, ⌈min(3√n, n/3)⌉].
 * A series with no variance, or of fewer than 4 values, gets 1 and no shortfall.
 */
export function politisWhite(series: ArrayLike<number>): BlockLengthEstimate {
  const none = { blockLength: 1, window: 0, shortfall: () => 0 };
  const n = series.length;
  if (n < 4) return none;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += series[i] as number;
  mean /= n;
  const eps = new Float64Array(n);
  for (let i = 0; i < n; i++) eps[i] = (series[i] as number) - mean;
  const autocovariance = (lag: number) => {
    let s = 0;
    for (let i = lag; i < n; i++) s += (eps[i] as number) * (eps[i - lag] as number);
    return s / n;
  };
  const variance = autocovariance(0);
  if (!(variance > 0)) return none;
  const kn = Math.max(5, Math.ceil(Math.log10(n)));
  const mMax = Math.ceil(Math.sqrt(n)) + kn;
  const threshold = 2 * Math.sqrt(Math.log10(n) / n);
  const lags = Math.min(2 * mMax, n - 1);
  const acov = new Float64Array(lags + 1);
  for (let k = 0; k <= lags; k++) acov[k] = autocovariance(k);
  let mHat: number | null = null;
  for (let m = 0; m + kn <= lags && mHat === null; m++) {
    let quiet = true;
    for (let j = 1; j <= kn && quiet; j++) quiet = Math.abs((acov[m + j] as number) / variance) < threshold;
    if (quiet) mHat = m;
  }
  const M = Math.min(mHat === null ? mMax : 2 * mHat, lags);
  /** Ĝ and ĝ(0) under a flat-top window of `window` lags. */
  const sums = (window: number) => {
    let g = 0;
    let longRun = variance;
    for (let k = 1; k <= window; k++) {
      const x = k / window;
      const lambda = x <= 0.5 ? 1 : 2 * (1 - x);
      g += 2 * lambda * k * (acov[k] as number);
      longRun += 2 * lambda * (acov[k] as number);
    }
    return { g, longRun };
  };
  // For the shortfall, autocovariances freed of their known downward bias: each is a sum over
  // n − k pairs divided by n, and is centred on the series' own mean, whose variance (≈ ĝ(0)/n)
  // it loses. Uncorrected, Σ k·γ(k) comes out at ~75-80% of its value for AR(1) series of 300
  // seconds; corrected, ~87%.
  const meanVariance = Math.max(0, sums(M).longRun) / n;
  const unbiased = Float64Array.from(acov, (v, k) => (v * n) / (n - k) + meanVariance);
  const shortfall = (window: number) => {
    const w = Math.min(lags, window);
    let g = 0;
    let longRun = unbiased[0] as number;
    for (let k = 1; k <= w; k++) {
      const x = k / w;
      const lambda = x <= 0.5 ? 1 : 2 * (1 - x);
      g += 2 * lambda * k * (unbiased[k] as number);
      longRun += 2 * lambda * (unbiased[k] as number);
    }
    return longRun > 0 ? Math.max(0, g / longRun) : 0;
  };
  const { g, longRun } = sums(M);
  if (!(longRun > 0) || g === 0) return { ...none, window: M, shortfall };
  const bMax = Math.ceil(Math.min(3 * Math.sqrt(n), n / 3));
  const b = Math.cbrt((2 * g * g) / ((4 / 3) * longRun * longRun)) * Math.cbrt(n);
  return { blockLength: Math.min(bMax, Math.max(1, Math.ceil(b))), window: M, shortfall };
}

/**
 * The most the variance correction multiplies by. A run that would need more is short for how long
 * its figures stay correlated: its interval gets this much and a caveat, rather than a factor
 * estimated from a handful of blocks.
 */
export const MAX_VARIANCE_CORRECTION = 2;

/**
 * The factor that undoes the moving-block bootstrap's known downward bias in variance for blocks of
 * b seconds in a run of n: 1 / (1 − shortfall/b − b/n) — the autocorrelation beyond a block
 * (Künsch's −G/b) and the centring of blocks on the run's own mean (−b/n, Lahiri 2003 §3.2) — at
 * most MAX_VARIANCE_CORRECTION.
 */
export function varianceCorrection(shortfall: number, b: number, n: number): number {
  const kept = 1 - shortfall / b - b / n;
  return kept > 1 / MAX_VARIANCE_CORRECTION ? 1 / kept : MAX_VARIANCE_CORRECTION;
}
