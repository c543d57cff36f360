import { capacityOf, utilisationPct } from '../analysis/sweep.ts';
import type { Analysis, RunAnalysis } from '../engine/analyse.ts';
import { historyRunOf } from '../engine/history-queries.ts';
import type { HistoryRun } from '../analysis/history.ts';
import type { RunLabels, ViewState } from '../state/view-state.ts';
import { naturalCompare } from '../model/grouping.ts';
import { dirName } from '../model/naming.ts';

/** A run as the charts see it: its figures plus the labels that group it (system, mix, load level). */
export interface RunView {
  run: RunAnalysis;
  key: string;
  label: string;
  system: string;
  workload: string;
  distribution: string;
  nodes: number | null;
  loadLevel: string;
  hidden: boolean;
  /** Offered load: per-client target × clients. */
  offeredOpsPerS: number | null;
  deliveredPct: number | null;
  utilisationPct: number | null;
  /** Where the utilisation came from. */
  utilisationSource: 'entered' | 'capacity' | null;
}

/** `corpus.ycsb.RedisDB` → `RedisDB`; `site.ycsb.db.CassandraCQLClient` → `CassandraCQLClient`; '' when unknown. */
export function systemFromDb(db: string | null): string {
  if (!db) return '';
  return db.split('.').pop() || db;
}

/**
 * The labels the files say (the YCSB command line: its database, workload files, distribution and
 * target); '' where they say nothing — an HTTP tool's run has no database or workload mix, and
 * gets no placeholder for them. A YCSB run without a target is unthrottled.
 */
export function defaultLabels(run: RunAnalysis): Required<Omit<RunLabels, 'utilisationPct' | 'nodes' | 'hidden' | 'repeat' | 'build' | 'commit' | 'version'>> {
  const offered = run.target !== null ? run.target * run.clients.length : null;
  return {
    system: systemFromDb(run.db),
    workload: run.workload ?? '',
    distribution: run.properties.requestdistribution ?? '',
    loadLevel: offered !== null ? `${offered.toLocaleString('en-US')} ops/s` : run.db !== null ? 'unthrottled' : '',
  };
}

/** A run's labels as one line (`RedisDB · workloada · zipfian`), those it has only. */
export function labelLine(v: Pick<RunView, 'system' | 'workload' | 'distribution'>): string {
  return [v.system, v.workload, v.distribution].filter(Boolean).join(' · ');
}

export function buildRunViews(analysis: Analysis | null, state: ViewState): RunView[] {
  if (!analysis) return [];
  const base = analysis.runs.map((run): RunView => {
    const labels = state.runs[run.dir] ?? {};
    const d = defaultLabels(run);
    const offered = run.target !== null ? run.target * run.clients.length : null;
    return {
      run,
      key: run.dir,
      label: run.label,
      system: labels.system?.trim() || d.system,
      workload: labels.workload?.trim() || d.workload,
      distribution: labels.distribution?.trim() || d.distribution,
      nodes: labels.nodes ?? null,
      loadLevel: labels.loadLevel?.trim() || d.loadLevel,
      hidden: labels.hidden ?? false,
      offeredOpsPerS: offered,
      deliveredPct: offered && run.throughput !== null ? (run.throughput / offered) * 100 : null,
      utilisationPct: labels.utilisationPct ?? null,
      utilisationSource: labels.utilisationPct !== undefined ? ('entered' as const) : null,
    };
  });
  const systems = new Set(base.map((v) => v.system));
  for (const system of systems) {
    const ofSystem = base.filter((v) => v.system === system);
    const capacity = state.capacity[system] ?? capacityOf(ofSystem.map((v) => v.run.throughput));
    for (const v of ofSystem) {
      if (v.utilisationSource === null && capacity !== null && v.run.throughput !== null) {
        v.utilisationPct = utilisationPct(v.run.throughput, capacity);
        v.utilisationSource = 'capacity';
      }
    }
  }
  return base.sort(runOrder);
}

/**
 * Runs as a person lists them: by folder, then by offered load where it is known (a sweep's levels
 * in order whatever its folders are called; unthrottled runs last), then by name with numbers as
 * numbers.
 */
function runOrder(a: RunView, b: RunView): number {
  const byFolder = naturalCompare(dirName(a.key), dirName(b.key));
  if (byFolder !== 0) return byFolder;
  const la = a.offeredOpsPerS ?? Infinity;
  const lb = b.offeredOpsPerS ?? Infinity;
  if (la !== lb) return la - lb;
  return naturalCompare(a.label, b.label);
}

const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777', '#4b5563', '#65a30d'];

/** The i-th series' colour, the palette repeating. */
export const seriesColour = (i: number): string => PALETTE[Math.max(0, i) % PALETTE.length] as string;

/** One colour per name, stable across charts: assigned in sorted order of all names present. */
export function colourMap(names: readonly string[]): Map<string, string> {
  const sorted = [...new Set(names)].sort(naturalCompare);
  return new Map(sorted.map((n, i) => [n, seriesColour(i)]));
}

const APP_TITLE = 'benchlens';

/**
 * The page title names what is loaded, so tabs and bookmarks tell results apart: the runs' labels
 * (at most three, then how many more), or the app's own name while nothing is.
 */
export function pageTitle(views: readonly RunView[]): string {
  const shown = views.filter((v) => !v.hidden);
  if (shown.length === 0) return `${APP_TITLE} — benchmark results, merged exactly`;
  const names = shown.slice(0, 3).map((v) => v.label);
  const more = shown.length - names.length;
  return `${names.join(', ')}${more > 0 ? ` and ${more} more` : ''} — ${APP_TITLE}`;
}

/** The visible runs as a history sees them: labels from their benchlens.json and the Runs table (build, commit, version …), and the system shown. */
export function historyRunsOf(views: readonly RunView[], state: Pick<ViewState, 'runs'>, fileLabels: Readonly<Record<string, Readonly<Record<string, string>>>> = {}): HistoryRun[] {
  return views
    .filter((v) => !v.hidden)
    .map((v) => {
      // A benchlens.json's labels, then the Runs table's, which the user may have corrected.
      const labels: Record<string, string> = { ...fileLabels[v.key], system: v.system };
      for (const [k, x] of Object.entries(state.runs[v.key] ?? {})) if (typeof x === 'string' || typeof x === 'number') labels[k] = String(x);
      return historyRunOf(v.run, labels);
    });
}
