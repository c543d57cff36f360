import { countAtPercentile } from './hdr-stats.ts';

/**
 * Which percentiles benchlens shows and how it reads one: the percentiles of the summary, the ticks
 * of the distribution chart, and the rank a percentile is read at. Shared by the engine, which
 * computes them, and the snapshots, which carry them.
 */

export const PERCENTILES = [50, 90, 95, 99, 99.9, 99.99] as const;
export type PercentileKey = 'p50' | 'p90' | 'p95' | 'p99' | 'p99.9' | 'p99.99';
export const PERCENTILE_KEYS: readonly PercentileKey[] = PERCENTILES.map((p) => `p${p}` as PercentileKey);

/** Percentile ticks for distribution plots: denser towards the tail, up to 99.999%. */
export const DISTRIBUTION_PERCENTILES: readonly number[] = (() => {
  const out: number[] = [];
  for (let p = 1; p < 90; p += 1) out.push(p);
  for (const decade of [90, 99, 99.9, 99.99]) {
    const step = (100 - decade) / 10;
    for (let i = 0; i < 10; i++) out.push(Number((decade + i * step).toFixed(6)));
  }
  out.push(99.999, 100);
  return out;
})();

/**
 * The rank percentile p is read at in a group of `count` values: for HdrHistogram groups
 * HdrHistogram 2.2.2's rule bit for bit (the percentile moved down one ulp, then
 * ceil((p × count) / 100) in double arithmetic, in that order); for raw groups the exact nearest
 * rank ⌈p/100 · n⌉ in integers, from the decimal digits of p.
 */
export function percentileRank(p: number, count: number, raw: boolean): number {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile ${p} must be in (0, 100]`);
  if (!raw) return countAtPercentile(count, p);
  const { num, den } = exactFraction(p);
  return Math.max(1, Number((num * BigInt(count) + den - 1n) / den));
}

/** p/100 as an exact fraction of integers. */
function exactFraction(p: number): { num: bigint; den: bigint } {
  // The shortest decimal that reads back as p (what the user typed), as an exact fraction.
  const [mantissa = '0', exponentText = '0'] = String(p).toLowerCase().split('e');
  const [intPart = '0', frac = ''] = mantissa.split('.');
  const scale = frac.length - Number(exponentText);
  const digits = BigInt(intPart + frac);
  const num = scale >= 0 ? digits : digits * 10n ** BigInt(-scale);
  const den = 100n * 10n ** BigInt(Math.max(0, scale));
  return { num, den };
}
