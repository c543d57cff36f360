import { describe, expect, it } from 'vitest';
import { byScenarioCsv, scenarioRows } from '../../src/charts/ByScenario.tsx';
import { costCsv, costRows } from '../../src/display/cost-rows.ts';
import { intendedCsv, intendedLines } from '../../src/charts/IntendedVsActual.tsx';
import { isolatedPoints, latencyOverTimeCsv, latencyOverTimeData, latencyRows } from '../../src/charts/LatencyOverTime.tsx';
import { latencyVsLoadCsv, latencyVsLoadSeries } from '../../src/charts/LatencyVsLoad.tsx';
import { percentileDistributionCsv, percentileDistributionData } from '../../src/charts/PercentileDistribution.tsx';
import { scalingCsv, scalingSeries } from '../../src/charts/Scaling.tsx';
import { throughputCsv, throughputData } from '../../src/charts/ThroughputOverTime.tsx';
import type { ChartResult } from '../../src/engine/chart-queries.ts';
import { op, view } from './helpers/run-views.ts';
import type { Figures } from '../../src/model/figures.ts';

/** The CSV as lines of cells; the tests' values hold no quotes or commas unless a test says so. */
function parse(csv: string): string[][] {
  expect(csv.endsWith('\r\n')).toBe(true);
  return csv
    .slice(0, -2)
    .split('\r\n')
    .map((line) => line.split(','));
}

const colours = new Map([
  ['Redis', '#2563eb'],
  ['Cassandra', '#dc2626'],
]);

describe('latency vs load CSV', () => {
  it('has one row per point of each line, sorted by load, with the exact figures', () => {
    const views = [
      view({ label: 'r-2000', system: 'Redis', throughput: 2000, ops: { READ: op(10, 900) } }),
      view({ label: 'r-500', system: 'Redis', throughput: 500.5, ops: { READ: op(10, 250.25) } }),
      view({ label: 'c-800', system: 'Cassandra', workload: 'workloadb', distribution: 'zipfian', throughput: 800, ops: { READ: op(10, 1200) } }),
      view({ label: 'hidden', system: 'Redis', throughput: 100, hidden: true, ops: { READ: op(10, 1) } }),
      view({ label: 'no-p99', system: 'Redis', throughput: 100, ops: { READ: op(10, null) } }),
    ];
    const rows = parse(latencyVsLoadCsv(latencyVsLoadSeries(views, 99, ['READ'], 'throughput'), 99, 'throughput'));
    expect(rows).toEqual([
      ['series', 'system', 'workload', 'distribution', 'op', 'throughput_ops_s', 'p99_us', 'run'],
      ['Redis · workloada · uniform', 'Redis', 'workloada', 'uniform', 'READ', '500.5', '250.25', 'r-500'],
      ['Redis · workloada · uniform', 'Redis', 'workloada', 'uniform', 'READ', '2000', '900', 'r-2000'],
      ['Cassandra · workloadb · zipfian', 'Cassandra', 'workloadb', 'zipfian', 'READ', '800', '1200', 'c-800'],
    ]);
  });

  it('names the x column after the axis, and a row per operation when several are shown', () => {
    const views = [view({ label: 'a', utilisationPct: 42.5 }), view({ label: 'b', utilisationPct: null })];
    const rows = parse(latencyVsLoadCsv(latencyVsLoadSeries(views, 99, ['READ', 'UPDATE'], 'utilisation'), 99, 'utilisation'));
    expect(rows[0]?.[5]).toBe('utilisation_pct');
    expect(rows.slice(1)).toEqual([
      ['ScyllaDB · workloada · uniform · READ', 'ScyllaDB', 'workloada', 'uniform', 'READ', '42.5', '2000', 'a'],
      ['ScyllaDB · workloada · uniform · UPDATE', 'ScyllaDB', 'workloada', 'uniform', 'UPDATE', '42.5', '3000', 'a'],
    ]);
  });

  it('quotes labels and keeps them from being read as formulas', () => {
    const views = [view({ label: '=HYPERLINK("x"),1', system: 'Redis', throughput: 10, ops: { READ: op(1, 5) } })];
    const csv = latencyVsLoadCsv(latencyVsLoadSeries(views, 99, ['READ'], 'throughput'), 99, 'throughput');
    expect(csv.split('\r\n')[1]).toBe(`Redis · workloada · uniform,Redis,workloada,uniform,READ,10,5,"'=HYPERLINK(""x""),1"`);
  });
});

describe('throughput over time CSV', () => {
  const views = [view({ id: 101, label: 'run-a' }), view({ id: 102, label: 'run-b' })];
  const result: Extract<ChartResult, { kind: 'throughput-over-time' }> = {
    kind: 'throughput-over-time',
    bucketS: 1,
    startEpochS: { 101: 1_700_000_000 },
    ok: [
      { runId: 101, op: 'READ', t: [0, 1, 2], values: [100, 200.5, 150] },
      { runId: 101, op: 'UPDATE', t: [0, 1, 2], values: [10, 20, 30] },
    ],
    failed: [{ runId: 101, op: 'READ', t: [1], values: [5] }],
  };

  it('has one row per area and time bucket, unstacked, zero where the chart draws zero', () => {
    const rows = parse(throughputCsv(throughputData(result, views)));
    expect(rows[0]).toEqual(['series', 'run', 'op', 'status', 't_s', 'ops_per_s']);
    expect(rows.length).toBe(1 + 3 * 3);
    expect(rows.slice(1)).toEqual([
      ['READ', 'run-a', 'READ', 'ok', '0', '100'],
      ['READ', 'run-a', 'READ', 'ok', '1', '200.5'],
      ['READ', 'run-a', 'READ', 'ok', '2', '150'],
      ['UPDATE', 'run-a', 'UPDATE', 'ok', '0', '10'],
      ['UPDATE', 'run-a', 'UPDATE', 'ok', '1', '20'],
      ['UPDATE', 'run-a', 'UPDATE', 'ok', '2', '30'],
      ['READ failed', 'run-a', 'READ', 'failed', '0', '0'],
      ['READ failed', 'run-a', 'READ', 'failed', '1', '5'],
      ['READ failed', 'run-a', 'READ', 'failed', '2', '0'],
    ]);
  });

  it('draws a bucket with no request at all as zero, not as the level before it', () => {
    // An outage in run-a from 20 s to 40 s, in 10-s buckets; run-b has requests throughout.
    const gap = {
      ...result,
      bucketS: 10,
      ok: [
        { runId: 101, op: 'READ', t: [0, 10, 40], values: [5, 6, 7] },
        { runId: 102, op: 'READ', t: [0, 10, 40], values: [1, 1, 1] },
      ],
      failed: [],
    };
    const rows = parse(throughputCsv(throughputData(gap, views))).slice(1);
    expect(rows.filter((r) => r[1] === 'run-a').map((r) => [r[4], r[5]])).toEqual([
      ['0', '5'],
      ['10', '6'],
      ['20', '0'],
      ['30', '0'],
      ['40', '7'],
    ]);
  });

  it('names series by run when several runs are drawn', () => {
    const two = { ...result, ok: [{ runId: 101, op: 'READ', t: [0], values: [1] }, { runId: 102, op: 'READ', t: [0], values: [2] }], failed: [] };
    expect(parse(throughputCsv(throughputData(two, views))).slice(1)).toEqual([
      ['run-a READ', 'run-a', 'READ', 'ok', '0', '1'],
      ['run-b READ', 'run-b', 'READ', 'ok', '0', '2'],
    ]);
  });
});

describe('latency over time CSV', () => {
  it('has one row per drawn point, at the seconds from run start the axis places it, skipping gaps and runs not shown', () => {
    const views = [view({ id: 201, label: 'run-a', system: 'Redis' }), view({ id: 202, label: 'run-b', system: 'Redis' })];
    const result: Extract<ChartResult, { kind: 'latency-over-time' }> = {
      kind: 'latency-over-time',
      bucketS: 10,
      percentile: 99.9,
      series: [
        { runId: 201, op: 'READ', t: [-7, 3, 13], values: [1000, null, 1500.5] },
        { runId: 202, op: 'READ', t: [0, 10], values: [2000, 2100] },
        { runId: 999, op: 'READ', t: [0], values: [1] },
      ],
    };
    const rows = parse(latencyOverTimeCsv(latencyOverTimeData(result, views, colours), result.percentile));
    expect(rows).toEqual([
      ['series', 'run', 'op', 't_s', 'p99.9_us'],
      ['run-a', 'run-a', 'READ', '0', '1000'],
      ['run-a', 'run-a', 'READ', '20', '1500.5'],
      ['run-b', 'run-b', 'READ', '0', '2000'],
      ['run-b', 'run-b', 'READ', '10', '2100'],
    ]);
  });
});

describe('latency over time rows', () => {
  it('break a line where a bucket has no request; a point with no neighbour is isolated (drawn as a dot)', () => {
    const rows = latencyRows(
      [
        // No request from 20 s to 50 s, nor at 80 s.
        { key: 'a', t: [0, 10, 60, 70, 90], values: [1, 2, 3, 4, 5] },
        { key: 'b', t: [0, 10, 20, 30, 40, 50, 60, 70, 80, 90], values: [5, 5, 5, 5, 5, 5, 5, 5, 5, 5] },
      ],
      10,
    );
    expect(rows.map((r) => [r.t, r.a, r.b])).toEqual([
      [0, 1, 5],
      [10, 2, 5],
      // A null after a's last point before the gap, so its line does not join 10 s to 60 s.
      [20, null, 5],
      [30, undefined, 5],
      [40, undefined, 5],
      [50, undefined, 5],
      [60, 3, 5],
      [70, 4, 5],
      [80, null, 5],
      [90, 5, 5],
    ]);
    expect([...isolatedPoints(rows, 'a')]).toEqual([9]);
    expect(isolatedPoints(rows, 'b').size).toBe(0);
  });
});

describe('percentile distribution CSV', () => {
  it('has one row per drawn percentile of each (run, op), the percentile itself and not its axis position, without p100', () => {
    const views = [view({ id: 301, label: 'run-a', system: 'Redis' })];
    const result: Extract<ChartResult, { kind: 'percentile-distribution' }> = {
      kind: 'percentile-distribution',
      series: [
        { runId: 301, op: 'READ', percentiles: [50, 99.9, 99.999, 100], values: [100, 900, 4000, 70_000] },
        { runId: 301, op: 'UPDATE', percentiles: [50], values: [120.75] },
        { runId: 999, op: 'READ', percentiles: [50], values: [1] },
      ],
    };
    const rows = parse(percentileDistributionCsv(percentileDistributionData(result, views, colours)));
    expect(rows).toEqual([
      ['series', 'run', 'op', 'percentile', 'latency_us'],
      ['READ', 'run-a', 'READ', '50', '100'],
      ['READ', 'run-a', 'READ', '99.9', '900'],
      ['READ', 'run-a', 'READ', '99.999', '4000'],
      ['UPDATE', 'run-a', 'UPDATE', '50', '120.75'],
    ]);
  });
});

describe('intended vs actual CSV', () => {
  it('has one row per drawn point of each actual and intended line', () => {
    const views = [view({ id: 401, label: 'run-a', ops: { READ: op(1, 1), 'Intended-READ': op(1, 1) } })];
    const lines = intendedLines(
      [
        { runId: 401, op: 'READ', percentiles: [50, 99], values: [100, 200] },
        { runId: 401, op: 'Intended-READ', percentiles: [50, 99, 100], values: [150, 9000, 12_000] },
      ],
      views,
    );
    expect(parse(intendedCsv(lines))).toEqual([
      ['series', 'run', 'op', 'latency', 'percentile', 'latency_us'],
      ['READ actual', 'run-a', 'READ', 'actual', '50', '100'],
      ['READ actual', 'run-a', 'READ', 'actual', '99', '200'],
      ['READ intended', 'run-a', 'Intended-READ', 'intended', '50', '150'],
      ['READ intended', 'run-a', 'Intended-READ', 'intended', '99', '9000'],
    ]);
  });
});

describe('pXX by scenario CSV', () => {
  it('has one row per bar: exact values, and ranges with both bounds', () => {
    const views = [
      view({ label: 'a-low', system: 'A', throughput: 500, ops: { READ: op(10, 800) } }),
      view({ label: 'a-high', system: 'A', throughput: 900, ops: { READ: op(10, 1000), 'READ-FAILED': op(2, 5000) } }),
      view({ label: 'b', system: 'B', ops: { READ: op(10, null, { p99: { min: 100, max: 300 } } as Figures['bounds']) } }),
      view({ label: 'c', system: 'A', workload: 'workloadb', throughput: 700, ops: { READ: op(10, 1234.5) } }),
    ];
    const { rows, systems } = scenarioRows(views, 'p99', 'READ', true);
    const csv = parse(byScenarioCsv(rows, systems, 'READ', 99));
    expect(csv).toEqual([
      ['scenario', 'system', 'op', 'run', 'throughput_ops_s', 'runs_of_scenario', 'p99_us', 'p99_low_us', 'p99_high_us', 'range'],
      ['workloada · uniform', 'A', 'READ', 'a-high', '900', '2', '', '1000', '5000', 'failed'],
      ['workloada · uniform', 'B', 'READ', 'b', '1000', '1', '', '100', '300', 'bounded'],
      ['workloadb · uniform', 'A', 'READ', 'c', '700', '1', '1234.5', '1234.5', '1234.5', ''],
    ]);
  });
});

describe('scaling CSV', () => {
  it('has one row per cluster size of each series with throughput, the linear reference and the latency', () => {
    const views = [
      view({ label: 'n3', system: 'A', nodes: 3, throughput: 3000, ops: { READ: op(1, 500) } }),
      view({ label: 'n6', system: 'A', nodes: 6, throughput: 5400, ops: { READ: op(1, null) } }),
      view({ label: 'n6-low', system: 'A', nodes: 6, throughput: 1000, ops: { READ: op(1, 1) } }),
      view({ label: 'unsized', system: 'A', nodes: null }),
    ];
    expect(parse(scalingCsv(scalingSeries(views, 'p99', 'READ'), 'READ', 99))).toEqual([
      ['series', 'system', 'nodes', 'throughput_ops_s', 'linear_ops_s', 'op', 'p99_us', 'run'],
      ['A', 'A', '3', '3000', '3000', 'READ', '500', 'n3'],
      ['A', 'A', '6', '5400', '6000', 'READ', '', 'n6'],
    ]);
  });
});

describe('cost CSV', () => {
  const header = ['run', 'system', 'workload', 'distribution', 'load_level', 'throughput_ops_s', 'reads_per_s', 'writes_per_s', 'option', 'usd_per_month', 'writes_usd', 'reads_usd', 'storage_usd', 'factor'];

  it('has one row per bar, panels by distribution, with the priced figures exactly', () => {
    const views = [
      view({ label: 'z', distribution: 'zipfian', ops: { READ: op(1000, 1), UPDATE: op(500, 1), 'UPDATE-FAILED': op(7, 1) } }),
      view({ label: 'u', distribution: 'uniform', ops: { READ: op(2000, 1) } }),
    ];
    const priced = costRows(views, { clusterMonthly: 1000 });
    const rows = parse(costCsv(priced));
    expect(rows[0]).toEqual(header);
    expect(rows.length).toBe(1 + 2 * 3);
    // uniform sorts before zipfian, as the panels do.
    expect(rows.slice(1).map((r) => [r[0], r[8]])).toEqual([
      ['u', 'cluster'],
      ['u', 'DynamoDB provisioned'],
      ['u', 'DynamoDB on-demand'],
      ['z', 'cluster'],
      ['z', 'DynamoDB provisioned'],
      ['z', 'DynamoDB on-demand'],
    ]);
    const z = priced.find((r) => r.label === 'z');
    if (!z) throw new Error('no row for z');
    expect(rows[4]).toEqual(['z', 'ScyllaDB', 'workloada', 'zipfian', 'unthrottled', '1000', '10', '5', 'cluster', '1000', '', '', '', '']);
    expect(rows[5]).toEqual(['z', 'ScyllaDB', 'workloada', 'zipfian', 'unthrottled', '1000', '10', '5', 'DynamoDB provisioned', ...[z.provisioned.total, z.provisioned.writes, z.provisioned.reads, z.provisioned.storage, z.provisioned.total / 1000].map(String)]);
    expect(rows[6]?.slice(9)).toEqual([z.onDemand.total, z.onDemand.writes, z.onDemand.reads, z.onDemand.storage, z.onDemand.total / 1000].map(String));
    expect(z.factor?.provisioned).toBe(z.provisioned.total / 1000);
  });

  it('leaves out the cluster bars and factors until a cluster price is entered', () => {
    const rows = parse(costCsv(costRows([view({ label: 'u' })], {})));
    expect(rows.slice(1).map((r) => [r[8], r[13]])).toEqual([
      ['DynamoDB provisioned', ''],
      ['DynamoDB on-demand', ''],
    ]);
  });
});
