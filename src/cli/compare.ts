/**
 * `benchlens compare [--json] --baseline <folder|label=value> --candidate <folder|label=value>
 * [--percentiles 50,99,99.9] [--sla RULE]... <files-or-folders>`: an A/B comparison with confidence
 * intervals, and capacity and price at an SLA — the same code as the app's Compare and Capacity
 * panels, so both print the same numbers.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { capacityAtSla, sizingTable, type CapacityRow, type SizingRow } from '../analysis/capacity.ts';
import { DEFAULT_PERCENTILES, DEFAULT_RESAMPLES } from '../analysis/compare.ts';
import type { SlaRule } from '../analysis/sla.ts';
import { runCompare } from '../engine/compare-queries.ts';
import type { CompareResult } from '../model/comparison.ts';
import { DEFAULT_STATE, type RunLabels, type SystemPriceState, type ViewState } from '../state/view-state.ts';
import { capacityPoints, pricingOf, sizedOps, slaRulesOf } from '../display/decide.ts';
import { buildRunViews } from '../display/run-views.ts';
import { loadOnDisk } from '../engine/node-inputs.ts';
import { resolveSides } from './sides.ts';
import { reportProblems } from './run-main.ts';
import { parseOrSay, UsageError } from './usage.ts';

export const USAGE = `usage: benchlens compare [--json] [--baseline SIDE --candidate SIDE] [--percentiles 50,99,99.9]
         [--sla RULE]... [--price SYSTEM=PRICE]... [--labels FILE.json] [--sizing-percentile P]
         [--window FROM-TO] [--resamples N] <files-or-folders>...

Compares a candidate against a baseline: per operation and percentile, and for throughput, both
figures, their ratio, its 95% confidence interval and a verdict (better, worse, or ~ the same).
Within runs the interval comes from a moving-block bootstrap of their seconds; when both sides
hold at least two runs, from the spread between them. With --sla, the capacity of each system at
the SLA: the highest throughput measured that meets it, the first level that breaks it, an
interpolated estimate between them, and with --price the monthly cost and $ per 1,000 ops/s-month.
  SIDE            a run's folder (or label), a folder of runs (all of them), or LABEL=VALUE for every run with that label:
                  system, workload, distribution, loadLevel, nodes, repeat
  --percentiles   percentiles to compare (default ${DEFAULT_PERCENTILES.join(',')})
  --sla RULE      e.g. "p95 of READ <= 10 ms"; repeat it (or separate rules with ;) for several, all must hold
  --price S=P     the price of system S: nodeHourly:0.5 ($ per node-hour × the run's nodes),
                  monthly:1200 ($ a month), dynamodb:provisioned or dynamodb:on-demand
  --labels FILE   JSON {"<run folder or label>": {"system": "...", "nodes": 3, "loadLevel": "...", "repeat": "1"}}
  --sizing-percentile P   the percentile of the sizing table (default ${DEFAULT_STATE.sizingPercentile})
  --window A-B    seconds after each run's start the figures cover (e.g. 10-70)
  --resamples N   bootstrap resamples (default ${DEFAULT_RESAMPLES})

Exit code: 0 all read and compared, 1 something was skipped or could not be compared (see errors
and problems), 2 bad usage, 3 internal error.`;


function parsePrice(text: string): [string, SystemPriceState] {
  const m = /^(.+)=(nodeHourly|monthly|dynamodb):(.+)$/.exec(text);
  if (!m) throw new UsageError(`--price ${text}: expected SYSTEM=nodeHourly:H, SYSTEM=monthly:M or SYSTEM=dynamodb:provisioned|on-demand`);
  const [, system = '', kind, value = ''] = m;
  if (kind === 'dynamodb') {
    if (value !== 'provisioned' && value !== 'on-demand') throw new UsageError(`--price ${text}: DynamoDB is priced provisioned or on-demand`);
    return [system, { dynamodb: value }];
  }
  const n = Number(value);
  if (!(Number.isFinite(n) && n >= 0) || value.trim() === '') throw new UsageError(`--price ${text}: ${value} is not a price`);
  return [system, kind === 'monthly' ? { monthly: n } : { nodeHourly: n }];
}

function parse(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      baseline: { type: 'string' },
      candidate: { type: 'string' },
      percentiles: { type: 'string' },
      sla: { type: 'string', multiple: true },
      price: { type: 'string', multiple: true },
      labels: { type: 'string' },
      'sizing-percentile': { type: 'string' },
      window: { type: 'string' },
      resamples: { type: 'string' },
    },
  });
  if (positionals.length === 0) throw new UsageError('no result files or folders given');
  if ((values.baseline === undefined) !== (values.candidate === undefined)) throw new UsageError('--baseline and --candidate go together');
  if (values.baseline === undefined && !values.sla?.length) throw new UsageError('nothing to do: give --baseline and --candidate, or --sla, or both');
  const percentiles = values.percentiles === undefined ? [...DEFAULT_PERCENTILES] : values.percentiles.split(',').map((p) => Number(p.trim()));
  if (percentiles.length === 0 || percentiles.some((p) => !(p > 0 && p <= 100))) throw new UsageError(`--percentiles ${values.percentiles}: each must be above 0 and at most 100`);
  const sla = slaRulesOf((values.sla ?? []).join(';'));
  if (sla.errors.length) throw new UsageError(`--sla: ${sla.errors.join('; ')}`);
  const state: ViewState = structuredClone(DEFAULT_STATE);
  state.pricing = Object.fromEntries((values.price ?? []).map(parsePrice));
  if (values['sizing-percentile'] !== undefined) {
    const p = Number(values['sizing-percentile']);
    if (!(p > 0 && p <= 100)) throw new UsageError(`--sizing-percentile ${values['sizing-percentile']} must be above 0 and at most 100`);
    state.sizingPercentile = p;
  }
  if (values.window !== undefined) {
    const m = /^(\d+(?:\.\d+)?)?-(\d+(?:\.\d+)?)?$/.exec(values.window);
    const fromS = m?.[1] !== undefined ? Number(m[1]) : null;
    const toS = m?.[2] !== undefined ? Number(m[2]) : null;
    if (!m || (fromS === null && toS === null) || (fromS !== null && toS !== null && fromS >= toS)) throw new UsageError(`--window ${values.window} must look like 10-70`);
    state.window = { fromS, toS };
  }
  const resamples = values.resamples === undefined ? DEFAULT_RESAMPLES : Number(values.resamples);
  if (!(Number.isInteger(resamples) && resamples >= 100)) throw new UsageError(`--resamples ${values.resamples} must be a whole number ≥ 100`);
  let labels: Record<string, RunLabels> = {};
  if (values.labels !== undefined) {
    try {
      labels = JSON.parse(readFileSync(values.labels, 'utf8')) as Record<string, RunLabels>;
    } catch (e) {
      throw new UsageError(`--labels ${values.labels}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return { json: values.json ?? false, baseline: values.baseline, candidate: values.candidate, percentiles, rules: sla.rules, labels, state, resamples, paths: positionals };
}

const fmt = (v: number | null | undefined, digits = 0) => (v === null || v === undefined ? '–' : v.toLocaleString('en-US', { maximumFractionDigits: digits }));

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  return rows.map((r) => r.map((x, c) => (c < 2 ? x.padEnd(widths[c] ?? 0) : x.padStart(widths[c] ?? 0))).join('  ')).join('\n');
}

function printReadable(result: CompareResult | null, capacity: CapacityRow[], sizing: SizingRow[], sizingOps: string[], sizingPercentile: number): void {
  if (result) {
    console.log(`\n${result.candidate.label} (candidate) vs ${result.baseline.label} (baseline)`);
    const rows = [['op', 'stat', 'baseline', 'candidate', 'ratio', '95% CI', 'delta', 'verdict']];
    for (const r of result.rows) {
      rows.push([r.op, r.stat, fmt(r.baseline, 1), fmt(r.candidate, 1), fmt(r.ratio, 3), r.ciLow === null ? '–' : `${fmt(r.ciLow, 3)}–${fmt(r.ciHigh, 3)}`, r.delta || '–', r.verdict ?? (r.note ? `no interval: ${r.note}` : '–')]);
    }
    console.log(table(rows));
    console.log(`\nLatencies in µs, throughput in ops/s. Method: ${result.methodText}.`);
    for (const n of [...result.problems, ...result.notes]) console.log(`  ${n}`);
  }
  if (capacity.length) {
    console.log(`\nCapacity at ${capacity[0]?.sla}`);
    const rows = [['rank', 'system', 'max ops/s', 'breaks at', 'estimate', 'utilisation', '$/month', '$/1k ops/s-month']];
    for (const r of capacity) {
      rows.push([String(r.rank), r.system, fmt(r.maxOpsPerS), fmt(r.failsAtOpsPerS), r.estimateOpsPerS === null ? '–' : `~${fmt(r.estimateOpsPerS)}`, r.utilisationPct === null ? '–' : `${fmt(r.utilisationPct, 1)}%`, fmt(r.monthlyCost, 2), fmt(r.costPerKops, 2)]);
    }
    console.log(table(rows));
    for (const r of capacity) for (const n of r.notes) console.log(`  ${r.system}: ${n}`);
  }
  if (sizing.length) {
    console.log('\nSizing');
    const rows = [['system', 'nodes', 'run', 'ops/s', ...sizingOps.map((op) => `p${sizingPercentile} ${op}`), '$/node-month', '$/month']];
    for (const r of sizing) {
      rows.push([r.system, String(r.nodes), r.run ?? r.basis, fmt(r.opsPerS), ...sizingOps.map((op) => {
        const v = r.latency[op];
        return typeof v === 'number' ? fmt(v) : v ? `[${fmt(v.min)}, ${fmt(v.max)}]` : '–';
      }), fmt(r.costPerNode, 2), fmt(r.monthlyCost, 2)]);
    }
    console.log(table(rows));
  }
}

/** The capacity rows as the JSON schema in the README has them: cost fields only when priced. */
function capacityJson(rows: readonly CapacityRow[]) {
  return rows.map(({ monthlyCost, costPerKops, ...rest }) => ({ ...rest, ...(monthlyCost !== null ? { monthlyCost } : {}), ...(costPerKops !== null ? { costPerKops } : {}) }));
}

export async function main(args: string[]): Promise<number> {
  const options = parseOrSay(parse, args, USAGE);
  if (options === null) return 2;
  const { engine, analysis } = await loadOnDisk(options.paths, { window: options.state.window });
  const store = await engine.queryStore();
  // Labels given by folder or by label, as the app keeps them: by run key.
  const state: ViewState = { ...options.state, runs: {} };
  for (const [ref, labels] of Object.entries(options.labels)) {
    const run = analysis.runs.find((r) => r.dir === ref || r.label === ref || r.dir.endsWith(`/${ref.replace(/\/+$/, '')}`));
    if (!run) {
      process.stderr.write(`error: --labels: no run "${ref}"; runs: ${analysis.runs.map((r) => r.label).join(', ')}\n`);
      return 2;
    }
    state.runs[run.dir] = labels;
  }
  const views = buildRunViews(analysis, state);
  let result: CompareResult | null = null;
  if (options.baseline !== undefined && options.candidate !== undefined) {
    const sides = resolveSides(views, state, options.baseline, options.candidate);
    if ('errors' in sides) {
      process.stderr.write(`error: ${sides.errors.join('\n')}\n`);
      return 2;
    }
    const { baseline, candidate } = sides;
    result = runCompare(store, analysis, { baseline, candidate, percentiles: options.percentiles, window: options.state.window, resamples: options.resamples });
    result.notes.unshift(...baseline.notes, ...candidate.notes);
  }
  const rules: SlaRule[] = options.rules;
  const points = capacityPoints(views);
  const pricing = pricingOf(state);
  const capacity = capacityAtSla(points, rules, pricing);
  const sizingOps = sizedOps(views);
  const sizing = sizingTable(points, rules, state.sizingPercentile, sizingOps, pricing);
  if (options.json) {
    const out = {
      ...(result
        ? {
            baseline: result.baseline,
            candidate: result.candidate,
            method: result.method,
            methodText: result.methodText,
            confidence: result.confidence,
            resamples: result.resamples,
            seed: result.seed,
            percentiles: result.percentiles,
          }
        : {}),
      comparisons: result?.rows ?? [],
      capacity: capacityJson(capacity),
      sizing,
      problems: result?.problems ?? [],
      notes: result?.notes ?? [],
      errors: analysis.errors,
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else printReadable(result, capacity, sizing, sizingOps, state.sizingPercentile);
  reportProblems(analysis.errors);
  for (const p of result?.problems ?? []) process.stderr.write(`${p}\n`);
  return analysis.errors.length > 0 || (result !== null && (result.problems.length > 0 || result.rows.length === 0)) ? 1 : 0;
}
