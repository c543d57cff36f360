import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { type Analysis } from '../../src/engine/analyse.ts';
import { PERCENTILE_KEYS, PERCENTILES } from '../../src/model/percentiles.ts';

/**
 * A run's all-requests row: every operation's samples merged exactly (checked against the
 * samples read here from the file by hand), failures apart, and a tool's own aggregated row never
 * counted a second time.
 */


async function analyse(...paths: string[]): Promise<Analysis> {
  return (await loadFiles(paths)).analysis;
}

describe('all requests', () => {
  it('merges every request of a Gatling run exactly (nearest rank over the union of samples)', async () => {
    const file = 'tests/fixtures/gatling/simulation-3.9.5.log';
    const samples = readFileSync(file, 'utf8')
      .split('\n')
      .map((l) => l.split('\t'))
      .filter((f) => f[0] === 'REQUEST' && f[5] === 'OK')
      .map((f) => (Number(f[4]) - Number(f[3])) * 1000)
      .sort((a, b) => a - b);
    const [run] = (await analyse(file)).runs;
    const all = run?.allRequests;
    expect(Object.keys(run?.ops ?? {}).length).toBeGreaterThan(1);
    expect(all?.exact).toBe(true);
    expect(all?.count).toBe(samples.length);
    expect(all?.failed).toBe(0);
    expect(all?.min).toBe(samples[0]);
    expect(all?.max).toBe(samples[samples.length - 1]);
    expect(all?.mean).toBeCloseTo(samples.reduce((a, b) => a + b, 0) / samples.length, 9);
    PERCENTILES.forEach((p, i) => {
      const rank = Math.ceil((p / 100) * samples.length);
      expect(all?.[PERCENTILE_KEYS[i] as (typeof PERCENTILE_KEYS)[number]], `p${p}`).toBe(samples[Math.max(0, rank - 1)]);
    });
  });

  it("keeps failures apart and never adds Locust's own Aggregated row again", async () => {
    const [run] = (await analyse('tests/fixtures/locust/full_stats.csv')).runs;
    const ops = run?.ops ?? {};
    const aggregated = ops['Aggregated (all requests)'];
    const failed = ops['GET /missing-FAILED']?.count ?? 0;
    expect(aggregated).toBeDefined();
    expect(failed).toBeGreaterThan(0);
    // Locust's Aggregated row counts every request, failed ones too: the row is the rest.
    expect(run?.allRequests?.count).toBe((aggregated?.count ?? 0) - failed);
    expect(run?.allRequests?.failed).toBe(failed);
    // Locust prints per-name percentiles only: merged, they can only be bounded.
    expect(run?.allRequests?.exact).toBe(false);
    expect(run?.allRequests?.p99).toBeNull();
    expect(run?.allRequests?.bounds?.p99).toBeDefined();
  });

  it('merges the histograms of a YCSB run (READ and UPDATE), leaving CLEANUP out', async () => {
    const [run] = (await analyse('tests/fixtures/corpus/sweep-uniform-a/target-1000')).runs;
    const all = run?.allRequests;
    expect(all?.exact).toBe(true);
    expect(all?.ops).toBe(2);
    expect(all?.count).toBe((run?.ops.READ?.count ?? 0) + (run?.ops.UPDATE?.count ?? 0));
    expect(all?.max).toBe(Math.max(run?.ops.READ?.max ?? 0, run?.ops.UPDATE?.max ?? 0));
    const p99s = [run?.ops.READ?.p99 ?? 0, run?.ops.UPDATE?.p99 ?? 0];
    expect(all?.p99).toBeGreaterThanOrEqual(Math.min(...p99s));
    expect(all?.p99).toBeLessThanOrEqual(Math.max(...p99s));
  });
});
