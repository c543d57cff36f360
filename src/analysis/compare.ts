import {
  blockSum,
  identityPlan,
  PercentileTables,
  percentileInfluence,
  prefixSums,
  resamplePlan,
  samplesPerSecond,
  slotOf,
  type ResamplePlan,
  type SecondHistograms,
  type Segment,
} from './block-bootstrap.ts';
import { MAX_VARIANCE_CORRECTION, politisWhite, varianceCorrection } from './block-length.ts';
import { deriveSeed, Rng } from './rng.ts';
import { studentTQuantile } from './student-t.ts';
import type { CompareMethod, CompareResult, ComparisonRow, SideSummary, Verdict } from '../model/comparison.ts';

/**
 * A/B comparison of two runs, or two groups of runs, with a 95% confidence interval of the ratio
 * candidate ÷ baseline of each figure, and a verdict written as benchstat writes it.
 *
 * Methods, and when each is used:
 * - *Between-run spread* when both sides hold at least two runs (repeats of one configuration):
 *   each side's figure is the geometric mean of its runs' figures, and the interval is Welch's t
 *   interval on their logarithms. What varies from one run to the next (a JVM's warm-up, where
 *   the data landed) is in it, which one run's seconds cannot show.
 * - *Moving-block bootstrap* otherwise (see block-bootstrap.ts): each run's seconds are resampled
 *   in blocks whose length is chosen from the data, every resample exact; a side of several runs
 *   resamples each run within itself and merges them. The interval is the 2.5th–97.5th percentile
 *   of the log-ratio over paired resamples of the two sides (independent streams, fixed seeds:
 *   the app and the CLI print the same numbers), with two known finite-sample corrections: each
 *   side's spread is widened by the bootstrap's estimated variance shortfall for its block length
 *   (varianceCorrection), and the interval by t/z for the degrees of freedom its blocks hold. On
 *   simulated runs of 300 s (tests/unit/compare.test.ts) this brings the false-positive rate of
 *   A/A comparisons from ~9–11% down to ~5%.
 * - *One run's own interval* (runIntervals, for a history of runs): the same bootstrap of one side,
 *   its figure's 95% interval rather than a ratio's. It lives here, beside the A/B rows, so that
 *   both are one method (which is why this file runs past 500 lines).
 * - *None* where the data has no time resolution (summaries only, a snapshot file) or a run is
 *   shorter than MIN_SECONDS: the figures and their ratio, and the reason no interval is given.
 */

export const DEFAULT_PERCENTILES: readonly number[] = [50, 99, 99.9];
export const DEFAULT_RESAMPLES = 2000;
/** Any fixed seed: what matters is that every comparison of the same data uses the same one. */
export const DEFAULT_SEED = 20_261_125;
export const CONFIDENCE = 0.95;
/** A run shorter than this has too few blocks for a bootstrap to say anything. */
export const MIN_SECONDS = 10;
/** An interval for pXX needs this many samples beyond it on each side: resamples of fewer only reshuffle a handful of values. */
export const MIN_TAIL_SAMPLES = 10;
/** Blocks per run and resample at most: an hour of seconds gets blocks of at least 8 s. */
export const MAX_BLOCKS_PER_RUN = 500;
/** The row of a run's throughput over every operation (failed included), as the summary counts it. */
export const ALL_OPERATIONS = 'all operations';
export const THROUGHPUT = 'throughput';
/** The share of a run's operations that failed (of all operations): a run's error rate. */
export const ERROR_RATE = 'errors';

/** An operation's figures in one run: count, unit and precision (what may be compared), values by stat key ('p99'). */
export interface OpFigures {
  count: number;
  unit: string;
  /** 'exact values' for raw samples, else the HdrHistogram precision; null when unknown (a figures-only snapshot). */
  precision: string | null;
  values: Record<string, number | null>;
}

export interface RunFigures {
  label: string;
  durationS: number | null;
  /** ops/s over every operation, failed included. */
  throughput: number | null;
  ops: Record<string, OpFigures>;
}

/**
 * A side's runs second by second on one time axis, run after run: `segments` are each run's
 * seconds, `opsPerSecond` its operations (failed included) in each, `ops` each operation's latency.
 * Latency values are in µs.
 */
export interface SideSeconds {
  segments: { from: number; to: number; durationS: number }[];
  opsPerSecond: Float64Array;
  /** Of those, the failed ones (for a run's error rate); absent when not known. */
  failedPerSecond?: Float64Array;
  ops: Record<string, SecondHistograms>;
}

export interface SideInput {
  /** What the side is: a run's label, or a group such as "system = Redis". */
  label: string;
  runs: RunFigures[];
  /** Null when the runs have no time resolution; `noSeconds` says why. */
  seconds: SideSeconds | null;
  noSeconds: string | null;
}

export interface CompareOptions {
  percentiles?: readonly number[];
  resamples?: number;
  seed?: number;
}




export const statKey = (p: number): string => `p${p}`;

/** Latency: lower is better; throughput: higher is better. */
export function verdictOf(stat: string, ciLow: number, ciHigh: number): Verdict {
  if (ciLow <= 1 && ciHigh >= 1) return 'same';
  const higher = ciLow > 1;
  return stat === THROUGHPUT ? (higher ? 'better' : 'worse') : higher ? 'worse' : 'better';
}

/** "+12.3% ± 4.1%": the change, ± the farther end of its interval; "~" when not significant. */
export function benchstatDelta(row: Pick<ComparisonRow, 'ratio' | 'ciLow' | 'ciHigh' | 'verdict'>): string {
  const { ratio, ciLow, ciHigh, verdict } = row;
  if (verdict === null || ratio === null || ciLow === null || ciHigh === null) return '';
  if (verdict === 'same') return '~';
  const pct = (x: number) => (Math.abs(x * 100) < 0.05 ? '0.0' : (x * 100).toFixed(1));
  const change = ratio - 1;
  return `${change >= 0 ? '+' : '-'}${pct(Math.abs(change))}% ± ${pct(Math.max(ciHigh - ratio, ratio - ciLow))}%`;
}

function checkPercentiles(percentiles: readonly number[]): number[] {
  for (const p of percentiles) if (!(p > 0 && p <= 100)) throw new RangeError(`percentile ${p} must be above 0 and at most 100`);
  return [...new Set(percentiles)].sort((a, b) => a - b);
}

/** Quantile q of sorted values, linearly interpolated between neighbours (type 7). */
function quantile(sorted: Float64Array, q: number): number {
  const at = q * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return (sorted[lo] as number) + (at - lo) * ((sorted[hi] as number) - (sorted[lo] as number));
}

const list = (names: readonly string[]) => (names.length ? names.join(', ') : 'none');

/** The operations both sides can be compared on, and what keeps the others out. */
function commonOps(baseline: SideInput, candidate: SideInput): { ops: string[]; problems: string[]; notes: string[] } {
  const opsOf = (side: SideInput) => {
    const all = new Set(side.runs.flatMap((r) => Object.keys(r.ops)));
    return [...all].filter((op) => side.runs.every((r) => Object.hasOwn(r.ops, op) && (r.ops[op] as OpFigures).count > 0));
  };
  const b = opsOf(baseline);
  const c = opsOf(candidate);
  const shared = b.filter((op) => c.includes(op));
  const problems: string[] = [];
  const notes: string[] = [];
  if (shared.length === 0) {
    problems.push(`baseline and candidate have no operation in common (baseline: ${list(b)}; candidate: ${list(c)})`);
    return { ops: [], problems, notes };
  }
  const onlyB = b.filter((op) => !shared.includes(op));
  const onlyC = c.filter((op) => !shared.includes(op));
  if (onlyB.length) notes.push(`only the baseline has ${list(onlyB)}`);
  if (onlyC.length) notes.push(`only the candidate has ${list(onlyC)}`);
  const ops: string[] = [];
  for (const op of shared) {
    const figures = [...baseline.runs, ...candidate.runs].map((r) => r.ops[op] as OpFigures);
    const units = [...new Set(figures.map((f) => f.unit))];
    const precisions = [...new Set(figures.map((f) => f.precision).filter((p) => p !== null))];
    if (units.length > 1) problems.push(`${op}: the runs record latency in different units (${units.join(' vs ')}); not compared`);
    else if (precisions.length > 1) {
      problems.push(`${op}: the runs' latencies have different precision (${precisions.join(' vs ')}), so a difference of a bucket's width could be an artefact of the buckets; not compared`);
    } else ops.push(op);
  }
  return { ops, problems, notes };
}

interface RowInput {
  op: string;
  stat: string;
  baseline: number | null;
  candidate: number | null;
}

function plainRow({ op, stat, baseline, candidate }: RowInput, method: CompareMethod, note: string): ComparisonRow {
  const ratio = baseline !== null && candidate !== null && baseline > 0 ? candidate / baseline : null;
  return { op, stat, baseline, candidate, ratio, ciLow: null, ciHigh: null, verdict: null, method, delta: '', note };
}

function intervalRow(input: RowInput, method: CompareMethod, ratio: number, ciLow: number, ciHigh: number): ComparisonRow {
  const verdict = verdictOf(input.stat, ciLow, ciHigh);
  const row: ComparisonRow = { ...input, ratio, ciLow, ciHigh, verdict, method, delta: '' };
  row.delta = benchstatDelta(row);
  return row;
}

/** Every (op, stat) row of a comparison, in table order: per operation its percentiles and throughput, then all operations' throughput. */
function rowKeys(ops: readonly string[], percentiles: readonly number[]): { op: string; stat: string; p: number | null }[] {
  return [...ops.flatMap((op) => [...percentiles.map((p) => ({ op, stat: statKey(p), p })), { op, stat: THROUGHPUT, p: null }]), { op: ALL_OPERATIONS, stat: THROUGHPUT, p: null }];
}

function runValue(run: RunFigures, op: string, stat: string): number | null {
  if (op === ALL_OPERATIONS) return run.throughput;
  const f = run.ops[op] as OpFigures;
  if (stat === THROUGHPUT) return run.durationS ? f.count / run.durationS : null;
  return f.values[stat] ?? null;
}

// ---- Between-run spread -------------------------------------------------------------------------

/**
 * Welch's t interval for the ratio of geometric means: the logs of the runs' figures, their means'
 * difference, and t at (1 + CONFIDENCE)/2 with Welch–Satterthwaite degrees of freedom.
 */
export function betweenRunInterval(baseline: readonly number[], candidate: readonly number[]): { baseline: number; candidate: number; ratio: number; ciLow: number; ciHigh: number } {
  const stats = (values: readonly number[]) => {
    const logs = values.map(Math.log);
    const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
    const variance = logs.reduce((a, x) => a + (x - mean) ** 2, 0) / (logs.length - 1);
    return { mean, se2: variance / logs.length, n: logs.length };
  };
  const b = stats(baseline);
  const c = stats(candidate);
  const diff = c.mean - b.mean;
  const se2 = b.se2 + c.se2;
  let half = 0;
  if (se2 > 0) {
    const df = (se2 * se2) / ((b.se2 * b.se2) / (b.n - 1) + (c.se2 * c.se2) / (c.n - 1));
    half = studentTQuantile((1 + CONFIDENCE) / 2, df) * Math.sqrt(se2);
  }
  return { baseline: Math.exp(b.mean), candidate: Math.exp(c.mean), ratio: Math.exp(diff), ciLow: Math.exp(diff - half), ciHigh: Math.exp(diff + half) };
}

function betweenRunRows(baseline: SideInput, candidate: SideInput, ops: readonly string[], percentiles: readonly number[]): ComparisonRow[] {
  return rowKeys(ops, percentiles).map(({ op, stat }) => {
    const b = baseline.runs.map((r) => runValue(r, op, stat));
    const c = candidate.runs.map((r) => runValue(r, op, stat));
    const usable = (v: (number | null)[]): v is number[] => v.every((x) => x !== null && x > 0 && Number.isFinite(x));
    if (!usable(b) || !usable(c)) {
      const geo = (v: (number | null)[]) => (usable(v) ? Math.exp(v.reduce((a, x) => a + Math.log(x), 0) / v.length) : null);
      return plainRow({ op, stat, baseline: geo(b), candidate: geo(c) }, 'none', `some run has no positive ${stat} for ${op}, so no interval can be given`);
    }
    const r = betweenRunInterval(b, c);
    return intervalRow({ op, stat, baseline: r.baseline, candidate: r.candidate }, 'between-runs', r.ratio, r.ciLow, r.ciHigh);
  });
}

// ---- Block bootstrap ----------------------------------------------------------------------------

const keyOf = (op: string, stat: string) => `${op}\u0000${stat}`;

/** A side ready to resample: its tables, observed figures, and per run the block length and each statistic's variance correction. */
interface PreparedSide {
  seconds: SideSeconds;
  tables: Map<string, PercentileTables>;
  observed: Map<string, number>;
  /** Samples of each op over the whole side. */
  counts: Map<string, number>;
  segments: Segment[];
  /** Per run: the factor its resamples' variance is widened by (at most MAX_VARIANCE_CORRECTION). */
  corrections: number[];
}

/**
 * Each run's block length: the longest Politis–White choose for the series its statistics move
 * with — per-second operations, and per operation its samples per second and each percentile's
 * influence series — and at least length / MAX_BLOCKS_PER_RUN. And one variance correction for all
 * its statistics (varianceCorrection), from the largest shortfall of those series, each over twice
 * its own window: a statistic's own series can hide the correlation under sampling noise (a p99's
 * per-second exceedances are mostly Poisson noise) while the load that moves it is the same. On
 * simulated runs this keeps every statistic's A/A false-positive rate between ~4% and ~7%; each
 * statistic's own shortfall let the p50's reach ~7.5%.
 */
function prepareSide(seconds: SideSeconds, ops: readonly string[], percentiles: readonly number[]): PreparedSide {
  const identity = identityPlan(seconds.segments.map((s) => ({ ...s, blockLength: s.to - s.from })));
  const duration = seconds.segments.reduce((a, s) => a + s.durationS, 0);
  const tables = new Map<string, PercentileTables>();
  const observed = new Map<string, number>();
  const counts = new Map<string, number>();
  observed.set(keyOf(ALL_OPERATIONS, THROUGHPUT), blockSum(prefixSums(seconds.opsPerSecond), identity, 0) / duration);
  const out = new Float64Array(percentiles.length);
  for (const op of ops) {
    const t = new PercentileTables(seconds.ops[op] as SecondHistograms);
    tables.set(op, t);
    const n = t.evaluate(identity, 0, percentiles, out);
    counts.set(op, n);
    observed.set(keyOf(op, THROUGHPUT), n / duration);
    percentiles.forEach((p, k) => observed.set(keyOf(op, statKey(p)), out[k] as number));
  }
  const corrections: number[] = [];
  const segments = seconds.segments.map(({ from, to }) => {
    const series: ArrayLike<number>[] = [seconds.opsPerSecond.subarray(from, to)];
    for (const op of ops) {
      const h = seconds.ops[op] as SecondHistograms;
      series.push(samplesPerSecond(h, from, to));
      for (const p of percentiles) {
        const value = observed.get(keyOf(op, statKey(p))) as number;
        if (!Number.isNaN(value)) series.push(percentileInfluence(h, slotOf(h, value), p, from, to));
      }
    }
    const estimates = series.map(politisWhite);
    const length = to - from;
    const blockLength = Math.min(length, Math.max(Math.ceil(length / MAX_BLOCKS_PER_RUN), ...estimates.map((e) => e.blockLength)));
    corrections.push(varianceCorrection(Math.max(...estimates.map((e) => e.shortfall(2 * e.window))), blockLength, length));
    return { from, to, blockLength };
  });
  return { seconds, tables, observed, counts, segments, corrections };
}

/** Every statistic of every resample of a side, by key. */
function resampleSide(side: PreparedSide, plan: ResamplePlan, ops: readonly string[], percentiles: readonly number[]): Map<string, Float64Array> {
  const duration = side.seconds.segments.reduce((a, s) => a + s.durationS, 0);
  const values = new Map<string, Float64Array>();
  const throughput = prefixSums(side.seconds.opsPerSecond);
  const all = new Float64Array(plan.resamples);
  for (let r = 0; r < plan.resamples; r++) all[r] = blockSum(throughput, plan, r) / duration;
  values.set(keyOf(ALL_OPERATIONS, THROUGHPUT), all);
  const out = new Float64Array(percentiles.length);
  for (const op of ops) {
    const tables = side.tables.get(op) as PercentileTables;
    const perStat = percentiles.map(() => new Float64Array(plan.resamples));
    const rate = new Float64Array(plan.resamples);
    for (let r = 0; r < plan.resamples; r++) {
      rate[r] = tables.evaluate(plan, r, percentiles, out) / duration;
      perStat.forEach((column, k) => (column[r] = out[k] as number));
    }
    percentiles.forEach((p, k) => values.set(keyOf(op, statKey(p)), perStat[k] as Float64Array));
    values.set(keyOf(op, THROUGHPUT), rate);
  }
  return values;
}

/** A side's correction: its runs' factors weighted by their seconds, and whether any run's reached the cap. */
function sideCorrection(side: PreparedSide): { factor: number; capped: boolean } {
  let weighted = 0;
  let seconds = 0;
  side.corrections.forEach((factor, run) => {
    const s = side.segments[run] as Segment;
    weighted += factor * (s.to - s.from);
    seconds += s.to - s.from;
  });
  return { factor: seconds > 0 ? weighted / seconds : 1, capped: side.corrections.some((f) => f >= MAX_VARIANCE_CORRECTION) };
}

interface ResampledSide {
  prepared: PreparedSide;
  values: Map<string, Float64Array>;
}

/** The standard normal's 97.5th percentile, against which the t quantile widens an interval. */
const Z_975 = 1.959963984540054;

/**
 * The degrees of freedom behind a bootstrap interval: each side's variance comes from about
 * 1.5 (n/b − 1) of them (overlapping batch means of n/b blocks, Meketon & Schmeiser 1984), and the
 * two combine as in Welch's test. Widening by t/z for them keeps a side of few blocks from claiming
 * more certainty than its blocks hold.
 */
function sideDegreesOfFreedom(side: PreparedSide): number {
  const blocks = side.segments.reduce((a, s) => a + (s.to - s.from) / s.blockLength, 0);
  return Math.max(1, 1.5 * (blocks - 1));
}

function bootstrapDegreesOfFreedom(spread: readonly { scale: number; values: Float64Array }[], sides: readonly PreparedSide[]): number {
  let numerator = 0;
  let denominator = 0;
  spread.forEach(({ scale, values }, i) => {
    let mean = 0;
    for (const v of values) mean += Math.log(v);
    mean /= values.length;
    let squares = 0;
    for (const v of values) squares += (Math.log(v) - mean) ** 2;
    const variance = (squares / (values.length - 1)) * scale * scale;
    const df = sideDegreesOfFreedom(sides[i] as PreparedSide);
    numerator += variance;
    denominator += (variance * variance) / df;
  });
  return denominator > 0 ? (numerator * numerator) / denominator : Number.MAX_SAFE_INTEGER;
}

function bootstrapRows(b: ResampledSide, c: ResampledSide, ops: readonly string[], percentiles: readonly number[], resamples: number): ComparisonRow[] {
  const low = (1 - CONFIDENCE) / 2;
  return rowKeys(ops, percentiles).map(({ op, stat, p }) => {
    const key = keyOf(op, stat);
    const input = { op, stat, baseline: b.prepared.observed.get(key) ?? null, candidate: c.prepared.observed.get(key) ?? null };
    const sides = [
      ['baseline', b],
      ['candidate', c],
    ] as const;
    if (p !== null) {
      for (const [name, s] of sides) {
        const n = s.prepared.counts.get(op) ?? 0;
        if (n * (1 - p / 100) < MIN_TAIL_SAMPLES) {
          // Rounded first: 10 · 100 / (100 − 99.9) is 10000.000000000002 in doubles.
          const needed = Math.ceil(Number(((MIN_TAIL_SAMPLES * 100) / (100 - p)).toPrecision(12)));
          return plainRow(input, 'none', `${stat} needs at least ${MIN_TAIL_SAMPLES} samples beyond it (${Number.isFinite(needed) ? `${needed.toLocaleString('en-US')} in all` : 'the maximum has none'}); the ${name} has ${n.toLocaleString('en-US')}`);
        }
      }
    }
    if (input.baseline === null || input.candidate === null || !(input.baseline > 0) || !(input.candidate > 0)) {
      return plainRow(input, 'none', `a ${stat} of 0 has no ratio`);
    }
    const spread: { centre: number; scale: number; values: Float64Array }[] = [];
    const short: string[] = [];
    for (const [name, s] of sides) {
      const { factor, capped } = sideCorrection(s.prepared);
      if (capped) short.push(name);
      spread.push({ centre: Math.log(s.prepared.observed.get(key) as number), scale: Math.sqrt(factor), values: s.values.get(key) as Float64Array });
    }
    const [bs, cs] = spread as [(typeof spread)[number], (typeof spread)[number]];
    const logRatios = new Float64Array(resamples);
    for (let r = 0; r < resamples; r++) {
      const lb = Math.log(bs.values[r] as number);
      const lc = Math.log(cs.values[r] as number);
      if (!Number.isFinite(lb) || !Number.isFinite(lc)) {
        const why = Number.isNaN(bs.values[r]) || Number.isNaN(cs.values[r]) ? `some resamples hold no ${op} at all` : `some resamples' ${stat} is 0`;
        return plainRow(input, 'none', `${why}: too few samples for an interval`);
      }
      logRatios[r] = cs.centre + cs.scale * (lc - cs.centre) - (bs.centre + bs.scale * (lb - bs.centre));
    }
    logRatios.sort();
    const centre = Math.log(input.candidate / input.baseline);
    const widen = studentTQuantile(1 - low, bootstrapDegreesOfFreedom([bs, cs], [b.prepared, c.prepared])) / Z_975;
    const row = intervalRow(input, 'block-bootstrap', input.candidate / input.baseline, Math.exp(centre + widen * (quantile(logRatios, low) - centre)), Math.exp(centre + widen * (quantile(logRatios, 1 - low) - centre)));
    if (short.length > 0) {
      const who = short.length === 2 ? 'both sides\' runs are' : `the ${short[0]}'s runs are`;
      row.note = `${who} short for how long their per-second figures stay correlated: the interval is widened by the most allowed (×${MAX_VARIANCE_CORRECTION} in variance) and may still be too narrow`;
    }
    return row;
  });
}

function sideSummary(side: SideInput, blockLengths: number[]): SideSummary {
  return {
    label: side.label,
    runs: side.runs.map((r) => r.label),
    seconds: side.seconds?.segments.map((s) => s.to - s.from) ?? [],
    blockLengthS: blockLengths,
  };
}

const seconds = (values: readonly number[]) => (values.length === 1 ? `${values[0]} s` : `${values.join(', ')} s`);

/** The comparison of `candidate` against `baseline`; throws RangeError only on bad options. */
export function compareSides(baseline: SideInput, candidate: SideInput, options: CompareOptions = {}): CompareResult {
  const percentiles = checkPercentiles(options.percentiles ?? DEFAULT_PERCENTILES);
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? DEFAULT_SEED;
  if (!(Number.isInteger(resamples) && resamples >= 100)) throw new RangeError(`resamples must be a whole number ≥ 100, got ${resamples}`);
  const { ops, problems, notes } = commonOps(baseline, candidate);
  const base = { baseline: sideSummary(baseline, []), candidate: sideSummary(candidate, []), percentiles, confidence: CONFIDENCE, resamples, seed, problems, notes };
  if (ops.length === 0) return { ...base, method: 'none', methodText: 'nothing to compare', rows: [] };

  if (baseline.runs.length >= 2 && candidate.runs.length >= 2) {
    const methodText =
      `between-run spread: ${baseline.runs.length} baseline and ${candidate.runs.length} candidate runs, taken as repeats of one configuration each; ` +
      `each side's figure is the geometric mean of its runs', and the ${CONFIDENCE * 100}% interval of the ratio is Welch's t interval on their logarithms`;
    return { ...base, method: 'between-runs', methodText, rows: betweenRunRows(baseline, candidate, ops, percentiles) };
  }

  const observed = (side: SideInput) => {
    const merged = side.runs.length === 1 ? (side.runs[0] as RunFigures) : null;
    return (op: string, stat: string) => (merged ? runValue(merged, op, stat) : null);
  };
  const noInterval = (why: string): CompareResult => {
    const b = observed(baseline);
    const c = observed(candidate);
    const rows = rowKeys(ops, percentiles).map(({ op, stat }) => plainRow({ op, stat, baseline: b(op, stat), candidate: c(op, stat) }, 'none', why));
    return { ...base, method: 'none', methodText: `no interval: ${why}`, rows };
  };
  for (const side of [baseline, candidate]) {
    if (!side.seconds) return noInterval(side.noSeconds ?? `${side.label} has no per-second data`);
    const short = side.seconds.segments.findIndex((s) => s.to - s.from < MIN_SECONDS);
    if (short >= 0) {
      const s = side.seconds.segments[short] as { from: number; to: number };
      return noInterval(`${side.runs[short]?.label ?? side.label} has ${s.to - s.from} s of data; a bootstrap needs at least ${MIN_SECONDS} s`);
    }
  }
  const prepared = [baseline, candidate].map((side) => prepareSide(side.seconds as SideSeconds, ops, percentiles));
  const [b, c] = prepared.map((side, index): ResampledSide => {
    const plan = resamplePlan(side.segments, resamples, new Rng(deriveSeed(seed, index)));
    return { prepared: side, values: resampleSide(side, plan, ops, percentiles) };
  }) as [ResampledSide, ResampledSide];
  const bLengths = b.prepared.segments.map((s) => s.blockLength);
  const cLengths = c.prepared.segments.map((s) => s.blockLength);
  const factor = (side: ResampledSide) => `×${sideCorrection(side.prepared).factor.toFixed(2)}`;
  const methodText =
    `moving-block bootstrap over each run's seconds: ${resamples.toLocaleString('en-US')} resamples (seed ${seed}) per side, ` +
    `blocks of ${seconds(bLengths)} (baseline) and ${seconds(cLengths)} (candidate), chosen from the autocorrelation of per-second throughput and latency (Politis–White); ` +
    `every resample's percentiles read exactly from its summed per-second histograms; the ${CONFIDENCE * 100}% percentile interval of the ratio of paired resamples, ` +
    `its variance widened for what blocks cut off (${factor(b)} baseline, ${factor(c)} candidate) and by t for the blocks' degrees of freedom`;
  return {
    ...base,
    baseline: sideSummary(baseline, bLengths),
    candidate: sideSummary(candidate, cLengths),
    method: 'block-bootstrap',
    methodText,
    rows: bootstrapRows(b, c, ops, percentiles, resamples),
  };
}

// ---- One run's own intervals --------------------------------------------------------------------

/** A figure of one run and its 95% interval; the interval is null (with a note) when the bootstrap cannot give one. */
export interface StatInterval {
  value: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  note?: string;
}

export const intervalKey = keyOf;

/**
 * Each figure of one run (a side of one run) with its 95% interval from the same moving-block
 * bootstrap and corrections as an A/B comparison: per operation its percentiles and throughput,
 * and for all operations the throughput and, when failed operations per second are known, the
 * error rate. Keys are intervalKey(op, stat).
 */
export function runIntervals(seconds: SideSeconds, ops: readonly string[], percentilesIn: readonly number[], options: Omit<CompareOptions, 'percentiles'> = {}): Map<string, StatInterval> {
  const percentiles = checkPercentiles(percentilesIn);
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const out = new Map<string, StatInterval>();
  const failed = seconds.failedPerSecond;
  const errorRate = (plan: ResamplePlan, r: number, failedPrefix: Float64Array, allPrefix: Float64Array) => {
    const all = blockSum(allPrefix, plan, r);
    return all > 0 ? blockSum(failedPrefix, plan, r) / all : Number.NaN;
  };
  const short = seconds.segments.find((s) => s.to - s.from < MIN_SECONDS);
  const prepared = prepareSide(seconds, ops, percentiles);
  const identity = identityPlan(prepared.segments);
  const allPrefix = prefixSums(seconds.opsPerSecond);
  const failedPrefix = failed ? prefixSums(failed) : null;
  if (short) {
    const why = `the run has ${short.to - short.from} s of data; a bootstrap needs at least ${MIN_SECONDS} s`;
    for (const [key, value] of prepared.observed) out.set(key, { value: Number.isNaN(value) ? null : value, ciLow: null, ciHigh: null, note: why });
    if (failedPrefix) out.set(keyOf(ALL_OPERATIONS, ERROR_RATE), { value: errorRate(identity, 0, failedPrefix, allPrefix), ciLow: null, ciHigh: null, note: why });
    return out;
  }
  const plan = resamplePlan(prepared.segments, resamples, new Rng(deriveSeed(options.seed ?? DEFAULT_SEED, 0)));
  const values = resampleSide(prepared, plan, ops, percentiles);
  if (failedPrefix) {
    const rates = new Float64Array(resamples);
    for (let r = 0; r < resamples; r++) rates[r] = errorRate(plan, r, failedPrefix, allPrefix);
    prepared.observed.set(keyOf(ALL_OPERATIONS, ERROR_RATE), errorRate(identity, 0, failedPrefix, allPrefix));
    values.set(keyOf(ALL_OPERATIONS, ERROR_RATE), rates);
  }
  const { factor, capped } = sideCorrection(prepared);
  const scale = Math.sqrt(factor);
  const low = (1 - CONFIDENCE) / 2;
  // One side: Welch's combination of degrees of freedom is the side's own.
  const widen = studentTQuantile(1 - low, sideDegreesOfFreedom(prepared)) / Z_975;
  for (const [key, observed] of prepared.observed) {
    const [op = '', stat = ''] = key.split('\u0000');
    const p = stat.startsWith('p') ? Number(stat.slice(1)) : null;
    const value = Number.isNaN(observed) ? null : observed;
    const plain = (note: string) => out.set(key, { value, ciLow: null, ciHigh: null, note });
    if (p !== null && (prepared.counts.get(op) ?? 0) * (1 - p / 100) < MIN_TAIL_SAMPLES) {
      plain(`${stat} needs at least ${MIN_TAIL_SAMPLES} samples beyond it; the run has ${(prepared.counts.get(op) ?? 0).toLocaleString('en-US')}`);
      continue;
    }
    const draws = values.get(key) as Float64Array;
    if (value === null || draws.some((v) => Number.isNaN(v))) {
      plain(`some resamples hold no ${op} at all: too few samples for an interval`);
      continue;
    }
    if (stat === ERROR_RATE) {
      // A rate may be 0: its interval is read directly from the resamples, widened as the others.
      const sorted = Float64Array.from(draws, (v) => value + scale * (v - value)).sort();
      out.set(key, { value, ciLow: Math.max(0, value + widen * (quantile(sorted, low) - value)), ciHigh: Math.min(1, value + widen * (quantile(sorted, 1 - low) - value)) });
      continue;
    }
    if (!(value > 0) || draws.some((v) => !(v > 0))) {
      plain(`some resamples' ${stat} is 0: too few samples for an interval`);
      continue;
    }
    const centre = Math.log(value);
    const logs = Float64Array.from(draws, (v) => centre + scale * (Math.log(v) - centre)).sort();
    // An end at the value itself is the value (exp(log(x)) may be off by an ulp).
    const end = (q: number) => (q === centre ? value : Math.exp(centre + widen * (q - centre)));
    const interval: StatInterval = { value, ciLow: end(quantile(logs, low)), ciHigh: end(quantile(logs, 1 - low)) };
    if (capped) interval.note = `the run is short for how long its per-second figures stay correlated: the interval is widened by the most allowed (×${MAX_VARIANCE_CORRECTION} in variance) and may still be too narrow`;
    out.set(key, interval);
  }
  return out;
}
