import { ALL_OPERATIONS, ERROR_RATE, intervalKey, THROUGHPUT, type RunFigures, type StatInterval } from '../analysis/compare.ts';
import type { ChangePointOptions } from '../analysis/changepoint.ts';
import { seriesChanges, type HistoryPoint, type HistoryRun, type HistorySeries } from '../analysis/history.ts';
import { opKind } from '../model/naming.ts';
import type { Analysis, RunAnalysis } from './analyse.ts';
import { runFigureIntervals } from './compare-queries.ts';
import type { Store } from './store.ts';
import type { AnalysisWindow } from './summary.ts';

/**
 * A history's series from the engine's store: per run in the order given, each figure with its
 * 95% interval from the run's own block bootstrap (the A/B comparison's method, one run at a time),
 * and the change points of each series (src/analysis/changepoint.ts). The app's worker and the CLI
 * both call runHistory, so they show the same series.
 */

export const DEFAULT_HISTORY_STATS: readonly string[] = ['p50', 'p99', 'p99.9', THROUGHPUT, ERROR_RATE];
/** Fewer resamples than an A/B comparison's: a history resamples every run, and a point's interval needs less precision than a verdict. */
export const HISTORY_RESAMPLES = 1000;

export interface HistoryRequest {
  /** Run keys (folders), in the history's order. */
  runKeys: string[];
  /** p50, p99, … throughput, errors. */
  stats: readonly string[];
  /** Only this operation ('' or absent: every operation). */
  op?: string;
  window: AnalysisWindow;
  resamples?: number;
  seed?: number;
  changePoints?: ChangePointOptions;
}

export interface HistoryResult {
  /** The runs in order: key and label (as `summarize` names it). */
  runs: { key: string; label: string }[];
  series: HistorySeries[];
  problems: string[];
}

/** A stat name's percentile (`p99.9` → 99.9), or null for throughput and errors. */
export function statPercentile(stat: string): number | null {
  const m = /^p(\d+(?:\.\d+)?)$/.exec(stat);
  return m ? Number(m[1]) : null;
}

/** A figure of a run without an interval (its run has no per-second data). */
function plainValue(figures: RunFigures, op: string, stat: string, errorRate: number | null): number | null {
  if (op === ALL_OPERATIONS) return stat === THROUGHPUT ? figures.throughput : errorRate;
  const f = figures.ops[op];
  if (!f) return null;
  if (stat === THROUGHPUT) return figures.durationS ? f.count / figures.durationS : null;
  return f.values[stat] ?? null;
}

export function runHistory(store: Store, analysis: Analysis, request: HistoryRequest): HistoryResult {
  const percentiles = [...new Set(request.stats.map(statPercentile).filter((p): p is number => p !== null))];
  const byKey = new Map(analysis.runs.map((r) => [r.dir, r]));
  const { runs, ops, problems } = runFigureIntervals(store, analysis, request.runKeys, percentiles.length ? percentiles : [50], request.window, {
    resamples: request.resamples ?? HISTORY_RESAMPLES,
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
  });
  const wanted = request.op ? ops.filter((op) => op === request.op) : ops;
  if (request.op && wanted.length === 0) problems.push(`no operation ${request.op} in every run (operations: ${ops.join(', ') || 'none'})`);
  const keys: { op: string; stat: string }[] = [
    ...wanted.flatMap((op) => request.stats.filter((s) => s !== ERROR_RATE).map((stat) => ({ op, stat }))),
    ...(request.op ? [] : request.stats.filter((s) => s === THROUGHPUT || s === ERROR_RATE).map((stat) => ({ op: ALL_OPERATIONS, stat }))),
  ];
  const errorRate = (key: string): number | null => {
    const t = byKey.get(key)?.throughputPerSecond;
    if (!t) return null;
    const failed = t.failed.reduce((a, b) => a + b, 0);
    const all = failed + t.ok.reduce((a, b) => a + b, 0);
    return all > 0 ? failed / all : null;
  };
  const series = keys.map(({ op, stat }) => {
    const points = runs.map((r): HistoryPoint => {
      const label = r.figures.label;
      const interval: StatInterval | undefined = r.intervals?.get(intervalKey(op, stat));
      if (interval) return { run: label, value: interval.value, ciLow: interval.ciLow, ciHigh: interval.ciHigh, ...(interval.note ? { note: interval.note } : {}) };
      return { run: label, value: plainValue(r.figures, op, stat, errorRate(r.key)), ciLow: null, ciHigh: null, note: r.noSeconds ?? 'no interval' };
    });
    return seriesChanges(op, stat, points, request.changePoints);
  });
  return { runs: runs.map((r) => ({ key: r.key, label: r.figures.label })), series, problems };
}

/**
 * A run as a history orders and groups it: its latency operations, start, target and system (the
 * user's `system` label, else the database the command line names), with the labels given by key.
 */
export function historyRunOf(run: RunAnalysis, labels: Readonly<Record<string, string>> = {}): HistoryRun {
  return {
    key: run.dir,
    label: run.label,
    startEpochMs: run.startEpochMs,
    ...(run.relativeTime ? { relativeTime: true } : {}),
    labels,
    ops: Object.keys(run.ops).filter((op) => opKind(op) === 'op'),
    target: run.target,
    system: labels.system ?? run.db ?? '',
  };
}
