import { describe, expect, it } from 'vitest';
import { inOrder } from '../../src/engine/in-order.ts';

/**
 * The engine worker reads files ahead on parse workers but must take them as a sequential load
 * would: in order, stopping (and discarding what was read ahead) where the engine is full or the
 * load is cancelled.
 */

interface Task {
  item: string;
  signal: AbortSignal;
  resolve: (v: string) => void;
  reject: (e: Error) => void;
}

const tick = (): Promise<unknown> => new Promise((r) => setTimeout(r, 0));

/** Tasks that finish only when the test says so, in whatever order it chooses. */
function controlled() {
  const tasks: Task[] = [];
  const run = (item: string, signal: AbortSignal): Promise<string> =>
    new Promise((resolve, reject) => {
      tasks.push({ item, signal, resolve, reject });
      signal.addEventListener('abort', () => reject(new Error(`aborted ${item}`)));
    });
  const started = (): string[] => tasks.map((t) => t.item);
  const task = (item: string): Task => {
    const t = tasks.find((x) => x.item === item);
    if (!t) throw new Error(`${item} was not started`);
    return t;
  };
  return { run, started, task };
}

describe('inOrder', () => {
  it('hands results back in item order however the tasks finish, with at most `ahead` started and not consumed', async () => {
    const { run, started, task } = controlled();
    const consumed: string[] = [];
    const pending = inOrder(['a', 'b', 'c', 'd', 'e'], 2, run, new AbortController().signal);
    const consume = (async () => {
      for (const { item, result } of pending) consumed.push(`${item}=${await result}`);
    })();
    await Promise.resolve();
    expect(started()).toEqual(['a', 'b']);
    task('b').resolve('B');
    await tick();
    // b is done but a is not: nothing is consumed and nothing more starts.
    expect(consumed).toEqual([]);
    expect(started()).toEqual(['a', 'b']);
    task('a').resolve('A');
    await tick();
    expect(consumed).toEqual(['a=A', 'b=B']);
    expect(started()).toEqual(['a', 'b', 'c', 'd']);
    task('d').resolve('D');
    await tick();
    expect(consumed).toEqual(['a=A', 'b=B']);
    task('c').resolve('C');
    await tick();
    expect(consumed).toEqual(['a=A', 'b=B', 'c=C', 'd=D']);
    expect(started()).toEqual(['a', 'b', 'c', 'd', 'e']);
    task('e').resolve('E');
    await consume;
    expect(consumed).toEqual(['a=A', 'b=B', 'c=C', 'd=D', 'e=E']);
  });

  it('with ahead = 1 runs one task at a time, each after the previous one was consumed', async () => {
    const log: string[] = [];
    const run = async (item: string): Promise<string> => {
      log.push(`start ${item}`);
      await new Promise((r) => setTimeout(r, 1));
      return item;
    };
    for (const { result } of inOrder(['a', 'b', 'c'], 1, run, new AbortController().signal)) log.push(`consumed ${await result}`);
    expect(log).toEqual(['start a', 'consumed a', 'start b', 'consumed b', 'start c', 'consumed c']);
  });

  it('a failed task fails its own result only', async () => {
    const run = async (item: string): Promise<string> => {
      if (item === 'b') throw new Error('b is broken');
      return item;
    };
    const got: string[] = [];
    for (const { result } of inOrder(['a', 'b', 'c'], 3, run, new AbortController().signal)) {
      got.push(await result.catch((e: Error) => e.message));
    }
    expect(got).toEqual(['a', 'b is broken', 'c']);
  });

  it('stopping early (the engine is full) aborts what was started ahead, and its failures go unreported', async () => {
    const { run, started, task } = controlled();
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown): void => void unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const consume = (async () => {
        for (const { item, result } of inOrder(['a', 'b', 'c', 'd'], 3, run, new AbortController().signal)) {
          await result;
          if (item === 'a') break;
        }
      })();
      await Promise.resolve();
      expect(started()).toEqual(['a', 'b', 'c']);
      task('c').resolve('C');
      task('a').resolve('A');
      await consume;
      expect(task('a').signal.aborted).toBe(false);
      expect(task('b').signal.aborted).toBe(true);
      // Finished already, but never consumed: told all the same, which a finished task ignores.
      expect(task('c').signal.aborted).toBe(true);
      expect(started()).toEqual(['a', 'b', 'c']);
      await new Promise((r) => setTimeout(r, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('cancelling aborts the task being awaited and those started ahead, and starts none afterwards', async () => {
    const { run, started, task } = controlled();
    const cancel = new AbortController();
    const outcome = (async () => {
      for (const { result } of inOrder(['a', 'b', 'c', 'd'], 2, run, cancel.signal)) await result;
    })();
    await Promise.resolve();
    cancel.abort();
    await expect(outcome).rejects.toThrow('aborted a');
    expect(task('a').signal.aborted).toBe(true);
    expect(task('b').signal.aborted).toBe(true);
    expect(started()).toEqual(['a', 'b']);
  });

  it('a task started after cancelling gets an aborted signal', async () => {
    const cancel = new AbortController();
    const signals: AbortSignal[] = [];
    const run = async (item: string, signal: AbortSignal): Promise<string> => {
      signals.push(signal);
      return item;
    };
    const pending = inOrder(['a', 'b'], 1, run, cancel.signal);
    const first = pending.next();
    expect(first.done).toBe(false);
    cancel.abort();
    pending.next();
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
  });
});
