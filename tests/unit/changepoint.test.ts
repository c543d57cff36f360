import { describe, expect, it } from 'vitest';
import { DEFAULT_MIN_SEGMENT, detectChangePoints, newestAgainst, runToRunVariance, type ChangePointOptions } from '../../src/analysis/changepoint.ts';
import { Rng } from '../../src/analysis/rng.ts';
import { simulateHistory, type SimOptions, type SimPoint } from './helpers/history-sim.ts';

/**
 * Where one change in `points` most likely is, knowing there is exactly one and each run's true
 * variance (the simulation's): the split maximising the two-level likelihood, i.e. the weighted
 * statistic (ȳ_before − ȳ_after)² / (1/W_before + 1/W_after) on the raw log-values. With
 * `knownLevels` the two levels are the true ones too: the best any placement can do (with every
 * run equally likely to be the first after the change, the most probable run).
 */
function oraclePlacement(points: readonly SimPoint[], knownLevels: boolean): number {
  const y = points.map((p) => Math.log(p.value));
  const w = points.map((p) => 1 / (p.trueSd * p.trueSd));
  const first = Math.log(points[0]!.trueLevel);
  const last = Math.log(points[points.length - 1]!.trueLevel);
  let best = -1;
  let bestScore = -Infinity;
  for (let k = 1; k < y.length; k++) {
    let score = 0;
    if (knownLevels) {
      y.forEach((v, i) => (score -= (w[i] as number) * (v - (i < k ? first : last)) ** 2));
    } else {
      const sum = (from: number, to: number, f: (i: number) => number) => y.slice(from, to).reduce((acc, _, i) => acc + f(from + i), 0);
      const wIn = sum(0, k, (i) => w[i] as number);
      const wOut = sum(k, y.length, (i) => w[i] as number);
      const diff = sum(0, k, (i) => (w[i] as number) * (y[i] as number)) / wIn - sum(k, y.length, (i) => (w[i] as number) * (y[i] as number)) / wOut;
      score = (diff * diff) / (1 / wIn + 1 / wOut);
    }
    if (score > bestScore) {
      bestScore = score;
      best = k;
    }
  }
  return best;
}

/**
 * Rates over `trials` simulated histories: series with any change, and where the changes fell; for
 * a single step, how often the oracles place it exactly — `oracle` (exactly one change, true
 * variances) over the same series benchlens found a change in, `ceiling` (the levels known too)
 * over all series.
 */
function calibrate(trials: number, sim: SimOptions, options: ChangePointOptions = {}, seed = 1) {
  const rng = new Rng(seed);
  let any = 0;
  let exact = 0;
  let withinOne = 0;
  let oracle = 0;
  let ceiling = 0;
  for (let t = 0; t < trials; t++) {
    const points = simulateHistory(rng, sim);
    const changes = detectChangePoints(points, { ...options, permutations: options.permutations ?? 199 });
    if (changes.length > 0) any++;
    if (sim.stepAt !== undefined) {
      if (oraclePlacement(points, true) === sim.stepAt) ceiling++;
      if (changes.length > 0) {
        if (changes.some((c) => c.index === sim.stepAt)) exact++;
        if (changes.some((c) => Math.abs(c.index - (sim.stepAt as number)) <= 1)) withinOne++;
        if (oraclePlacement(points, false) === sim.stepAt) oracle++;
      }
    }
  }
  return { any: any / trials, exact: any ? exact / any : 0, withinOne: any ? withinOne / any : 0, oracle: any ? oracle / any : 0, ceiling: ceiling / trials };
}

describe('change points', () => {
  it('finds a 20% step at the run where it starts, with its levels and ratio', () => {
    const points = simulateHistory(new Rng(7), { runs: 20, stepAt: 10, factor: 1.2 });
    const changes = detectChangePoints(points);
    expect(changes.map((c) => c.index)).toEqual([10]);
    const [c] = changes;
    expect(c!.ratio).toBeGreaterThan(1.1);
    expect(c!.ratio).toBeLessThan(1.3);
    expect(c!.ratio).toBeCloseTo(c!.after / c!.before, 12);
    expect(c!.pValue).toBeLessThanOrEqual(0.01);
  });

  it('finds nothing in a series without a change, and nothing in a constant one', () => {
    expect(detectChangePoints(simulateHistory(new Rng(3), { runs: 20 }))).toEqual([]);
    expect(detectChangePoints(Array.from({ length: 20 }, () => ({ value: 500, ciLow: null, ciHigh: null })))).toEqual([]);
  });

  it('finds two steps, each where it starts', () => {
    const points = simulateHistory(new Rng(11), { runs: 30, stepAt: 10, factor: 1.3, stepAt2: 20, factor2: 0.7 });
    const changes = detectChangePoints(points);
    expect(changes.map((c) => c.index)).toEqual([10, 20]);
    expect(changes[0]!.ratio).toBeGreaterThan(1);
    expect(changes[1]!.ratio).toBeLessThan(1);
  });

  it('does not take a single outlying run for a change, wherever it is', () => {
    const rng = new Rng(5);
    for (const outlierAt of [0, 3, 10, 16, 19]) {
      for (const outlierFactor of [3, 0.3, 10]) {
        const points = simulateHistory(rng, { runs: 20, outlierAt, outlierFactor });
        expect(detectChangePoints(points), `outlier ×${outlierFactor} at ${outlierAt}`).toEqual([]);
      }
    }
  });

  it('is deterministic for a seed', () => {
    const points = simulateHistory(new Rng(9), { runs: 20, stepAt: 8, factor: 1.15 });
    expect(detectChangePoints(points)).toEqual(detectChangePoints(points));
    const a = detectChangePoints(points, { seed: 1 });
    const b = detectChangePoints(points, { seed: 1 });
    expect(a).toEqual(b);
  });

  it('needs minSegment runs on each side: a step at the newest run is not a change point yet', () => {
    const points = simulateHistory(new Rng(2), { runs: 20, stepAt: 20 - DEFAULT_MIN_SEGMENT + 1, factor: 2 });
    expect(detectChangePoints(points)).toEqual([]);
  });

  it('estimates the run-to-run variance beyond the points\' own, ignoring a step', () => {
    const rng = new Rng(4);
    const logs: number[] = [];
    for (let i = 0; i < 400; i++) logs.push((i >= 200 ? 1 : 0) + 0.1 * Math.sqrt(-2 * Math.log(1 - rng.uniform())) * Math.cos(2 * Math.PI * rng.uniform()));
    const own = logs.map(() => 0);
    expect(Math.sqrt(runToRunVariance(logs, own))).toBeGreaterThan(0.085);
    expect(Math.sqrt(runToRunVariance(logs, own))).toBeLessThan(0.115);
    // Own variance that explains all of the spread leaves no run-to-run part.
    expect(runToRunVariance(logs, logs.map(() => 0.02))).toBe(0);
  });

  // Calibration (the figures docs/method.md quotes): 20 runs of a p99 with 5% run-to-run noise
  // (and 3% at which a step is easier to place), 199 shuffles a test to keep this quick.
  it('calibration: false alarms ≤ 5% without a change; a 20% step at 20 runs found ≥ 90% and placed exactly as often as the noise allows', () => {
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    const none = calibrate(1000, { runs: 20 });
    const none50 = calibrate(300, { runs: 50 });
    const step = calibrate(400, { runs: 20, stepAt: 10, factor: 1.2 });
    const early = calibrate(400, { runs: 20, stepAt: 5, factor: 1.2 });
    const quiet = calibrate(400, { runs: 20, stepAt: 10, factor: 1.2, tau: 0.03 });
    console.log(
      `calibration: false alarms ${pct(none.any)} (20 runs), ${pct(none50.any)} (50 runs); 20% step at run 10 of 20 (5% run-to-run): detected ${pct(step.any)}, ` +
        `exact ${pct(step.exact)} (oracle ${pct(step.oracle)}, levels known ${pct(step.ceiling)}), ±1 run ${pct(step.withinOne)}; ` +
        `at run 5: detected ${pct(early.any)}, exact ${pct(early.exact)} (oracle ${pct(early.oracle)}, levels known ${pct(early.ceiling)}); ` +
        `3% run-to-run: detected ${pct(quiet.any)}, exact ${pct(quiet.exact)} (oracle ${pct(quiet.oracle)}, levels known ${pct(quiet.ceiling)})`,
    );
    expect(none.any).toBeLessThanOrEqual(0.05);
    expect(none50.any).toBeLessThanOrEqual(0.05);
    expect(step.any).toBeGreaterThanOrEqual(0.9);
    // A 20% step is ~3σ of one run at 5% run-to-run noise: a run next to it often looks like the
    // other level. Placement is as good as the noise allows: within 2 points of the oracle that
    // knows there is exactly one change and every run's true variance, on the same series. Even
    // knowing both levels too, exact placement stays under 90% at this noise (the target cannot
    // hold there); at 3% it holds.
    for (const s of [step, early, quiet]) expect(s.exact).toBeGreaterThanOrEqual(s.oracle - 0.02);
    expect(step.ceiling).toBeLessThan(0.9);
    expect(step.withinOne).toBeGreaterThanOrEqual(0.95);
    expect(early.any).toBeGreaterThanOrEqual(0.8);
    expect(quiet.any).toBeGreaterThanOrEqual(0.95);
    expect(quiet.exact).toBeGreaterThanOrEqual(0.9);
  });

  it('weighs each run by its own interval: a history of runs of uneven length finds a step at least as often as treating them alike', () => {
    const weighted = calibrate(400, { runs: 20, stepAt: 10, factor: 1.2, tau: 0.02, own: 0.05 });
    const alike = calibrate(400, { runs: 20, stepAt: 10, factor: 1.2, tau: 0.02, own: 0.05 }, { useIntervals: false });
    console.log(`own intervals: detected ${weighted.any}, exact ${weighted.exact}; ignored: detected ${alike.any}, exact ${alike.exact}`);
    expect(weighted.any).toBeGreaterThanOrEqual(alike.any);
  });

  it('the newest run against the runs before it: calibrated without a change, and a 20% regression at the newest run is seen', () => {
    const rng = new Rng(12);
    let falseAlarms = 0;
    let found = 0;
    const trials = 1000;
    for (let t = 0; t < trials; t++) {
      const steady = simulateHistory(rng, { runs: 20 });
      if ((newestAgainst(steady, 0, 1)?.pValue ?? 1) < 0.01) falseAlarms++;
      const regressed = simulateHistory(rng, { runs: 20, stepAt: 19, factor: 1.2 });
      if ((newestAgainst(regressed, 0, 1)?.pValue ?? 1) < 0.01) found++;
    }
    console.log(`newest run (one-sided, 1%): false alarms ${(falseAlarms / trials * 100).toFixed(1)}%, a 20% regression found ${(found / trials * 100).toFixed(1)}%`);
    expect(falseAlarms / trials).toBeLessThanOrEqual(0.02);
    expect(found / trials).toBeGreaterThanOrEqual(0.5);
    const check = newestAgainst([100, 100, 100, 100, 150].map((value) => ({ value, ciLow: value * 0.9, ciHigh: value * 1.1 })), 0, 1);
    expect(check?.ratio).toBeCloseTo(1.5, 12);
    expect(check?.before).toBeCloseTo(100, 9);
    expect(check!.pValue).toBeLessThan(0.001);
    // Lower is not worse for a latency.
    expect(newestAgainst([100, 100, 100, 100, 50].map((value) => ({ value, ciLow: value * 0.9, ciHigh: value * 1.1 })), 0, 1)!.pValue).toBeGreaterThan(0.99);
  });
});
