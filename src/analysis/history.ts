import { detectChangePoints, type ChangePointOptions, type SeriesPoint } from './changepoint.ts';
import { naturalCompare } from '../model/grouping.ts';

/**
 * A history: runs that repeat one test (the same operations, at different times or builds), put
 * in order, each figure a series over them with its change points. Pure: the engine gives each
 * run's figures and intervals (src/engine/history-queries.ts), the page and the CLI order the runs
 * here and both get the same series.
 */

/** How the runs are put in order. */
export type HistoryOrder =
  | { kind: 'time' }
  | { kind: 'name' }
  /** By a label's value (build, commit, version), in natural order. */
  | { kind: 'label'; key: string }
  /** By the part of the folder name a pattern marks: `nightly-*-{}` — `*` any text, `{}` the key. */
  | { kind: 'pattern'; pattern: string };

export const DEFAULT_ORDER: HistoryOrder = { kind: 'time' };
/** Labels a history is usually ordered by, offered first. */
export const ORDER_LABELS = ['build', 'commit', 'version'] as const;

export function formatOrder(order: HistoryOrder): string {
  switch (order.kind) {
    case 'time':
    case 'name':
      return order.kind;
    case 'label':
      return `label:${order.key}`;
    case 'pattern':
      return `pattern:${order.pattern}`;
  }
}

/** `time`, `name`, `label:KEY` or `pattern:PATTERN`; throws an Error saying what it expects. */
export function parseOrder(text: string): HistoryOrder {
  if (text === 'time' || text === 'name') return { kind: text };
  const label = /^label:(.+)$/.exec(text);
  if (label) return { kind: 'label', key: label[1] as string };
  const pattern = /^pattern:(.+)$/.exec(text);
  if (pattern) {
    patternRegex(pattern[1] as string);
    return { kind: 'pattern', pattern: pattern[1] as string };
  }
  throw new Error(`order "${text}": expected time, name, label:KEY (e.g. label:build) or pattern:PATTERN (e.g. pattern:nightly-*-{})`);
}

/**
 * A pattern as a regular expression: every character literal but `*` (any text, shortest first)
 * and one `{}` (the key, captured). Built from escaped text only, so a pattern from a link is
 * never a regular expression of its author's making.
 */
export function patternRegex(pattern: string): RegExp {
  const parts = pattern.split('{}');
  if (parts.length !== 2) throw new Error(`pattern "${pattern}" must hold one {} where the key is, e.g. build-{} or nightly-*-{}`);
  const literal = (s: string) => s.split('*').map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*?');
  return new RegExp(`^${literal(parts[0] as string)}(.+?)${literal(parts[1] as string)}$`);
}

/** What ordering and grouping need to know of a run. */
export interface HistoryRun {
  key: string;
  /** As `summarize` names it. */
  label: string;
  startEpochMs: number | null;
  /** A start counted from the run's own start is no date. */
  relativeTime?: boolean;
  /** Labels from the Runs table and `benchlens.json` (`{"labels": {"build": "123"}}`). */
  labels: Readonly<Record<string, string>>;
  /** Its latency operations (not failed ones, Intended-* or reports). */
  ops: readonly string[];
  /** What the run was asked to do, when known: runs asked for different loads are a sweep, not a history. */
  target: number | null;
  system: string;
}

export const MIN_HISTORY_RUNS = 3;

/**
 * Whether runs are repeats of one test: at least MIN_HISTORY_RUNS of them, of one system, the same
 * operations, and the same target load (runs at different targets are a sweep).
 */
export function isHistory(runs: readonly HistoryRun[]): boolean {
  if (runs.length < MIN_HISTORY_RUNS) return false;
  const first = runs[0] as HistoryRun;
  const ops = [...first.ops].sort().join('\u0000');
  return ops.length > 0 && runs.every((r) => r.system === first.system && r.target === first.target && [...r.ops].sort().join('\u0000') === ops);
}

/** The folder name of a run: the last part of its label. */
const folderName = (run: HistoryRun) => run.label.split('/').filter((p) => p.length > 0).pop() ?? run.label;

/**
 * The runs in the order asked for, and what could not be placed by it: runs without a start time,
 * the label or a name matching the pattern go after the others, by name, and are said. Ties keep
 * name order.
 */
export function orderRuns(runs: readonly HistoryRun[], order: HistoryOrder): { runs: HistoryRun[]; problems: string[] } {
  const byName = [...runs].sort((a, b) => naturalCompare(a.label, b.label));
  let keyOf: (run: HistoryRun) => string | number | null;
  let missing: string;
  switch (order.kind) {
    case 'name':
      return { runs: byName, problems: [] };
    case 'time':
      keyOf = (r) => (r.startEpochMs !== null && !r.relativeTime ? r.startEpochMs : null);
      missing = 'have no start time (their logs count from their own start)';
      break;
    case 'label':
      keyOf = (r) => (Object.hasOwn(r.labels, order.key) ? (r.labels[order.key] as string) : null);
      missing = `have no label "${order.key}"`;
      break;
    case 'pattern': {
      const regex = patternRegex(order.pattern);
      keyOf = (r) => regex.exec(folderName(r))?.[1] ?? null;
      missing = `have folder names that do not match ${order.pattern}`;
      break;
    }
  }
  const keyed = byName.map((run) => ({ run, key: keyOf(run) }));
  const placed = keyed.filter((x) => x.key !== null);
  const unplaced = keyed.filter((x) => x.key === null).map((x) => x.run);
  placed.sort((a, b) => (typeof a.key === 'number' && typeof b.key === 'number' ? a.key - b.key : naturalCompare(String(a.key), String(b.key))));
  const problems = unplaced.length ? [`${unplaced.length} run(s) ${missing} and are put last, by name: ${unplaced.map((r) => r.label).join(', ')}`] : [];
  return { runs: [...placed.map((x) => x.run), ...unplaced], problems };
}

/** A figure's point in one run: its value and 95% interval (null where unknown, with why). */
export interface HistoryPoint {
  /** The run's label, as `summarize` names it. */
  run: string;
  value: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  note?: string;
}

export interface HistoryChange {
  /** The label of the first run after the change. */
  run: string;
  /** Its 0-based position in the order. */
  index: number;
  before: number;
  after: number;
  ratio: number;
  pValue: number;
}

export interface HistorySeries {
  op: string;
  /** `p50`, `p99`, … `throughput`, or `errors` (the share of operations that failed). */
  stat: string;
  points: HistoryPoint[];
  changes: HistoryChange[];
  /** Why no change could be looked for, when it could not. */
  note?: string;
}

/**
 * Error rates are often 0: they are looked at as (rate + this), so that a move from none to 1% is a
 * change of ×101, and runs without errors are alike.
 */
export const ERROR_RATE_OFFSET = 0.0001;

/** The series' change points, each with the label of the run where it starts. */
export function seriesChanges(op: string, stat: string, points: readonly HistoryPoint[], options: ChangePointOptions = {}): HistorySeries {
  const missing = points.filter((p) => p.value === null).length;
  if (missing > 0) return { op, stat, points: [...points], changes: [], note: `${missing} run(s) have no ${stat}: no change is looked for` };
  const offset = stat === 'errors' ? ERROR_RATE_OFFSET : 0;
  const input: SeriesPoint[] = points.map((p) => ({
    value: (p.value as number) + offset,
    ciLow: p.ciLow === null ? null : p.ciLow + offset,
    ciHigh: p.ciHigh === null ? null : p.ciHigh + offset,
  }));
  if (input.some((p) => !(p.value > 0))) return { op, stat, points: [...points], changes: [], note: `some run's ${stat} is 0: no change is looked for` };
  const changes = detectChangePoints(input, options).map((c) => ({
    run: (points[c.index] as HistoryPoint).run,
    index: c.index,
    before: c.before - offset,
    after: c.after - offset,
    ratio: c.ratio,
    pValue: c.pValue,
  }));
  return { op, stat, points: [...points], changes };
}

/**
 * The labels of a `benchlens.json` beside a run's results (the folder's manifest,
 * src/state/folder-listing.ts): `{"labels": {"build": "123", "commit": "ab12"}}`; its other keys
 * (`files`) are for other uses. Values are strings
 * or numbers; anything else is an error saying what was expected.
 */
export function labelsFromRunFile(text: string): { labels: Record<string, string> } | { error: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { error: `not JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return { error: 'expected an object such as {"labels": {"build": "123"}}' };
  const labels = (doc as Record<string, unknown>).labels;
  if (labels === undefined) return { labels: {} };
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) return { error: '"labels" must be an object such as {"build": "123"}' };
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) {
    if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) out[k] = String(v);
    else return { error: `label "${k}" must be a string or a number` };
  }
  return { labels: out };
}
