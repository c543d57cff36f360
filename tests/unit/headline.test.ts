import { describe, expect, it } from 'vitest';
import { loadOnDisk } from '../../src/engine/node-inputs.ts';
import { headlineOf } from '../../src/model/headline.ts';

/** A run's headline figures (src/model/headline.ts) on real outputs: what the hover says of each percentile. */
describe('the headline', () => {
  it('says a percentile is exact only where it is; one not known says so, not "exact"', async () => {
    const { analysis } = await loadOnDisk(['tests/fixtures/corpus/sweep-uniform-a/target-1000', 'tests/fixtures/wrk']);
    const byLabel = new Map(analysis.runs.map((r) => [r.dir.split('/').pop(), headlineOf(r)]));
    const ycsb = byLabel.get('target-1000') ?? [];
    const p99 = ycsb.find((f) => f.stat === 'p99');
    expect(p99?.value).toBeGreaterThan(0);
    expect(p99?.title).toMatch(/exact/);
    // wrk prints each URL's distribution, not single requests: no merged percentile.
    for (const f of (byLabel.get('wrk') ?? []).filter((g) => g.kind === 'latency')) {
      if (f.value !== null) continue;
      expect(f.title).not.toMatch(/exact/);
      expect(f.title).toMatch(/^(not known|only a bound is known): /);
    }
  });
});
