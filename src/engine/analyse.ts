import { detectSteps, type Step } from '../analysis/steps.ts';
import type { FileTally } from '../model/file-tally.ts';
import type { ParseIssue } from '../model/types.ts';
import { snapshotLevel, type SnapshotLevel, type SnapshotRun } from '../state/snapshot.ts';
import { countsPerSecond, type SecondCounts } from './group-merge.ts';
import type { Store } from './store.ts';
import { timelineSeries } from './timeline-series.ts';
import { summarizeRuns, type SummaryOptions } from './summary.ts';
import type { RunSummary } from '../model/figures.ts';
import type { ThroughputSeries } from '../model/figures.ts';
import type { CompareResult } from '../model/comparison.ts';

export interface RunAnalysis extends RunSummary {
  /**
   * Opened from a snapshot (link or file), and what it carries: whole-run histograms, or the
   * shown figures only. Either way a time window does not apply. null for runs read from results.
   * Named `comparison` because `summarize --json` prints it under that key, which scripts read.
   */
  comparison: SnapshotLevel | null;
  /** Some of the run's files lost lines or had problems: its figures cover what could be read. */
  partial: boolean;
  throughputPerSecond: ThroughputSeries | null;
  /** Level changes of the successful throughput (e.g. DynamoDB split-for-heat doublings). */
  steps: Step[];
}

export interface Analysis {
  runs: RunAnalysis[];
  errors: ParseIssue[];
  /** Files in the given folders that are not benchmark results (READMEs, JSON …). */
  ignored: string[];
  /** Every file read, with what was kept of it. */
  files: FileTally[];
  /** The A/B comparison a loaded comparison (link or file) carried, as computed before it was shared. */
  carriedComparison?: CompareResult;
  /** The view-state fragment a loaded snapshot file carried (its SLA, prices, labels, sides). */
  carriedView?: string;
  /**
   * The runs' figures before their throughput timelines and steps (null and none here): a load
   * sends this first, so that the table shows while those are computed, then the full analysis.
   */
  timelinesPending?: true;
}


/**
 * Longest dense timeline kept per run (28 hours at 1 s). A file whose timestamps lie years apart
 * (a clock jump, a corrupted line that still parses) would otherwise ask for a dense array of
 * hundreds of millions of seconds; beyond this the buckets widen instead.
 */
export const MAX_TIMELINE_BUCKETS = 100_000;

/** Dense arrays for each group, from its first to its last second, bucketed to at most MAX_TIMELINE_BUCKETS entries. */
export function throughputSeries(store: Store, seriesFilter: (runId: number) => boolean = () => true): Map<number, ThroughputSeries> {
  const timed = timelineSeries(store.series.filter((s) => seriesFilter(s.runId)));
  const rows = countsPerSecond(store, { seriesIds: timed.map((s) => s.id), groups: timed.map((s) => s.runId) });
  const byGroup = new Map<number, SecondCounts[]>();
  for (const r of rows) {
    const list = byGroup.get(r.g);
    if (list) list.push(r);
    else byGroup.set(r.g, [r]);
  }
  const out = new Map<number, ThroughputSeries>();
  for (const [g, seconds] of byGroup) {
    // Rows come sorted by second within a group.
    const startEpochS = (seconds[0] as SecondCounts).sec;
    const spanS = (seconds[seconds.length - 1] as SecondCounts).sec - startEpochS + 1;
    const bucketS = Math.max(1, Math.ceil(spanS / MAX_TIMELINE_BUCKETS));
    const length = Math.ceil(spanS / bucketS);
    const ok = new Array<number>(length).fill(0);
    const failed = new Array<number>(length).fill(0);
    for (const r of seconds) {
      const i = Math.floor((r.sec - startEpochS) / bucketS);
      ok[i] = (ok[i] as number) + r.ok;
      failed[i] = (failed[i] as number) + r.failed;
    }
    out.set(g, bucketS === 1 ? { startEpochS, ok, failed } : { startEpochS, bucketS, ok, failed });
  }
  return out;
}

/** Steps of a timeline, in seconds and ops/s whatever its bucket width. */
function timelineSteps(t: ThroughputSeries): Step[] {
  const bucketS = t.bucketS ?? 1;
  if (bucketS === 1) return detectSteps(t.ok);
  return detectSteps(t.ok.map((n) => n / bucketS)).map((s) => ({ ...s, offsetS: s.offsetS * bucketS }));
}

/** Per-second series and steps do not depend on a window: computed once per dataset. */
function runTimelines(store: Store): Map<number, { t: ThroughputSeries; steps: Step[] }> {
  return store.memo('timelines', () => new Map([...throughputSeries(store)].map(([run, t]) => [run, { t, steps: timelineSteps(t) }])));
}

const comparisonLevel = (fixed: SnapshotRun | undefined): SnapshotLevel | null => (fixed ? snapshotLevel({ runs: [fixed] }) : null);

/** Summaries of the latest windows of each dataset: going back to a window (or to none) costs nothing. */
const SUMMARY_CACHE_ENTRIES = 8;

function cachedSummaries(store: Store, options: SummaryOptions): RunSummary[] {
  return store.recent('summaries', JSON.stringify(options.window ?? null), SUMMARY_CACHE_ENTRIES, () => summarizeRuns(store, options));
}

/**
 * Every run's figures, with their throughput timelines and steps; with `timelines` 'pending', the
 * figures alone (see `Analysis.timelinesPending`), which the timelines would take as long again.
 */
export function analyseStore(
  store: Store,
  fileErrors: readonly ParseIssue[],
  ignored: readonly string[],
  options: SummaryOptions = {},
  files: readonly FileTally[] = [],
  timelines: 'now' | 'pending' = 'now',
): Analysis {
  const series = timelines === 'now' ? runTimelines(store) : new Map<number, { t: ThroughputSeries; steps: Step[] }>();
  const runs = cachedSummaries(store, options);
  const damaged = new Set([...files.filter((f) => f.skipped > 0 || f.problems > 0).map((f) => f.path), ...fileErrors.map((e) => e.file)]);
  return {
    runs: runs.map((r) => {
      const timeline = series.get(r.id);
      return {
        ...r,
        comparison: comparisonLevel(store.runs[r.id]?.snapshot),
        partial: r.paths.some((p) => damaged.has(p)),
        throughputPerSecond: timeline?.t ?? null,
        steps: timeline?.steps ?? [],
      };
    }),
    errors: [...fileErrors],
    ignored: [...ignored],
    files: [...files],
    ...(store.carriedComparison ? { carriedComparison: store.carriedComparison } : {}),
    ...(store.carriedView ? { carriedView: store.carriedView } : {}),
    ...(timelines === 'pending' ? { timelinesPending: true as const } : {}),
  };
}
