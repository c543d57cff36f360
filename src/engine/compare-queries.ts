import { SecondHistogramsBuilder } from '../analysis/block-bootstrap.ts';
import { compareSides, runIntervals, statKey, type OpFigures, type RunFigures, type SideInput, type SideSeconds, type StatInterval } from '../analysis/compare.ts';
import type { CompareResult } from '../model/comparison.ts';
import { hdrLayout } from '../model/hdr-layout.ts';
import { toMicros } from '../model/numbers.ts';
import { SHOWN_PERCENTILES, hasFullData } from '../state/snapshot.ts';
import type { Analysis, RunAnalysis } from './analyse.ts';
import { BucketSum, bucketColumns, indexedColumns } from './bucket-sum.ts';
import { groupSummaries } from './group-merge.ts';
import type { SeriesInfo, Store } from './store.ts';
import { dbBacked, mergeGroups, windowBounds, type AnalysisWindow, type MergeGroup } from './summary.ts';

/**
 * The data an A/B comparison needs, from the engine's store, for src/analysis/compare.ts: per run
 * and operation the figures at the chosen percentiles (the summary's own merge, in the window in
 * force), and — for runs read from result files — every operation's merged histogram second by
 * second, summed from the worker's per-second buckets exactly as the summary sums a window. The
 * app's worker and the CLI both call runCompare, so they print the same numbers.
 */

export interface CompareSelection {
  /** What the side is, as the page and the CLI name it ("sweep-a/target-1000", "system = Redis"). */
  label: string;
  /** Run keys (folders), in the order they are resampled. */
  runKeys: string[];
}

export interface CompareRequest {
  baseline: CompareSelection;
  candidate: CompareSelection;
  percentiles: number[];
  window: AnalysisWindow;
  resamples?: number;
  seed?: number;
}

/** Latency operations are compared; failed operations and per-thread cleanup are not. */
const compared = (m: MergeGroup) => m.series[0]?.kind === 'op' || m.series[0]?.kind === 'intended';
const exact = (m: MergeGroup) => m.refusal === null && m.series.length > 0 && m.series.every(dbBacked);

/** What a run's latencies may be compared with: their precision, unknown for figures-only ones. */
function precisionOf(m: MergeGroup): string | null {
  const fixed = m.run.snapshot && Object.hasOwn(m.run.snapshot.ops, m.op) ? m.run.snapshot.ops[m.op] : undefined;
  if (fixed && !hasFullData(fixed)) return fixed.figures?.raw ? 'exact values' : null;
  const s = m.series[0] as SeriesInfo;
  return s.precision ? `${s.precision.significantDigits} significant digits, lowest ${s.precision.lowestDiscernibleValue}` : 'exact values';
}

const sum = new BucketSum();
let indexedScratch = indexedColumns(1024);
let boundsScratch = bucketColumns(1024);

/**
 * One operation of one run, second by second in [from, to) (epoch or log seconds): the merged
 * histogram of its series in each second with data, as keys (HdrHistogram counts indices, or the
 * raw values) and counts, both valid only during the call.
 */
function opSeconds(store: Store, group: MergeGroup, from: number, to: number, visit: (sec: number, keys: ArrayLike<number>, counts: Float64Array) => void): void {
  const ids = group.series.map((s) => s.id);
  const precision = (group.series[0] as SeriesInfo).precision;
  const next = (s: number) => {
    let first = Infinity;
    for (const id of ids) first = Math.min(first, store.nextSecond(id, s));
    return first;
  };
  for (let sec = next(from); sec < to; sec = next(sec + 1)) {
    sum.usePrecision(precision);
    for (const id of ids) store.addRange(id, sec, sec + 1, sum);
    if (sum.size === 0) continue;
    if (precision) {
      const { columns, length } = sum.drainIndexed(indexedScratch);
      indexedScratch = columns;
      visit(sec, columns.index.subarray(0, length), columns.n.subarray(0, length));
    } else {
      const { columns, length } = sum.drain(boundsScratch);
      boundsScratch = columns;
      visit(sec, columns.lo.subarray(0, length), columns.n.subarray(0, length));
    }
  }
}

/** The value in µs a key of an operation's per-second cells reports: a bucket's highest equivalent value, or the raw value. */
function valueOfKey(series: SeriesInfo): (key: number) => number {
  const layout = series.precision ? hdrLayout(series.precision) : null;
  if (!layout) return (v) => toMicros(v, series.unit);
  return (index) => {
    const lo = layout.valueFromIndex(index);
    return toMicros(lo + layout.sizeOfEquivalentValueRange(lo) - 1, series.unit);
  };
}

interface RunData {
  run: RunAnalysis;
  figures: RunFigures;
  groups: MergeGroup[];
}

/**
 * One run's seconds in the window, added to `builders` (one per operation) from second `at` of the
 * side's axis; its first second and length, or why it has none to resample.
 */
function addRunSeconds(store: Store, { run, figures, groups }: RunData, ops: readonly string[], window: AnalysisWindow, builders: Map<string, SecondHistogramsBuilder>, at: number, opsPerSecond: number[], failedPerSecond: number[]): { length: number; durationS: number } | string {
  if (run.comparison !== null) return `${run.label} was opened from a shared comparison, whose latency data has no time`;
  const t = run.throughputPerSecond;
  if (!t || (t.bucketS ?? 1) !== 1) return `${run.label} has no per-second throughput`;
  if (!run.durationS) return `${run.label} has no duration`;
  // The summary's own window per series: whole seconds from the run's first.
  const spans = ops.map((op) => {
    const group = groups.find((g) => g.op === op) as MergeGroup;
    const bounds = windowBounds(store, group.series, window);
    const from = Math.ceil(Math.max(...group.series.map((_, i) => bounds.fromS?.[i] ?? -Infinity)));
    const to = Math.ceil(Math.min(...group.series.map((_, i) => bounds.toS?.[i] ?? Infinity)));
    return { op, group, from, to };
  });
  const untimed = spans.find((s) => s.group.series.some((x) => x.timeBase === null));
  if (untimed) return `${run.label} ${untimed.op} has no time (only summaries)`;
  const windowFrom = window?.fromS != null ? t.startEpochS + Math.ceil(window.fromS) : -Infinity;
  const windowTo = window?.toS != null ? t.startEpochS + Math.ceil(window.toS) : Infinity;
  // The run's first second: of its operations per second or of a compared operation's latency.
  let start = Math.max(t.startEpochS, windowFrom);
  for (const { group, from } of spans) for (const s of group.series) start = Math.min(start, store.nextSecond(s.id, from));
  let end = Math.min(t.startEpochS + t.ok.length, windowTo);
  for (const { op, group, from, to } of spans) {
    const builder = builders.get(op) as SecondHistogramsBuilder;
    let count = 0;
    opSeconds(store, group, from, to, (sec, keys, counts) => {
      builder.add(at + sec - start, keys, counts);
      for (let i = 0; i < counts.length; i++) count += counts[i] as number;
      end = Math.max(end, sec + 1);
    });
    if (count !== (figures.ops[op] as OpFigures).count) return `some of ${run.label}'s ${op} samples have no time`;
  }
  if (!(end > start)) return `${run.label} has no data in the window`;
  // Operations per second as the summary counts them, in the same window.
  for (let sec = start; sec < end; sec++) {
    const i = sec - t.startEpochS;
    const inside = i >= 0 && i < t.ok.length;
    opsPerSecond[at + sec - start] = inside ? (t.ok[i] as number) + (t.failed[i] ?? 0) : 0;
    failedPerSecond[at + sec - start] = inside ? (t.failed[i] ?? 0) : 0;
  }
  return { length: end - start, durationS: run.durationS };
}

/** A side's runs on one time axis, run after run, or why it cannot have one. */
function sideSeconds(store: Store, runs: readonly RunData[], ops: readonly string[], window: AnalysisWindow): { seconds: SideSeconds | null; noSeconds: string | null } {
  const builders = new Map(
    ops.map((op) => {
      const first = runs[0]?.groups.find((g) => g.op === op)?.series[0] as SeriesInfo;
      return [op, new SecondHistogramsBuilder(null, first.source === 'raw', valueOfKey(first))];
    }),
  );
  const opsPerSecond: number[] = [];
  const failedPerSecond: number[] = [];
  const segments: SideSeconds['segments'] = [];
  let at = 0;
  for (const run of runs) {
    const part = addRunSeconds(store, run, ops, window, builders, at, opsPerSecond, failedPerSecond);
    if (typeof part === 'string') return { seconds: null, noSeconds: part };
    segments.push({ from: at, to: at + part.length, durationS: part.durationS });
    at += part.length;
  }
  return { seconds: { segments, opsPerSecond: Float64Array.from(opsPerSecond), failedPerSecond: Float64Array.from(failedPerSecond), ops: Object.fromEntries([...builders].map(([op, b]) => [op, b.finish(at)])) }, noSeconds: null };
}

/** Whether a comparison carried by a shared comparison is the one asked for. */
function sameComparison(carried: CompareResult, request: CompareRequest, labels: (keys: string[]) => string[]): boolean {
  const same = (a: readonly (string | number)[], b: readonly (string | number)[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  return (
    same(carried.baseline.runs, labels(request.baseline.runKeys)) &&
    same(carried.candidate.runs, labels(request.candidate.runKeys)) &&
    same(carried.percentiles, [...new Set(request.percentiles)].sort((a, b) => a - b))
  );
}

/**
 * Per run (by key) its figures at the percentiles in the window and its merge groups, as
 * runData(key) gives them (null for no such run, said in `problems`); operations known only as
 * bounds are left out and said; percentiles a figures-only run does not carry are said in `gaps`
 * as runData meets them.
 */
function runFigures(store: Store, analysis: Analysis, runKeys: readonly string[], percentiles: readonly number[], window: AnalysisWindow): { runData: (key: string) => RunData | null; problems: string[]; gaps: Set<string> } {
  const problems: string[] = [];
  const runs = new Map(analysis.runs.map((r) => [r.dir, r]));
  const groups = mergeGroups(store).filter(compared);
  const wanted = new Set(runKeys);
  const usable = groups.filter((m) => wanted.has(m.run.key) && exact(m));
  for (const m of groups) if (wanted.has(m.run.key) && !exact(m)) problems.push(`${m.run.label} ${m.op}: known only as bounds (${m.refusal ?? 'summaries only'}); not compared`);
  // One query for every figure of both sides, in the window the summary shows.
  const members = usable.flatMap((m, g) => m.series.map((s) => ({ s, g })));
  const stats = new Map(
    groupSummaries(
      store,
      { seriesIds: members.map((x) => x.s.id), groups: members.map((x) => x.g), ...windowBounds(store, members.map((x) => x.s), window) },
      percentiles,
    ).map((x) => [x.g, x]),
  );
  const figuresOnlyGaps = new Set<string>();
  const runData = (key: string): RunData | null => {
    const run = runs.get(key);
    if (!run) {
      problems.push(`no run ${key}`);
      return null;
    }
    const mine = usable.map((m, g) => ({ m, g })).filter(({ m }) => m.run.key === key);
    const ops: Record<string, OpFigures> = {};
    for (const { m, g } of mine) {
      const s = stats.get(g);
      if (!s) continue;
      const unit = (m.series[0] as SeriesInfo).unit;
      const fixed = m.run.snapshot && Object.hasOwn(m.run.snapshot.ops, m.op) ? m.run.snapshot.ops[m.op] : undefined;
      const figuresOnly = fixed !== undefined && !hasFullData(fixed);
      ops[m.op] = {
        count: s.count,
        unit,
        precision: precisionOf(m),
        values: Object.fromEntries(
          percentiles.map((p, i) => {
            // A figures-only snapshot reproduces the percentiles it carries, no others.
            if (figuresOnly && !SHOWN_PERCENTILES.includes(p)) {
              figuresOnlyGaps.add(`${run.label} carries figures only, and no p${p}`);
              return [statKey(p), null];
            }
            const v = s.values[i];
            return [statKey(p), v === null || v === undefined ? null : toMicros(v, unit)];
          }),
        ),
      };
    }
    return { run, figures: { label: run.label, durationS: run.durationS, throughput: run.throughput, ops }, groups: mine.map((x) => x.m) };
  };
  return { runData, problems, gaps: figuresOnlyGaps };
}

export function runCompare(store: Store, analysis: Analysis, request: CompareRequest): CompareResult {
  const problems: string[] = [];
  const runs = new Map(analysis.runs.map((r) => [r.dir, r]));
  const labels = (keys: string[]) => keys.map((k) => runs.get(k)?.label ?? k);
  const carried = store.carriedComparison;
  const fromSnapshot = [...request.baseline.runKeys, ...request.candidate.runKeys].some((k) => runs.get(k)?.comparison);
  if (carried && fromSnapshot && sameComparison(carried, request, labels)) return { ...carried, carried: true };

  const figures = runFigures(store, analysis, [...request.baseline.runKeys, ...request.candidate.runKeys], request.percentiles, request.window);
  const side = (selection: CompareSelection): { input: SideInput; data: RunData[] } => {
    const data = selection.runKeys.map(figures.runData).filter((d): d is RunData => d !== null);
    return { input: { label: selection.label, runs: data.map((d) => d.figures), seconds: null, noSeconds: null }, data };
  };
  const baseline = side(request.baseline);
  const candidate = side(request.candidate);
  problems.push(...figures.problems, ...figures.gaps);
  const empty = [baseline, candidate].filter((s) => s.data.length === 0).map((s) => `the ${s === baseline ? 'baseline' : 'candidate'} (${s.input.label}) holds no run`);
  // Nothing to compare: say what is missing, not that two empty sides share no operation.
  if (empty.length > 0) return { ...compareSides(baseline.input, candidate.input, request), problems: [...problems, ...empty] };
  // The operations every run of both sides has: only those need their seconds.
  const opsOf = (d: RunData[]) => d.map((x) => new Set(Object.keys(x.figures.ops)));
  const all = [...opsOf(baseline.data), ...opsOf(candidate.data)];
  const common = [...(all[0] ?? [])].filter((op) => all.every((s) => s.has(op)));
  const betweenRuns = baseline.data.length >= 2 && candidate.data.length >= 2;
  for (const s of [baseline, candidate]) {
    if (betweenRuns) continue;
    const { seconds, noSeconds } = sideSeconds(store, s.data, common, request.window);
    s.input.seconds = seconds;
    s.input.noSeconds = noSeconds;
  }
  return withProblems(compareSides(baseline.input, candidate.input, request), problems);
}

function withProblems(result: CompareResult, problems: readonly string[]): CompareResult {
  return { ...result, problems: [...problems, ...result.problems] };
}

/** One run's figures with their intervals, keyed by intervalKey(op, stat), for a history (src/engine/history-queries.ts). */
export function runFigureIntervals(store: Store, analysis: Analysis, runKeys: readonly string[], percentiles: readonly number[], window: AnalysisWindow, options: { resamples?: number; seed?: number } = {}): { runs: { key: string; figures: RunFigures; intervals: Map<string, StatInterval> | null; noSeconds: string | null }[]; ops: string[]; problems: string[] } {
  const figures = runFigures(store, analysis, runKeys, percentiles, window);
  const data = runKeys.map(figures.runData).filter((d): d is RunData => d !== null);
  const opSets = data.map((d) => new Set(Object.keys(d.figures.ops)));
  const ops = [...(opSets[0] ?? [])].filter((op) => opSets.every((s) => s.has(op)));
  const runs = data.map((d) => {
    const { seconds, noSeconds } = sideSeconds(store, [d], ops, window);
    return { key: d.run.dir, figures: d.figures, intervals: seconds ? runIntervals(seconds, ops, percentiles, options) : null, noSeconds };
  });
  return { runs, ops, problems: [...figures.problems, ...figures.gaps] };
}
