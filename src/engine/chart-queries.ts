import { countsPerSecond, groupSummaries, runExtents, mergeHistograms, summariesAt, type MergedHistogram, type Selection } from './group-merge.ts';
import type { SeriesInfo, Store } from './store.ts';
import { timelineSeries } from './timeline-series.ts';
import { toMicros } from '../model/numbers.ts';
import type { LatencyUnit } from '../model/types.ts';
import { windowBounds, type AnalysisWindow } from './summary.ts';
import { DISTRIBUTION_PERCENTILES } from '../model/percentiles.ts';

/**
 * Data for the time-based and distribution charts, aggregated in the worker so that no series
 * carries more than `maxPoints` points whatever the input size (time buckets widen as runs get
 * longer): throughput from the store's counts by second (group-merge.ts `countsPerSecond`),
 * latencies merged per time bucket from the worker's per-second buckets (`mergeHistograms`).
 * None of them asks DuckDB: the first charts never wait for it to start.
 */

export type ChartQuery =
  | { kind: 'throughput-over-time'; runIds: number[]; maxPoints: number }
  | { kind: 'latency-over-time'; runIds: number[]; ops: string[]; percentile: number; maxPoints: number }
  | { kind: 'percentile-distribution'; runIds: number[]; ops: string[]; window?: AnalysisWindow };

export interface TimeSeries {
  runId: number;
  op: string;
  /** Seconds from the run's first second. */
  t: number[];
  values: (number | null)[];
}

export type ChartResult =
  | { kind: 'throughput-over-time'; bucketS: number; startEpochS: Record<number, number>; ok: TimeSeries[]; failed: TimeSeries[] }
  | { kind: 'latency-over-time'; bucketS: number; percentile: number; series: TimeSeries[] }
  | { kind: 'percentile-distribution'; series: { runId: number; op: string; percentiles: number[]; values: number[] }[] };

function timedSeries(store: Store, runIds: readonly number[], filter: (s: SeriesInfo) => boolean): SeriesInfo[] {
  const runs = new Set(runIds);
  return store.series.filter((s) => runs.has(s.runId) && (s.source === 'histogram' || s.source === 'raw') && s.timeBase !== null && filter(s));
}

/** What a group stands for: its run and operation, and the unit its series record latency in. */
interface GroupKey {
  runId: number;
  op: string;
  unit: LatencyUnit;
}

/** Groups numbered per (run, op); returns the selection and a decoder back to (run, op). */
function groupByRunOp(series: readonly SeriesInfo[], opOf: (s: SeriesInfo) => string): { sel: Selection; keys: GroupKey[] } {
  const index = new Map<string, number>();
  const keys: GroupKey[] = [];
  const groups = series.map((s) => {
    const op = opOf(s);
    const k = `${s.runId}\u0000${op}`;
    let g = index.get(k);
    if (g === undefined) {
      g = keys.length;
      index.set(k, g);
      keys.push({ runId: s.runId, op, unit: s.unit });
    }
    return g;
  });
  return { sel: { seriesIds: series.map((s) => s.id), groups }, keys };
}

function bucketFor(store: Store, series: readonly SeriesInfo[], maxPoints: number): { bucketS: number; startS: Map<number, number> } {
  const extents = runExtents(store, series);
  const longest = Math.max(1, ...extents.map((e) => (e.endUs - e.startUs) / 1e6));
  const bucketS = Math.max(1, Math.ceil(longest / Math.max(1, maxPoints)));
  return { bucketS, startS: new Map(extents.map((e) => [e.g, Math.floor(e.startUs / 1e6)])) };
}

/**
 * Merged histograms per time bucket, kept for the latest few selections of each dataset: changing
 * the percentile of a latency-over-time chart then re-reads them without a query. Large results
 * are not kept (their typed arrays would hold on to memory the next load needs).
 */
const OVER_TIME_CACHE_ENTRIES = 4;
const OVER_TIME_CACHE_MAX_ROWS = 2_000_000;

function mergedOverTime(store: Store, sel: Selection, bucketS: number): MergedHistogram[] {
  return store.recent(
    'merged-over-time',
    JSON.stringify([sel.seriesIds, sel.groups, bucketS]),
    OVER_TIME_CACHE_ENTRIES,
    () => mergeHistograms(store, sel, bucketS),
    (merged) => merged.reduce((rows, m) => rows + m.histogram.count.length, 0) <= OVER_TIME_CACHE_MAX_ROWS,
  );
}

export function runChartQuery(store: Store, q: ChartQuery): ChartResult {
  if (q.kind === 'throughput-over-time') {
    // Failed operations are shown under the operation they belong to (READ-FAILED → READ).
    const runs = new Set(q.runIds);
    const series = timelineSeries(store.series.filter((s) => runs.has(s.runId)));
    const { sel, keys } = groupByRunOp(series, (s) => s.op.replace(/-FAILED$/i, ''));
    const { bucketS, startS } = bucketFor(store, series, q.maxPoints);
    // Buckets from each run's own start: every run's times fall on one grid, 0, bucketS, 2·bucketS …
    const rows = countsPerSecond(store, sel, bucketS, (g) => startS.get(keys[g]?.runId ?? -1) ?? 0);
    const ok = new Map<number, TimeSeries>();
    const failed = new Map<number, TimeSeries>();
    for (const r of rows) {
      const key = keys[r.g];
      if (!key) continue;
      const origin = startS.get(key.runId) ?? 0;
      for (const [target, value] of [
        [ok, r.ok],
        [failed, r.failed],
      ] as const) {
        let ts = target.get(r.g);
        if (!ts) {
          ts = { runId: key.runId, op: key.op, t: [], values: [] };
          target.set(r.g, ts);
        }
        ts.t.push(r.sec - origin);
        ts.values.push(value / bucketS);
      }
    }
    return {
      kind: 'throughput-over-time',
      bucketS,
      startEpochS: Object.fromEntries(startS),
      ok: [...ok.values()],
      failed: [...failed.values()].filter((s) => s.values.some((v) => (v ?? 0) > 0)),
    };
  }
  if (q.kind === 'latency-over-time') {
    const ops = new Set(q.ops);
    const series = timedSeries(store, q.runIds, (s) => ops.has(s.op));
    const { sel, keys } = groupByRunOp(series, (s) => s.op);
    const { bucketS, startS } = bucketFor(store, series, q.maxPoints);
    const out = new Map<number, TimeSeries>();
    for (const r of summariesAt(mergedOverTime(store, sel, bucketS), [q.percentile])) {
      const value = r.values[0];
      if (value === null || value === undefined) continue;
      const key = keys[r.g];
      if (!key) continue;
      let ts = out.get(r.g);
      if (!ts) {
        ts = { runId: key.runId, op: key.op, t: [], values: [] };
        out.set(r.g, ts);
      }
      ts.t.push(r.tb - (startS.get(key.runId) ?? 0));
      ts.values.push(toMicros(value, key.unit));
    }
    return { kind: 'latency-over-time', bucketS, percentile: q.percentile, series: [...out.values()] };
  }
  const ops = new Set(q.ops);
  const runs = new Set(q.runIds);
  const series = store.series.filter((s) => runs.has(s.runId) && ops.has(s.op) && (s.source === 'histogram' || s.source === 'raw'));
  const { sel, keys } = groupByRunOp(series, (s) => s.op);
  // The distribution is of the same samples as the summary table's figures: the window in force.
  const windowed = { ...sel, ...windowBounds(store, series, q.window ?? null) };
  return {
    kind: 'percentile-distribution',
    series: groupSummaries(store, windowed, DISTRIBUTION_PERCENTILES).map((r) => {
      const points = DISTRIBUTION_PERCENTILES.map((p, i) => ({ p, v: r.values[i] })).filter((x): x is { p: number; v: number } => x.v !== null && x.v !== undefined);
      const key = keys[r.g];
      return { runId: key?.runId ?? -1, op: key?.op ?? '', percentiles: points.map((x) => x.p), values: points.map((x) => toMicros(x.v, key?.unit ?? 'us')) };
    }),
  };
}
