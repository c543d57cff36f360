import type { LoadProgress } from '../engine/protocol.ts';

export interface LoadProgressView {
  /** Per-file progress of the load under way (and of the last one, until the next starts). */
  progress: Record<string, LoadProgress>;
  /** Milliseconds from the start of the load under way to its latest progress event. */
  elapsedMs: number;
}

/**
 * A load's progress, for the one panel that draws it (through useSyncExternalStore). Kept out of
 * the engine state: as state, every progress event re-rendered the whole page, ten times a second
 * on the main thread while the parse workers needed both cores.
 */
export class ProgressFeed {
  private value: LoadProgressView = { progress: {}, elapsedMs: 0 };
  private readonly listeners = new Set<() => void>();

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly get = (): LoadProgressView => this.value;

  set(value: LoadProgressView): void {
    this.value = value;
    for (const listener of this.listeners) listener();
  }
}
