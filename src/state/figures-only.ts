import type { SnapshotOp, SnapshotRun } from './snapshot.ts';

/**
 * Which operations of a comparison were opened from figures only (src/state/snapshot.ts). Apart
 * from snapshot.ts so that the summary can ask without importing it: snapshot.ts takes the
 * summary's percentiles, and a cycle of values would leave one of them uninitialised.
 */

export const hasFullData = (o: SnapshotOp): boolean => o.histogram !== undefined || o.exact !== undefined;

/** Mean and stddev of an operation opened from figures only, which its stand-in histogram does not reproduce. */
export function figuresOnlyMoments(run: SnapshotRun | undefined, op: string): { mean: number; stddev: number } | null {
  const o = run && Object.hasOwn(run.ops, op) ? run.ops[op] : undefined;
  return o?.figures && !hasFullData(o) ? { mean: o.figures.mean, stddev: o.figures.stddev } : null;
}
