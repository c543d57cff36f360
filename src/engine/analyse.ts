import { detectSteps, type Step } from '../analysis/steps.ts';
import { groupIntoRuns } from '../model/grouping.ts';
import { fileReport, type FileReport } from '../model/report.ts';
import type { ParsedFile, ParseIssue } from '../model/types.ts';
import type { Db } from './db.ts';
import { countsPerSecond } from './queries.ts';
import { Store } from './store.ts';
import { summarizeRuns, type RunSummary, type SummaryOptions } from './summary.ts';

/** Per-second operations of a run in absolute time, all clients summed. */
export interface ThroughputSeries {
  startEpochS: number;
  ok: number[];
  failed: number[];
}

export interface RunAnalysis extends RunSummary {
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
  files: FileReport[];
}

/** Dense per-second arrays for each group, from its first to its last second. */
export function throughputSeries(store: Store, seriesFilter: (runId: number) => boolean = () => true): Map<number, ThroughputSeries> {
  const timed = store.series.filter(
    (s) => seriesFilter(s.runId) && (s.source === 'histogram' || s.source === 'raw') && (s.kind === 'op' || s.kind === 'failed') && s.timeBase !== null,
  );
  const rows = countsPerSecond(store.db, { seriesIds: timed.map((s) => s.id), groups: timed.map((s) => s.runId) });
  const out = new Map<number, ThroughputSeries>();
  for (const r of rows) {
    let t = out.get(r.g);
    if (!t) {
      t = { startEpochS: r.sec, ok: [], failed: [] };
      out.set(r.g, t);
    }
    const i = r.sec - t.startEpochS;
    while (t.ok.length <= i) {
      t.ok.push(0);
      t.failed.push(0);
    }
    t.ok[i] = r.ok;
    t.failed[i] = r.failed;
  }
  return out;
}

/** Load parsed files into a fresh store and compute every run's figures. */
export function analyseLoaded(
  db: Db,
  loaded: { files: readonly ParsedFile[]; errors: readonly ParseIssue[]; ignored: readonly string[] },
  options: SummaryOptions = {},
): Analysis {
  const store = new Store(db);
  store.addRuns(groupIntoRuns(loaded.files));
  return analyseStore(store, loaded.errors, loaded.ignored, options, loaded.files.map(fileReport));
}

/** Per-second series and steps do not depend on a window: computed once per dataset. */
const timelines = new WeakMap<Store, { version: number; byRun: Map<number, { t: ThroughputSeries; steps: Step[] }> }>();

function runTimelines(store: Store): Map<number, { t: ThroughputSeries; steps: Step[] }> {
  const cached = timelines.get(store);
  if (cached && cached.version === store.version) return cached.byRun;
  const byRun = new Map([...throughputSeries(store)].map(([run, t]) => [run, { t, steps: detectSteps(t.ok) }]));
  timelines.set(store, { version: store.version, byRun });
  return byRun;
}

export function analyseStore(
  store: Store,
  fileErrors: readonly ParseIssue[],
  ignored: readonly string[],
  options: SummaryOptions = {},
  files: readonly FileReport[] = [],
): Analysis {
  const runs = summarizeRuns(store, options);
  const series = runTimelines(store);
  const damaged = new Set([...files.filter((f) => f.skipped > 0 || f.problems > 0).map((f) => f.path), ...fileErrors.map((e) => e.file)]);
  return {
    runs: runs.map((r) => {
      const timeline = series.get(r.id);
      return { ...r, partial: r.paths.some((p) => damaged.has(p)), throughputPerSecond: timeline?.t ?? null, steps: timeline?.steps ?? [] };
    }),
    errors: [...fileErrors],
    ignored: [...ignored],
    files: [...files],
  };
}
