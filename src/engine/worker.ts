/// <reference lib="webworker" />
import { CancelledError, isFailed, isUnrecognised, type FileOutcome, type ReadProgress } from '../formats/read-file.ts';
import type { CsvPreview } from '../formats/csv-mapping.ts';
import { groupIntoRuns } from '../model/grouping.ts';
import { NO_NAME_RULES, renamer } from '../model/name-rules.ts';
import { renamedRuns } from './renamed.ts';
import { fileTallies } from '../model/file-tally.ts';
import type { ParsedFile, ParseIssue } from '../model/types.ts';
import { analyseStore } from './analyse.ts';
import { cellsOf, checkMemory, memorySettingBytes, tooLargeMessage } from './memory-check.ts';
import { openBrowserDb } from './browser-db.ts';
import { runChartQuery } from './chart-queries.ts';
import { runCompare } from './compare-queries.ts';
import { runHistory } from './history-queries.ts';
import { inOrder } from './in-order.ts';
import { streamOf } from './input-stream.ts';
import { csvMappingsOf, MAX_PARSE_WORKERS, parseHere, ParsePool, parseWorkerCount, type ParseFile } from './parse-pool.ts';
import { randomAccessOf } from './random-access.ts';
import { PART_MIN_BYTES, readInParts } from './file-parts.ts';
import { buildSnapshot } from './snapshot-build.ts';
import { snapshotFromFile, looksLikeSnapshotFile, type Snapshot } from '../state/snapshot.ts';
import { isManifest } from '../state/folder-listing.ts';
import type { AnalysisWindow, InputFile, LoadProgress, LoadResult, Regrouping, WorkerEvent, WorkerRequest } from './protocol.ts';
import { Store } from './store.ts';
import { RequestQueue } from './request-queue.ts';
import { QueryTables } from './query-tables.ts';
import { resultRows, runUserQuery } from './user-query.ts';
import type { Table } from 'apache-arrow';

/**
 * The engine worker: reads files (streamed, never copied whole into memory), parses them, loads
 * DuckDB and answers queries, so the UI thread only renders.
 */

declare const self: DedicatedWorkerGlobalScope;

const post = (e: WorkerEvent): void => self.postMessage(e);
const PROGRESS_INTERVAL_MS = 100;

const ready = (async () => {
  const t0 = performance.now();
  const db = await openBrowserDb();
  post({ id: 0, type: 'ready', startupMs: performance.now() - t0 });
  return new Store(db);
})();
ready.catch((e: unknown) => post({ id: 0, type: 'fatal', message: `the query engine failed to start: ${String(e)}` }));

let parsed: ParsedFile[] = [];
/** Each loaded input by path: where DuckDB can read it in place for `file_<n>` and `requests`. */
const inputsByPath = new Map<string, InputFile>();
/** The query tables (created with the store) and the last query's whole result, for its export. */
let queryTables: QueryTables | null = null;
let lastResult: Table | null = null;
/** Input bytes behind each parsed file, for saying how much input fits in the engine. */
const inputBytes = new Map<string, number>();
let fileErrors: ParseIssue[] = [];
/** Files that are not benchmark results at all (a README in a dropped folder): listed, not errors; a folder's manifest is not one. */
let ignored: string[] = [];
let regrouping: Regrouping = { runs: {}, names: NO_NAME_RULES };
/** Kept from load to load, so that a load finds its parse workers started and their code hot. */
let parsePool: ParsePool | null = null;

let memoryLimit: number | null = null;

/** DuckDB's own memory limit (a share of the WebAssembly memory), read once. */
function engineMemoryBytes(store: Store): number {
  if (memoryLimit === null) {
    const setting = store.db.query(`SELECT current_setting('memory_limit') AS l`)[0]?.l;
    // DuckDB's default: 80 % of the 4 GiB WebAssembly memory.
    memoryLimit = (typeof setting === 'string' ? memorySettingBytes(setting) : null) ?? 0.8 * 2 ** 32;
  }
  return memoryLimit;
}

function analyse(store: Store, window: AnalysisWindow) {
  return analyseStore(store, fileErrors, ignored, { window }, fileTallies(parsed, regrouping.runs));
}

function rebuild(store: Store): void {
  store.clear();
  store.addRuns(renamedRuns(groupIntoRuns(parsed, regrouping.runs), renamer(regrouping.names)));
}

function streamToBody(chunks: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const it = chunks[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await it.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
  });
}

/** One input's progress events: at most one per PROGRESS_INTERVAL_MS while it is read, and always its last. */
class FileProgress {
  private lastPostedAt = 0;
  /** The most read so far: the size of an input whose size was not known beforehand. */
  bytesRead = 0;
  readonly totalBytes: number | null;

  constructor(
    private readonly id: number,
    private readonly input: InputFile,
  ) {
    this.totalBytes = input.file?.size ?? null;
  }

  report(p: Omit<LoadProgress, 'done' | 'path'>, done = false, error?: string): void {
    this.bytesRead = Math.max(this.bytesRead, p.bytesRead);
    const now = performance.now();
    if (!done && now - this.lastPostedAt < PROGRESS_INTERVAL_MS) return;
    this.lastPostedAt = now;
    post({ id: this.id, type: 'progress', progress: { path: this.input.path, ...p, done, ...(error ? { error } : {}) } });
  }
}

/** What reading one input gave: a comparison file's text, or a result file's outcome. */
type InputRead = { kind: 'comparison'; text: string } | { kind: 'file'; outcome: FileOutcome };

async function readInput({ input, progress }: { input: InputFile; progress: FileProgress }, signal: AbortSignal, parse: ParseFile, workers: number): Promise<InputRead> {
  // A comparison file (shared JSON) replaces the loaded data rather than adding files to it.
  if (/\.json$/i.test(input.path)) {
    const text = await new Response(streamToBody(streamOf(input, signal))).text();
    if (looksLikeSnapshotFile(text.slice(0, 200))) return { kind: 'comparison', text };
  }
  const onProgress = (p: ReadProgress): void => progress.report(p);
  const outcome = await readInParts(input, workers, onProgress, (part, onPartProgress) => parse(input, signal, onPartProgress, part));
  return { kind: 'file', outcome: outcome ?? (await parse(input, signal, onProgress)) };
}

/**
 * `storeReady` resolves once DuckDB has started: files are fetched and parsed meanwhile (on a cold
 * page the sample data's files are read while DuckDB-WASM compiles), and the store is waited for
 * only when the first parsed file is handed to it.
 */
async function load({ id, files, replace, window, regroup }: Extract<WorkerRequest, { type: 'load' }>, storeReady: Promise<Store>, signal: AbortSignal): Promise<LoadResult> {
  // Cancelled while it waited behind another request: nothing read, nothing replaced.
  if (signal.aborted) return { analysis: analyse(await storeReady, window), loadedFiles: [], cancelled: true, unmapped: [] };
  regrouping = regroup;
  if (replace) {
    parsed = [];
    fileErrors = [];
    ignored = [];
    inputsByPath.clear();
  }
  const loadedFiles: string[] = [];
  const unmapped: CsvPreview[] = [];
  let cancelled = false;
  let comparison: Snapshot | null = null;
  // A file large enough to be read in parts can keep every parse worker busy on its own.
  const workers = parseWorkerCount(files.reduce((n, f) => n + ((f.file?.size ?? 0) >= PART_MIN_BYTES ? MAX_PARSE_WORKERS : 1), 0));
  const pool = workers > 0 ? (parsePool ??= new ParsePool(workers, parseHere)) : null;
  pool?.forLoad(workers, (input) => files.indexOf(input));
  const parse = pool?.parse ?? parseHere;
  // Inputs are read and parsed ahead, up to two per parse worker, but taken strictly in order:
  // what is loaded and reported, and where a full engine stops, are those of reading one by one.
  const inputs = files.map((input) => ({ input, progress: new FileProgress(id, input) }));
  try {
    for (const { item, result } of inOrder(inputs, Math.max(1, 2 * workers), (item, taskSignal) => readInput(item, taskSignal, parse, workers), signal)) {
      const { input, progress } = item;
      const { totalBytes } = progress;
      try {
        const contents = await result;
        if (contents.kind === 'comparison') {
          try {
            comparison = snapshotFromFile(contents.text);
          } catch (e) {
            fileErrors.push({ file: input.path, line: 0, message: (e as Error).message });
          }
          continue;
        }
        const { outcome } = contents;
        const store = await storeReady;
        if (isFailed(outcome) && isUnrecognised(outcome)) {
          if (!isManifest(input.path)) ignored.push(input.path);
          if (outcome.csv) unmapped.push(outcome.csv);
          progress.report({ bytesRead: totalBytes ?? 0, totalBytes, lines: 0 }, true);
        } else if (isFailed(outcome)) {
          fileErrors.push(...outcome.errors);
          progress.report({ bytesRead: totalBytes ?? 0, totalBytes, lines: 0 }, true, outcome.errors[0]?.message);
        } else {
          const kept = parsed.filter((f) => f.path !== outcome.path);
          inputBytes.set(outcome.path, totalBytes ?? progress.bytesRead);
          const memory = checkMemory(kept.reduce((n, f) => n + cellsOf(f), cellsOf(outcome)), engineMemoryBytes(store));
          if (!memory.fits) {
            const read = [...kept, outcome].reduce((n, f) => n + (inputBytes.get(f.path) ?? 0), 0);
            const message = `${input.path}: ${tooLargeMessage(memory, read)}`;
            fileErrors.push({ file: input.path, line: 0, message });
            progress.report({ bytesRead: totalBytes ?? 0, totalBytes, lines: 0 }, true, message);
            for (const rest of files.slice(files.indexOf(input) + 1)) {
              fileErrors.push({ file: rest.path, line: 0, message: `${rest.path}: not read — the engine was already full (see ${input.path})` });
            }
            break;
          }
          parsed = kept.concat(outcome);
          inputsByPath.set(outcome.path, input);
          // Read now (a table the user has mapped since): no longer one that was passed over.
          ignored = ignored.filter((p) => p !== outcome.path);
          // Built now, while the parse workers read the next files, instead of all at the end.
          store.prepare(outcome);
          fileErrors.push(...outcome.errors);
          loadedFiles.push(input.path);
          progress.report({ bytesRead: totalBytes ?? 0, totalBytes, lines: outcome.lines }, true);
        }
      } catch (e) {
        if (e instanceof CancelledError || signal.aborted) throw new CancelledError();
        const message = `${input.path}: ${e instanceof Error ? e.message : String(e)}`;
        fileErrors.push({ file: input.path, line: 0, message });
        progress.report({ bytesRead: 0, totalBytes, lines: 0 }, true, message);
      }
    }
  } catch (e) {
    if (!(e instanceof CancelledError)) throw e;
    cancelled = true;
  } finally {
    // A file still being parsed here belongs to a cancelled load, or one the engine had no room for.
    pool?.stopJobs();
  }
  const store = await storeReady;
  if (comparison) {
    parsed = [];
    store.clear();
    store.addSnapshot(comparison);
    return { analysis: analyseStore(store, fileErrors, []), loadedFiles, cancelled, unmapped };
  }
  rebuild(store);
  // The figures first: the throughput timelines and their steps take as long again.
  post({ id, type: 'summary', analysis: analyseStore(store, fileErrors, ignored, { window }, fileTallies(parsed, regrouping.runs), 'pending') });
  return { analysis: analyse(store, window), loadedFiles, cancelled, unmapped };
}

async function handle(req: Exclude<WorkerRequest, { type: 'cancel' }>, signal: AbortSignal): Promise<unknown> {
  if (req.type === 'load') return load(req, ready, signal);
  const store = await ready;
  switch (req.type) {
    case 'regroup':
      regrouping = req.regroup;
      rebuild(store);
      return analyse(store, req.window);
    case 'clear':
      inputsByPath.clear();
      parsed = [];
      fileErrors = [];
      ignored = [];
      store.clear();
      return true;
    case 'analyse':
      return analyse(store, req.window);
    case 'chart':
      return runChartQuery(store, req.query);
    case 'compare':
      // The window's figures come from the summary cache: the same numbers the table shows.
      return runCompare(store, analyse(store, req.request.window), req.request);
    case 'history':
      return runHistory(store, analyse(store, req.request.window), req.request);
    case 'snapshot':
      return buildSnapshot(store, analyseStore(store, [], []), req.runKeys ? new Set(req.runKeys) : undefined);
    case 'report': {
      // Loaded on first use: React, Recharts and the charts are not needed for anything else here.
      const { buildReport } = await import('../report/build-report.ts');
      const { type: _, id: _id, window, ...options } = req;
      return buildReport(store, analyse(store, window), { ...options, parsed });
    }
    case 'query': {
      queryTables ??= new QueryTables(store.db);
      const files = parsed.map((f) => {
        const input = inputsByPath.get(f.path);
        const reread = input && { chunks: () => streamOf(input), options: { ...csvMappingsOf(input), ...randomAccessOf(input), ...(input.file ? { totalBytes: input.file.size } : {}) } };
        return { path: f.path, format: f.format, handle: input?.file ? { file: input.file } : input?.url ? { url: input.url } : null, perRequest: f.series.some((s) => s.kind === 'raw'), ...(f.producer ? { producer: f.producer } : {}), ...(reread ? { reread } : {}) };
      });
      const ctx = { store, analysis: analyse(store, req.window), window: req.window, labels: req.labels, files };
      lastResult = null;
      const { result, table } = await runUserQuery(store.db, queryTables, ctx, req.sql, req.limit, signal);
      lastResult = table;
      return result;
    }
    case 'query-rows':
      return { columns: lastResult?.schema.fields.map((f) => f.name) ?? [], rows: lastResult ? resultRows(lastResult) : [] };
    case 'load-snapshot':
      parsed = [];
      fileErrors = [];
      ignored = [];
      store.clear();
      store.addSnapshot(req.snapshot);
      return analyseStore(store, [], []);
  }
}

/** Requests run one after another; a cancel acts at once on the request it names (see RequestQueue). */
const requests = new RequestQueue();

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const req = event.data;
  if (req.type === 'cancel') {
    post({ id: req.id, type: 'result', value: requests.cancel(req.target), elapsedMs: 0 });
    return;
  }
  requests.enqueue(req.id, (signal) => {
    const t0 = performance.now();
    return handle(req, signal).then(
      (value) => post({ id: req.id, type: 'result', value, elapsedMs: performance.now() - t0 }),
      (e: unknown) => post({ id: req.id, type: 'error', message: e instanceof Error ? e.message : String(e) }),
    );
  });
};
