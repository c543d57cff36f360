import {
  DEFAULT_DYNAMODB_PRICES,
  DEFAULT_ITEM_BYTES,
  DYNAMODB_PRICE_PRESETS,
  compareCosts,
  dynamoDbCosts,
  readsWritesFromOps,
  type ClusterPricing,
  type DynamoDbMonthlyCost,
  type DynamoDbPricePreset,
  type DynamoDbPrices,
} from '../analysis/cost.ts';
import type { CostParams } from '../state/view-state.ts';
import { toCsv } from './export.ts';
import type { RunView } from './run-views.ts';

/*
 * The cost comparison of each run, priced from the view's parameters: what the cost chart draws, its
 * CSV, and the prices the Capacity panel, the report and the `compare` CLI use. No React here, so
 * the CLI prices a table without loading the charts.
 */

/** Storage counted when none is entered: none, so that every dollar in the table comes from an input. */
export const DEFAULT_STORAGE_GB = 0;

export interface CostRow {
  key: string;
  label: string;
  system: string;
  workload: string;
  distribution: string;
  loadLevel: string;
  /** The run's measured throughput, failed operations included, as the runs table shows it. */
  throughput: number | null;
  readsPerS: number;
  writesPerS: number;
  /** Operations that are neither reads nor writes (see readsWritesFromOps). */
  ignored: string[];
  /** Failed operations the run recorded; not billed, so not priced. */
  failedOps: number;
  provisioned: DynamoDbMonthlyCost;
  onDemand: DynamoDbMonthlyCost;
  /** Null until a cluster price is entered (or, priced per node, while the run has no node count). */
  cluster: { total: number; pricing: ClusterPricing } | null;
  factor: { provisioned: number; onDemand: number } | null;
}

const PRICE_FIELDS = ['wcuHourly', 'rcuHourly', 'wruPerMillion', 'rruPerMillion', 'storagePerGbMonth'] as const;

/** Whether any price was edited away from the preset. */
export function customised(params: CostParams): boolean {
  return PRICE_FIELDS.some((k) => params[k] !== undefined);
}

/** The dated list prices the cost model starts from: the chosen preset, else today's. */
export function pricePreset(params: CostParams): DynamoDbPricePreset {
  return DYNAMODB_PRICE_PRESETS[params.prices ?? DEFAULT_DYNAMODB_PRICES.id];
}

export function dynamoDbPrices(params: CostParams): DynamoDbPrices {
  const d = pricePreset(params).prices;
  return {
    wcuPerHour: params.wcuHourly ?? d.wcuPerHour,
    rcuPerHour: params.rcuHourly ?? d.rcuPerHour,
    perMillionWrites: params.wruPerMillion ?? d.perMillionWrites,
    perMillionReads: params.rruPerMillion ?? d.perMillionReads,
    storagePerGbMonth: params.storagePerGbMonth ?? d.storagePerGbMonth,
  };
}

/**
 * The cluster's price: a monthly figure when entered, else nodes × hourly price, the nodes taken from
 * the parameters or, when left empty there, from the run's own cluster size (so each run of a scaling
 * series is priced at its size).
 */
export function clusterPricing(params: CostParams, runNodes: number | null): ClusterPricing | null {
  if (params.clusterMonthly !== undefined) return { monthly: params.clusterMonthly };
  const nodes = params.nodes ?? runNodes;
  if (params.nodeHourly !== undefined && nodes !== null) return { nodes, nodeHourly: params.nodeHourly };
  return null;
}

/**
 * One row per run: reads/s and writes/s from its merged operation counts over its duration, priced
 * on DynamoDB and compared with the cluster. Runs without a duration have no rate and are left out.
 * Throws RangeError (from the cost model) on an unusable parameter such as a zero item size.
 */
export function costRows(views: readonly RunView[], params: CostParams): CostRow[] {
  const prices = dynamoDbPrices(params);
  const rows: CostRow[] = [];
  for (const v of views) {
    const durationS = v.run.durationS;
    if (durationS === null || durationS <= 0) continue;
    const rates = Object.fromEntries(Object.entries(v.run.ops).map(([op, f]) => [op, f.count / durationS]));
    const { readsPerS, writesPerS, ignored } = readsWritesFromOps(rates);
    const pricing = clusterPricing(params, v.nodes);
    const workload = {
      readsPerS,
      writesPerS,
      itemBytes: params.itemBytes ?? DEFAULT_ITEM_BYTES,
      storageGb: params.storageGb ?? DEFAULT_STORAGE_GB,
      consistency: params.consistency ?? 'strong',
      prices,
    };
    const dynamo = dynamoDbCosts(workload);
    const comparison = pricing ? compareCosts({ ...workload, cluster: pricing }) : null;
    rows.push({
      key: v.key,
      label: v.label,
      system: v.system,
      workload: v.workload,
      distribution: v.distribution,
      loadLevel: v.loadLevel,
      throughput: v.run.throughput,
      readsPerS,
      writesPerS,
      ignored,
      failedOps: Object.entries(v.run.ops).reduce((n, [op, f]) => (/-FAILED$/i.test(op) ? n + f.count : n), 0),
      provisioned: dynamo.dynamodbProvisioned,
      onDemand: dynamo.dynamodbOnDemand,
      cluster: pricing && comparison ? { total: comparison.cluster.total, pricing } : null,
      factor: comparison ? comparison.factor : null,
    });
  }
  return rows;
}

/** Read:write share of a run's operations, e.g. "50:50", "95:5". */
export function mixLabel(readsPerS: number, writesPerS: number): string {
  const total = readsPerS + writesPerS;
  if (total === 0) return '–';
  const reads = Math.round((readsPerS / total) * 100);
  return `${reads}:${100 - reads}`;
}

/** "6.6×" below ten, "45×" above, as published cost-factor bars are labelled. */
export function formatFactor(factor: number | null | undefined): string {
  if (factor === null || factor === undefined || !Number.isFinite(factor)) return '';
  const digits = factor < 10 ? 1 : 0;
  return `${factor.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}×`;
}

export const COST_OPTIONS = [
  { key: 'cluster', name: 'cluster', fill: 'var(--accent)' },
  { key: 'provisioned', name: 'DynamoDB provisioned', fill: 'var(--warn)' },
  { key: 'onDemand', name: 'DynamoDB on-demand', fill: 'var(--fail)' },
] as const;

export interface BarDatum {
  key: string;
  cluster: number | null;
  provisioned: number;
  onDemand: number;
  factorProvisioned: number | null;
  factorOnDemand: number | null;
}

/** The bars' options: the cluster's only once some run has a cluster price. */
export function costOptions(rows: readonly CostRow[]) {
  const hasCluster = rows.some((r) => r.cluster !== null);
  return COST_OPTIONS.filter((o) => o.key !== 'cluster' || hasCluster);
}

/** One panel per request distribution (sorted), its runs' bars in the rows' order. */
export function costPanels(rows: readonly CostRow[]): { distribution: string; data: BarDatum[] }[] {
  const distributions = [...new Set(rows.map((r) => r.distribution))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return distributions.map((distribution) => ({
    distribution,
    data: rows
      .filter((r) => r.distribution === distribution)
      .map((r) => ({
        key: r.key,
        cluster: r.cluster?.total ?? null,
        provisioned: r.provisioned.total,
        onDemand: r.onDemand.total,
        factorProvisioned: r.factor?.provisioned ?? null,
        factorOnDemand: r.factor?.onDemand ?? null,
      })),
  }));
}

/**
 * One row per bar, in the order drawn: the run, its rates, the option priced and its US$ per month
 * (DynamoDB's split into writes, reads and storage), and for DynamoDB the factor over the cluster.
 */
export function costCsv(rows: readonly CostRow[]): string {
  const header = ['run', 'system', 'workload', 'distribution', 'load_level', 'throughput_ops_s', 'reads_per_s', 'writes_per_s', 'option', 'usd_per_month', 'writes_usd', 'reads_usd', 'storage_usd', 'factor'];
  const byKey = new Map(rows.map((r) => [r.key, r]));
  const options = costOptions(rows);
  const out = costPanels(rows).flatMap(({ data }) =>
    data.flatMap((d) => {
      const r = byKey.get(d.key);
      if (!r) return [];
      const run = [r.label, r.system, r.workload, r.distribution, r.loadLevel, r.throughput, r.readsPerS, r.writesPerS];
      return options.flatMap((o) => {
        if (o.key === 'cluster') return d.cluster === null ? [] : [[...run, o.name, d.cluster, null, null, null, null]];
        const cost = o.key === 'provisioned' ? r.provisioned : r.onDemand;
        return [[...run, o.name, d[o.key], cost.writes, cost.reads, cost.storage, o.key === 'provisioned' ? d.factorProvisioned : d.factorOnDemand]];
      });
    }),
  );
  return toCsv(header, out);
}
