/**
 * `benchlens cost …`: monthly cost of a throughput on DynamoDB vs a node-priced cluster.
 * Prints the comparison as JSON (--json) or as a table; exits 2 with the usage on bad arguments.
 */
import { parseArgs } from 'node:util';
import {
  DEFAULT_DYNAMODB_PRICES,
  DEFAULT_ITEM_BYTES,
  DYNAMODB_PRICE_PRESETS,
  PRICE_PRESET_IDS,
  isPricePresetId,
  type DynamoDbPricePreset,
  HOURS_PER_MONTH,
  compareCosts,
  unitsPerOperation,
  type ClusterPricing,
  type Consistency,
  type CostComparison,
  type CostInput,
} from '../analysis/cost.ts';
import { UsageError } from './usage.ts';

export const USAGE = `usage: benchlens cost [--json] --reads-per-s R --writes-per-s W [--item-bytes B]
         --storage-gb G (--cluster-monthly M | --nodes N --node-hourly H)
         [--consistency strong|eventual|transactional] [--prices ${PRICE_PRESET_IDS.join('|')}]

  --reads-per-s, --writes-per-s  sustained operations per second
  --item-bytes                   DynamoDB item size in bytes (default ${DEFAULT_ITEM_BYTES}, a YCSB record)
  --storage-gb                   data stored in DynamoDB, GB
  --cluster-monthly              the cluster's cost in US$ per month, or
  --nodes, --node-hourly         its node count and US$ per node-hour (× ${HOURS_PER_MONTH} h)
  --consistency                  read consistency (default strong; transactional doubles writes too)
  --prices                       DynamoDB list prices: ${PRICE_PRESET_IDS.map((id) => `${id} = ${DYNAMODB_PRICE_PRESETS[id].label}`).join('; ')}
                                 (default ${DEFAULT_DYNAMODB_PRICES.id})
  --json                         print the result as JSON

${PRICE_PRESET_IDS.map((id) => `${id}: ${DYNAMODB_PRICE_PRESETS[id].note}`).join('\n')}`;

const CONSISTENCIES: readonly Consistency[] = ['strong', 'eventual', 'transactional'];


/** Parses the command line into a cost input; throws UsageError on anything it cannot accept. */
function parseCommandLine(args: string[]): { input: CostInput; preset: DynamoDbPricePreset; json: boolean } {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        json: { type: 'boolean' },
        'reads-per-s': { type: 'string' },
        'writes-per-s': { type: 'string' },
        'item-bytes': { type: 'string' },
        'storage-gb': { type: 'string' },
        'cluster-monthly': { type: 'string' },
        nodes: { type: 'string' },
        'node-hourly': { type: 'string' },
        consistency: { type: 'string' },
        prices: { type: 'string' },
      },
    }));
  } catch (error) {
    // parseArgs reports unknown flags, missing values and stray arguments as TypeErrors.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }

  const number = (flag: string, text: string | undefined): number | undefined => {
    if (text === undefined) return undefined;
    // Plain decimals only: Number() would also take '', '0x10' or '1e3'.
    if (!/^\d+(\.\d+)?$/.test(text.trim())) throw new UsageError(`--${flag} needs a non-negative number, got '${text}'`);
    return Number(text);
  };
  const required = (flag: string, value: number | undefined): number => {
    if (value === undefined) throw new UsageError(`--${flag} is required`);
    return value;
  };

  // Every value is checked for being a number before any is reported missing, so that a typo in a
  // value is named as such rather than as some other flag's absence.
  const readsPerS = number('reads-per-s', values['reads-per-s']);
  const writesPerS = number('writes-per-s', values['writes-per-s']);
  const storageGb = number('storage-gb', values['storage-gb']);
  const itemBytes = number('item-bytes', values['item-bytes']) ?? DEFAULT_ITEM_BYTES;
  const monthly = number('cluster-monthly', values['cluster-monthly']);
  const nodes = number('nodes', values.nodes);
  const nodeHourly = number('node-hourly', values['node-hourly']);
  const consistency = values.consistency ?? 'strong';
  if (!isConsistency(consistency)) {
    throw new UsageError(`--consistency must be one of ${CONSISTENCIES.join(', ')}, got '${consistency}'`);
  }

  const presetId = values.prices ?? DEFAULT_DYNAMODB_PRICES.id;
  if (!isPricePresetId(presetId)) throw new UsageError(`--prices must be one of ${PRICE_PRESET_IDS.join(', ')}, got '${presetId}'`);
  const preset = DYNAMODB_PRICE_PRESETS[presetId];

  const input = {
    readsPerS: required('reads-per-s', readsPerS),
    writesPerS: required('writes-per-s', writesPerS),
    storageGb: required('storage-gb', storageGb),
    itemBytes,
    consistency,
    prices: preset.prices,
  };
  let cluster: ClusterPricing;
  if (monthly !== undefined) {
    if (nodes !== undefined || nodeHourly !== undefined) {
      throw new UsageError('give either --cluster-monthly or --nodes with --node-hourly, not both');
    }
    cluster = { monthly };
  } else if (nodes !== undefined && nodeHourly !== undefined) {
    cluster = { nodes, nodeHourly };
  } else {
    throw new UsageError('the cluster cost is required: --cluster-monthly, or --nodes with --node-hourly');
  }
  return { json: values.json ?? false, preset, input: { ...input, cluster } };
}

function isConsistency(text: string): text is Consistency {
  return (CONSISTENCIES as readonly string[]).includes(text);
}

function formatTable(input: CostInput, preset: DynamoDbPricePreset, result: CostComparison): string {
  const usd = (v: number) => `$${v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  const count = (v: number) => v.toLocaleString('en-US', { maximumFractionDigits: 2 });
  const consistency = input.consistency ?? 'strong';
  const units = unitsPerOperation(input.itemBytes ?? DEFAULT_ITEM_BYTES, consistency);
  // Two decimals below 1×, where one would round a cheap DynamoDB bill to "0.0×".
  const times = (f: number) => `${f.toFixed(f < 1 ? 2 : 1)}×`;
  const row = (label: string, cells: string[]) => label.padEnd(22) + cells.map((c) => c.padStart(16)).join('');
  const p = result.dynamodbProvisioned;
  const d = result.dynamodbOnDemand;
  return [
    `US$ per month (${HOURS_PER_MONTH} h); DynamoDB ${preset.label}, us-east-1`,
    `${count(input.readsPerS)} reads/s (${consistency}) × ${count(units.read)} RCU, ` +
      `${count(input.writesPerS)} writes/s × ${count(units.write)} WCU, ` +
      `${count(input.itemBytes ?? DEFAULT_ITEM_BYTES)}-byte items, ${count(input.storageGb)} GB stored`,
    '',
    row('', ['writes', 'reads', 'storage', 'total', '× cluster']),
    row('DynamoDB provisioned', [usd(p.writes), usd(p.reads), usd(p.storage), usd(p.total), times(result.factor.provisioned)]),
    row('DynamoDB on-demand', [usd(d.writes), usd(d.reads), usd(d.storage), usd(d.total), times(result.factor.onDemand)]),
    row('Cluster', ['', '', '', usd(result.cluster.total), times(1)]),
  ].join('\n');
}

export function main(args: string[]): number {
  let parsed;
  let result;
  try {
    parsed = parseCommandLine(args);
    result = compareCosts(parsed.input);
  } catch (error) {
    // The model's RangeErrors (zero item size, zero cluster cost) are bad arguments too.
    if (!(error instanceof UsageError || error instanceof RangeError)) throw error;
    process.stderr.write(`error: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  process.stdout.write(parsed.json ? `${JSON.stringify({ ...result, prices: { preset: parsed.preset.id, asOf: parsed.preset.asOf, ...parsed.preset.prices } }, null, 2)}\n` : `${formatTable(parsed.input, parsed.preset, result)}\n`);
  return 0;
}
