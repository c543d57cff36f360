import { describe, expect, it } from 'vitest';
import { littlesLaw } from '../../src/analysis/littles-law.ts';

describe('littlesLaw', () => {
  it('reproduces the published example: 1,080 threads at 6.2 ms cannot reach a 200k target', () => {
    // 9 clients × 120 threads; the achieved throughput (170,000 ops/s) is illustrative, just under the ceiling.
    const result = littlesLaw({
      clients: 9,
      threadsPerClient: 120,
      throughputOpsPerS: 170_000,
      meanLatencyUs: 6200,
      targetOpsPerS: 200_000,
    });
    expect(result.concurrency).toBe(1080);
    expect(result.maxThroughputAtThisLatency).toBeCloseTo(174_193.548387, 5);
    expect(result.threadsNeededForTarget).toBe(1240);
    expect(result.impliedConcurrency).toBeCloseTo(1054, 9);
    expect(result.loaderBound).toBe(true);
    expect(result.reason).toBe(
      '1,054 of 1,080 threads busy on average (98%): at 6.2 ms mean latency they cannot exceed ' +
        '174,194 ops/s, short of the 200,000 ops/s target, which needs at least 1,240 threads at this latency.',
    );
  });

  it('is not loader-bound when threads are idle, whatever the shortfall', () => {
    // zipfian-a target-3000 in the corpus: 3 × 4 threads, 8,912 ops/s at 549 µs: 41% busy.
    const result = littlesLaw({ clients: 3, threadsPerClient: 4, throughputOpsPerS: 8912, meanLatencyUs: 549, targetOpsPerS: 20_000 });
    expect(result.impliedConcurrency).toBeCloseTo(4.893, 3);
    expect(result.loaderBound).toBe(false);
    expect(result.threadsNeededForTarget).toBe(11);
    expect(result.reason).toMatch(/^4\.9 of 12 threads busy on average \(41%\): the load generator had spare threads/);
  });

  it('is not loader-bound when busy threads still met the target', () => {
    // 98.5% of target counts as met: YCSB's overall figure includes ramp-up and the partial last second.
    const result = littlesLaw({ clients: 2, threadsPerClient: 4, throughputOpsPerS: 9850, meanLatencyUs: 800, targetOpsPerS: 10_000 });
    expect(result.impliedConcurrency).toBeCloseTo(7.88, 9);
    expect(result.loaderBound).toBe(false);
    expect(result.reason).toMatch(/but the run reached 99% of its 10,000 ops\/s target\.$/);
  });

  it('is loader-bound when busy threads ran without a target', () => {
    // sweep-uniform-a target-unthrottled in the corpus: 12 threads, 39,328 ops/s at 298.6 µs.
    const result = littlesLaw({ clients: 3, threadsPerClient: 4, throughputOpsPerS: 39_328, meanLatencyUs: 298.6 });
    expect(result.impliedConcurrency / result.concurrency).toBeGreaterThan(0.9);
    expect(result.loaderBound).toBe(true);
    expect(result.threadsNeededForTarget).toBeNull();
    expect(result.maxThroughputAtThisLatency).toBeCloseTo(12e6 / 298.6, 6);
    expect(result.reason).toMatch(/with no target: at 298\.6 µs mean latency they cannot exceed 40,188 ops\/s/);
  });

  it('rejects impossible inputs', () => {
    const valid = { clients: 1, threadsPerClient: 1, throughputOpsPerS: 1, meanLatencyUs: 1 };
    expect(() => littlesLaw({ ...valid, clients: 0 })).toThrow(RangeError);
    expect(() => littlesLaw({ ...valid, threadsPerClient: 1.5 })).toThrow(RangeError);
    expect(() => littlesLaw({ ...valid, meanLatencyUs: 0 })).toThrow(RangeError);
    expect(() => littlesLaw({ ...valid, throughputOpsPerS: -1 })).toThrow(RangeError);
    expect(() => littlesLaw({ ...valid, targetOpsPerS: 0 })).toThrow(RangeError);
  });
});
