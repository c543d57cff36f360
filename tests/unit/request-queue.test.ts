import { describe, expect, it } from 'vitest';
import { RequestQueue } from '../../src/engine/request-queue.ts';

const tick = (): Promise<unknown> => new Promise((r) => setTimeout(r, 0));

describe('RequestQueue', () => {
  it('runs requests one after another, in order', async () => {
    const queue = new RequestQueue();
    const log: string[] = [];
    let finishFirst = (): void => {};
    queue.enqueue(1, () => new Promise<void>((resolve) => {
      log.push('1 start');
      finishFirst = () => {
        log.push('1 end');
        resolve();
      };
    }));
    queue.enqueue(2, async () => void log.push('2 start'));
    await tick();
    expect(log).toEqual(['1 start']);
    finishFirst();
    await tick();
    expect(log).toEqual(['1 start', '1 end', '2 start']);
  });

  it('cancels a request that is still waiting behind another: it starts with its signal aborted', async () => {
    const queue = new RequestQueue();
    let finishFirst = (): void => {};
    const seen: boolean[] = [];
    queue.enqueue(1, (signal) => new Promise<void>((resolve) => {
      finishFirst = () => {
        seen.push(signal.aborted);
        resolve();
      };
    }));
    queue.enqueue(2, async (signal) => void seen.push(signal.aborted));
    await tick();
    expect(queue.cancel(2)).toBe(true);
    finishFirst();
    await tick();
    // The running request was not touched; the queued one saw its cancel.
    expect(seen).toEqual([false, true]);
  });

  it('cancels a running request, and knows nothing of finished ones', async () => {
    const queue = new RequestQueue();
    let aborted: Promise<void> = Promise.resolve();
    queue.enqueue(1, (signal) => (aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()))));
    await tick();
    expect(queue.cancel(1)).toBe(true);
    await aborted;
    await tick();
    expect(queue.cancel(1)).toBe(false);
    expect(queue.cancel(99)).toBe(false);
  });
});
