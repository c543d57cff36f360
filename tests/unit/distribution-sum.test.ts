import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import { summable, sumDistributions } from '../../src/model/distribution.ts';
import type { DistributionSeries } from '../../src/model/types.ts';

/**
 * Distributions that list all their buckets sum exactly (src/model/distribution.ts). memtier's
 * JSON holds each command's histogram and their sum, `Totals`, written by memtier itself: the sum
 * of the Sets and Gets distributions must be the Totals one, row by row.
 */

async function commands(): Promise<Map<string, DistributionSeries>> {
  const outcome = await readText('run/a.json', readFileSync('tests/fixtures/memtier/memtier-2.3.0-redis-4s.json', 'utf8'));
  if (isFailed(outcome)) throw new Error('not read');
  return new Map(outcome.series.filter((s): s is DistributionSeries => s.kind === 'distribution').map((s) => [s.op, s]));
}

describe('sumDistributions', () => {
  it('Sets + Gets is the Totals histogram memtier wrote: every row, the mean and the pooled deviation', async () => {
    const d = await commands();
    const [sets, gets, totals] = ['Sets', 'Gets', 'Totals (all requests)'].map((op) => d.get(op) as DistributionSeries) as [DistributionSeries, DistributionSeries, DistributionSeries];
    expect(summable([sets, gets])).toBe(true);
    const sum = sumDistributions([sets, gets]);
    expect(sum.rows).toEqual(totals.rows);
    expect([sum.totalCount, sum.max, sum.precision, sum.allBuckets]).toEqual([totals.totalCount, totals.max, totals.precision, true]);
    expect(sum.mean).toBeCloseTo(totals.mean as number, 9);
    expect(sum.stddev).toBeCloseTo(totals.stddev as number, 9);
  });

  it('refuses what does not share a bucket layout: another precision, a unit, or a distribution that lists only some buckets', async () => {
    const sets = (await commands()).get('Sets') as DistributionSeries;
    expect(summable([sets, { ...sets, precision: { significantDigits: 3, lowestDiscernibleValue: 10 } }])).toBe(false);
    expect(summable([sets, { ...sets, precision: null }])).toBe(false);
    expect(summable([sets, { ...sets, unit: 'ns' }])).toBe(false);
    const { allBuckets: _, ...printed } = sets;
    expect(summable([sets, printed])).toBe(false);
    expect(summable([])).toBe(false);
  });
});
