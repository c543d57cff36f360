/**
 * Everything a view shows, as plain data that fits in a URL fragment. Versioned: `v=2` today;
 * a later version adds an upgrader from the previous one, so old links keep working. Defaults are
 * left out of the URL; a bad value falls back to its default and is reported as a notice.
 */

import { isPricePresetId, type PricePresetId } from '../analysis/cost.ts';
import { parseMapSpec } from '../formats/csv-mapping.ts';
import { parseOrder } from '../analysis/history.ts';
import { checkRules, NO_NAME_RULES, parseRuleSpec, ruleSpec, type NameRules } from '../model/name-rules.ts';

export const STATE_VERSION = 2;

export const CHART_IDS = [
  'latency-vs-load',
  'throughput',
  'latency-over-time',
  'percentiles',
  'intended',
  'by-scenario',
  'scaling',
  'cost',
] as const;
export type ChartId = (typeof CHART_IDS)[number];

/**
 * What the top of the page shows: a run's overview (headline figures, throughput and latency over
 * time), the charts (tabs), or the history of repeated runs. Absent from the link = chosen from
 * what is loaded (src/display/page-views.ts).
 */
export const VIEW_IDS = ['overview', 'charts', 'history'] as const;
export type ViewId = (typeof VIEW_IDS)[number];

/** Most series a chart draws unless the user picks more (the busiest first). */
export const MAX_SERIES = 10;

/** What the user says about a run; pre-filled from the YCSB command line where possible. */
export interface RunLabels {
  system?: string;
  workload?: string;
  distribution?: string;
  nodes?: number;
  loadLevel?: string;
  /** Utilisation % from the database's own monitoring, when the user has it. */
  utilisationPct?: number;
  hidden?: boolean;
  /** Which repeat of its configuration the run is (runs alike but for this are repeats). */
  repeat?: string;
  /** What the run was made from, for ordering a history of runs. */
  build?: string;
  commit?: string;
  version?: string;
}

/**
 * An A/B comparison (src/analysis/compare.ts): each side a run key, or a group of runs by label
 * (`system=Redis`, `loadLevel=3,000 ops/s`); the percentiles compared (absent = 50, 99, 99.9).
 */
export interface CompareState {
  baseline: string;
  candidate: string;
  percentiles?: number[];
}

/** A system's price for capacity at the SLA: per node-hour, the cluster's month, or DynamoDB's model. */
export interface SystemPriceState {
  nodeHourly?: number;
  monthly?: number;
  dynamodb?: 'provisioned' | 'on-demand';
}

export interface ViewState {
  /** Result files loaded by reference (relative paths or http(s) URLs). */
  files: string[];
  /** The view chosen by the user; null = the one that fits the data. */
  view: ViewId | null;
  chart: ChartId;
  /** Operations the charts draw, picked by the user; empty = the busiest MAX_SERIES. */
  series: string[];
  percentile: number;
  /** Operation shown in single-operation charts; '' = every operation. */
  op: string;
  xAxis: 'throughput' | 'utilisation';
  /** User-entered capacity (ops/s) per system for utilisation; absent = the system's best run. */
  capacity: Record<string, number>;
  sla: string;
  includeFailed: boolean;
  /** The colours chosen with the toggle; 'system': those the reader's system prefers (no `theme` in the link). */
  theme: 'system' | 'light' | 'dark';
  /** Time window in seconds after each run's own start; null = whole runs. */
  window: { fromS: number | null; toS: number | null } | null;
  /** Runs shown in the time-based charts (run keys); empty = the first visible run. */
  focus: string[];
  /** Event annotations for throughput over time: one `seconds-from-start,label` per line. */
  events: string;
  /** Cost-model parameters (issue: cost-factor bars); prices default to DEFAULT_DYNAMODB_PRICES. */
  cost: CostParams;
  /** Labels per run key (the run's folder). */
  runs: Record<string, RunLabels>;
  /** Files moved to another run than their folder's: file path → run key. */
  regroup: Record<string, string>;
  /** Operation names grouped: the ID rule and `pattern → name` rules (src/model/name-rules.ts). */
  names: NameRules;
  /** A chart shown alone, for an `<iframe>`; null = the whole dashboard. */
  embed: ChartId | null;
  /** A self-contained snapshot (src/state/snapshot.ts link data, base64url), or '' for none. */
  data: string;
  /** CSV column mappings the user gave, by header key → map spec (src/formats/csv-mapping.ts). */
  csvMaps: Record<string, string>;
  /** The A/B comparison shown; null = none chosen. */
  compare: CompareState | null;
  /** Price per system (label) for capacity at the SLA and the sizing table. */
  pricing: Record<string, SystemPriceState>;
  /** The percentile the sizing table shows per operation. */
  sizingPercentile: number;
  /** The History view's order and selection; null = its defaults. */
  history: HistoryState | null;
  /**
   * The Query view's SQL (docs/query.md); '' = none. A link's SQL may be anyone's: the page shows
   * it and runs it only when the user presses Run.
   */
  sql: string;
}

/**
 * The History view (src/views/HistoryView.tsx): the runs' order (`time`, `name`, `label:KEY`,
 * `pattern:PATTERN`, as src/analysis/history.ts reads it), the operation and figure shown.
 */
export interface HistoryState {
  order?: string;
  op?: string;
  stat?: string;
}

/** Everything the cost chart lets the user edit. Absent fields take the documented defaults. */
export interface CostParams {
  itemBytes?: number;
  storageGb?: number;
  consistency?: 'strong' | 'eventual' | 'transactional';
  /** Cluster price: a monthly figure, or nodes × hourly price per node. */
  clusterMonthly?: number;
  nodes?: number;
  nodeHourly?: number;
  wcuHourly?: number;
  rcuHourly?: number;
  wruPerMillion?: number;
  rruPerMillion?: number;
  storagePerGbMonth?: number;
  /** Which dated DynamoDB list prices the edited prices start from; absent = today's. */
  prices?: PricePresetId;
}

/** The colours a page in `theme` shows, where the reader's system prefers dark ones or not. */
export function shownTheme(theme: ViewState['theme'], systemPrefersDark: boolean): 'light' | 'dark' {
  return theme === 'system' ? (systemPrefersDark ? 'dark' : 'light') : theme;
}

export const DEFAULT_STATE: ViewState = {
  files: [],
  view: null,
  chart: 'latency-vs-load',
  series: [],
  percentile: 99,
  op: '',
  xAxis: 'throughput',
  capacity: {},
  sla: '',
  includeFailed: false,
  theme: 'system',
  window: null,
  focus: [],
  events: '',
  cost: {},
  runs: {},
  regroup: {},
  names: NO_NAME_RULES,
  embed: null,
  data: '',
  csvMaps: {},
  compare: null,
  pricing: {},
  sizingPercentile: 95,
  history: null,
  sql: '',
};

export const PERCENTILE_CHOICES = [50, 90, 95, 99, 99.9, 99.99] as const;

export interface Decoded {
  state: ViewState;
  notices: string[];
}

/** Upgraders from version n to n+1, applied in turn to old links' parameters. */
const UPGRADERS: Record<number, (p: URLSearchParams) => void> = {
  // v1 links priced DynamoDB at the list prices before 1 Nov 2024, then the only ones: a link that
  // shows or sets the cost chart keeps them.
  1: (p) => {
    if (p.get('chart') !== 'cost' && p.get('embed') !== 'cost' && !p.has('cost')) return;
    let cost: unknown;
    try {
      cost = JSON.parse(p.get('cost') ?? '{}');
    } catch {
      return; // malformed: reported as such when read
    }
    if (isRecord(cost) && !('prices' in cost)) p.set('cost', JSON.stringify({ ...cost, prices: 'before-2024-11' }));
  },
};

function parseJson<T>(text: string, check: (v: unknown) => v is T): T | null {
  try {
    const v: unknown = JSON.parse(text);
    return check(v) ? v : null;
  } catch {
    return null;
  }
}

export const isChartId = (v: string): v is ChartId => (CHART_IDS as readonly string[]).includes(v);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function isRunLabels(v: unknown): v is RunLabels {
  if (!isRecord(v)) return false;
  const strings = ['system', 'workload', 'distribution', 'loadLevel', 'repeat', 'build', 'commit', 'version'];
  const numbers = ['nodes', 'utilisationPct'];
  return Object.entries(v).every(([k, x]) =>
    strings.includes(k) ? typeof x === 'string' : numbers.includes(k) ? typeof x === 'number' && Number.isFinite(x) : k === 'hidden' ? typeof x === 'boolean' : false,
  );
}

function isRunLabelMap(v: unknown): v is Record<string, RunLabels> {
  return isRecord(v) && Object.values(v).every(isRunLabels);
}

const COST_NUMBERS = ['itemBytes', 'storageGb', 'clusterMonthly', 'nodes', 'nodeHourly', 'wcuHourly', 'rcuHourly', 'wruPerMillion', 'rruPerMillion', 'storagePerGbMonth'];

function isCostParams(v: unknown): v is CostParams {
  return (
    isRecord(v) &&
    Object.entries(v).every(([k, x]) =>
      k === 'consistency'
        ? x === 'strong' || x === 'eventual' || x === 'transactional'
        : k === 'prices'
          ? isPricePresetId(x)
          : COST_NUMBERS.includes(k) && typeof x === 'number' && Number.isFinite(x) && x >= 0,
    )
  );
}

/** Header keys (8 hex digits) to map specs that read back. */
function isCsvMaps(v: unknown): v is Record<string, string> {
  return (
    isRecord(v) &&
    Object.entries(v).every(([k, spec]) => {
      if (!/^[0-9a-f]{8}$/.test(k) || typeof spec !== 'string') return false;
      try {
        parseMapSpec(spec);
        return true;
      } catch {
        return false;
      }
    })
  );
}

const isPercentile = (x: unknown): x is number => typeof x === 'number' && x > 0 && x <= 100;

function isCompareState(v: unknown): v is CompareState {
  if (!isRecord(v) || typeof v.baseline !== 'string' || typeof v.candidate !== 'string' || !v.baseline || !v.candidate) return false;
  if (!Object.keys(v).every((k) => ['baseline', 'candidate', 'percentiles'].includes(k))) return false;
  return v.percentiles === undefined || (Array.isArray(v.percentiles) && v.percentiles.length > 0 && v.percentiles.every(isPercentile));
}

function isHistoryState(v: unknown): v is HistoryState {
  if (!isRecord(v) || !Object.entries(v).every(([k, x]) => ['order', 'op', 'stat'].includes(k) && typeof x === 'string')) return false;
  if (typeof v.order !== 'string') return true;
  try {
    parseOrder(v.order);
    return true;
  } catch {
    return false;
  }
}

function isPricing(v: unknown): v is Record<string, SystemPriceState> {
  const price = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x >= 0;
  return (
    isRecord(v) &&
    Object.values(v).every(
      (p) =>
        isRecord(p) &&
        Object.keys(p).length === 1 &&
        Object.entries(p).every(([k, x]) => (k === 'dynamodb' ? x === 'provisioned' || x === 'on-demand' : (k === 'nodeHourly' || k === 'monthly') && price(x))),
    )
  );
}

function isCapacityMap(v: unknown): v is Record<string, number> {
  return isRecord(v) && Object.values(v).every((x) => typeof x === 'number' && Number.isFinite(x) && x > 0);
}

/** Only relative paths and http(s) URLs may be loaded: never javascript:, data: or file:. */
export function isLoadableReference(ref: string): boolean {
  // URL parsing drops tabs, line ends and leading control characters and reads `\` as `/`, so
  // `java%09script:` or `/\evil.example` would pass a textual check yet resolve elsewhere: refuse them.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (ref.length === 0 || /[\u0000-\u001f\u007f\\]/.test(ref)) return false;
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref)) return /^https?:\/\//i.test(ref);
  return !ref.startsWith('//');
}

export function decodeState(fragment: string): Decoded {
  const params = new URLSearchParams(fragment.replace(/^#/, ''));
  const notices: string[] = [];
  const state: ViewState = structuredClone(DEFAULT_STATE);
  const version = Number(params.get('v') ?? STATE_VERSION);
  if (!Number.isInteger(version) || version < 1 || version > STATE_VERSION) {
    notices.push(`link version "${params.get('v')}" is not understood; showing defaults`);
    return { state, notices };
  }
  for (let v = version; v < STATE_VERSION; v++) UPGRADERS[v]?.(params);

  const files = params.get('files');
  if (files) {
    const refs = files.split(',').map((f) => f.trim()).filter((f) => f.length > 0);
    const bad = refs.filter((r) => !isLoadableReference(r));
    if (bad.length) notices.push(`ignored ${bad.length} file reference(s) that are not relative paths or http(s) URLs`);
    state.files = refs.filter(isLoadableReference);
  }
  const chart = params.get('chart');
  if (chart !== null) {
    if (isChartId(chart)) state.chart = chart;
    else notices.push(`unknown chart "${chart}"`);
  }
  const view = params.get('view');
  if (view !== null) {
    if ((VIEW_IDS as readonly string[]).includes(view)) state.view = view as ViewId;
    else notices.push(`unknown view "${view}"`);
  }
  const series = params.get('series');
  if (series !== null) {
    const parsed = parseJson(series, (v): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string'));
    if (parsed) state.series = parsed;
    else notices.push('the chosen chart series in the link are malformed and were ignored');
  }
  const embed = params.get('embed');
  if (embed !== null) {
    if (isChartId(embed)) state.embed = embed;
    else notices.push(`unknown chart to embed "${embed}"`);
  }
  const p = params.get('p');
  if (p !== null) {
    const n = Number(p);
    if (Number.isFinite(n) && n > 0 && n < 100) state.percentile = n;
    else notices.push(`percentile "${p}" must be between 0 and 100`);
  }
  const op = params.get('op');
  if (op !== null) state.op = op;
  const x = params.get('x');
  if (x !== null) {
    if (x === 'throughput' || x === 'utilisation') state.xAxis = x;
    else notices.push(`x axis "${x}" must be throughput or utilisation`);
  }
  const sla = params.get('sla');
  if (sla !== null) state.sla = sla;
  if (params.get('failed') === '1') state.includeFailed = true;
  const theme = params.get('theme');
  if (theme === 'dark' || theme === 'light') state.theme = theme;
  else if (theme !== null) notices.push(`theme "${theme}" must be light or dark`);
  const win = params.get('window');
  if (win !== null) {
    const m = /^(\d+(?:\.\d+)?)?-(\d+(?:\.\d+)?)?$/.exec(win);
    const fromS = m?.[1] !== undefined ? Number(m[1]) : null;
    const toS = m?.[2] !== undefined ? Number(m[2]) : null;
    if (m && (fromS !== null || toS !== null) && (fromS === null || toS === null || fromS < toS)) state.window = { fromS, toS };
    else notices.push(`time window "${win}" must look like 10-70 (seconds after each run's start)`);
  }
  const focus = params.get('focus');
  if (focus !== null) state.focus = focus.split(',').filter((f) => f.length > 0);
  const events = params.get('events');
  if (events !== null) state.events = events;
  const cost = params.get('cost');
  if (cost !== null) {
    const parsed = parseJson(cost, isCostParams);
    if (parsed) state.cost = parsed;
    else notices.push('cost parameters in the link are malformed and were ignored');
  }
  const runs = params.get('runs');
  if (runs !== null) {
    const parsed = parseJson(runs, isRunLabelMap);
    if (parsed) state.runs = parsed;
    else notices.push('run labels in the link are malformed and were ignored');
  }
  const regroup = params.get('regroup');
  if (regroup !== null) {
    const parsed = parseJson(regroup, (v): v is Record<string, string> => isRecord(v) && Object.values(v).every((x) => typeof x === 'string'));
    if (parsed) state.regroup = parsed;
    else notices.push('file regrouping in the link is malformed and was ignored');
  }
  const ids = params.get('ids');
  const group = params.getAll('group');
  if (ids !== null || group.length > 0) {
    // Refused rules are dropped with their reason; the rest apply.
    const rules = group.flatMap((spec) => {
      const rule = parseRuleSpec(spec);
      if (!('error' in rule)) return [rule];
      notices.push(`name rule in the link refused: ${rule.error}`);
      return [];
    });
    const { usable, problems } = checkRules({ ids: ids === '1', rules });
    notices.push(...problems.map((p) => `name rule in the link refused: ${p}`));
    state.names = usable;
  }
  const data = params.get('data');
  if (data !== null) {
    if (/^[A-Za-z0-9_-]+$/.test(data)) state.data = data;
    else notices.push('the comparison data in the link is damaged and was ignored');
  }
  const maps = params.get('maps');
  if (maps !== null) {
    const parsed = parseJson(maps, isCsvMaps);
    if (parsed) state.csvMaps = parsed;
    else notices.push('CSV column mappings in the link are malformed and were ignored');
  }
  const capacity = params.get('capacity');
  if (capacity !== null) {
    const parsed = parseJson(capacity, isCapacityMap);
    if (parsed) state.capacity = parsed;
    else notices.push('capacities in the link are malformed and were ignored');
  }
  const compare = params.get('compare');
  if (compare !== null) {
    const parsed = parseJson(compare, isCompareState);
    if (parsed) state.compare = parsed;
    else notices.push('the A/B comparison in the link is malformed and was ignored');
  }
  const pricing = params.get('pricing');
  if (pricing !== null) {
    const parsed = parseJson(pricing, isPricing);
    if (parsed) state.pricing = parsed;
    else notices.push('system prices in the link are malformed and were ignored');
  }
  const history = params.get('history');
  if (history !== null) {
    const parsed = parseJson(history, isHistoryState);
    if (parsed) state.history = parsed;
    else notices.push('the history view\'s order in the link is malformed and was ignored');
  }
  const sizing = params.get('sizingp');
  if (sizing !== null) {
    const n = Number(sizing);
    if (isPercentile(n)) state.sizingPercentile = n;
    else notices.push(`sizing percentile "${sizing}" must be above 0 and at most 100`);
  }
  const sql = params.get('sql');
  if (sql !== null) {
    if (sql.length <= MAX_SQL_CHARS) state.sql = sql;
    else notices.push(`the SQL in the link is longer than ${MAX_SQL_CHARS} characters and was ignored`);
  }
  return { state, notices };
}

/** Longest SQL a link may carry: a query, not a payload. */
const MAX_SQL_CHARS = 20_000;

/** The fragment for a state, defaults omitted (so the default view is a bare URL). */
export function encodeState(state: ViewState): string {
  const params = new URLSearchParams();
  const d = DEFAULT_STATE;
  if (state.files.length) params.set('files', state.files.join(','));
  if (state.view !== d.view && state.view !== null) params.set('view', state.view);
  if (state.chart !== d.chart) params.set('chart', state.chart);
  // JSON: operation names hold commas (`GET /a?x=1,2`).
  if (state.series.length) params.set('series', JSON.stringify(state.series));
  if (state.percentile !== d.percentile) params.set('p', String(state.percentile));
  if (state.op !== d.op) params.set('op', state.op);
  if (state.xAxis !== d.xAxis) params.set('x', state.xAxis);
  if (state.sla !== d.sla) params.set('sla', state.sla);
  if (state.includeFailed) params.set('failed', '1');
  if (state.theme !== d.theme) params.set('theme', state.theme);
  if (state.window) params.set('window', `${state.window.fromS ?? ''}-${state.window.toS ?? ''}`);
  if (state.focus.length) params.set('focus', state.focus.join(','));
  if (state.events !== d.events) params.set('events', state.events);
  const runs = Object.fromEntries(Object.entries(state.runs).filter(([, l]) => Object.keys(l).length > 0));
  if (Object.keys(runs).length) params.set('runs', JSON.stringify(runs));
  if (Object.keys(state.capacity).length) params.set('capacity', JSON.stringify(state.capacity));
  if (Object.keys(state.regroup).length) params.set('regroup', JSON.stringify(state.regroup));
  if (state.names.ids) params.set('ids', '1');
  for (const rule of state.names.rules) params.append('group', ruleSpec(rule));
  if (Object.keys(state.cost).length) params.set('cost', JSON.stringify(state.cost));
  if (Object.keys(state.csvMaps).length) params.set('maps', JSON.stringify(state.csvMaps));
  if (state.compare) params.set('compare', JSON.stringify(state.compare));
  if (Object.keys(state.pricing).length) params.set('pricing', JSON.stringify(state.pricing));
  if (state.sizingPercentile !== d.sizingPercentile) params.set('sizingp', String(state.sizingPercentile));
  if (state.history && Object.keys(state.history).length) params.set('history', JSON.stringify(state.history));
  if (state.sql !== d.sql) params.set('sql', state.sql);
  if ([...params.keys()].length === 0 && !state.embed && !state.data) return '';
  params.set('v', String(STATE_VERSION));
  // Last, so that an embed link reads as the dashboard's own link plus `&embed=<chart>`.
  if (state.embed) params.set('embed', state.embed);
  // The bulky comparison data goes at the very end, where a reader's eye (and a cut) meets it last.
  if (state.data) params.set('data', state.data);
  // Commas and slashes read better unescaped and are safe in a fragment.
  return params.toString().replace(/%2C/g, ',').replace(/%2F/g, '/');
}
