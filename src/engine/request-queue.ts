/**
 * The engine worker's requests, run one after another: a load awaits its file streams, and a
 * clear or query arriving meanwhile must not interleave with it. A cancel acts at once on the
 * request it names, whether that request is running or still waiting its turn (a load dropped
 * while a slow chart query runs): each request's AbortSignal exists from the moment it is queued.
 */
export class RequestQueue {
  private tail: Promise<void> = Promise.resolve();
  private readonly aborts = new Map<number, AbortController>();

  /** Runs `run` after every request queued before it; `run` must not reject. */
  enqueue(id: number, run: (signal: AbortSignal) => Promise<void>): void {
    const controller = new AbortController();
    this.aborts.set(id, controller);
    this.tail = this.tail.then(() => run(controller.signal)).finally(() => this.aborts.delete(id));
  }

  /** Aborts request `id`; false when it is not queued or running (it has finished, or never was). */
  cancel(id: number): boolean {
    const controller = this.aborts.get(id);
    controller?.abort();
    return controller !== undefined;
  }
}
