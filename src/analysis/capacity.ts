import { dynamoDbCosts, HOURS_PER_MONTH, readsWritesFromOps, type Consistency, type DynamoDbPrices } from './cost.ts';
import { evaluateSla, formatSlaRule, type PercentileValue, type SlaRule } from './sla.ts';

/**
 * Capacity and price at an SLA: from a sweep of load levels per system, the highest measured
 * throughput that meets every rule, the first level above it that breaks one, an estimate between
 * the two (linear in throughput and latency, marked as an estimate), the utilisation there when it
 * is known, and what that throughput costs a month — ranked by dollars per 1,000 ops/s-month. And
 * the sizing table of published reports: per cluster size, its throughput, a percentile per
 * operation and its cost per node and in total.
 */

/** One measured run of a system at one load level. */
export interface CapacityPoint {
  label: string;
  system: string;
  /** The configuration swept (workload · distribution): a system's runs of different ones are different sweeps. */
  sweep: string;
  nodes: number | null;
  /** ops/s, failed operations included (what the SLA's "at >= …" reads). */
  throughput: number | null;
  utilisationPct: number | null;
  /** Where the utilisation came from: the database's monitoring ('entered'), or this throughput ÷ the system's best ('capacity'). */
  utilisationSource: 'entered' | 'capacity' | null;
  /** Latency of percentile p of op in µs, a bound, or null. */
  percentileUs: (op: string, p: number) => PercentileValue;
  /** ops/s of each operation (for DynamoDB's reads and writes). */
  opsPerS: Record<string, number>;
}

/** A system's price: per node-hour (× the run's nodes), the cluster's whole month, or DynamoDB's model. */
export interface SystemPrice {
  nodeHourly?: number;
  monthly?: number;
  dynamodb?: 'provisioned' | 'on-demand';
}

/** What DynamoDB's price needs besides the throughput. */
export interface DynamoDbInputs {
  itemBytes: number;
  storageGb: number;
  consistency: Consistency;
  prices: DynamoDbPrices;
}

export interface Pricing {
  prices: Record<string, SystemPrice>;
  dynamodb: DynamoDbInputs;
}

export interface CapacityRow {
  system: string;
  /** The configuration swept, when the system's runs hold several (else null). */
  sweep: string | null;
  /** The rules, as written, joined with "and". */
  sla: string;
  /** Load levels measured. */
  levels: number;
  maxOpsPerS: number | null;
  maxRun: string | null;
  failsAtOpsPerS: number | null;
  failsAtRun: string | null;
  /** Where latency crosses the limit, interpolated between the two levels: an estimate. */
  estimateOpsPerS: number | null;
  utilisationPct: number | null;
  utilisationSource: CapacityPoint['utilisationSource'];
  /** US$ a month at maxOpsPerS, and per 1,000 ops/s of it; null when no price is given. */
  monthlyCost: number | null;
  costPerKops: number | null;
  /** How it was priced, in words. */
  pricing: string | null;
  /** 1 = cheapest per 1,000 ops/s (or, unpriced, the most capacity). */
  rank: number;
  notes: string[];
}

export interface SizingRow {
  system: string;
  /** As in CapacityRow. */
  sweep: string | null;
  nodes: number;
  /** The run standing for this size; null when none meets the SLA. */
  run: string | null;
  basis: 'highest throughput meeting the SLA' | 'highest throughput' | 'no run meets the SLA';
  opsPerS: number | null;
  /** The percentile of each operation, in µs (or a bound). */
  latency: Record<string, PercentileValue>;
  /** US$ a month, per node and in total. */
  costPerNode: number | null;
  monthlyCost: number | null;
  costPerKops: number | null;
}

type Verdict = 'pass' | 'fail' | 'unknown';

function verdictOf(rules: readonly SlaRule[], p: CapacityPoint): { verdict: Verdict; reasons: string[] } {
  if (p.throughput === null) return { verdict: 'unknown', reasons: ['its throughput is unknown'] };
  const run = { throughputOpsPerS: p.throughput, percentileUs: p.percentileUs };
  const verdicts = rules.map((r) => evaluateSla(r, run));
  if (verdicts.some((v) => v.pass === false)) return { verdict: 'fail', reasons: verdicts.filter((v) => v.pass === false).map((v) => v.reason) };
  if (verdicts.some((v) => v.pass === null)) return { verdict: 'unknown', reasons: verdicts.filter((v) => v.pass === null).map((v) => v.reason) };
  return { verdict: 'pass', reasons: [] };
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const count = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 0 });

/** US$ a month for a system at a measured point, and how it was priced; null when it cannot be priced. */
export function monthlyCostAt(price: SystemPrice | undefined, point: CapacityPoint, dynamodb: DynamoDbInputs): { cost: number; how: string } | { cost: null; why: string } {
  if (!price || Object.keys(price).length === 0) return { cost: null, why: 'no price given' };
  if (price.monthly !== undefined) return { cost: round2(price.monthly), how: `$${price.monthly.toLocaleString('en-US')} a month` };
  if (price.nodeHourly !== undefined) {
    if (point.nodes === null) return { cost: null, why: `priced per node-hour, but ${point.label} has no nodes label` };
    return { cost: round2(point.nodes * price.nodeHourly * HOURS_PER_MONTH), how: `${point.nodes} nodes × $${price.nodeHourly}/h × ${HOURS_PER_MONTH} h` };
  }
  if (price.dynamodb !== undefined) {
    const { readsPerS, writesPerS } = readsWritesFromOps(point.opsPerS);
    const costs = dynamoDbCosts({ readsPerS, writesPerS, ...dynamodb });
    const total = price.dynamodb === 'provisioned' ? costs.dynamodbProvisioned.total : costs.dynamodbOnDemand.total;
    return { cost: total, how: `DynamoDB ${price.dynamodb} for ${count(readsPerS)} reads/s and ${count(writesPerS)} writes/s` };
  }
  return { cost: null, why: 'no price given' };
}

/**
 * Where latency reaches the limit between a passing level (x1, y1 ≤ limit) and a failing one
 * (x2, y2 > limit), linear in both: the estimate is bounded by the two measured levels.
 */
export function interpolateCapacity(x1: number, y1: number, x2: number, y2: number, limit: number): number | null {
  if (!(y1 <= limit && y2 > limit && x2 > x1)) return null;
  return x1 + ((limit - y1) / (y2 - y1)) * (x2 - x1);
}

/** The capacity of each system at the SLA `rules` (all must hold), priced and ranked. */
export function capacityAtSla(points: readonly CapacityPoint[], rules: readonly SlaRule[], pricing: Pricing): CapacityRow[] {
  if (rules.length === 0) return [];
  const sla = rules.map(formatSlaRule).join(' and ');
  const rows = sweepsOf(points).map(({ system, sweep }): Omit<CapacityRow, 'rank'> => {
    const notes: string[] = [];
    const all = points.filter((p) => p.system === system && (sweep === null || p.sweep === sweep));
    const measured = all.filter((p) => p.throughput !== null).sort((a, b) => (a.throughput as number) - (b.throughput as number));
    if (measured.length < all.length) notes.push(`${all.length - measured.length} run(s) without a throughput left out`);
    const judged = measured.map((p) => ({ p, ...verdictOf(rules, p) }));
    for (const j of judged.filter((x) => x.verdict === 'unknown')) notes.push(`${j.p.label}: cannot tell (${j.reasons.join('; ')})`);
    const passing = judged.filter((j) => j.verdict === 'pass');
    const best = passing[passing.length - 1];
    const row: Omit<CapacityRow, 'rank'> = {
      system,
      sweep,
      sla,
      levels: measured.length,
      maxOpsPerS: null,
      maxRun: null,
      failsAtOpsPerS: null,
      failsAtRun: null,
      estimateOpsPerS: null,
      utilisationPct: null,
      utilisationSource: null,
      monthlyCost: null,
      costPerKops: null,
      pricing: null,
      notes,
    };
    if (!best) {
      const first = judged.find((j) => j.verdict === 'fail');
      if (first) {
        row.failsAtOpsPerS = first.p.throughput;
        row.failsAtRun = first.p.label;
      }
      notes.unshift(judged.length === 0 ? 'no run with a throughput' : 'no run meets the SLA');
      return row;
    }
    const x1 = best.p.throughput as number;
    row.maxOpsPerS = x1;
    row.maxRun = best.p.label;
    row.utilisationPct = best.p.utilisationPct;
    row.utilisationSource = best.p.utilisationSource;
    const below = judged.filter((j) => j.verdict === 'fail' && (j.p.throughput as number) < x1);
    if (below.length) notes.push(`${below.map((j) => j.p.label).join(', ')} break(s) the SLA at a lower throughput than ${best.p.label} meets it: latency is not monotone in load here`);
    const breaks = judged.find((j) => j.verdict === 'fail' && (j.p.throughput as number) > x1);
    if (!breaks) notes.push(`no measured level breaks the SLA: the capacity is at least ${count(x1)} ops/s`);
    else {
      const x2 = breaks.p.throughput as number;
      row.failsAtOpsPerS = x2;
      row.failsAtRun = breaks.p.label;
      // Each latency rule the failing level breaks crosses its limit somewhere in between; the first crossing is the estimate.
      const crossings = rules.flatMap((r) => {
        const y1 = best.p.percentileUs(r.op, r.percentile);
        const y2 = breaks.p.percentileUs(r.op, r.percentile);
        if (typeof y1 !== 'number' || typeof y2 !== 'number') return [];
        const x = interpolateCapacity(x1, y1, x2, y2, r.maxLatencyUs);
        return x === null ? [] : [x];
      });
      if (crossings.length > 0) {
        row.estimateOpsPerS = Math.min(...crossings);
        const u1 = best.p.utilisationPct;
        const u2 = breaks.p.utilisationPct;
        if (u1 !== null && u2 !== null && best.p.utilisationSource === breaks.p.utilisationSource) {
          row.utilisationPct = u1 + ((row.estimateOpsPerS - x1) / (x2 - x1)) * (u2 - u1);
          notes.push('utilisation interpolated to the estimate');
        }
      } else notes.push(`no estimate between ${count(x1)} and ${count(x2)} ops/s: the latencies there are not both exact`);
    }
    const priced = monthlyCostAt(pricing.prices[system], best.p, pricing.dynamodb);
    if (priced.cost !== null) {
      row.monthlyCost = priced.cost;
      row.costPerKops = priced.cost / (x1 / 1000);
      row.pricing = priced.how;
    } else if (pricing.prices[system]) notes.push(priced.why);
    return row;
  });
  // Priced systems by cost per 1,000 ops/s, cheapest first; then the rest by capacity.
  const order = [...rows].sort((a, b) => {
    if (a.costPerKops !== null && b.costPerKops !== null) return a.costPerKops - b.costPerKops;
    if (a.costPerKops !== null || b.costPerKops !== null) return a.costPerKops !== null ? -1 : 1;
    return (b.maxOpsPerS ?? -1) - (a.maxOpsPerS ?? -1);
  });
  return order.map((r, i) => ({ ...r, rank: i + 1 }));
}

/** Each system's sweeps: one per configuration when its runs hold several (a load sweep varies the load only). */
function sweepsOf(points: readonly CapacityPoint[]): { system: string; sweep: string | null }[] {
  const systems = [...new Set(points.map((p) => p.system))];
  return systems.flatMap((system): { system: string; sweep: string | null }[] => {
    const sweeps = [...new Set(points.filter((p) => p.system === system).map((p) => p.sweep))];
    return sweeps.length > 1 ? sweeps.map((sweep) => ({ system, sweep })) : [{ system, sweep: null }];
  });
}

/**
 * One row per system and cluster size (runs labelled with their nodes): the run standing for that
 * size — the highest throughput meeting the SLA when there is one, else the highest throughput —
 * its ops/s, percentile `percentile` of each of `ops`, and its cost per node and in total.
 */
export function sizingTable(points: readonly CapacityPoint[], rules: readonly SlaRule[], percentile: number, ops: readonly string[], pricing: Pricing): SizingRow[] {
  const sized = points.filter((p): p is CapacityPoint & { nodes: number } => p.nodes !== null && p.throughput !== null);
  const keys = sweepsOf(sized).flatMap(({ system, sweep }) =>
    [...new Set(sized.filter((p) => p.system === system && (sweep === null || p.sweep === sweep)).map((p) => p.nodes))].map((nodes) => ({ system, sweep, nodes })),
  );
  keys.sort((a, b) => a.system.localeCompare(b.system, 'en', { numeric: true }) || (a.sweep ?? '').localeCompare(b.sweep ?? '') || a.nodes - b.nodes);
  return keys.map(({ system, sweep, nodes }) => {
    const candidates = sized.filter((p) => p.system === system && (sweep === null || p.sweep === sweep) && p.nodes === nodes).sort((a, b) => (b.throughput as number) - (a.throughput as number));
    const chosen = rules.length > 0 ? candidates.find((p) => verdictOf(rules, p).verdict === 'pass') : candidates[0];
    const basis: SizingRow['basis'] = rules.length === 0 ? 'highest throughput' : chosen ? 'highest throughput meeting the SLA' : 'no run meets the SLA';
    if (!chosen) return { system, sweep, nodes, run: null, basis, opsPerS: null, latency: {}, costPerNode: null, monthlyCost: null, costPerKops: null };
    const priced = monthlyCostAt(pricing.prices[system], chosen, pricing.dynamodb);
    const monthlyCost = priced.cost;
    const opsPerS = chosen.throughput as number;
    return {
      system,
      sweep,
      nodes,
      run: chosen.label,
      basis,
      opsPerS,
      latency: Object.fromEntries(ops.map((op) => [op, chosen.percentileUs(op, percentile)])),
      costPerNode: monthlyCost === null ? null : round2(monthlyCost / nodes),
      monthlyCost,
      costPerKops: monthlyCost === null ? null : monthlyCost / (opsPerS / 1000),
    };
  });
}
