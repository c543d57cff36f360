import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { packOutcome } from '../../src/engine/outcome-transfer.ts';
import { parseHere, ParsePool, parseWorkerCount, type ParseEvent, type ParseFile, type ParseRequest } from '../../src/engine/parse-pool.ts';
import type { InputFile } from '../../src/engine/protocol.ts';
import { CancelledError, isFailed, type FileOutcome, type ReadProgress } from '../../src/formats/read-file.ts';

/**
 * The pool against stand-in workers that answer when the test says so: how many run, which file
 * each gets, what cancelling does, and what happens when a worker cannot start or breaks.
 */

class FakeWorker {
  static all: FakeWorker[] = [];
  /** Whether the next workers' code loads (false: an error event before `ready`, as a blocked script gives). */
  static starts = true;
  onmessage: ((e: { data: ParseEvent }) => void) | null = null;
  onerror: ((e: { message: string; preventDefault(): void }) => void) | null = null;
  onmessageerror: (() => void) | null = null;
  terminated = false;
  readonly files: string[] = [];

  constructor() {
    FakeWorker.all.push(this);
    const starts = FakeWorker.starts;
    queueMicrotask(() => (starts ? this.emit({ type: 'ready' }) : this.break('')));
  }

  postMessage(request: ParseRequest): void {
    this.files.push(request.input.path);
  }

  terminate(): void {
    this.terminated = true;
  }

  emit(data: ParseEvent): void {
    if (!this.terminated) this.onmessage?.({ data });
  }

  finish(outcome: FileOutcome = parsedFile(this.files.at(-1)!)): void {
    this.emit({ type: 'outcome', outcome: packOutcome(outcome).packed });
  }

  break(message: string): void {
    if (!this.terminated) this.onerror?.({ message, preventDefault() {} });
  }
}

const parsedFile = (path: string): FileOutcome => ({ path, format: 'hdr-log', series: [], errors: [], skippedLines: 0, lines: 1 });
const input = (path: string): InputFile => ({ path, url: `https://example.org/${path}` });
const tick = (): Promise<unknown> => new Promise((r) => setTimeout(r, 0));
const live = (): FakeWorker[] => FakeWorker.all.filter((w) => !w.terminated);

/** Parsing in this thread, recorded: what the pool falls back to. */
function here() {
  const calls: string[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const parse: ParseFile = async (file) => {
    calls.push(file.path);
    mostAtOnce = Math.max(mostAtOnce, ++running);
    await tick();
    running--;
    return parsedFile(`${file.path} (here)`);
  };
  return { parse, calls, mostAtOnce: () => mostAtOnce };
}

beforeEach(() => {
  FakeWorker.all = [];
  FakeWorker.starts = true;
  vi.stubGlobal('Worker', FakeWorker);
});
afterEach(() => void vi.unstubAllGlobals());

describe('ParsePool', () => {
  it('parses on up to `size` workers, each reused for the next file once it has answered', async () => {
    const pool = new ParsePool(2, here().parse);
    const signal = new AbortController().signal;
    const progress: ReadProgress[] = [];
    const results = ['a', 'b', 'c', 'd'].map((p) => pool.parse(input(p), signal, (x) => progress.push(x)));
    await tick();
    expect(FakeWorker.all.map((w) => w.files)).toEqual([['a'], ['b']]);
    const [first, second] = FakeWorker.all as [FakeWorker, FakeWorker];
    first.emit({ type: 'progress', progress: { path: 'a', bytesRead: 10, totalBytes: null, lines: 2 } });
    expect(progress).toEqual([{ path: 'a', bytesRead: 10, totalBytes: null, lines: 2 }]);
    second.finish();
    await expect(results[1]).resolves.toEqual(parsedFile('b'));
    expect(second.files).toEqual(['b', 'c']);
    second.finish();
    // Whichever worker is free takes the next file.
    expect(second.files).toEqual(['b', 'c', 'd']);
    second.finish();
    first.finish();
    expect(first.files).toEqual(['a']);
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd'].map(parsedFile));
    expect(FakeWorker.all).toHaveLength(2);
    pool.close();
    expect(live()).toEqual([]);
  });

  it('hands a free worker the earliest input of the load, not the one asked for first', async () => {
    const order = ['a', 'b', 'c'];
    const pool = new ParsePool(1, here().parse, (file) => order.indexOf(file.path));
    const signal = new AbortController().signal;
    // c's parts asked for before b's (its head happened to be read first), a already running.
    const results = ['a', 'c', 'b'].map((p) => pool.parse(input(p), signal, () => {}));
    await tick();
    const worker = FakeWorker.all[0]!;
    worker.finish();
    expect(worker.files).toEqual(['a', 'b']);
    worker.finish();
    worker.finish();
    expect(worker.files).toEqual(['a', 'b', 'c']);
    expect(await Promise.all(results)).toEqual(['a', 'c', 'b'].map(parsedFile));
    pool.close();
  });

  it('cancelling a file ends its worker at once; a cancelled file still queued never reaches a worker', async () => {
    const pool = new ParsePool(1, here().parse);
    const a = new AbortController();
    const b = new AbortController();
    const first = pool.parse(input('a'), a.signal, () => {});
    const second = pool.parse(input('b'), b.signal, () => {});
    const third = pool.parse(input('c'), new AbortController().signal, () => {});
    await tick();
    b.abort();
    await expect(second).rejects.toBeInstanceOf(CancelledError);
    a.abort();
    await expect(first).rejects.toBeInstanceOf(CancelledError);
    expect(FakeWorker.all[0]?.terminated).toBe(true);
    await tick();
    // A new worker for what is left.
    expect(FakeWorker.all.map((w) => w.files)).toEqual([['a'], ['c']]);
    FakeWorker.all[1]!.finish();
    await expect(third).resolves.toEqual(parsedFile('c'));
    await expect(pool.parse(input('d'), a.signal, () => {})).rejects.toBeInstanceOf(CancelledError);
    pool.close();
  });

  it('cancelling every file of a load starts no worker for them', async () => {
    const pool = new ParsePool(1, here().parse);
    const load = new AbortController();
    const results = ['a', 'b', 'c'].map((p) => pool.parse(input(p), load.signal, () => {}));
    await tick();
    load.abort();
    for (const r of results) await expect(r).rejects.toBeInstanceOf(CancelledError);
    await tick();
    expect(FakeWorker.all).toHaveLength(1);
    expect(live()).toEqual([]);
  });

  it('where a worker cannot start, its file and every later one are parsed in this thread, one at a time', async () => {
    FakeWorker.starts = false;
    const fallback = here();
    const pool = new ParsePool(2, fallback.parse);
    const signal = new AbortController().signal;
    const results = ['a', 'b', 'c'].map((p) => pool.parse(input(p), signal, () => {}));
    expect(await Promise.all(results)).toEqual(['a (here)', 'b (here)', 'c (here)'].map(parsedFile));
    expect(fallback.calls).toEqual(['a', 'b', 'c']);
    expect(fallback.mostAtOnce()).toBe(1);
    await expect(pool.parse(input('d'), signal, () => {})).resolves.toEqual(parsedFile('d (here)'));
    expect(FakeWorker.all).toHaveLength(2);
    expect(live()).toEqual([]);
  });

  it('a worker that breaks while parsing fails that file only; the next file gets a new worker', async () => {
    const pool = new ParsePool(1, here().parse);
    const signal = new AbortController().signal;
    const first = pool.parse(input('a'), signal, () => {});
    const second = pool.parse(input('b'), signal, () => {});
    await tick();
    FakeWorker.all[0]!.break('out of memory');
    await expect(first).rejects.toThrow('out of memory');
    await tick();
    expect(FakeWorker.all.map((w) => w.files)).toEqual([['a'], ['b']]);
    FakeWorker.all[1]!.emit({ type: 'error', message: 'reading failed' });
    await expect(second).rejects.toThrow('reading failed');
    pool.close();
  });

  it('outlives a load: the next load reuses its idle workers; stopping a load ends only the busy ones', async () => {
    const pool = new ParsePool(2, here().parse);
    const signal = new AbortController().signal;
    const first = ['a', 'b'].map((p) => pool.parse(input(p), signal, () => {}));
    await tick();
    for (const w of FakeWorker.all) w.finish();
    expect(await Promise.all(first)).toEqual(['a', 'b'].map(parsedFile));
    pool.stopJobs();
    expect(live()).toHaveLength(2);
    // The next load: its files go to the same two workers, ranked its way.
    const order = ['d', 'c'];
    pool.forLoad(2, (file) => order.indexOf(file.path));
    const second = ['c', 'd', 'e'].map((p) => pool.parse(input(p), signal, () => {}));
    await tick();
    expect(FakeWorker.all).toHaveLength(2);
    expect(FakeWorker.all.map((w) => w.files.at(-1))).toEqual(['c', 'd']);
    FakeWorker.all[0]!.finish();
    await expect(second[0]).resolves.toEqual(parsedFile('c'));
    FakeWorker.all[0]!.finish();
    await expect(second[2]).resolves.toEqual(parsedFile('e'));
    // That load stops with d unfinished: d's worker ends, the idle one stays.
    pool.stopJobs();
    await expect(second[1]).rejects.toBeInstanceOf(CancelledError);
    expect(live()).toEqual([FakeWorker.all[0]]);
    expect(FakeWorker.all.map((w) => w.files)).toEqual([['a', 'c', 'e'], ['b', 'd']]);
    pool.close();
    expect(live()).toEqual([]);
  });

  it('close cancels what is still being parsed', async () => {
    const pool = new ParsePool(1, here().parse);
    const signal = new AbortController().signal;
    const first = pool.parse(input('a'), signal, () => {});
    const second = pool.parse(input('b'), signal, () => {});
    await tick();
    pool.close();
    await expect(first).rejects.toBeInstanceOf(CancelledError);
    await expect(second).rejects.toBeInstanceOf(CancelledError);
    expect(live()).toEqual([]);
  });
});

describe('parseWorkerCount', () => {
  it('one worker a core, at most four, never more than files, and none where one would do', () => {
    vi.stubGlobal('navigator', { hardwareConcurrency: 8 });
    expect([1, 2, 3, 48].map(parseWorkerCount)).toEqual([0, 2, 3, 4]);
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 });
    expect([1, 2, 48].map(parseWorkerCount)).toEqual([0, 2, 2]);
    vi.stubGlobal('navigator', { hardwareConcurrency: 1 });
    expect(parseWorkerCount(48)).toBe(0);
    vi.stubGlobal('navigator', { hardwareConcurrency: 8 });
    vi.stubGlobal('Worker', undefined);
    expect(parseWorkerCount(48)).toBe(0);
  });
});

describe('parseHere', () => {
  const HDR = 'tests/fixtures/corpus/sweep-uniform-a/target-1000/client1-READ.hdr';
  /** Nothing listens on the discard port: a fetch there fails at once. */
  const UNREACHABLE = 'http://127.0.0.1:9/client1-READ.hdr';

  it('parses a File in this thread', async () => {
    const progress: ReadProgress[] = [];
    const outcome = await parseHere({ path: 'run/client1-READ.hdr', file: new File([readFileSync(HDR)], 'client1-READ.hdr') }, new AbortController().signal, (p) => progress.push(p));
    expect(isFailed(outcome)).toBe(false);
    expect(progress.at(-1)?.totalBytes).toBe(readFileSync(HDR).length);
  });

  it('a link it cannot fetch fails that file; cancelling while it is fetched is a cancel, not a failure', async () => {
    const failed = await parseHere({ path: 'client1-READ.hdr', url: UNREACHABLE }, new AbortController().signal, () => {});
    expect(isFailed(failed) && failed.errors[0]?.message).toMatch(/^client1-READ.hdr: reading failed/);
    const cancelled = new AbortController();
    cancelled.abort();
    await expect(parseHere({ path: 'client1-READ.hdr', url: UNREACHABLE }, cancelled.signal, () => {})).rejects.toBeInstanceOf(CancelledError);
  });
});
