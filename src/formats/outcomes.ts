import { includingFailuresOf } from '../model/naming.ts';
import type { LatencySeries, SeriesBase, PrintedSeries } from '../model/types.ts';

/**
 * How a tool's report counts one operation's requests: `ok` succeeded and `failed` failed, both
 * inside the report's latency figures; `failedApart` failed without a latency (a socket error, a
 * transaction skipped), outside them.
 */
export interface OutcomeCounts {
  ok: number;
  failed: number;
  failedApart?: number;
}

/**
 * A report whose latency figures cover successes and failures together, as series that never give
 * those figures to the successes alone: with no failure inside them they are the successes' own
 * (`op`); with nothing but failures, the failures' (`op-FAILED`); otherwise `op` and `op-FAILED`
 * carry their exact counts only, and the figures go to `op (including failures)` with the count they
 * cover — shown, never counted again. `figures(name, count)` makes the series that carries them.
 */
export function outcomeSeries<T extends LatencySeries>(op: string, counts: OutcomeCounts, base: Pick<SeriesBase, 'unit' | 'scope' | 'client'>, figures: (name: string, count: number) => T): (T | PrintedSeries)[] {
  const apart = counts.failedApart ?? 0;
  const countOnly = (name: string, count: number): PrintedSeries => ({ kind: 'printed', op: name, count, mean: null, min: null, max: null, percentiles: {}, returns: {}, ...base });
  if (counts.failed === 0) {
    const out: (T | PrintedSeries)[] = counts.ok > 0 || apart === 0 ? [figures(op, counts.ok)] : [];
    return apart > 0 ? [...out, countOnly(`${op}-FAILED`, apart)] : out;
  }
  if (counts.ok === 0 && apart === 0) return [figures(`${op}-FAILED`, counts.failed)];
  const out: (T | PrintedSeries)[] = counts.ok > 0 ? [countOnly(op, counts.ok)] : [];
  return [...out, countOnly(`${op}-FAILED`, counts.failed + apart), figures(includingFailuresOf(op), counts.ok + counts.failed)];
}
