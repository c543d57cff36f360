/**
 * Monthly cost of serving a benchmark's throughput on DynamoDB (provisioned and on-demand) compared
 * with a node-priced cluster (self-managed nodes, Bigtable nodes + storage, …). All figures are US$
 * per month of 730 hours, the month AWS's own pricing examples use.
 */

export const HOURS_PER_MONTH = 730;
const SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600;
/** DynamoDB bills writes per started 1 KB and reads per started 4 KB (KB = 1024 bytes). */
const WRITE_UNIT_BYTES = 1024;
const READ_UNIT_BYTES = 4096;
/** YCSB's default record (10 fields of 100 bytes plus key and attribute names) as DynamoDB sizes it. */
export const DEFAULT_ITEM_BYTES = 1081;

/** Read consistency; 'transactional' doubles the units of reads and writes alike. */
export type Consistency = 'strong' | 'eventual' | 'transactional';

export interface DynamoDbPrices {
  /** Provisioned capacity, per write capacity unit per hour. */
  wcuPerHour: number;
  /** Provisioned capacity, per read capacity unit per hour. */
  rcuPerHour: number;
  /** On-demand, per million write request units. */
  perMillionWrites: number;
  /** On-demand, per million read request units. */
  perMillionReads: number;
  /** Table storage, per GB-month. */
  storagePerGbMonth: number;
}

/** A dated set of DynamoDB list prices the cost model can use; `id` travels in links and the CLI. */
export interface DynamoDbPricePreset {
  readonly id: PricePresetId;
  /** The first day these prices are in force for (`current`), or the last (`before-2024-11`). */
  readonly asOf: string;
  readonly label: string;
  readonly note: string;
  readonly prices: DynamoDbPrices;
}

export const PRICE_PRESET_IDS = ['current', 'before-2024-11'] as const;
export type PricePresetId = (typeof PRICE_PRESET_IDS)[number];

/**
 * AWS list prices, us-east-1, Standard table class (aws.amazon.com/dynamodb/pricing). On 1 Nov 2024
 * AWS halved the on-demand prices; provisioned capacity and storage did not change. The default is
 * today's prices; the earlier set reproduces the published DynamoDB-vs-cluster comparisons made
 * with them (their worked example: 50k writes/s + 50k reads/s + 1 TB = $361,600 a month on demand).
 */
export const DYNAMODB_PRICE_PRESETS: Readonly<Record<PricePresetId, DynamoDbPricePreset>> = {
  current: {
    id: 'current',
    asOf: '2024-11-01',
    label: 'current list prices (since 1 Nov 2024)',
    note:
      'AWS list prices, us-east-1, Standard table class (aws.amazon.com/dynamodb/pricing), in force since ' +
      '1 Nov 2024: provisioned $0.00065 per WCU-hour and $0.00013 per RCU-hour, on-demand $0.625 per ' +
      'million write and $0.125 per million read request units, storage $0.25 per GB-month.',
    prices: {
      wcuPerHour: 0.00065,
      rcuPerHour: 0.00013,
      perMillionWrites: 0.625,
      perMillionReads: 0.125,
      storagePerGbMonth: 0.25,
    },
  },
  'before-2024-11': {
    id: 'before-2024-11',
    asOf: '2024-10-31',
    label: 'list prices until 31 Oct 2024 (as in published comparisons)',
    note:
      'AWS list prices, us-east-1, Standard table class, in force until 31 Oct 2024, which published ' +
      'DynamoDB-vs-cluster comparisons use: provisioned $0.00065 per WCU-hour and $0.00013 per RCU-hour, ' +
      'on-demand $1.25 per million write and $0.25 per million read request units, storage $0.25 per ' +
      'GB-month. AWS halved the on-demand prices from 1 Nov 2024.',
    prices: {
      wcuPerHour: 0.00065,
      rcuPerHour: 0.00013,
      perMillionWrites: 1.25,
      perMillionReads: 0.25,
      storagePerGbMonth: 0.25,
    },
  },
};

/** The prices used when none are chosen: today's. */
export const DEFAULT_DYNAMODB_PRICES: DynamoDbPricePreset = DYNAMODB_PRICE_PRESETS.current;

export function isPricePresetId(value: unknown): value is PricePresetId {
  return typeof value === 'string' && (PRICE_PRESET_IDS as readonly string[]).includes(value);
}

/**
 * A node-priced service: either a monthly figure, or nodes × hourly price × 730; plus optional storage
 * (e.g. Bigtable: nodes + GB stored).
 */
export type ClusterPricing = ({ monthly: number } | { nodes: number; nodeHourly: number }) & {
  storageGb?: number;
  storagePerGbMonth?: number;
};

export interface CostInput {
  readsPerS: number;
  writesPerS: number;
  /** Item size in bytes; default DEFAULT_ITEM_BYTES. */
  itemBytes?: number;
  /** Data stored in the DynamoDB table, GB. */
  storageGb: number;
  /** Default 'strong'. */
  consistency?: Consistency;
  /** Default DEFAULT_DYNAMODB_PRICES.prices. */
  prices?: DynamoDbPrices;
  cluster: ClusterPricing;
}

export interface DynamoDbMonthlyCost {
  writes: number;
  reads: number;
  storage: number;
  total: number;
}

/** US$ per month, rounded to cents; factors are DynamoDB total / cluster total, unrounded. */
export interface CostComparison {
  dynamodbProvisioned: DynamoDbMonthlyCost;
  dynamodbOnDemand: DynamoDbMonthlyCost;
  cluster: { total: number };
  factor: { provisioned: number; onDemand: number };
}

/** Capacity (or request) units one write and one read of an item of `itemBytes` consume. */
export function unitsPerOperation(itemBytes: number, consistency: Consistency): { write: number; read: number } {
  requirePositive('itemBytes', itemBytes);
  const write = Math.ceil(itemBytes / WRITE_UNIT_BYTES);
  const read = Math.ceil(itemBytes / READ_UNIT_BYTES);
  switch (consistency) {
    case 'strong':
      return { write, read };
    case 'eventual':
      return { write, read: read / 2 };
    case 'transactional':
      return { write: 2 * write, read: 2 * read };
  }
}

/** DynamoDB's monthly cost for a workload, provisioned and on demand; needs no cluster price. */
export function dynamoDbCosts(input: Omit<CostInput, 'cluster'>): Pick<CostComparison, 'dynamodbProvisioned' | 'dynamodbOnDemand'> {
  requireNonNegative('readsPerS', input.readsPerS);
  requireNonNegative('writesPerS', input.writesPerS);
  requireNonNegative('storageGb', input.storageGb);
  const prices = input.prices ?? DEFAULT_DYNAMODB_PRICES.prices;
  const units = unitsPerOperation(input.itemBytes ?? DEFAULT_ITEM_BYTES, input.consistency ?? 'strong');
  const writeUnitsPerS = input.writesPerS * units.write;
  const readUnitsPerS = input.readsPerS * units.read;
  const storage = input.storageGb * prices.storagePerGbMonth;

  // Provisioned: the steady unit rate is the capacity to provision, paid every hour of the month.
  const dynamodbProvisioned = monthlyCost(
    writeUnitsPerS * prices.wcuPerHour * HOURS_PER_MONTH,
    readUnitsPerS * prices.rcuPerHour * HOURS_PER_MONTH,
    storage,
  );
  // On-demand: every request unit of every second of the month is billed.
  const dynamodbOnDemand = monthlyCost(
    ((writeUnitsPerS * SECONDS_PER_MONTH) / 1e6) * prices.perMillionWrites,
    ((readUnitsPerS * SECONDS_PER_MONTH) / 1e6) * prices.perMillionReads,
    storage,
  );
  return { dynamodbProvisioned, dynamodbOnDemand };
}

export function compareCosts(input: CostInput): CostComparison {
  const { dynamodbProvisioned, dynamodbOnDemand } = dynamoDbCosts(input);
  const clusterTotal = clusterMonthlyCost(input.cluster);
  return {
    dynamodbProvisioned,
    dynamodbOnDemand,
    cluster: { total: clusterTotal },
    factor: {
      provisioned: dynamodbProvisioned.total / clusterTotal,
      onDemand: dynamodbOnDemand.total / clusterTotal,
    },
  };
}

/** Monthly cost of a node-priced service, rounded to cents. */
export function clusterMonthlyCost(cluster: ClusterPricing): number {
  let compute: number;
  if ('monthly' in cluster) {
    requireNonNegative('monthly', cluster.monthly);
    compute = cluster.monthly;
  } else {
    requirePositive('nodes', cluster.nodes);
    requireNonNegative('nodeHourly', cluster.nodeHourly);
    compute = cluster.nodes * cluster.nodeHourly * HOURS_PER_MONTH;
  }
  const storageGb = cluster.storageGb ?? 0;
  const storagePerGbMonth = cluster.storagePerGbMonth ?? 0;
  requireNonNegative('storageGb', storageGb);
  requireNonNegative('storagePerGbMonth', storagePerGbMonth);
  const storage = storageGb * storagePerGbMonth;
  const total = toCents(compute + storage);
  // A zero total would make the factors meaningless (division by zero).
  requirePositive('cluster monthly cost', total);
  return total;
}

/**
 * Reads/s and writes/s of a run from its throughput per operation (ops/s by measurement name, merged
 * over clients). Failed operations, YCSB's intended-latency twins and per-thread CLEANUP are not
 * requests DynamoDB would bill; other names are listed in `ignored` so that a caller can say so.
 */
export function readsWritesFromOps(opsPerS: Record<string, number>): { readsPerS: number; writesPerS: number; ignored: string[] } {
  let readsPerS = 0;
  let writesPerS = 0;
  const ignored: string[] = [];
  const names = new Set(Object.keys(opsPerS).map((n) => n.toUpperCase()));
  const yCsbStyle = names.has('READ') || names.has('UPDATE');
  for (const [op, rate] of Object.entries(opsPerS)) {
    const name = op.toUpperCase();
    if (name.endsWith('-FAILED') || name.startsWith('INTENDED-') || name === 'CLEANUP') continue;
    if (name === 'READ' || name === 'SCAN') {
      readsPerS += rate;
    } else if (name === 'UPDATE' || name === 'INSERT' || name === 'DELETE') {
      writesPerS += rate;
    } else if (name === 'READ-MODIFY-WRITE') {
      // YCSB performs a read-modify-write through DBWrapper.read() and .update(), which record READ
      // and UPDATE too: then its reads and writes are already counted. Only a producer that reports
      // READ-MODIFY-WRITE alone gets one read and one write per operation.
      if (yCsbStyle) {
        ignored.push(`${op} (already counted in READ and UPDATE)`);
        continue;
      }
      readsPerS += rate;
      writesPerS += rate;
    } else {
      ignored.push(op);
    }
  }
  return { readsPerS, writesPerS, ignored };
}

function monthlyCost(writes: number, reads: number, storage: number): DynamoDbMonthlyCost {
  const [w, r, s] = [toCents(writes), toCents(reads), toCents(storage)];
  // Total of the rounded parts, so that a printed table adds up.
  return { writes: w, reads: r, storage: s, total: toCents(w + r + s) };
}

function toCents(dollars: number): number {
  return Math.round(dollars * 100) / 100;
}

function requireNonNegative(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number ≥ 0, got ${value}`);
}

function requirePositive(name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a finite number > 0, got ${value}`);
}
