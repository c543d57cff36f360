import { describe, expect, it } from 'vitest';
import { identityPlan, PercentileTables, resamplePlan, SecondHistogramsBuilder, type SecondHistograms } from '../../src/analysis/block-bootstrap.ts';
import { MAX_VARIANCE_CORRECTION, politisWhite, varianceCorrection } from '../../src/analysis/block-length.ts';
import { Rng } from '../../src/analysis/rng.ts';
import { benchstatDelta, betweenRunInterval, compareSides, MIN_SECONDS, verdictOf, type RunFigures, type SideInput } from '../../src/analysis/compare.ts';
import { studentTCdf, studentTQuantile } from '../../src/analysis/student-t.ts';
import { countAtPercentile } from '../../src/model/hdr-stats.ts';
import { snapshotFromFile, linkDataToSnapshot, snapshotToFile, snapshotToLinkData, type Snapshot } from '../../src/state/snapshot.ts';
import { decodeState, DEFAULT_STATE, encodeState } from '../../src/state/view-state.ts';
import { carriedDecisions, decisionFragment } from '../../src/state/decisions.ts';
import { normal as normalDraw, sideOf, simulateRun, sliceRun, STEADY_RUN, type RunShape, type SimulatedRun } from './helpers/simulated-runs.ts';

/**
 * The comparison's parts against independent computations (the percentile of a resample summed
 * by brute force, Student's t from its tables), its verdicts and wording, and its calibration on
 * simulated runs of known distributions.
 */

/** The value at percentile p of (value, count) pairs, read the HdrHistogram 2.2.2 way, by brute force. */
function bruteForcePercentile(cells: Map<number, number>, p: number): number {
  const values = [...cells.keys()].sort((a, b) => a - b);
  const total = values.reduce((a, v) => a + (cells.get(v) as number), 0);
  const rank = countAtPercentile(total, p);
  let cumulative = 0;
  for (const v of values) {
    cumulative += cells.get(v) as number;
    if (cumulative >= rank) return v;
  }
  throw new Error('empty');
}

function randomSeconds(rng: Rng, seconds: number, distinct: number): { h: SecondHistograms; raw: { t: number; v: number; n: number }[] } {
  const builder = new SecondHistogramsBuilder(seconds, false);
  const raw: { t: number; v: number; n: number }[] = [];
  for (let t = 0; t < seconds; t++) {
    const cells = 1 + rng.below(12);
    const values: number[] = [];
    const counts: number[] = [];
    for (let i = 0; i < cells; i++) {
      const v = 10 + rng.below(distinct) * 7;
      const n = 1 + rng.below(50);
      values.push(v);
      counts.push(n);
      raw.push({ t, v, n });
    }
    builder.add(t, values, counts);
  }
  return { h: builder.finish(), raw };
}

describe('percentiles of resamples', () => {
  const rng = new Rng(7);
  const { h, raw } = randomSeconds(rng, 120, 400);
  const percentiles = [1, 50, 90, 99, 99.9, 100];

  it('read every second once: the merged figures', () => {
    const merged = new Map<number, number>();
    for (const c of raw) merged.set(c.v, (merged.get(c.v) ?? 0) + c.n);
    const out = new Float64Array(percentiles.length);
    const n = new PercentileTables(h).evaluate(identityPlan([{ from: 0, to: 120, blockLength: 120 }]), 0, percentiles, out);
    expect(n).toBe(raw.reduce((a, c) => a + c.n, 0));
    expect([...out]).toEqual(percentiles.map((p) => bruteForcePercentile(merged, p)));
  });

  it('read any resample exactly: the same as summing its seconds one by one', () => {
    const tables = new PercentileTables(h);
    const plan = resamplePlan(
      [
        { from: 0, to: 70, blockLength: 6 },
        { from: 70, to: 120, blockLength: 9 },
      ],
      60,
      new Rng(11),
    );
    const out = new Float64Array(percentiles.length);
    for (let r = 0; r < plan.resamples; r++) {
      const summed = new Map<number, number>();
      for (let i = r * plan.blocksPer; i < (r + 1) * plan.blocksPer; i++) {
        for (const c of raw) if (c.t >= (plan.starts[i] as number) && c.t < (plan.ends[i] as number)) summed.set(c.v, (summed.get(c.v) ?? 0) + c.n);
      }
      tables.evaluate(plan, r, percentiles, out);
      expect([...out], `resample ${r}`).toEqual(percentiles.map((p) => bruteForcePercentile(summed, p)));
    }
  });

  it('resample each run within itself, as long as the run, in blocks of its length', () => {
    const plan = resamplePlan(
      [
        { from: 0, to: 25, blockLength: 10 },
        { from: 25, to: 40, blockLength: 4 },
      ],
      200,
      new Rng(3),
    );
    expect(plan.blocksPer).toBe(3 + 4);
    for (let r = 0; r < plan.resamples; r++) {
      let first = 0;
      let second = 0;
      for (let i = r * plan.blocksPer; i < (r + 1) * plan.blocksPer; i++) {
        const [s, e] = [plan.starts[i] as number, plan.ends[i] as number];
        if (s < 25) {
          expect(e).toBeLessThanOrEqual(25);
          first += e - s;
        } else {
          expect(e).toBeLessThanOrEqual(40);
          second += e - s;
        }
      }
      expect([first, second]).toEqual([25, 15]);
    }
  });
});

describe('block length from the data (Politis–White)', () => {
  it('is 1 for independent seconds and for a constant series, longer for a correlated one', () => {
    const rng = new Rng(5);
    const white = Float64Array.from({ length: 600 }, () => rng.uniform());
    expect(politisWhite(white).blockLength).toBeLessThanOrEqual(2);
    const constant = politisWhite(new Float64Array(600).fill(3));
    expect(constant.blockLength).toBe(1);
    expect(constant.shortfall(10)).toBe(0);
    let x = 0;
    const ar = Float64Array.from({ length: 600 }, () => (x = 0.8 * x + rng.uniform() - 0.5));
    const correlated = politisWhite(ar);
    expect(correlated.blockLength).toBeGreaterThan(4);
    // Never beyond ⌈min(3√n, n/3)⌉.
    expect(correlated.blockLength).toBeLessThanOrEqual(Math.ceil(3 * Math.sqrt(600)));
    // AR(1) with ρ = 0.8: Σ k·γ(k) / Σ γ(k) = 2ρ / ((1 − ρ)(1 + ρ)) ≈ 4.4; estimates fall somewhat short of it.
    expect(correlated.shortfall(2 * correlated.window)).toBeGreaterThan(2.5);
    expect(correlated.shortfall(2 * correlated.window)).toBeLessThan(6);
  });

  it('corrects the variance shortfall, at most by MAX_VARIANCE_CORRECTION', () => {
    expect(varianceCorrection(2, 10, 300)).toBeCloseTo(1 / (1 - 0.2 - 10 / 300), 12);
    expect(varianceCorrection(0, 1, 1000)).toBeCloseTo(1 / (1 - 0.001), 12);
    expect(varianceCorrection(6, 10, 30)).toBe(MAX_VARIANCE_CORRECTION);
    expect(varianceCorrection(4.9, 10, 1e9)).toBeCloseTo(1 / 0.51, 6);
  });
});

describe("Student's t", () => {
  it('matches the printed tables', () => {
    // Two-sided 95% critical values: df 1, 2, 5, 10, 30, ∞.
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(studentTQuantile(0.975, 2)).toBeCloseTo(4.3027, 3);
    expect(studentTQuantile(0.975, 5)).toBeCloseTo(2.5706, 3);
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.2281, 3);
    expect(studentTQuantile(0.975, 30)).toBeCloseTo(2.0423, 3);
    expect(studentTQuantile(0.975, 1e7)).toBeCloseTo(1.96, 3);
    expect(studentTCdf(0, 3)).toBeCloseTo(0.5, 12);
    expect(studentTQuantile(0.025, 10)).toBeCloseTo(-2.2281, 3);
  });
});

describe('verdicts and their wording', () => {
  it('lower latency is better, higher throughput is better, an interval holding 1 is the same', () => {
    expect(verdictOf('p99', 0.8, 0.9)).toBe('better');
    expect(verdictOf('p99', 1.1, 1.3)).toBe('worse');
    expect(verdictOf('throughput', 1.1, 1.3)).toBe('better');
    expect(verdictOf('throughput', 0.8, 0.9)).toBe('worse');
    expect(verdictOf('p50', 0.9, 1.1)).toBe('same');
    expect(verdictOf('p50', 1, 1)).toBe('same');
  });

  it('writes the change as benchstat does', () => {
    expect(benchstatDelta({ ratio: 1.123, ciLow: 1.09, ciHigh: 1.164, verdict: 'worse' })).toBe('+12.3% ± 4.1%');
    expect(benchstatDelta({ ratio: 0.9, ciLow: 0.85, ciHigh: 0.93, verdict: 'better' })).toBe('-10.0% ± 5.0%');
    expect(benchstatDelta({ ratio: 1.01, ciLow: 0.97, ciHigh: 1.05, verdict: 'same' })).toBe('~');
    expect(benchstatDelta({ ratio: 1.01, ciLow: null, ciHigh: null, verdict: null })).toBe('');
  });
});

describe('between-run spread', () => {
  it("is Welch's t interval on the logarithms, reported as the ratio of geometric means", () => {
    const b = [100, 110, 105];
    const c = [120, 130, 118, 125];
    const r = betweenRunInterval(b, c);
    const logs = (v: number[]) => v.map(Math.log);
    const mean = (v: number[]) => v.reduce((a, x) => a + x, 0) / v.length;
    const variance = (v: number[]) => v.reduce((a, x) => a + (x - mean(v)) ** 2, 0) / (v.length - 1);
    const [lb, lc] = [logs(b), logs(c)];
    const se2 = variance(lb) / 3 + variance(lc) / 4;
    const df = se2 ** 2 / ((variance(lb) / 3) ** 2 / 2 + (variance(lc) / 4) ** 2 / 3);
    const half = studentTQuantile(0.975, df) * Math.sqrt(se2);
    const d = mean(lc) - mean(lb);
    expect(r.baseline).toBeCloseTo(Math.cbrt(100 * 110 * 105), 9);
    expect(r.ratio).toBeCloseTo(Math.exp(d), 12);
    expect(r.ciLow).toBeCloseTo(Math.exp(d - half), 12);
    expect(r.ciHigh).toBeCloseTo(Math.exp(d + half), 12);
  });
});

function figures(label: string, ops: Record<string, { count: number; unit?: string; precision?: string; values?: Record<string, number> }>, throughput = 1000): RunFigures {
  return {
    label,
    durationS: 100,
    throughput,
    ops: Object.fromEntries(Object.entries(ops).map(([op, o]) => [op, { count: o.count, unit: o.unit ?? 'us', precision: o.precision ?? '3 digits', values: o.values ?? { p50: 100, p99: 900, 'p99.9': 2000 } }])),
  };
}

const noTime = (label: string, runs: RunFigures[]): SideInput => ({ label, runs, seconds: null, noSeconds: 'opened from a snapshot file, whose latency data has no time' });

describe('bad input', () => {
  it('says when baseline and candidate have no operation in common, and compares nothing', () => {
    const r = compareSides(noTime('a', [figures('a', { READ: { count: 10 } })]), noTime('b', [figures('b', { SCAN: { count: 10 } })]));
    expect(r.rows).toEqual([]);
    expect(r.problems).toEqual(['baseline and candidate have no operation in common (baseline: READ; candidate: SCAN)']);
  });

  it('does not compare latencies in different units or precisions', () => {
    const r = compareSides(
      noTime('a', [figures('a', { READ: { count: 10 }, UPDATE: { count: 10 }, SCAN: { count: 10 } })]),
      noTime('b', [figures('b', { READ: { count: 10, unit: 'ns' }, UPDATE: { count: 10, precision: '2 digits' }, SCAN: { count: 10 } })]),
    );
    expect(r.problems).toEqual([
      'READ: the runs record latency in different units (us vs ns); not compared',
      "UPDATE: the runs' latencies have different precision (3 digits vs 2 digits), so a difference of a bucket's width could be an artefact of the buckets; not compared",
    ]);
    expect(new Set(r.rows.map((row) => row.op))).toEqual(new Set(['SCAN', 'all operations']));
  });

  it('gives figures and their ratio but no interval where the data has no time', () => {
    const r = compareSides(noTime('a', [figures('a', { READ: { count: 10 } })]), noTime('b', [figures('b', { READ: { count: 10, values: { p50: 110, p99: 900, 'p99.9': 2000 } } })]));
    expect(r.method).toBe('none');
    const p50 = r.rows.find((row) => row.stat === 'p50');
    expect(p50).toMatchObject({ baseline: 100, candidate: 110, ciLow: null, ciHigh: null, verdict: null, delta: '' });
    expect(p50?.ratio).toBeCloseTo(1.1, 12);
    expect(p50?.note).toMatch(/no time/);
  });

  it('gives no interval for runs too short for a bootstrap, and says so', () => {
    const rng = new Rng(1);
    const short = { ...STEADY_RUN, seconds: MIN_SECONDS - 1 };
    const r = compareSides(sideOf([simulateRun(rng, short)]), sideOf([simulateRun(rng, STEADY_RUN)]), { resamples: 200 });
    expect(r.method).toBe('none');
    expect(r.rows.every((row) => row.ciLow === null && row.verdict === null)).toBe(true);
    expect(r.methodText).toMatch(`has ${MIN_SECONDS - 1} s of data; a bootstrap needs at least ${MIN_SECONDS} s`);
  });

  it('gives no interval for a percentile with too few samples beyond it', () => {
    const rng = new Rng(2);
    const sparse: RunShape = { ...STEADY_RUN, seconds: 60, rate: 20 };
    const r = compareSides(sideOf([simulateRun(rng, sparse)]), sideOf([simulateRun(rng, sparse)]), { resamples: 200, percentiles: [50, 99.9] });
    const tail = r.rows.find((row) => row.stat === 'p99.9');
    expect(tail?.ciLow).toBeNull();
    expect(tail?.note).toMatch(/p99\.9 needs at least 10 samples beyond it \(10,000 in all\); the baseline has/);
    expect(r.rows.find((row) => row.stat === 'p50')?.ciLow).not.toBeNull();
  });
});

describe('a run against itself', () => {
  it('is the same, with a ratio of 1 and an interval around it', () => {
    const side = sideOf([simulateRun(new Rng(8), STEADY_RUN)]);
    const r = compareSides(side, side, { resamples: 500 });
    expect(r.method).toBe('block-bootstrap');
    for (const row of r.rows) {
      expect(row.ratio, `${row.op} ${row.stat}`).toBe(1);
      expect(row.verdict).toBe('same');
      expect(row.ciLow).toBeLessThan(1);
      expect(row.ciHigh).toBeGreaterThan(1);
    }
  });
});

/**
 * Calibration. A/A pairs (two runs of one configuration, and the two halves of one steady run)
 * must come out "same" about 95% of the time; a +10% shift must be found. Runs of 300 s with
 * AR(1) load and latency level (STEADY_RUN), 500 resamples each. What this prints (kept in sync
 * with the assertions below; the test fails if a figure leaves its bounds):
 *   A/A, 500 pairs: false-positive rate READ p50 7.0%, p99 3.6%, p99.9 4.4%, READ throughput 4.8%, all operations 4.8%
 *   +10% latency and load, 200 pairs: power READ p50 100%, p99 97.0%, p99.9 63.5%, READ throughput 99.5%, all operations 99.5%
 *   between runs, 5 + 5 repeats, 600 pairs: false-positive rate p50 5.8%, p99 4.7%, p99.9 4.3%, throughput 4.3%
 */
describe('calibration on simulated runs of known distributions', () => {
  const STATS = ['READ p50', 'READ p99', 'READ p99.9', 'READ throughput', 'all operations throughput'];
  const RESAMPLES = 500;

  /** Per statistic, the share of pairs whose verdict `counts` (A/A: any difference; a shift: the right one). */
  function share(pairs: [SimulatedRun, SimulatedRun][], seed: number, counts: (stat: string, verdict: string) => boolean): Record<string, number> {
    const hits: Record<string, number> = Object.fromEntries(STATS.map((s) => [s, 0]));
    pairs.forEach(([a, b], i) => {
      const r = compareSides(sideOf([a]), sideOf([b]), { resamples: RESAMPLES, seed: seed + i });
      for (const row of r.rows) {
        const key = `${row.op} ${row.stat}`;
        if (row.verdict === null) throw new Error(`${key}: no interval (${row.note})`);
        if (counts(row.stat, row.verdict)) hits[key] = (hits[key] as number) + 1;
      }
    });
    return Object.fromEntries(Object.entries(hits).map(([k, n]) => [k, n / pairs.length]));
  }

  const pct = (shares: Record<string, number>) => Object.entries(shares).map(([k, v]) => `${k} ${(v * 100).toFixed(1)}%`).join(', ');

  it('A/A: no significant difference about 95% of the time (≥ 500 pairs)', () => {
    const rng = new Rng(2026);
    const pairs: [SimulatedRun, SimulatedRun][] = [];
    for (let i = 0; i < 250; i++) pairs.push([simulateRun(rng, STEADY_RUN), simulateRun(rng, STEADY_RUN)]);
    for (let i = 0; i < 250; i++) {
      const whole = simulateRun(rng, { ...STEADY_RUN, seconds: 2 * STEADY_RUN.seconds });
      pairs.push([sliceRun(whole, 0, STEADY_RUN.seconds), sliceRun(whole, STEADY_RUN.seconds, 2 * STEADY_RUN.seconds)]);
    }
    const falsePositives = share(pairs, 1, (_, verdict) => verdict !== 'same');
    console.log(`A/A, ${pairs.length} pairs: false-positive rate ${pct(falsePositives)}`);
    for (const [stat, rate] of Object.entries(falsePositives)) {
      expect(rate, stat).toBeGreaterThanOrEqual(0.03);
      expect(rate, stat).toBeLessThanOrEqual(0.08);
    }
  }, 600_000);

  it('+10%: finds a shift of a tenth in latency and in load', () => {
    const rng = new Rng(4711);
    const pairs: [SimulatedRun, SimulatedRun][] = [];
    for (let i = 0; i < 200; i++) pairs.push([simulateRun(rng, STEADY_RUN), simulateRun(rng, { ...STEADY_RUN, latencyScale: 1.1, rateScale: 1.1 })]);
    // Slower and busier: latency worse, throughput better.
    const power = share(pairs, 100_000, (stat, verdict) => verdict === (stat === 'throughput' ? 'better' : 'worse'));
    console.log(`+10% latency / +10% load, ${pairs.length} pairs: power ${pct(power)}`);
    expect(power['READ p50']).toBeGreaterThanOrEqual(0.95);
    expect(power['READ p99']).toBeGreaterThanOrEqual(0.9);
    expect(power['READ p99.9']).toBeGreaterThanOrEqual(0.5);
    expect(power['READ throughput']).toBeGreaterThanOrEqual(0.9);
  }, 600_000);

  it('between runs: repeats with a run-to-run spread give "same" about 95% of the time', () => {
    // Five runs a side, each with its own level (σ 5% in latency, 5% in load): what one run's
    // seconds cannot show, and the between-run method must. (Welch's test is conservative for
    // few runs: with 3 a side it says "same" ~97% of the time, with 2 ~98%.)
    const rng = new Rng(99);
    const shape: RunShape = { ...STEADY_RUN, seconds: 30 };
    const repeat = () => {
      const run = simulateRun(rng, { ...shape, latencyScale: Math.exp(0.05 * normalDraw(rng)), rateScale: Math.exp(0.05 * normalDraw(rng)) });
      const merged = new Map<number, number>();
      for (const c of run.cells) c.values.forEach((v, i) => merged.set(v, (merged.get(v) ?? 0) + (c.counts[i] as number)));
      const read = run.figures.ops.READ as RunFigures['ops'][string];
      read.values = Object.fromEntries([50, 99, 99.9].map((p) => [`p${p}`, bruteForcePercentile(merged, p)]));
      return run.figures;
    };
    const hits: Record<string, number> = {};
    const pairs = 600;
    const repeats = () => Array.from({ length: 5 }, repeat);
    for (let i = 0; i < pairs; i++) {
      const r = compareSides(noTime('a', repeats()), noTime('b', repeats()));
      expect(r.method).toBe('between-runs');
      for (const row of r.rows) if (row.verdict !== 'same') hits[`${row.op} ${row.stat}`] = (hits[`${row.op} ${row.stat}`] ?? 0) + 1;
    }
    const rates = Object.fromEntries(STATS.map((s) => [s, (hits[s] ?? 0) / pairs]));
    console.log(`between runs, 5 + 5 repeats, ${pairs} pairs: false-positive rate ${pct(rates)}`);
    for (const [stat, rate] of Object.entries(rates)) {
      expect(rate, stat).toBeGreaterThanOrEqual(0.03);
      expect(rate, stat).toBeLessThanOrEqual(0.08);
    }
  }, 600_000);
});

describe('a comparison travels', () => {
  const result = compareSides(sideOf([simulateRun(new Rng(12), { ...STEADY_RUN, seconds: 60 })]), sideOf([simulateRun(new Rng(13), { ...STEADY_RUN, seconds: 60 })]), { resamples: 200 });
  const snapshot: Snapshot = { runs: [], comparison: result };

  it('in snapshot files and in links, as computed', () => {
    expect(result.rows.length).toBeGreaterThan(0);
    expect(snapshotFromFile(snapshotToFile(snapshot)).comparison).toEqual(result);
    expect(linkDataToSnapshot(snapshotToLinkData(snapshot)).comparison).toEqual(result);
  });

  it('and a damaged one is refused, not shown', () => {
    const doc = JSON.parse(snapshotToFile(snapshot));
    doc.comparison.rows[0].verdict = '<script>';
    expect(() => snapshotFromFile(JSON.stringify(doc))).toThrow(/the carried comparison is malformed \(row 1 verdict\)/);
    doc.comparison.rows[0].verdict = 'same';
    doc.comparison.rows[0].ratio = 'one';
    expect(() => snapshotFromFile(JSON.stringify(doc))).toThrow(/row 1 figures/);
  });

  it('in the link state: the sides, the percentiles, prices and the sizing percentile, defaults left out', () => {
    const state = { ...structuredClone(DEFAULT_STATE), compare: { baseline: 'system=Redis', candidate: 'runs/b', percentiles: [50, 99.9] }, pricing: { Redis: { nodeHourly: 0.5 }, Dynamo: { dynamodb: 'on-demand' as const } }, sizingPercentile: 99 };
    const decoded = decodeState(encodeState(state));
    expect(decoded.notices).toEqual([]);
    expect(decoded.state.compare).toEqual(state.compare);
    expect(decoded.state.pricing).toEqual(state.pricing);
    expect(decoded.state.sizingPercentile).toBe(99);
    expect(encodeState(DEFAULT_STATE)).toBe('');
    expect(decodeState('compare={"baseline":"a"}&pricing={"x":{"nodeHourly":-1}}&sizingp=0').notices).toEqual([
      'the A/B comparison in the link is malformed and was ignored',
      'system prices in the link are malformed and were ignored',
      'sizing percentile "0" must be above 0 and at most 100',
    ]);
  });
});

describe('a snapshot file carries the decisions of the view', () => {
  it('the SLA, prices, sizing percentile, labels and sides, taken only where the view has not set its own', () => {
    const made = { ...structuredClone(DEFAULT_STATE), sla: 'p95 of READ <= 1 ms', pricing: { Redis: { monthly: 500 } }, sizingPercentile: 99, runs: { 'a/b': { nodes: 3 } }, compare: { baseline: 'a/b', candidate: 'a/c' }, chart: 'cost' as const };
    const fragment = decisionFragment(made);
    expect(fragment).not.toContain('chart=');
    const file = snapshotToFile({ runs: [], view: fragment });
    const carried = snapshotFromFile(file).view as string;
    expect(carriedDecisions(DEFAULT_STATE, carried)).toEqual({ sla: made.sla, pricing: made.pricing, sizingPercentile: 99, runs: made.runs, compare: made.compare });
    expect(carriedDecisions({ ...DEFAULT_STATE, sla: 'p50 of READ <= 2 ms' }, carried).sla).toBeUndefined();
    // A damaged fragment gives nothing it cannot read.
    expect(carriedDecisions(DEFAULT_STATE, 'pricing=%7B%22x%22%3A1%7D&sla=p99%20of%20READ%20%3C%3D%201%20ms&v=2')).toEqual({ sla: 'p99 of READ <= 1 ms' });
  });
});
