import { SecondHistogramsBuilder } from '../../../src/analysis/block-bootstrap.ts';
import type { Rng } from '../../../src/analysis/rng.ts';
import type { RunFigures, SideInput } from '../../../src/analysis/compare.ts';
import { hdrLayout } from '../../../src/model/hdr-layout.ts';

/**
 * Load-test runs with known distributions, for calibrating the comparison: per second, the load
 * and the latency level follow AR(1) processes (a busy spell lasts several seconds, as GC pauses and
 * compactions do), the second's operations are Poisson around the load, and each latency is
 * log-normal around the second's level, recorded in an HdrHistogram of 3 significant digits (as YCSB records).
 */

export interface RunShape {
  seconds: number;
  /** Mean operations per second. */
  rate: number;
  /** Median latency in µs, before the per-second level. */
  medianUs: number;
  /** σ of log latency within a second. */
  sigma: number;
  /** Lag-1 autocorrelation of the per-second load and latency level. */
  phi: number;
  /** σ of the log load and of the log latency level. */
  loadSigma: number;
  levelSigma: number;
  /** Latencies × this (a +10% shift is 1.1). */
  latencyScale?: number;
  /** Load × this. */
  rateScale?: number;
}

export const STEADY_RUN: RunShape = { seconds: 300, rate: 200, medianUs: 500, sigma: 0.6, phi: 0.5, loadSigma: 0.15, levelSigma: 0.1 };

const layout = hdrLayout({ significantDigits: 3, lowestDiscernibleValue: 1 });
/** Steps per unit of log(µs) in the table below: several steps to a bucket of 3 significant digits (≥ 1/2048 wide). */
const LOG_STEPS = 16384;
const MAX_LOG = Math.log(1e8);
/** The counts index of exp(x) (rounded to whole µs) for x on a grid of 1/LOG_STEPS from 0. */
const INDEX_OF_LOG = Int32Array.from({ length: Math.ceil(MAX_LOG * LOG_STEPS) + 1 }, (_, i) => layout.countsArrayIndex(Math.max(1, Math.round(Math.exp((i + 0.5) / LOG_STEPS)))));
/** Standard normal quantiles at (i + 0.5) / 2^16: one table lookup per draw instead of two logarithms. */
const NORMAL = (() => {
  const n = 1 << 16;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = inverseNormal((i + 0.5) / n);
  return out;
})();

/** Acklam's rational approximation of the standard normal quantile (relative error < 1.2e-9). */
function inverseNormal(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628274631];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const q = Math.min(p, 1 - p);
  let x: number;
  if (q > 0.02425) {
    const u = p - 0.5;
    const r = u * u;
    x = ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * u) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
    return x;
  }
  const r = Math.sqrt(-2 * Math.log(q));
  x = (((((c[0]! * r + c[1]!) * r + c[2]!) * r + c[3]!) * r + c[4]!) * r + c[5]!) / ((((d[0]! * r + d[1]!) * r + d[2]!) * r + d[3]!) * r + 1);
  return p < 0.5 ? x : -x;
}

export const normal = (rng: Rng): number => NORMAL[rng.below(NORMAL.length)]!;

/** A Poisson draw: Knuth's product of uniforms below 30, a rounded normal above. */
function poisson(rng: Rng, mean: number): number {
  if (mean < 30) {
    const limit = Math.exp(-mean);
    let k = 0;
    for (let p = rng.uniform(); p > limit; p *= rng.uniform()) k++;
    return k;
  }
  return Math.max(0, Math.round(mean + Math.sqrt(mean) * normal(rng)));
}

export interface SimulatedRun {
  figures: RunFigures;
  opsPerSecond: Float64Array;
  /** Per second, the values (highest equivalent) and counts of its buckets. */
  cells: { values: number[]; counts: number[] }[];
}

/** One run: its per-second histograms and figures (what the engine would give for READ). */
export function simulateRun(rng: Rng, shape: RunShape, label = 'simulated'): SimulatedRun {
  const { seconds, rate, medianUs, sigma, phi, loadSigma, levelSigma } = shape;
  const scale = shape.latencyScale ?? 1;
  const innovation = Math.sqrt(1 - phi * phi);
  const counts = new Float64Array(layout.countsArrayLength(2e8));
  const touched: number[] = [];
  const cells: SimulatedRun['cells'] = [];
  const opsPerSecond = new Float64Array(seconds);
  let load = loadSigma * normal(rng);
  let level = levelSigma * normal(rng);
  const base = Math.log(medianUs * scale);
  for (let t = 0; t < seconds; t++) {
    load = phi * load + innovation * loadSigma * normal(rng);
    level = phi * level + innovation * levelSigma * normal(rng);
    const n = poisson(rng, rate * (shape.rateScale ?? 1) * Math.exp(load));
    opsPerSecond[t] = n;
    // Busier seconds are slower: half the load's excursion shows in the latency level.
    const centre = base + level + 0.5 * load;
    for (let i = 0; i < n; i++) {
      const x = Math.min(MAX_LOG, Math.max(0, centre + sigma * normal(rng)));
      const k = INDEX_OF_LOG[Math.floor(x * LOG_STEPS)]!;
      if (counts[k] === 0) touched.push(k);
      counts[k]!++;
    }
    cells.push({ values: touched.map((k) => layout.highestEquivalentValue(layout.valueFromIndex(k))), counts: touched.map((k) => counts[k]!) });
    for (const k of touched) counts[k] = 0;
    touched.length = 0;
  }
  return withFigures(label, opsPerSecond, cells);
}

function withFigures(label: string, opsPerSecond: Float64Array, cells: SimulatedRun['cells']): SimulatedRun {
  const total = opsPerSecond.reduce((a, n) => a + n, 0);
  const seconds = opsPerSecond.length;
  return { figures: { label, durationS: seconds, throughput: total / seconds, ops: { READ: { count: total, unit: 'us', precision: '3 digits', values: {} } } }, opsPerSecond, cells };
}

/** Seconds [from, to) of a run, as a run of its own (two halves of one steady run are an A/A pair). */
export function sliceRun(run: SimulatedRun, from: number, to: number): SimulatedRun {
  return withFigures(`${run.figures.label}[${from}-${to}]`, run.opsPerSecond.slice(from, to), run.cells.slice(from, to));
}

/** A side of one or more simulated runs, as the engine would hand it to compareSides. */
export function sideOf(runs: readonly SimulatedRun[], label = 'simulated'): SideInput {
  const total = runs.reduce((a, r) => a + r.opsPerSecond.length, 0);
  const builder = new SecondHistogramsBuilder(total, false);
  const opsPerSecond = new Float64Array(total);
  const segments: { from: number; to: number; durationS: number }[] = [];
  let at = 0;
  for (const r of runs) {
    r.cells.forEach((c, t) => builder.add(at + t, c.values, c.counts));
    opsPerSecond.set(r.opsPerSecond, at);
    segments.push({ from: at, to: at + r.opsPerSecond.length, durationS: r.opsPerSecond.length });
    at += r.opsPerSecond.length;
  }
  return { label, runs: runs.map((r) => r.figures), seconds: { segments, opsPerSecond, ops: { READ: builder.finish() } }, noSeconds: null };
}
