import { Rng } from '../../../src/analysis/rng.ts';
import type { SeriesPoint } from '../../../src/analysis/changepoint.ts';

/**
 * Simulated histories of one figure (a p99) over runs, for calibrating the change-point detector.
 *
 * Each run's figure is the true level × exp(run-to-run noise) × exp(the run's own sampling error):
 * - run-to-run noise: log-normal, `tau` (default 5%: what repeats of a load test on one build
 *   show for a p99 — a JVM's warm-up, where data landed, a neighbour on the host);
 * - the run's own error: log-normal with the run's own spread `own` (default 3%: a 5-minute run's
 *   block-bootstrap interval of p99 is about ±6%), and one run in ten short (own 10%); the
 *   interval the run reports is its figure × exp(±1.96 · own), its own spread estimated with
 *   ±20% error, as a bootstrap's is.
 * The level is 1000 µs × `factor` from run `stepAt` on (× `factor2` from `stepAt2`), and one run
 * may be an outlier (× `outlierFactor` at `outlierAt`). Each point also carries what the simulation
 * knows and a detector does not (for the placement oracles of the calibration): the run's true
 * level and the true standard deviation of its log-value.
 */
export interface SimOptions {
  runs: number;
  tau?: number;
  own?: number;
  stepAt?: number;
  factor?: number;
  stepAt2?: number;
  factor2?: number;
  outlierAt?: number;
  outlierFactor?: number;
}

function normal(rng: Rng): number {
  // Box–Muller; 1 − u keeps the logarithm finite.
  const u = 1 - rng.uniform();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.uniform());
}

export interface SimPoint extends SeriesPoint {
  /** The true level (without noise) at this run. */
  trueLevel: number;
  /** The true standard deviation of the log-value: run-to-run and own noise together. */
  trueSd: number;
}

export function simulateHistory(rng: Rng, o: SimOptions): SimPoint[] {
  const tau = o.tau ?? 0.05;
  const own0 = o.own ?? 0.03;
  return Array.from({ length: o.runs }, (_, i) => {
    let level = 1000;
    if (o.stepAt !== undefined && i >= o.stepAt) level *= o.factor ?? 1.2;
    if (o.stepAt2 !== undefined && i >= o.stepAt2) level *= o.factor2 ?? 1.2;
    if (o.outlierAt === i) level *= o.outlierFactor ?? 2;
    const own = rng.uniform() < 0.1 ? 0.1 : own0;
    const value = level * Math.exp(tau * normal(rng) + own * normal(rng));
    const reported = own * (1 + 0.2 * (2 * rng.uniform() - 1));
    return { value, ciLow: value * Math.exp(-1.96 * reported), ciHigh: value * Math.exp(1.96 * reported), trueLevel: level, trueSd: Math.hypot(tau, own) };
  });
}
