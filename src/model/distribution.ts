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

/**
 * Whether distributions sum exactly: each lists all its buckets (DistributionSeries.allBuckets),
 * in one unit and one bucket layout.
 */
export function summable(list: readonly DistributionSeries[]): boolean {
  const first = list[0];
  return (
    first !== undefined &&
    list.every((d) => d.allBuckets === true && d.unit === first.unit && (d.precision === null ? first.precision === null : first.precision !== null && d.precision.significantDigits === first.precision.significantDigits && d.precision.lowestDiscernibleValue === first.precision.lowestDiscernibleValue))
  );
}

/**
 * The sum of summable distributions (see `summable`): the counts of each bucket added, so every
 * rank is exact again; the mean weighted by count, the standard deviation pooled (population
 * deviations, as HdrHistogram and sysbench give them), the maximum the largest. A mean or
 * deviation missing from one part is missing from the sum.
 */
export function sumDistributions(list: readonly DistributionSeries[]): DistributionSeries {
  const first = list[0] as DistributionSeries;
  const counts = new Map<number, number>();
  for (const d of list) {
    let below = 0;
    for (const r of d.rows) {
      counts.set(r.value, (counts.get(r.value) ?? 0) + r.totalCount - below);
      below = r.totalCount;
    }
  }
  let total = 0;
  const rows = [...counts].sort((a, b) => a[0] - b[0]).map(([value, n]) => ({ value, percentile: 0, totalCount: (total += n) }));
  const parts = list.filter((d) => d.totalCount > 0);
  const known = (f: (d: DistributionSeries) => number | null) => parts.every((d) => f(d) !== null);
  const mean = total > 0 && known((d) => d.mean) ? parts.reduce((a, d) => a + (d.mean as number) * d.totalCount, 0) / total : null;
  const stddev =
    mean !== null && known((d) => d.stddev) ? Math.sqrt(parts.reduce((a, d) => a + d.totalCount * ((d.stddev as number) ** 2 + ((d.mean as number) - mean) ** 2), 0) / total) : null;
  const max = known((d) => d.max) && parts.length > 0 ? Math.max(...parts.map((d) => d.max as number)) : null;
  return { kind: 'distribution', op: first.op, unit: first.unit, rows, totalCount: total, precision: first.precision, mean, stddev, max, allBuckets: true };
}
