import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { capacityAtSla, interpolateCapacity, sizingTable, type Pricing } from '../../src/analysis/capacity.ts';
import { DYNAMODB_PRICE_PRESETS, HOURS_PER_MONTH } from '../../src/analysis/cost.ts';
import { parseSlaRules } from '../../src/analysis/sla.ts';
import { loadFiles } from './helpers/engine-load.ts';
import type { Analysis } from '../../src/engine/analyse.ts';
import { DEFAULT_STATE, type ViewState } from '../../src/state/view-state.ts';
import { capacityPoints, pricingOf, slaRulesOf } from '../../src/display/decide.ts';
import { buildRunViews } from '../../src/display/run-views.ts';

/**
 * Capacity and price at an SLA on the corpus sweep (sweep-uniform-a: five load levels of one
 * system), against values worked out here from the corpus's oracle (expected.json): each level's
 * achieved throughput and merged percentiles as HdrHistogram 2.2.2 computes them.
 */

const SWEEP = 'tests/fixtures/corpus/sweep-uniform-a';
interface OracleRun {
  run: string;
  achievedThroughputOpsPerS: number;
  durationS: number;
  ops: Record<string, { merged: Record<string, number> }>;
}
const oracle: OracleRun[] = JSON.parse(readFileSync('tests/fixtures/corpus/expected.json', 'utf8'))['sweep-uniform-a'].runs;
const level = (run: string) => oracle.find((r) => r.run === run) as OracleRun;
const byThroughput = [...oracle].sort((a, b) => a.achievedThroughputOpsPerS - b.achievedThroughputOpsPerS);

/** The capacity worked out from the oracle: every rule must hold; the estimate is the first crossing between the last pass and the next failure. */
function expectedCapacity(rules: { p: number; op: string; limitUs: number }[]) {
  const passes = (r: OracleRun) => rules.every((rule) => (r.ops[rule.op]?.merged[`p${rule.p}`] as number) <= rule.limitUs);
  const passing = byThroughput.filter(passes);
  const best = passing[passing.length - 1];
  if (!best) return { max: null, failsAt: byThroughput.find((r) => !passes(r))?.achievedThroughputOpsPerS ?? null, estimate: null };
  const next = byThroughput.find((r) => r.achievedThroughputOpsPerS > best.achievedThroughputOpsPerS && !passes(r));
  if (!next) return { max: best.achievedThroughputOpsPerS, failsAt: null, estimate: null };
  const x1 = best.achievedThroughputOpsPerS;
  const x2 = next.achievedThroughputOpsPerS;
  const crossings = rules.flatMap((rule) => {
    const y1 = best.ops[rule.op]?.merged[`p${rule.p}`] as number;
    const y2 = next.ops[rule.op]?.merged[`p${rule.p}`] as number;
    return y2 > rule.limitUs ? [x1 + ((rule.limitUs - y1) / (y2 - y1)) * (x2 - x1)] : [];
  });
  return { max: x1, failsAt: x2, estimate: Math.min(...crossings) };
}

let analysis: Analysis;
beforeAll(async () => {
  ({ analysis } = await loadFiles([SWEEP]));
});

function points(state: Partial<ViewState> = {}) {
  return capacityPoints(buildRunViews(analysis, { ...structuredClone(DEFAULT_STATE), ...state }));
}

const noPrices: Pricing = pricingOf(DEFAULT_STATE);

describe('capacity at an SLA on the corpus sweep', () => {
  it('one rule: the highest level meeting it, the first breaking it above, and the crossing between', () => {
    const [row] = capacityAtSla(points(), parseSlaRules('p95 of READ <= 300 us').rules, noPrices);
    const want = expectedCapacity([{ p: 95, op: 'READ', limitUs: 300 }]);
    // Worked out by hand from the oracle: READ p95 is 263, 158, 551, 198 and 437 µs at the five
    // levels, so 2,000 per client is the last to meet 300 µs and the unthrottled run breaks it.
    expect(want.max).toBe(level('target-2000').achievedThroughputOpsPerS);
    expect(want.failsAt).toBe(level('target-unthrottled').achievedThroughputOpsPerS);
    expect(row?.system).toBe('RedisDB');
    expect(row?.levels).toBe(5);
    expect(row?.maxOpsPerS).toBeCloseTo(want.max as number, 9);
    expect(row?.maxRun).toBe('target-2000');
    expect(row?.failsAtOpsPerS).toBeCloseTo(want.failsAt as number, 9);
    expect(row?.failsAtRun).toBe('target-unthrottled');
    expect(row?.estimateOpsPerS).toBeCloseTo(want.estimate as number, 6);
    expect(row?.estimateOpsPerS).toBeCloseTo(5964.694964493222 + ((300 - 198) / (437 - 198)) * (39328.31715210356 - 5964.694964493222), 6);
    // target-1000 breaks it at a lower load than target-2000 meets it: said, not hidden.
    expect(row?.notes.join(' ')).toMatch(/target-1000 break\(s\) the SLA at a lower throughput than target-2000 meets it/);
    expect(row?.monthlyCost).toBeNull();
  });

  it('several rules, all of which must hold', () => {
    const text = 'p95 of READ <= 600 us; p99 of UPDATE <= 3 ms';
    const [row] = capacityAtSla(points(), parseSlaRules(text).rules, noPrices);
    const want = expectedCapacity([
      { p: 95, op: 'READ', limitUs: 600 },
      { p: 99, op: 'UPDATE', limitUs: 3000 },
    ]);
    expect(row?.sla).toBe('p95 of READ <= 600 us and p99 of UPDATE <= 3 ms');
    expect(row?.maxOpsPerS ?? null).toBe(want.max);
    expect(row?.failsAtOpsPerS ?? null).toBe(want.failsAt);
    if (want.estimate === null) expect(row?.estimateOpsPerS).toBeNull();
    else expect(row?.estimateOpsPerS).toBeCloseTo(want.estimate, 6);
  });

  it('says so when no run meets the SLA, and invents no capacity', () => {
    const [row] = capacityAtSla(points(), parseSlaRules('p50 of READ <= 10 us').rules, noPrices);
    expect(row?.maxOpsPerS).toBeNull();
    expect(row?.estimateOpsPerS).toBeNull();
    expect(row?.notes[0]).toBe('no run meets the SLA');
    expect(row?.failsAtOpsPerS).toBe(byThroughput[0]?.achievedThroughputOpsPerS);
  });

  it('says when every measured level meets it: the capacity is at least the highest', () => {
    const [row] = capacityAtSla(points(), parseSlaRules('p50 of READ <= 1 s').rules, noPrices);
    expect(row?.maxOpsPerS).toBe(level('target-unthrottled').achievedThroughputOpsPerS);
    expect(row?.failsAtOpsPerS).toBeNull();
    expect(row?.estimateOpsPerS).toBeNull();
    expect(row?.notes.join(' ')).toMatch(/no measured level breaks the SLA: the capacity is at least 39,328 ops\/s/);
  });

  it('refuses a percentile the runs have no figure for', () => {
    expect(slaRulesOf('p97 of READ <= 1 ms').errors).toEqual(["p97 is not among the percentiles the runs' figures hold (p50, p90, p95, p99, p99.9, p99.99)"]);
  });
});

describe('sweeps', () => {
  it('a system\'s runs of different configurations are different sweeps, each with its own capacity', () => {
    const runs = Object.fromEntries(analysis.runs.map((r) => [r.dir, { workload: r.label === 'target-250' || r.label === 'target-500' ? 'workloadb' : 'workloada' }]));
    const rows = capacityAtSla(points({ runs }), parseSlaRules('p95 of READ <= 300 us').rules, noPrices);
    expect(rows.map((r) => [r.system, r.sweep, r.maxRun])).toEqual([
      ['RedisDB', 'workloada · uniform', 'target-2000'],
      ['RedisDB', 'workloadb · uniform', 'target-500'],
    ]);
    // One sweep alone is named by its system only.
    expect(capacityAtSla(points(), parseSlaRules('p95 of READ <= 300 us').rules, noPrices)[0]?.sweep).toBeNull();
  });
});

describe('price at the SLA', () => {
  it('prices a cluster per node-hour at the level meeting the SLA, per 1,000 ops/s-month', () => {
    const runs = Object.fromEntries(analysis.runs.map((r) => [r.dir, { nodes: 3 }]));
    const state = { runs, pricing: { RedisDB: { nodeHourly: 0.5 } } };
    const [row] = capacityAtSla(points(state), parseSlaRules('p95 of READ <= 300 us').rules, pricingOf({ ...DEFAULT_STATE, ...state }));
    const monthly = 3 * 0.5 * HOURS_PER_MONTH;
    expect(row?.monthlyCost).toBe(monthly);
    expect(row?.costPerKops).toBeCloseTo(monthly / (level('target-2000').achievedThroughputOpsPerS / 1000), 9);
    expect(row?.pricing).toBe('3 nodes × $0.5/h × 730 h');
  });

  it('prices DynamoDB on demand from the reads and writes of that level', () => {
    const state = { pricing: { RedisDB: { dynamodb: 'on-demand' as const } } };
    const [row] = capacityAtSla(points(state), parseSlaRules('p95 of READ <= 300 us').rules, pricingOf({ ...DEFAULT_STATE, ...state }));
    const run = level('target-2000');
    const run2 = analysis.runs.find((r) => r.label === 'target-2000');
    const reads = (run.ops.READ?.merged.count as number) / (run2?.durationS as number);
    const writes = (run.ops.UPDATE?.merged.count as number) / (run2?.durationS as number);
    // YCSB's 1,081-byte records: two write request units (per started KB) and one strong read request unit (per started 4 KB) each.
    const prices = DYNAMODB_PRICE_PRESETS.current.prices;
    const perMonth = HOURS_PER_MONTH * 3600;
    const cents = (x: number) => Math.round(x * 100) / 100;
    const expected = cents(cents(((2 * writes * perMonth) / 1e6) * prices.perMillionWrites) + cents(((reads * perMonth) / 1e6) * prices.perMillionReads));
    expect(row?.monthlyCost).toBe(expected);
    expect(row?.pricing).toMatch(/^DynamoDB on-demand for 2,986 reads\/s and 2,978 writes\/s$/);
  });

  it('ranks systems by dollars per 1,000 ops/s-month, then unpriced ones by capacity', () => {
    const runs = Object.fromEntries(
      analysis.runs.map((r) => [r.dir, { system: r.label === 'target-250' || r.label === 'target-500' ? 'Small' : r.label === 'target-1000' ? 'Unpriced' : 'Big', nodes: 1 }]),
    );
    const state = { runs, pricing: { Small: { monthly: 100 }, Big: { monthly: 1000 } } };
    const rows = capacityAtSla(points(state), parseSlaRules('p50 of READ <= 1 s').rules, pricingOf({ ...DEFAULT_STATE, ...state }));
    // Small: $100 at 1,491 ops/s = $67/kops; Big: $1000 at 39,328 ops/s = $25/kops.
    expect(rows.map((r) => [r.rank, r.system])).toEqual([
      [1, 'Big'],
      [2, 'Small'],
      [3, 'Unpriced'],
    ]);
    expect(rows[0]?.costPerKops).toBeCloseTo(1000 / (level('target-unthrottled').achievedThroughputOpsPerS / 1000), 9);
  });
});

describe('the sizing table', () => {
  it('one row per cluster size: the best level meeting the SLA, its percentile per operation, cost per node and in total', () => {
    const nodes: Record<string, number> = { 'target-250': 1, 'target-500': 1, 'target-1000': 2, 'target-2000': 2, 'target-unthrottled': 3 };
    const runs = Object.fromEntries(analysis.runs.map((r) => [r.dir, { nodes: nodes[r.label] as number }]));
    const state = { runs, pricing: { RedisDB: { nodeHourly: 0.25 } } };
    const rows = sizingTable(points(state), parseSlaRules('p95 of READ <= 300 us').rules, 95, ['READ', 'UPDATE'], pricingOf({ ...DEFAULT_STATE, ...state }));
    expect(rows.map((r) => [r.nodes, r.run, r.basis])).toEqual([
      [1, 'target-500', 'highest throughput meeting the SLA'],
      [2, 'target-2000', 'highest throughput meeting the SLA'],
      [3, null, 'no run meets the SLA'],
    ]);
    expect(rows[1]?.opsPerS).toBe(level('target-2000').achievedThroughputOpsPerS);
    expect(rows[1]?.latency).toEqual({ READ: level('target-2000').ops.READ?.merged.p95, UPDATE: level('target-2000').ops.UPDATE?.merged.p95 });
    expect(rows[1]?.costPerNode).toBe(0.25 * HOURS_PER_MONTH);
    expect(rows[1]?.monthlyCost).toBe(2 * 0.25 * HOURS_PER_MONTH);
  });

  it('without an SLA, the highest throughput of each size', () => {
    const runs = Object.fromEntries(analysis.runs.map((r) => [r.dir, { nodes: 1 }]));
    const rows = sizingTable(points({ runs }), [], 99, ['READ'], noPrices);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ nodes: 1, run: 'target-unthrottled', basis: 'highest throughput', latency: { READ: level('target-unthrottled').ops.READ?.merged.p99 }, monthlyCost: null });
  });
});

describe('interpolation', () => {
  it('is linear between the two levels and only between a pass and a failure', () => {
    expect(interpolateCapacity(1000, 5, 2000, 15, 10)).toBe(1500);
    expect(interpolateCapacity(1000, 5, 2000, 15, 20)).toBeNull();
    expect(interpolateCapacity(1000, 12, 2000, 15, 10)).toBeNull();
  });
});
