import type { Table } from 'apache-arrow';
import type { CsvPreview } from '../formats/csv-mapping.ts';
import { CancelledError, isFailed, isUnrecognised, type FileOutcome, type ReadProgress } from '../formats/read-file.ts';
import { groupIntoRuns } from '../model/grouping.ts';
import { NO_NAME_RULES, renamer } from '../model/name-rules.ts';
import { fileTallies } from '../model/file-tally.ts';
import type { ParsedFile, ParseIssue } from '../model/types.ts';
import { isManifest } from '../state/folder-listing.ts';
import { looksLikeSnapshotFile, snapshotFromFile, type Snapshot } from '../state/snapshot.ts';
import { analyseStore, type Analysis } from './analyse.ts';
import { cellsOf, checkMemory, memorySettingBytes, tooLargeMessage } from './memory-check.ts';
import { runChartQuery, type ChartQuery, type ChartResult } from './chart-queries.ts';
import { runCompare, type CompareRequest } from './compare-queries.ts';
import type { Db, InputHandle } from './db.ts';
import { PART_MIN_BYTES, readInParts } from './file-parts.ts';
import { runHistory, type HistoryRequest, type HistoryResult } from './history-queries.ts';
import { inOrder } from './in-order.ts';
import { streamOf } from './input-stream.ts';
import { csvMappingsOf, MAX_PARSE_WORKERS, parseHere, parseWorkerCount, type ParseFile, type ParsePool } from './parse-pool.ts';
import type { AnalysisWindow, InputFile, LoadProgress, LoadResult, Regrouping } from './protocol.ts';
import { QueryTables } from './query-tables.ts';
import { randomAccessOf } from './random-access.ts';
import type { Reread } from './request-rows.ts';
import { renamedRuns } from './renamed.ts';
import { buildSnapshot } from './snapshot-build.ts';
import { Store } from './store.ts';
import { resultRows, runUserQuery, type CellValue, type QueryResult } from './user-query.ts';
import type { CompareResult } from '../model/comparison.ts';
import type { RunLabels } from '../state/view-state.ts';

/**
 * The engine: loads inputs (files, snapshot files, CSV tables to map), keeps what they gave (the
 * parsed files, their errors, the store) and answers every question asked of it. The app's engine
 * worker is a message adapter over one Engine; the CLI and the tests call one directly, with the
 * Node input adapter (./node-inputs.ts). No module state, no DOM: what differs between the
 * browser and Node (how DuckDB starts, how an input is read, parse workers) is given to it.
 *
 * DuckDB is started only when something needs it (SQL over the results, a report, a link that
 * carries the runs) or when the caller asks (`startDb`: the app asks when the SQL box takes the
 * focus): the store keeps its cells and counts by second and computes the figures, the throughput
 * timelines and the charts without it, so a load never waits for DuckDB to download or start, nor
 * shares the cores with its start.
 */

export interface EngineOptions {
  /** Reads and parses an input in this thread (default: a dropped File or a URL, ./parse-pool.ts). */
  parseHere?: ParseFile;
  /** Parse workers, started for a load of at least two pieces of work (the browser's). */
  parsePool?: (size: number) => ParsePool;
  /** An input's bytes as they arrive (default: a dropped File's or a URL's, ./input-stream.ts). */
  bytesOf?: (input: InputFile, signal: AbortSignal) => AsyncIterable<Uint8Array>;
  /** Where DuckDB reads a loaded input in place, for SQL over files (default: its File or URL). */
  handleOf?: (input: InputFile) => InputHandle | null;
  /** How an input is read again by its parser, for `requests` (default: a File's or a URL's, with the input's CSV mappings). */
  rereadOptionsOf?: (input: InputFile) => Reread['options'];
}

export interface LoadRequest {
  files: readonly InputFile[];
  /** Forget what was loaded before (default); false adds to it. */
  replace?: boolean;
  window?: AnalysisWindow;
  /** How files form runs and operation names are grouped; unchanged when not given. */
  regroup?: Regrouping;
}

export interface LoadEvents {
  signal?: AbortSignal;
  /** Each input's progress: at most one event per PROGRESS_INTERVAL_MS while it is read, and always its last. */
  onProgress?: (progress: LoadProgress) => void;
  /** The figures before the throughput timelines (see `Analysis.timelinesPending`); the result follows. */
  onSummary?: (analysis: Analysis) => void;
}

const PROGRESS_INTERVAL_MS = 100;

/**
 * DuckDB-WASM's memory limit as it reads before it has started: 80 % of its WebAssembly memory,
 * which `current_setting('memory_limit')` shows as "3.1 GiB" in the browser and under Node alike.
 */
const DEFAULT_MEMORY_LIMIT = memorySettingBytes('3.1 GiB') as number;

/** What reading one input gave: a snapshot file's text, or a result file's outcome. */
type InputRead = { kind: 'snapshot'; text: string } | { kind: 'file'; outcome: FileOutcome };

const never = new AbortController().signal;

const browserHandle = (input: InputFile): InputHandle | null => (input.file ? { file: input.file } : input.url ? { url: input.url } : null);
const browserReread = (input: InputFile): Reread['options'] => ({ ...csvMappingsOf(input), ...randomAccessOf(input), ...(input.file ? { totalBytes: input.file.size } : {}) });

export class Engine {
  /** Every question runs against this store; DuckDB joins it once started (`queryStore`). */
  readonly store = new Store(null);
  private parsed: ParsedFile[] = [];
  /** Each loaded input by path: where DuckDB can read it in place for `file_<n>` and `requests`. */
  private readonly inputsByPath = new Map<string, InputFile>();
  /** Input bytes behind each parsed file, for saying how much input fits in the engine. */
  private readonly inputBytes = new Map<string, number>();
  private fileErrors: ParseIssue[] = [];
  /** Files that are not benchmark results at all (a README in a dropped folder): listed, not errors; a folder's manifest is not one. */
  private ignored: string[] = [];
  private regrouping: Regrouping = { runs: {}, names: NO_NAME_RULES };
  /** Kept from load to load, so that a load finds its parse workers started and their code hot. */
  private pool: ParsePool | null = null;
  /** The query tables (created with DuckDB) and the last query's whole result, for its export. */
  private queryTables: QueryTables | null = null;
  private lastResult: Table | null = null;
  private memoryLimit: number | null = null;
  private readonly parseHere: ParseFile;
  private readonly handleOf: (input: InputFile) => InputHandle | null;
  private readonly bytesOf: (input: InputFile, signal: AbortSignal) => AsyncIterable<Uint8Array>;
  private readonly rereadOptionsOf: (input: InputFile) => Reread['options'];
  /** The store with DuckDB attached, once `startDb` has been called. */
  private withDb: Promise<Store> | null = null;

  /** `openDb`: starts DuckDB; called once, by the first question that needs it or by `startDb`. */
  constructor(
    private readonly openDb: () => Promise<Db>,
    private readonly options: EngineOptions = {},
  ) {
    this.parseHere = options.parseHere ?? parseHere;
    this.handleOf = options.handleOf ?? browserHandle;
    this.bytesOf = options.bytesOf ?? streamOf;
    this.rereadOptionsOf = options.rereadOptionsOf ?? browserReread;
  }

  /** Whether DuckDB has been asked to start (it may still be starting). */
  get dbStarted(): boolean {
    return this.withDb !== null;
  }

  /** Starts DuckDB unless it has been started: the store with DuckDB attached, once it has. */
  startDb(): Promise<Store> {
    if (!this.withDb) {
      this.withDb = this.openDb().then((db) => {
        this.store.attach(db);
        return this.store;
      });
      // A failure is reported to whoever asks a question that needs DuckDB, not as an unhandled rejection here.
      this.withDb.catch(() => {});
    }
    return this.withDb;
  }

  /** The parsed files loaded now. */
  get files(): readonly ParsedFile[] {
    return this.parsed;
  }

  /** The store with DuckDB attached (starts DuckDB, waits for it): for what asks DuckDB itself, such as a report. */
  queryStore(): Promise<Store> {
    return this.startDb();
  }

  /** Every run's figures over `window`, with their throughput timelines. */
  analyse(window: AnalysisWindow = null): Analysis {
    return this.analyseNow(this.store, window);
  }

  private analyseNow(store: Store, window: AnalysisWindow, timelines: 'now' | 'pending' = 'now'): Analysis {
    return analyseStore(store, this.fileErrors, this.ignored, { window }, fileTallies(this.parsed, this.regrouping.runs), timelines);
  }

  private rebuild(): void {
    this.store.clear();
    this.store.addRuns(renamedRuns(groupIntoRuns(this.parsed, this.regrouping.runs), renamer(this.regrouping.names)));
  }

  private forget(): void {
    this.parsed = [];
    this.fileErrors = [];
    this.ignored = [];
    this.inputsByPath.clear();
  }

  /**
   * DuckDB's own memory limit (a share of the WebAssembly memory): its setting once it has started,
   * read once; before, the value that setting reads.
   */
  private engineMemoryBytes(): number {
    if (!this.store.attached) return this.memoryLimit ?? DEFAULT_MEMORY_LIMIT;
    if (this.memoryLimit === null) {
      const setting = this.store.db.query(`SELECT current_setting('memory_limit') AS l`)[0]?.l;
      // DuckDB's default: 80 % of the 4 GiB WebAssembly memory.
      this.memoryLimit = (typeof setting === 'string' ? memorySettingBytes(setting) : null) ?? 0.8 * 2 ** 32;
    }
    return this.memoryLimit;
  }

  private async readInput(input: InputFile, progress: FileProgress, signal: AbortSignal, parse: ParseFile, workers: number): Promise<InputRead> {
    // A snapshot file (shared JSON) replaces the loaded data rather than adding files to it.
    if (/\.json$/i.test(input.path)) {
      const text = await new Response(streamToBody(this.bytesOf(input, signal))).text();
      if (looksLikeSnapshotFile(text.slice(0, 200))) return { kind: 'snapshot', text };
    }
    const onProgress = (p: ReadProgress): void => progress.report(p);
    const outcome = await readInParts(input, workers, onProgress, (part, onPartProgress) => parse(input, signal, onPartProgress, part));
    return { kind: 'file', outcome: outcome ?? (await parse(input, signal, onProgress)) };
  }

  /**
   * Reads `files` (streamed, never copied whole into memory) and parses them, on parse workers
   * where there are some; hands the figures to `onSummary` as soon as the files are in, then adds
   * the throughput timelines, for which it waits for DuckDB. Inputs are read ahead but taken
   * strictly in order: what is loaded and reported, and where a full engine stops, are those of
   * reading one by one.
   */
  async load(request: LoadRequest, events: LoadEvents = {}): Promise<LoadResult> {
    const { files, replace = true, window = null } = request;
    const signal = events.signal ?? never;
    // Cancelled while it waited behind another request: nothing read, nothing replaced.
    if (signal.aborted) return { analysis: this.analyse(window), loadedFiles: [], cancelled: true, unmapped: [] };
    if (request.regroup) this.regrouping = request.regroup;
    if (replace) this.forget();
    const loadedFiles: string[] = [];
    const unmapped: CsvPreview[] = [];
    let cancelled = false;
    let snapshot: Snapshot | null = null;
    // A file large enough to be read in parts can keep every parse worker busy on its own.
    const makePool = this.options.parsePool;
    const workers = makePool ? parseWorkerCount(files.reduce((n, f) => n + ((f.file?.size ?? 0) >= PART_MIN_BYTES ? MAX_PARSE_WORKERS : 1), 0)) : 0;
    const pool = makePool && workers > 0 ? (this.pool ??= makePool(workers)) : null;
    pool?.forLoad(workers, (input) => files.indexOf(input));
    const parse = pool?.parse ?? this.parseHere;
    const emit = events.onProgress ?? (() => {});
    const inputs = files.map((input) => ({ input, progress: new FileProgress(input, emit) }));
    try {
      for (const { item, result } of inOrder(inputs, Math.max(1, 2 * workers), (item, taskSignal) => this.readInput(item.input, item.progress, taskSignal, parse, workers), signal)) {
        const { input, progress } = item;
        const { totalBytes } = progress;
        try {
          const contents = await result;
          if (contents.kind === 'snapshot') {
            try {
              snapshot = snapshotFromFile(contents.text);
            } catch (e) {
              this.fileErrors.push({ file: input.path, line: 0, message: (e as Error).message });
            }
            continue;
          }
          const { outcome } = contents;
          if (isFailed(outcome) && isUnrecognised(outcome) && !input.named) {
            if (!isManifest(input.path)) this.ignored.push(input.path);
            if (outcome.csv) unmapped.push(outcome.csv);
            progress.report({ bytesRead: totalBytes ?? 0, totalBytes, lines: 0 }, true);
          } else if (isFailed(outcome)) {
            // A table named on the command line that no format reads: an error, and still one to map.
            if (isUnrecognised(outcome) && outcome.csv) unmapped.push(outcome.csv);
            this.fileErrors.push(...outcome.errors);
            progress.report({ bytesRead: totalBytes ?? 0, totalBytes, lines: 0 }, true, outcome.errors[0]?.message);
          } else {
            const kept = this.parsed.filter((f) => f.path !== outcome.path);
            this.inputBytes.set(outcome.path, totalBytes ?? progress.bytesRead);
            const memory = checkMemory(kept.reduce((n, f) => n + cellsOf(f), cellsOf(outcome)), this.engineMemoryBytes());
            if (!memory.fits) {
              const read = [...kept, outcome].reduce((n, f) => n + (this.inputBytes.get(f.path) ?? 0), 0);
              const message = `${input.path}: ${tooLargeMessage(memory, read)}`;
              this.fileErrors.push({ file: input.path, line: 0, message });
              progress.report({ bytesRead: totalBytes ?? 0, totalBytes, lines: 0 }, true, message);
              for (const rest of files.slice(files.indexOf(input) + 1)) {
                this.fileErrors.push({ file: rest.path, line: 0, message: `${rest.path}: not read — the engine was already full (see ${input.path})` });
              }
              break;
            }
            this.parsed = kept.concat(outcome);
            this.inputsByPath.set(outcome.path, input);
            // Read now (a table the user has mapped since): no longer one that was passed over.
            this.ignored = this.ignored.filter((p) => p !== outcome.path);
            // Built now, while the parse workers read the next files, instead of all at the end.
            this.store.prepare(outcome);
            this.fileErrors.push(...outcome.errors);
            loadedFiles.push(input.path);
            progress.report({ bytesRead: totalBytes ?? 0, totalBytes, lines: outcome.lines }, true);
          }
        } catch (e) {
          if (e instanceof CancelledError || signal.aborted) throw new CancelledError();
          const message = `${input.path}: ${e instanceof Error ? e.message : String(e)}`;
          this.fileErrors.push({ file: input.path, line: 0, message });
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
    if (snapshot) {
      this.parsed = [];
      this.store.clear();
      this.store.addSnapshot(snapshot);
      return { analysis: analyseStore(this.store, this.fileErrors, []), loadedFiles, cancelled, unmapped };
    }
    this.rebuild();
    // The figures first: the throughput timelines and their steps follow, in a later message, so
    // the table shows while they are computed.
    events.onSummary?.(this.analyseNow(this.store, window, 'pending'));
    return { analysis: this.analyseNow(this.store, window), loadedFiles, cancelled, unmapped };
  }

  /** Forms runs and operation names anew (a file moved to another run, a naming rule). */
  regroup(regroup: Regrouping, window: AnalysisWindow = null): Analysis {
    this.regrouping = regroup;
    this.rebuild();
    return this.analyse(window);
  }

  /** Forgets everything loaded. */
  clear(): true {
    this.forget();
    this.store.clear();
    return true;
  }

  chart(query: ChartQuery): ChartResult {
    return runChartQuery(this.store, query);
  }

  /** An A/B comparison; the window's figures come from the summary cache: the same numbers the table shows. */
  compare(request: CompareRequest): CompareResult {
    return runCompare(this.store, this.analyseNow(this.store, request.window), request);
  }

  history(request: HistoryRequest): HistoryResult {
    return runHistory(this.store, this.analyseNow(this.store, request.window), request);
  }

  /** What a link or snapshot file carries: the runs named by `runKeys` (all when null). */
  async snapshot(runKeys: readonly string[] | null = null): Promise<{ snapshot: Snapshot; omitted: string[] }> {
    const store = await this.startDb();
    return buildSnapshot(store, analyseStore(store, [], []), runKeys ? new Set(runKeys) : undefined);
  }

  /** Replaces what is loaded with a snapshot (a link's or a file's). */
  loadSnapshot(snapshot: Snapshot): Analysis {
    this.parsed = [];
    this.fileErrors = [];
    this.ignored = [];
    this.store.clear();
    this.store.addSnapshot(snapshot);
    return analyseStore(this.store, [], []);
  }

  /** The user's SQL over the query tables, kept in step with this window and these labels. */
  async query(sql: string, options: { limit?: number; window?: AnalysisWindow; labels?: Record<string, RunLabels>; signal?: AbortSignal } = {}): Promise<QueryResult> {
    const { limit = Infinity, window = null, labels = {}, signal = never } = options;
    const store = await this.startDb();
    this.queryTables ??= new QueryTables(store.db);
    const files = this.parsed.map((f) => {
      const input = this.inputsByPath.get(f.path);
      const reread = input && { chunks: () => this.bytesOf(input, never), options: this.rereadOptionsOf(input) };
      return { path: f.path, format: f.format, handle: input ? this.handleOf(input) : null, perRequest: f.series.some((s) => s.kind === 'raw'), ...(f.producer ? { producer: f.producer } : {}), ...(reread ? { reread } : {}) };
    });
    const ctx = { store, analysis: this.analyseNow(store, window), window, labels, files };
    this.lastResult = null;
    const { result, table } = await runUserQuery(store.db, this.queryTables, ctx, sql, limit, signal);
    this.lastResult = table;
    return result;
  }

  /** Every row of the last query's result, for export. */
  queryRows(): { columns: string[]; rows: CellValue[][] } {
    const last = this.lastResult;
    return { columns: last?.schema.fields.map((f) => f.name) ?? [], rows: last ? resultRows(last) : [] };
  }
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
    private readonly input: InputFile,
    private readonly emit: (progress: LoadProgress) => void,
  ) {
    this.totalBytes = input.file?.size ?? null;
  }

  report(p: Omit<LoadProgress, 'done' | 'path'>, done = false, error?: string): void {
    this.bytesRead = Math.max(this.bytesRead, p.bytesRead);
    const now = performance.now();
    if (!done && now - this.lastPostedAt < PROGRESS_INTERVAL_MS) return;
    this.lastPostedAt = now;
    this.emit({ path: this.input.path, ...p, done, ...(error ? { error } : {}) });
  }
}
