import {
  baseName,
  clientFromFileName,
  dirName,
  normalisePath,
  reportOf,
  splitClientAndOp,
  withoutCompression,
} from './naming.ts';
import type { FormatId, LatencySeries, OverallSummary, ParsedFile, StatusPoint, YcsbCommandLine } from './types.ts';

/**
 * Grouping files into runs and clients with no side files: a folder is one run (one benchmark
 * execution at one load level); inside it, files belong to the client their content or name says
 * (`client1-READ.hdr`, `client1.stdout.txt`, the YCSB command line's output path).
 */

export interface SourcedSeries {
  /** Base name of the file the series came from. */
  file: string;
  /** The format module that read that file. */
  format: FormatId;
  data: LatencySeries;
}

export interface ClientData {
  name: string;
  files: string[];
  series: SourcedSeries[];
  commandLine: YcsbCommandLine | null;
  overall: OverallSummary | null;
  status: StatusPoint[] | null;
}

export interface RunData {
  /** Stable key: the folder path, or the run the user moved files to. */
  key: string;
  /** Full paths of the run's files. */
  paths: string[];
  /** Short label: the folder path without the prefix all runs share. */
  label: string;
  clients: ClientData[];
}

const DEFAULT_CLIENT = 'client';

function clientOf(file: ParsedFile, series?: LatencySeries): string {
  if (series?.client) return series.client;
  if (file.clientHint) return file.clientHint;
  const stem = withoutCompression(baseName(file.path));
  if (file.format === 'hdr-log' && series) {
    const bare = stem.replace(/\.(hdr|hlog|log|histogram)$/i, '');
    const { client } = splitClientAndOp(bare, series.op);
    return client || DEFAULT_CLIENT;
  }
  if (file.format === 'hgrm' && series) {
    return splitClientAndOp(stem.replace(/\.(hgrm|txt|csv)$/i, ''), series.op).client || DEFAULT_CLIENT;
  }
  return clientFromFileName(file.path) || DEFAULT_CLIENT;
}

/** Labels: drop the path prefix every run shares, so `results/sweep/target-250` shows as `target-250`. */
export function runLabels(keys: readonly string[]): string[] {
  if (keys.length === 0) return [];
  const parts = keys.map((k) => (k === '' ? [] : k.split('/')));
  let common = 0;
  const shortest = Math.min(...parts.map((p) => p.length));
  while (common < shortest - 1 && parts.every((p) => p[common] === parts[0]?.[common])) common++;
  if (keys.length === 1) return [parts[0]?.slice(-1).join('/') || '.'];
  return parts.map((p) => p.slice(common).join('/') || '.');
}

/**
 * `overrides` maps a file path to the run it belongs to when the folder structure says otherwise
 * (the user regrouped it).
 */
export function groupIntoRuns(files: readonly ParsedFile[], overrides: Readonly<Record<string, string>> = {}): RunData[] {
  const runs = new Map<string, Map<string, ClientData>>();
  const paths = new Map<string, string[]>();
  const clientFor = (runKey: string, name: string): ClientData => {
    let clients = runs.get(runKey);
    if (!clients) {
      clients = new Map();
      runs.set(runKey, clients);
    }
    let c = clients.get(name);
    if (!c) {
      c = { name, files: [], series: [], commandLine: null, overall: null, status: null };
      clients.set(name, c);
    }
    return c;
  };

  for (const file of files) {
    const runKey = overrides[file.path] ?? dirName(normalisePath(file.path));
    paths.set(runKey, [...(paths.get(runKey) ?? []), file.path]);
    const touched = new Set<ClientData>();
    for (const s of file.series) {
      const c = clientFor(runKey, clientOf(file, s));
      c.series.push({ file: baseName(file.path), format: file.format, data: s });
      touched.add(c);
    }
    if (file.commandLine || file.overall || file.status || file.series.length === 0) {
      const c = clientFor(runKey, clientOf(file));
      if (file.commandLine) c.commandLine = file.commandLine;
      if (file.overall) c.overall = file.overall;
      if (file.status && file.status.length > 0) c.status = file.status;
      touched.add(c);
    }
    for (const c of touched) c.files.push(baseName(file.path));
  }

  for (const clients of runs.values()) asReports(clients.values());
  // Natural order: target-250 before target-1000, as a person lists them.
  const keys = [...runs.keys()].sort(naturalCompare);
  const labels = runLabels(keys);
  return keys.map((key, i) => ({
    key,
    label: key === '' ? looseLabel(paths.get(key) ?? []) : (labels[i] ?? key),
    paths: (paths.get(key) ?? []).sort(),
    clients: [...(runs.get(key)?.values() ?? [])]
      .filter((c) => c.series.length > 0 || c.commandLine || c.overall || c.status)
      .sort((a, b) => naturalCompare(a.name, b.name)),
  }));
}

/**
 * A tool's whole-run report (SeriesBase.scope 'run') beside other data of the same run from that
 * tool, or of the same operation (per-request logs, an aggregated log), summarises those requests
 * again: it is renamed to the report's view of them (`<op> (report)`), shown and never added to
 * them. Alone, it is the run's data.
 */
function asReports(clients: Iterable<ClientData>): void {
  const list = [...clients];
  const measured = list.flatMap((c) => c.series.filter((s) => s.data.scope !== 'run'));
  const ops = new Set(measured.map((s) => s.data.op));
  const formats = new Set(measured.map((s) => s.format));
  for (const c of list) {
    c.series = c.series.map((s) => (s.data.scope === 'run' && (ops.has(s.data.op) || formats.has(s.format)) ? { ...s, data: { ...s.data, op: reportOf(s.data.op) } } : s));
  }
}

/**
 * Files given or dropped on their own, with no folder: one file's name (its extensions and
 * compression dropped) says what the run is better than '.' did.
 */
function looseLabel(paths: readonly string[]): string {
  if (paths.length !== 1) return 'files without a folder';
  return withoutCompression(baseName(paths[0] as string)).replace(/(\.[A-Za-z0-9]{1,8})+$/, '') || 'files without a folder';
}

/** Text order with runs of digits compared as numbers (`client2` before `client10`). */
export function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
