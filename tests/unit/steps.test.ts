import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectSteps, formatStep, type Step } from '../../src/analysis/steps.ts';

interface CorpusRun {
  run: string;
  throughputStartEpochS: number;
  throughputPerSecond: number[];
  throughputPerSecondOk?: number[];
  splits?: { rounds: Array<{ offsetS: number; splits: number; partitionsAfter: number }> };
}
type Corpus = Record<string, { runs?: CorpusRun[] }>;

const corpus = JSON.parse(readFileSync(new URL('../fixtures/corpus/expected.json', import.meta.url), 'utf8')) as Corpus;

function runsOf(scenario: string): CorpusRun[] {
  const runs = corpus[scenario]?.runs;
  if (!runs || runs.length === 0) throw new Error(`scenario ${scenario} missing from expected.json`);
  return runs;
}

/** Deterministic PRNG (mulberry32), so that the noisy synthetic series are the same on every run. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A synthetic run: `levels[i]` ops/s held for `secondsPerLevel` seconds each, ± `noise` (uniform,
 * relative), framed by a partial first second (a catch-up burst) and a partial last second, as YCSB
 * runs are. Level i starts at offset 1 + i × secondsPerLevel.
 */
function staircase(levels: number[], secondsPerLevel: number, noise: number, seed: number): number[] {
  const random = seededRandom(seed);
  const body = levels.flatMap((level) =>
    Array.from({ length: secondsPerLevel }, () => Math.round(level * (1 + noise * (2 * random() - 1)))),
  );
  return [2 * (levels[0] ?? 0), ...body, 7];
}

function offsets(steps: Step[]): number[] {
  return steps.map((s) => s.offsetS);
}

describe('detectSteps on the corpus', () => {
  const splitRun = runsOf('split-for-heat')[0];
  const okSeries = splitRun?.throughputPerSecondOk;
  const rounds = splitRun?.splits?.rounds;
  if (!splitRun || !okSeries || !rounds) throw new Error('split-for-heat run lacks its Ok series or splits');
  const steps = detectSteps(okSeries);

  it('places every detected step within 3 s of a ground-truth split round', () => {
    for (const step of steps) {
      expect(rounds.some((r) => Math.abs(r.offsetS - step.offsetS) <= 3), `step at ${step.offsetS}`).toBe(true);
    }
  });

  it('finds each of the first four rounds (4 → 8 → 16 → 32 → 47 partitions)', () => {
    for (const round of rounds.slice(0, 4)) {
      expect(steps.some((s) => Math.abs(s.offsetS - round.offsetS) <= 3), `round at ${round.offsetS}`).toBe(true);
    }
  });

  it('measures the three full doublings as ≈ 2.0× and the partial fourth round as a smaller step up', () => {
    expect(steps).toHaveLength(4);
    for (const step of steps.slice(0, 3)) expect(step.ratio).toBeCloseTo(2, 1);
    // Round 4 split 15 of 32 partitions, and the hottest keys keep throttling: about +25%.
    const fourth = steps[3];
    expect(fourth?.ratio).toBeGreaterThan(1.15);
    expect(fourth?.ratio).toBeLessThan(1.5);
  });

  it('reports no step for the later one-to-three-partition rounds, which add little throughput', () => {
    // Rounds 5–7 (≈138, 144, 151 s) raise the capacity by 2–6 %, below any step threshold.
    for (const round of rounds.slice(4)) {
      expect(steps.some((s) => Math.abs(s.offsetS - round.offsetS) <= 3)).toBe(false);
    }
  });

  it('labels the steps for a chart', () => {
    expect(steps.map((s) => formatStep(s))).toEqual(['+2.0× at 00:30', '+2.0× at 01:00', '+2.0× at 01:30', '+1.3× at 02:00']);
  });

  it('finds no step in the offered load of the same run (successful + failed), which is steady', () => {
    expect(detectSteps(splitRun.throughputPerSecond)).toEqual([]);
  });

  for (const scenario of ['sweep-uniform-a', 'zipfian-a', 'intended-a']) {
    for (const run of runsOf(scenario)) {
      it(`finds no step in the steady run ${scenario}/${run.run}`, () => {
        expect(detectSteps(run.throughputPerSecond)).toEqual([]);
      });
    }
  }
});

describe('detectSteps on synthetic series', () => {
  it('finds no step in flat noise of ±10 % and ±15 %', () => {
    for (const noise of [0.1, 0.15]) {
      for (let seed = 1; seed <= 50; seed++) {
        const length = 20 + seed * 7;
        expect(detectSteps(staircase([1000], length, noise, seed)), `noise ${noise}, seed ${seed}`).toEqual([]);
      }
    }
  });

  it('ignores partial first and last seconds', () => {
    expect(detectSteps([410, 204, 212, 208, 215, 211, 209, 213, 210, 214, 212, 10])).toEqual([]);
    // Clients stopping a little apart leave two partial seconds at the end.
    expect(detectSteps([7128, 6614, ...Array<number>(20).fill(6000), 2079, 37])).toEqual([]);
  });

  it('finds the doublings of a noisy staircase at the right seconds', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const steps = detectSteps(staircase([200, 400, 800, 1600], 30, 0.1, seed));
      expect(steps).toHaveLength(3);
      steps.forEach((step, i) => {
        expect(Math.abs(step.offsetS - (31 + 30 * i))).toBeLessThanOrEqual(1);
        expect(step.ratio).toBeGreaterThan(1.8);
        expect(step.ratio).toBeLessThan(2.2);
      });
    }
  });

  it('is not fooled by a one-second dip at each cutover', () => {
    const series = staircase([200, 400, 800], 30, 0.1, 7);
    // The cutover second loses most of its operations (a throttling burst while the split happens).
    series[31] = 40;
    series[61] = 90;
    const steps = detectSteps(series);
    expect(steps).toHaveLength(2);
    expect(Math.abs((steps[0]?.offsetS ?? 0) - 31)).toBeLessThanOrEqual(1);
    expect(Math.abs((steps[1]?.offsetS ?? 0) - 61)).toBeLessThanOrEqual(1);
    for (const step of steps) expect(step.ratio).toBeCloseTo(2, 0);
  });

  it('finds a sustained drop as a step down', () => {
    const steps = detectSteps(staircase([2000, 1000, 1000], 20, 0.1, 3));
    expect(steps).toHaveLength(1);
    expect(Math.abs((steps[0]?.offsetS ?? 0) - 21)).toBeLessThanOrEqual(1);
    expect(steps[0]?.ratio).toBeGreaterThan(0.45);
    expect(steps[0]?.ratio).toBeLessThan(0.55);
    expect(formatStep(steps[0] as Step)).toMatch(/^−2\.0× at 00:2[012]$/);
  });

  it('finds both edges of a rise and fall', () => {
    const steps = detectSteps(staircase([1000, 2000, 1000], 20, 0.1, 11));
    expect(steps.map((s) => s.ratio > 1)).toEqual([true, false]);
    expect(offsets(steps).map((o, i) => Math.abs(o - (21 + 20 * i)) <= 1)).toEqual([true, true]);
  });

  it('finds an outage (a sustained fall to zero)', () => {
    const series = [600, ...Array<number>(30).fill(1000), ...Array<number>(20).fill(0), 0];
    const steps = detectSteps(series);
    expect(steps).toEqual([{ offsetS: 31, fromOpsPerS: 1000, toOpsPerS: 0, ratio: 0 }]);
    expect(formatStep(steps[0] as Step)).toBe('to 0 ops/s at 00:31');
  });

  it('ignores changes smaller than minRelativeChange and levels shorter than minSegmentS', () => {
    expect(detectSteps(staircase([1000, 1100], 30, 0, 1))).toEqual([]);
    expect(offsets(detectSteps(staircase([1000, 1100], 30, 0, 1), { minRelativeChange: 0.05 }))).toEqual([31]);
    expect(detectSteps(staircase([1000, 2000, 1000], 4, 0, 1))).toEqual([]);
  });

  it('returns nothing for a series too short to hold two levels', () => {
    expect(detectSteps([])).toEqual([]);
    expect(detectSteps([100, 200, 400])).toEqual([]);
  });

  it('rejects invalid values and options', () => {
    expect(() => detectSteps([1, Number.NaN, 3])).toThrow(RangeError);
    expect(() => detectSteps([1, -2, 3])).toThrow(RangeError);
    expect(() => detectSteps([1, 2, 3], { minSegmentS: 1 })).toThrow(RangeError);
    expect(() => detectSteps([1, 2, 3], { minRelativeChange: 0 })).toThrow(RangeError);
  });

  it('handles a 10,000-second series in milliseconds', () => {
    const series = staircase([1000, 2000, 4000, 2000], 2500, 0.1, 5);
    detectSteps(series); // warm up the JIT so that the timing below measures the algorithm
    const started = performance.now();
    const steps = detectSteps(series);
    const elapsedMs = performance.now() - started;
    expect(offsets(steps)).toEqual([2501, 5001, 7501]);
    // Typically under 10 ms; the bound leaves room for a slow, shared CI machine.
    expect(elapsedMs).toBeLessThan(200);
  });
});

describe('formatStep', () => {
  const step = (offsetS: number, ratio: number): Step => ({ offsetS, fromOpsPerS: 100, toOpsPerS: 100 * ratio, ratio });

  it('gives direction, factor and mm:ss since the series start', () => {
    expect(formatStep(step(30, 2.0024))).toBe('+2.0× at 00:30');
    expect(formatStep(step(70, 0.5))).toBe('−2.0× at 01:10');
    expect(formatStep(step(5000, 1.27))).toBe('+1.3× at 1:23:20');
  });

  it('says a fall to nothing or a rise from nothing as such, with no factor', () => {
    expect(formatStep({ offsetS: 31, fromOpsPerS: 1000, toOpsPerS: 0, ratio: 0 })).toBe('to 0 ops/s at 00:31');
    expect(formatStep({ offsetS: 62, fromOpsPerS: 0, toOpsPerS: 800, ratio: Infinity })).toBe('from 0 ops/s at 01:02');
  });

  it('appends the UTC wall-clock time when the start epoch is known', () => {
    // 1795255808 = 2026-11-21 10:10:08 UTC, the first second of a corpus run.
    expect(formatStep(step(30, 2), 1795255808)).toBe('+2.0× at 00:30 (10:10:38 UTC)');
  });
});
