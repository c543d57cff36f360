import { describe, expect, it } from 'vitest';
import { chartOp, percentileEstimate, percentileKey, scenarioRows } from '../../src/charts/ByScenario.tsx';
import { clusterPricing, costRows, formatFactor, mixLabel } from '../../src/display/cost-rows.ts';
import { linearReference, scalingSeries } from '../../src/charts/Scaling.tsx';
import { op, view } from './helpers/run-views.ts';

describe('pXX by scenario', () => {
  it('shows READ when every operation is chosen, else the first real operation', () => {
    expect(chartOp([view({})], '')).toBe('READ');
    expect(chartOp([view({ ops: { CLEANUP: op(1, 1), 'INSERT-FAILED': op(1, 1), INSERT: op(5, 9) } })], '')).toBe('INSERT');
    expect(chartOp([view({})], 'UPDATE')).toBe('UPDATE');
    expect(chartOp([], '')).toBeNull();
  });

  it('knows only the percentiles the engine computes', () => {
    expect(percentileKey(99.9)).toBe('p99.9');
    expect(percentileKey(97)).toBeNull();
  });

  it('groups runs by workload mix · distribution and keeps each system’s highest-throughput run', () => {
    const views = [
      view({ system: 'A', throughput: 500, ops: { READ: op(10, 1000) } }),
      view({ system: 'A', throughput: 2000, ops: { READ: op(10, 5000) }, key: 'sweep/target-max' }),
      view({ system: 'A', throughput: 1000, ops: { READ: op(10, 3000) } }),
      view({ system: 'B', throughput: 800, ops: { READ: op(10, 4000) } }),
      view({ system: 'B', workload: 'workloadb', distribution: 'zipfian', ops: { READ: op(10, 700) } }),
    ];
    const { rows, systems } = scenarioRows(views, 'p99', 'READ', false);
    expect(systems).toEqual(['A', 'B']);
    expect(rows.map((r) => r.scenario)).toEqual(['workloada · uniform', 'workloadb · zipfian']);
    expect(rows[0]?.bars.A).toEqual({ estimate: { exact: true, value: 5000 }, run: 'sweep/target-max', throughput: 2000, runsOfScenario: 3 });
    expect(rows[0]?.bars.B?.runsOfScenario).toBe(1);
    expect(Object.keys(rows[1]?.bars ?? {})).toEqual(['B']);
  });

  it('gives only the interval between the two percentiles when failed operations are included', () => {
    const ops = { READ: op(1000, 2000), 'READ-FAILED': op(500, 2_500_000) };
    expect(percentileEstimate(ops, 'READ', 'p99', false)).toEqual({ exact: true, value: 2000 });
    expect(percentileEstimate(ops, 'READ', 'p99', true)).toEqual({ exact: false, low: 2000, high: 2_500_000, reason: 'failed' });
    // Failures that are faster than the successes bound the merged value from below.
    expect(percentileEstimate({ READ: op(10, 900), 'READ-FAILED': op(10, 40) }, 'READ', 'p99', true)).toEqual({ exact: false, low: 40, high: 900, reason: 'failed' });
  });

  it('is exact when including failures there were none of, or only failures', () => {
    expect(percentileEstimate({ READ: op(10, 2000) }, 'READ', 'p99', true)).toEqual({ exact: true, value: 2000 });
    expect(percentileEstimate({ READ: op(10, 2000), 'READ-FAILED': op(0, null) }, 'READ', 'p99', true)).toEqual({ exact: true, value: 2000 });
    expect(percentileEstimate({ READ: op(0, null), 'READ-FAILED': op(10, 7000) }, 'READ', 'p99', true)).toEqual({ exact: true, value: 7000 });
    expect(percentileEstimate({ READ: op(0, null), 'READ-FAILED': op(10, 7000) }, 'READ', 'p99', false)).toBeNull();
  });

  it('shows a bounded figure as its bounds, widened by the failures’ own bounds', () => {
    const bounded = op(10, null, { p99: { min: 1500, max: 2500 } });
    expect(percentileEstimate({ READ: bounded }, 'READ', 'p99', false)).toEqual({ exact: false, low: 1500, high: 2500, reason: 'bounded' });
    expect(percentileEstimate({ READ: bounded, 'READ-FAILED': op(10, null, { p99: { min: 1000, max: 9000 } }) }, 'READ', 'p99', true)).toEqual({
      exact: false,
      low: 1000,
      high: 9000,
      reason: 'failed',
    });
    expect(percentileEstimate({ READ: op(10, null) }, 'READ', 'p99', false)).toBeNull();
  });
});

describe('scaling', () => {
  it('draws linear scaling from the smallest cluster', () => {
    expect(linearReference([
      { nodes: 3, throughput: 300_000 },
      { nodes: 6, throughput: 580_000 },
      { nodes: 12, throughput: 1_100_000 },
    ])).toEqual([300_000, 600_000, 1_200_000]);
    expect(linearReference([])).toEqual([]);
  });

  it('takes the best run per cluster size, sorted by size, and leaves out runs without a size', () => {
    const views = [
      view({ system: 'VoltDB', nodes: 6, throughput: 190_000 }),
      view({ system: 'VoltDB', nodes: 3, throughput: 100_000, ops: { READ: op(10, 800) } }),
      view({ system: 'VoltDB', nodes: 6, throughput: 120_000 }),
      view({ system: 'VoltDB', throughput: 999_999 }),
    ];
    const [series, ...rest] = scalingSeries(views, 'p99', 'READ');
    expect(rest).toEqual([]);
    expect(series?.name).toBe('VoltDB');
    expect(series?.skipped).toBe(1);
    expect(series?.points.map((p) => [p.nodes, p.throughput, p.linear, p.latency])).toEqual([
      [3, 100_000, 100_000, 800],
      [6, 190_000, 200_000, 2000],
    ]);
  });

  it('names series by scenario only when there are several', () => {
    const views = [view({ system: 'A', nodes: 3 }), view({ system: 'A', nodes: 3, workload: 'workloadb' })];
    expect(scalingSeries(views, 'p99', 'READ').map((s) => s.name)).toEqual(['A · workloada · uniform', 'A · workloadb · uniform']);
    expect(scalingSeries([view({ nodes: null })], 'p99', 'READ')).toEqual([]);
  });
});

describe('cost rows', () => {
  // The published headline: 57.07 kops/s at 50:50 on a $4,544/month cluster, 1 TB stored.
  const headline = view({
    system: 'ScyllaDB',
    durationS: 100,
    throughput: 57_070,
    ops: { READ: op(2_853_500, 1000), UPDATE: op(2_853_500, 1000), CLEANUP: op(10, 1), 'Intended-READ': op(2_853_500, 1), 'READ-FAILED': op(1_000_000, 1) },
  });

  it('reproduces the 6.6× and 45× factors from a run’s merged operation counts, at the prices the report used', () => {
    const [row] = costRows([headline], { clusterMonthly: 4544, storageGb: 1024, prices: 'before-2024-11' });
    expect(row?.readsPerS).toBe(28_535);
    expect(row?.writesPerS).toBe(28_535);
    expect(row?.failedOps).toBe(1_000_000);
    expect(row?.cluster?.total).toBe(4544);
    expect(row?.provisioned.storage).toBe(256);
    expect(Math.abs((row?.provisioned.total ?? 0) - 30_040)).toBeLessThanOrEqual(15);
    expect(Math.abs((row?.onDemand.total ?? 0) - 206_490)).toBeLessThanOrEqual(15);
    expect(row?.factor?.provisioned.toFixed(1)).toBe('6.6');
    expect(Math.round(row?.factor?.onDemand ?? 0)).toBe(45);
    expect(formatFactor(row?.factor?.provisioned)).toBe('6.6×');
    expect(formatFactor(row?.factor?.onDemand)).toBe('45×');
    expect(formatFactor(7.98)).toBe('8.0×');
    expect(mixLabel(row?.readsPerS ?? 0, row?.writesPerS ?? 0)).toBe('50:50');
  });

  it('prices on demand at today’s list prices by default: half the report’s on-demand bill, the same provisioned one', () => {
    const [today] = costRows([headline], { clusterMonthly: 4544, storageGb: 1024 });
    const [then] = costRows([headline], { clusterMonthly: 4544, storageGb: 1024, prices: 'before-2024-11' });
    expect(today?.provisioned).toEqual(then?.provisioned);
    expect(today?.onDemand.writes).toBeCloseTo((then?.onDemand.writes ?? 0) / 2, 1);
    expect(today?.onDemand.reads).toBeCloseTo((then?.onDemand.reads ?? 0) / 2, 1);
    // An edited price overrides the preset it starts from.
    const [edited] = costRows([headline], { clusterMonthly: 4544, storageGb: 1024, prices: 'before-2024-11', wruPerMillion: 0.625, rruPerMillion: 0.125 });
    expect(edited?.onDemand).toEqual(today?.onDemand);
  });

  it('prices DynamoDB without factors until the cluster’s price is known', () => {
    const [row] = costRows([headline], { storageGb: 1024 });
    expect(row?.cluster).toBeNull();
    expect(row?.factor).toBeNull();
    const [priced] = costRows([headline], { clusterMonthly: 4544, storageGb: 1024 });
    expect(row?.provisioned).toEqual(priced?.provisioned);
    expect(row?.onDemand).toEqual(priced?.onDemand);
  });

  it('prices the cluster per node, from the run’s own size when no node count is entered', () => {
    expect(clusterPricing({ nodeHourly: 2 }, 3)).toEqual({ nodes: 3, nodeHourly: 2 });
    expect(clusterPricing({ nodeHourly: 2, nodes: 6 }, 3)).toEqual({ nodes: 6, nodeHourly: 2 });
    expect(clusterPricing({ nodeHourly: 2 }, null)).toBeNull();
    expect(clusterPricing({ clusterMonthly: 4544, nodeHourly: 2 }, 3)).toEqual({ monthly: 4544 });
    const [row] = costRows([view({ nodes: 3 })], { nodeHourly: 2 });
    expect(row?.cluster?.total).toBe(4380);
  });

  it('takes edited prices, item size and consistency', () => {
    const base = view({ durationS: 10, ops: { READ: op(10_000, 1), UPDATE: op(10_000, 1) } });
    const [row] = costRows([base], { itemBytes: 1000, consistency: 'eventual', wcuHourly: 0.001, rcuHourly: 0.0002, storageGb: 0 });
    // 1,000 writes/s × 1 WCU × $0.001 × 730 h; 1,000 reads/s × 0.5 RCU × $0.0002 × 730 h.
    expect(row?.provisioned).toEqual({ writes: 730, reads: 73, storage: 0, total: 803 });
  });

  it('leaves out runs without a duration and reports unusable parameters', () => {
    expect(costRows([view({ durationS: null })], {})).toEqual([]);
    expect(() => costRows([view({})], { itemBytes: 0 })).toThrow(RangeError);
  });
});
