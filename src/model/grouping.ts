import {
  baseName,
  clientFromFileName,
  dirName,
  normalisePath,
  opKind,
  reportOf,
  splitClientAndOp,
  withoutCompression,
} from './naming.ts';
import { FORMAT_IDS, type FileFailures, type FormatId, type LatencySeries, type OverallSummary, type ParsedFile, type StatusPoint, type YcsbCommandLine } from './types.ts';

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
  /** Failed requests by cause, of each of its files that tallies them (not of a report shown beside its data). */
  failures: FileFailures[];
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
  const failures = new Map<string, { file: ParsedFile; failures: FileFailures }[]>();
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

  const notCounted = new Set(sameRequests(files, overrides).filter((d) => !d.counted).map((d) => d.path));
  for (const file of files) {
    const runKey = runKeyOf(file, overrides);
    paths.set(runKey, [...(paths.get(runKey) ?? []), file.path]);
    if (file.failures && !notCounted.has(file.path)) failures.set(runKey, [...(failures.get(runKey) ?? []), { file, failures: file.failures }]);
    const touched = new Set<ClientData>();
    // A file holding the same requests as another of the run (see sameRequests) adds none of them.
    for (const s of notCounted.has(file.path) ? [] : file.series) {
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

  const reported = new Set<LatencySeries>();
  for (const clients of runs.values()) asReports(clients.values(), reported);
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
    failures: (failures.get(key) ?? []).filter((f) => !f.file.series.some((s) => reported.has(s))).map((f) => f.failures),
  }));
}

function runKeyOf(file: ParsedFile, overrides: Readonly<Record<string, string>>): string {
  return overrides[file.path] ?? dirName(normalisePath(file.path));
}

/** Two files of a run that hold the same requests: one is counted, the other is not. */
export interface SameRequests {
  path: string;
  /** The other file. */
  other: string;
  /** Whether this file's series are the ones counted. */
  counted: boolean;
  reason: string;
}

/** Generic formats: their files beside each other are different clients' or complement each other (YCSB's stdout and its HDR logs). */
const GENERIC_FORMATS: readonly FormatId[] = ['hdr-log', 'hgrm', 'ycsb-raw', 'ycsb-text', 'generic-csv', 'parquet'];
const PRODUCER_FORMATS = new Set(FORMAT_IDS.filter((f) => !GENERIC_FORMATS.includes(f)));

/** What a file says about its requests: operations counted per interval, in time order, and how exactly. */
interface RequestPrint {
  file: ParsedFile;
  client: string;
  /** Requests per interval (per second for raw samples), in time order. */
  timeline: number[];
  total: number;
  /** Per counted operation of raw samples: samples and the sum of their values (null when not all series are raw). */
  rawSums: Map<string, string> | null;
  /** 2: exact latencies (histograms, raw samples); 1: a tool's interval figures. */
  exactness: number;
  /** Raw samples timed to the millisecond (not only whole seconds). */
  msTimes: boolean;
}

function requestPrint(file: ParsedFile): RequestPrint | null {
  const counted = file.series.filter((s) => s.scope !== 'run' && (opKind(s.op) === 'op' || opKind(s.op) === 'failed'));
  const timed = counted.filter((s) => s.kind === 'raw' || s.kind === 'histogram' || s.kind === 'intervals');
  if (timed.length === 0) return null;
  // Keyed by start in µs, whatever the kind: raw samples by their second.
  const perTime = new Map<number, number>();
  const add = (us: number, n: number) => perTime.set(us, (perTime.get(us) ?? 0) + n);
  const allRaw = timed.every((s) => s.kind === 'raw');
  const rawSums = allRaw ? new Map<string, string>() : null;
  let msTimes = false;
  for (const s of timed) {
    if (s.kind === 'raw') {
      let sum = 0;
      const { secs, starts, value, n } = s.counts;
      for (let k = 0; k < secs.length; k++) {
        let inSecond = 0;
        for (let i = starts[k] as number; i < (starts[k + 1] as number); i++) {
          inSecond += n[i] as number;
          sum += (value[i] as number) * (n[i] as number);
        }
        add((secs[k] as number) * 1e6, inSecond);
      }
      rawSums?.set(`${s.op}|${s.unit}`, `${s.samples}|${sum}`);
      if ((s.firstMs !== null && s.firstMs % 1000 !== 0) || (s.lastMs !== null && s.lastMs % 1000 !== 0)) msTimes = true;
    } else if (s.kind === 'histogram') {
      for (const i of s.intervals) add(i.startUs, i.histogram.totalCount);
    } else {
      for (const r of s.rows) add(r.startUs, r.count);
    }
  }
  const timeline = [...perTime].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
  const total = timeline.reduce((a, b) => a + b, 0);
  const exactness = timed.every((s) => s.kind !== 'intervals') ? 2 : 1;
  return { file, client: clientOf(file), timeline, total, rawSums, exactness, msTimes };
}

const sameList = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const sameMap = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>) => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);

/**
 * Files of one run that hold the same requests, written twice by one tool (k6's `--out csv` and
 * `--out json` of one run; scylla-bench's text log and its `-hdr-latency-file`): counted once.
 * Two files of one producer are the same requests when their operations completed per interval
 * are the same, interval by interval, and either they are raw samples whose latencies add up to
 * the same sum per operation, or they belong to the same client by name (two clients of a
 * fixed-rate run can complete the same numbers per second, not the same latencies). The file
 * counted is the exact one (histograms or raw samples over a tool's interval figures), then the
 * one timed to the millisecond, then the first by path.
 */
export function sameRequests(files: readonly ParsedFile[], overrides: Readonly<Record<string, string>> = {}): SameRequests[] {
  const candidates = new Map<string, ParsedFile[]>();
  for (const file of files) {
    if (!PRODUCER_FORMATS.has(file.format)) continue;
    const key = `${runKeyOf(file, overrides)}\u0000${file.format}`;
    candidates.set(key, [...(candidates.get(key) ?? []), file]);
  }
  const out: SameRequests[] = [];
  const taken = new Set<string>();
  for (const group of candidates.values()) {
    // A file alone of its tool in its run has nothing to be the same as: its print (a pass over
    // every cell of its samples) is not taken.
    if (group.length < 2) continue;
    const prints = group.map(requestPrint).filter((p): p is RequestPrint => p !== null && p.total > 0);
    prints.sort((a, b) => naturalCompare(a.file.path, b.file.path));
    for (let i = 0; i < prints.length; i++) {
      for (let j = i + 1; j < prints.length; j++) {
        const a = prints[i] as RequestPrint;
        const b = prints[j] as RequestPrint;
        if (taken.has(a.file.path) || taken.has(b.file.path) || a.total !== b.total || !sameList(a.timeline, b.timeline)) continue;
        const sameSamples = a.rawSums !== null && b.rawSums !== null && sameMap(a.rawSums, b.rawSums);
        if (!sameSamples && a.client !== b.client) continue;
        const keepB = b.exactness > a.exactness || (b.exactness === a.exactness && b.msTimes && !a.msTimes);
        const [kept, dropped] = keepB ? [b, a] : [a, b];
        const why =
          kept.exactness > dropped.exactness
            ? `${baseName(kept.file.path)} has exact latencies`
            : kept.msTimes && !dropped.msTimes
              ? `${baseName(kept.file.path)} times them to the millisecond`
              : `both hold them exactly; the first is counted`;
        const what = sameSamples ? `the same ${kept.total.toLocaleString('en-US')} samples (same latencies)` : `the same ${kept.total.toLocaleString('en-US')} requests (same count in each of ${kept.timeline.length} intervals)`;
        out.push({ path: kept.file.path, other: dropped.file.path, counted: true, reason: `${what}; ${why}` });
        out.push({ path: dropped.file.path, other: kept.file.path, counted: false, reason: `${what}; ${why}` });
        taken.add(a.file.path);
        taken.add(b.file.path);
      }
    }
  }
  return out;
}

/**
 * A tool's whole-run report (SeriesBase.scope 'run') beside other data of the same run from that
 * tool, or of the same operation (per-request logs, an aggregated log), summarises those requests
 * again: it is renamed to the report's view of them (`<op> (report)`), shown and never added to
 * them. Alone, it is the run's data. The files whose failed requests are shown as a report go into
 * `reported`: their files' failures are counted by the data beside them.
 */
function asReports(clients: Iterable<ClientData>, reported: Set<LatencySeries>): void {
  const list = [...clients];
  const measured = list.flatMap((c) => c.series.filter((s) => s.data.scope !== 'run'));
  const ops = new Set(measured.map((s) => s.data.op));
  const formats = new Set(measured.map((s) => s.format));
  for (const c of list) {
    c.series = c.series.map((s) => {
      if (s.data.scope !== 'run' || !(ops.has(s.data.op) || formats.has(s.format))) return s;
      if (opKind(s.data.op) === 'failed') reported.add(s.data);
      return { ...s, data: { ...s.data, op: reportOf(s.data.op) } };
    });
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
