import { nextDown } from './hdr-stats.ts';
import { HdrLayout } from './hdr-layout.ts';
import type { DistributionSeries } from './types.ts';

/**
 * Percentiles read back from a printed percentile distribution (`.hgrm`). Each row is the bucket
 * where the cumulative percentage first reached a tick level. The bucket holding rank r lies after
 * the last row with fewer than r values and at or before the first row with at least r; it is that
 * row's bucket exactly when reaching r already implies reaching the row's tick level. Otherwise
 * only the bound (previous row, this row] is known, and that is what we report.
 */
export type DistributionPercentile =
  | { exact: true; value: number }
  | { exact: false; low: number; high: number };

export function percentileFromDistribution(d: DistributionSeries, percentile: number): DistributionPercentile | null {
  if (d.totalCount === 0 || d.rows.length === 0) return null;
  const requested = Math.min(Math.max(nextDown(percentile), 0), 100);
  const rank = Math.max(1, Math.ceil((requested * d.totalCount) / 100));
  const i = d.rows.findIndex((r) => r.totalCount >= rank);
  const row = d.rows[i];
  if (!row) return null;
  // Rows print the tick as a fraction with 12 decimals; a margin keeps rounding from claiming exactness.
  const rankPercent = (100 * rank) / d.totalCount;
  if (rankPercent >= row.percentile * 100 + 1e-9 || i === 0) return { exact: true, value: row.value };
  const prev = d.rows[i - 1];
  return { exact: false, low: prev ? prev.value : 0, high: row.value };
}

/** Minimum recorded value: the first row shows its bucket's highest value; the bucket's lowest is the min. */
export function minFromDistribution(d: DistributionSeries): number | null {
  const first = d.rows[0];
  if (!first) return null;
  if (!d.precision || !Number.isInteger(first.value)) return first.value;
  return new HdrLayout(d.precision).lowestEquivalentValue(first.value);
}
