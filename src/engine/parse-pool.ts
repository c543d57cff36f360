import { CancelledError, isFailed, readFile, type FileOutcome, type ReadOptions, type ReadProgress } from '../formats/read-file.ts';
import { partBytes, type PartRequest } from './file-parts.ts';
import { streamOf } from './input-stream.ts';
import { randomAccessOf } from './random-access.ts';
import { unpackOutcome, type PackedOutcome } from './outcome-transfer.ts';
import type { InputFile } from './protocol.ts';

/**
 * Messages between the engine worker's ParsePool and its parse workers (./parse-worker.ts). A
 * worker says `ready` once its code has loaded, then gets one `parse` at a time and answers with
 * progress and exactly one `outcome` or `error`.
 */
export type ParseRequest = { type: 'parse'; input: InputFile; part?: PartRequest };

export type ParseEvent =
  | { type: 'ready' }
  | { type: 'progress'; progress: ReadProgress }
  | { type: 'outcome'; outcome: PackedOutcome }
  | { type: 'error'; message: string };

export type ParseFile = (input: InputFile, signal: AbortSignal, onProgress: (p: ReadProgress) => void, part?: PartRequest) => Promise<FileOutcome>;

/** Reads and parses a file in the calling thread: without parse workers, and where they cannot start. */
export const parseHere: ParseFile = async (input, signal, onProgress, part) => {
  const totalBytes = input.file?.size ?? null;
  const outcome = part
    ? await readPart(input, part, { signal, onProgress })
    : await readFile(input.path, streamOf(input, signal), { signal, ...(totalBytes !== null ? { totalBytes } : {}), ...csvMappingsOf(input), ...randomAccessOf(input, signal), onProgress });
  // A fetch aborted by cancelling fails the read: that is the cancel, not a broken file (nor, in
  // turn, every later file of a cancelled link).
  if (signal.aborted && isFailed(outcome)) throw new CancelledError();
  return outcome;
};

/** Reads one part of a large file (its lines from `part.start` to `part.end`) as the plan says. */
export function readPart(input: InputFile, part: PartRequest, options: Pick<ReadOptions, 'signal' | 'onProgress'>): Promise<FileOutcome> {
  if (!input.file) throw new TypeError(`${input.path}: only a local file is read in parts`);
  const { plan } = part;
  const preamble = new TextEncoder().encode(part.start > 0 && plan.preamble.length > 0 ? `${plan.preamble}\n` : '');
  return readFile(input.path, partBytes(input.file, part.start, part.end, preamble), {
    ...options,
    formatId: plan.formatId,
    ...(plan.format ? { format: plan.format } : {}),
    totalBytes: part.end - part.start,
  });
}

/** The reading options an input carries: the user's CSV column mappings. */
export function csvMappingsOf(input: InputFile): Pick<ReadOptions, 'csvMappings'> {
  return input.csvMaps ? { csvMappings: { byHeader: input.csvMaps } } : {};
}

/**
 * Parse workers beyond a few buy nothing: each holds its own heap and copy of the parsers, and
 * loading into DuckDB afterwards runs on one thread.
 */
export const MAX_PARSE_WORKERS = 4;

/**
 * How many parse workers a load of `pieces` pieces of work uses (a file, or the parts of a file
 * large enough to be read in parts): fewer than two would only add start-up time.
 */
export function parseWorkerCount(pieces: number): number {
  const cores = typeof navigator === 'undefined' ? 1 : navigator.hardwareConcurrency || 1;
  const count = Math.min(pieces, cores, MAX_PARSE_WORKERS);
  return count >= 2 && typeof Worker !== 'undefined' ? count : 0;
}

interface Job {
  input: InputFile;
  part?: PartRequest;
  signal: AbortSignal;
  onProgress: (p: ReadProgress) => void;
  resolve: (outcome: FileOutcome) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  /** Its code loaded: a failure from now on is the file's, not the worker's failing to start. */
  ready: boolean;
  job: Job | null;
}

/**
 * Parses files on up to `size` nested workers, spawned as they are needed and reused from file to
 * file, and from load to load: a worker kept from the sample data's load has its code loaded and
 * compiled hot (the first files a new worker parses take two to three times as long). `stopJobs`
 * ends a load's parsing that is still under way; `close` ends every worker. Cancelling a file
 * terminates its worker, which stops it at once, wherever it is in the file. Where a worker cannot
 * start (a host's policy, a missing script) every file is parsed by `fallback` instead, one at a
 * time, as without workers.
 */
export class ParsePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private workersFailed = false;
  /** Files parsed without workers run one after another, as they would without a pool. */
  private withoutWorkers: Promise<unknown> = Promise.resolve();

  constructor(
    private size: number,
    /** How a file is parsed where workers cannot start: `parseHere`, or a stand-in in tests. */
    private readonly fallback: ParseFile,
    /**
     * Where an input stands in the load (lower first): its parts are parsed before a later
     * input's, whatever order they were asked for in — a large file's parts are asked for once its
     * head has been read, and files are taken strictly in order, so a later file finished first
     * only waits.
     */
    private rank: (input: InputFile) => number = () => 0,
  ) {}

  /** Readies the pool for a load: at least `size` workers, and that load's ranking of its inputs. */
  forLoad(size: number, rank: (input: InputFile) => number): void {
    this.size = Math.max(this.size, size);
    this.rank = rank;
  }

  parse: ParseFile = (input, signal, onProgress, part) => {
    if (signal.aborted) return Promise.reject(new CancelledError());
    if (this.workersFailed) return this.parseWithoutWorkers(input, signal, onProgress, part);
    return new Promise<FileOutcome>((resolve, reject) => {
      const onAbort = (): void => this.cancel(job);
      const job: Job = {
        input,
        ...(part ? { part } : {}),
        signal,
        onProgress,
        resolve: (outcome) => {
          signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
        reject: (e) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      signal.addEventListener('abort', onAbort);
      this.queue.push(job);
      this.dispatch();
    });
  };

  /** Cancels every file queued or being parsed, ending the workers parsing one; idle workers stay. */
  stopJobs(): void {
    for (const slot of this.slots.filter((s) => s.job !== null)) {
      this.remove(slot);
      slot.job?.reject(new CancelledError());
    }
    for (const job of this.queue.splice(0)) job.reject(new CancelledError());
  }

  /** Ends every worker; a file still being parsed is cancelled. */
  close(): void {
    this.stopJobs();
    for (const slot of this.slots.splice(0)) slot.worker.terminate();
  }

  private parseWithoutWorkers(input: InputFile, signal: AbortSignal, onProgress: (p: ReadProgress) => void, part?: PartRequest): Promise<FileOutcome> {
    const parsed = this.withoutWorkers.then(() => this.fallback(input, signal, onProgress, part));
    this.withoutWorkers = parsed.catch(() => {});
    return parsed;
  }

  /** Hands queued files to idle workers, starting workers up to the pool's size. */
  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => s.job === null) ?? (this.slots.length < this.size ? this.spawn() : null);
      if (!slot) return this.workersFailed ? this.parseQueuedWithoutWorkers() : undefined;
      let next = 0;
      for (let k = 1; k < this.queue.length; k++) if (this.rank(this.queue[k]!.input) < this.rank(this.queue[next]!.input)) next = k;
      const job = this.queue.splice(next, 1)[0]!;
      slot.job = job;
      slot.worker.postMessage({ type: 'parse', input: job.input, ...(job.part ? { part: job.part } : {}) } satisfies ParseRequest);
    }
  }

  private spawn(): Slot | null {
    let worker: Worker;
    try {
      worker = new Worker(new URL('./parse-worker.ts', import.meta.url), { type: 'module', name: 'benchlens-parse' });
    } catch {
      this.workersFailed = true;
      return null;
    }
    const slot: Slot = { worker, ready: false, job: null };
    worker.onmessage = (event: MessageEvent<ParseEvent>) => this.receive(slot, event.data);
    worker.onmessageerror = () => this.fail(slot, 'its result could not be received');
    worker.onerror = (event) => {
      event.preventDefault();
      if (slot.ready) return this.fail(slot, event.message ? `the parse worker failed: ${event.message}` : 'the parse worker stopped');
      // Its code never ran, and that of the others started with it will not either: their files,
      // and every later one, are parsed in this thread, in the order they came.
      this.workersFailed = true;
      const stranded = this.slots.filter((s) => !s.ready);
      for (const s of stranded) this.remove(s);
      this.queue.unshift(...stranded.flatMap((s) => (s.job ? [s.job] : [])));
      this.parseQueuedWithoutWorkers();
    };
    this.slots.push(slot);
    return slot;
  }

  private receive(slot: Slot, event: ParseEvent): void {
    if (event.type === 'ready') {
      slot.ready = true;
      return;
    }
    const job = slot.job;
    if (!job) return;
    if (event.type === 'progress') return job.onProgress(event.progress);
    slot.job = null;
    if (event.type === 'outcome') job.resolve(unpackOutcome(event.outcome));
    else job.reject(new Error(event.message));
    this.dispatch();
  }

  /** The worker broke while parsing a file: that file fails, the worker is replaced. */
  private fail(slot: Slot, message: string): void {
    this.remove(slot);
    slot.job?.reject(new Error(message));
    this.dispatch();
  }

  private remove(slot: Slot): void {
    slot.worker.terminate();
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }

  private parseQueuedWithoutWorkers(): void {
    for (const job of this.queue.splice(0)) this.parseWithoutWorkers(job.input, job.signal, job.onProgress, job.part).then(job.resolve, job.reject);
  }

  private cancel(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) this.queue.splice(queued, 1);
    const slot = this.slots.find((s) => s.job === job);
    if (slot) this.remove(slot);
    job.reject(new CancelledError());
    // After the other files cancelled with this one have left the queue: no worker is started for them.
    queueMicrotask(() => this.dispatch());
  }
}
