/**
 * Runs a task per item, several at once, and hands the tasks back strictly in item order: the
 * caller consumes them one after another exactly as if it had run them sequentially, while the
 * next ones are already under way.
 *
 * At most `ahead` tasks are started and not yet consumed: the caller taking task i's result (asking
 * for the next) is what lets task i + ahead start. That bounds both the work wasted when the
 * caller stops early and the finished results held while an earlier, slower task completes.
 *
 * Each task gets its own AbortSignal. It is aborted when `signal` is, and — for every task started
 * but not handed back yet — when the caller stops consuming (a `break`, `return` or throw out of
 * its loop). Rejections of tasks nobody will await are swallowed; a task that was handed back is
 * the caller's to await.
 */
export function* inOrder<T, R>(
  items: readonly T[],
  ahead: number,
  run: (item: T, signal: AbortSignal) => Promise<R>,
  signal: AbortSignal,
): Generator<{ item: T; result: Promise<R> }, void, undefined> {
  if (!(ahead >= 1)) throw new RangeError(`ahead must be at least 1, not ${ahead}`);
  const started: { item: T; result: Promise<R>; controller: AbortController }[] = [];
  /** The task handed back last, while the caller consumes it. */
  let consuming: AbortController | null = null;
  const abortStarted = (): void => {
    for (const task of started) task.controller.abort();
  };
  const abortAll = (): void => {
    consuming?.abort();
    abortStarted();
  };
  signal.addEventListener('abort', abortAll);
  let next = 0;
  try {
    for (;;) {
      while (started.length < ahead && next < items.length) {
        const item = items[next++]!;
        const controller = new AbortController();
        if (signal.aborted) controller.abort();
        const result = run(item, controller.signal);
        // Marks the promise handled: a task discarded unconsumed must not surface as an unhandled rejection.
        result.catch(() => {});
        started.push({ item, result, controller });
      }
      const head = started.shift();
      if (!head) return;
      consuming = head.controller;
      yield { item: head.item, result: head.result };
      consuming = null;
    }
  } finally {
    signal.removeEventListener('abort', abortAll);
    abortStarted();
  }
}
