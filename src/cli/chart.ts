/**
 * `benchlens chart --chart <id> [--out fig.svg] [--json] <file-or-folder>...`: one of the
 * dashboard's charts as a standalone SVG document, drawn by the app's own chart components, or the
 * chart's data as JSON; for CI jobs and reports.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_DYNAMODB_PRICES, isPricePresetId, PRICE_PRESET_IDS } from '../analysis/cost.ts';
import { parseSlaRule } from '../analysis/sla.ts';
import { percentileKey } from '../charts/ByScenario.tsx';
import { CHART_KINDS, ChartInputError, chartSpec, type ChartKind } from '../render/chart-specs.ts';
import { renderSvg } from '../charts/svg-figure.ts';
import { THEMES } from '../display/theme.ts';
import { DEFAULT_STATE, shownTheme, type CostParams, type ViewState } from '../state/view-state.ts';
import { buildRunViews } from '../display/run-views.ts';
import { loadOnDisk } from '../engine/node-inputs.ts';
import { reportProblems } from './run-main.ts';
import { UsageError } from './usage.ts';

const CHARTS = CHART_KINDS;
type Chart = ChartKind;

const COST_NUMBERS = ['itemBytes', 'storageGb', 'clusterMonthly', 'nodes', 'nodeHourly', 'wcuHourly', 'rcuHourly', 'wruPerMillion', 'rruPerMillion', 'storagePerGbMonth'] as const satisfies readonly (keyof CostParams)[];
const CONSISTENCIES = ['strong', 'eventual', 'transactional'] as const;
/** `clusterMonthly` → `cluster-monthly`: the cost flags are the view state's own names. */
const flagOf = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export const USAGE = `usage: benchlens chart --chart <${CHARTS.join('|')}> [--out FILE.svg] [--json]
         [--percentile P] [--op OP] [--focus RUN,...] [--sla RULE] [--width W] [--height H]
         [--theme light|dark] [cost options] <file-or-folder>...

Draws one of the dashboard's charts as a standalone SVG document, from the same files summarize reads.
  --out FILE      write the SVG there (default: standard output, unless --json is given)
  --json          print the chart's data as JSON (with --out: the data here, the SVG in the file)
  --percentile P  percentile of the latency charts (default ${DEFAULT_STATE.percentile})
  --op OP         only this operation (default: every operation but failures, Intended-* and CLEANUP)
  --focus RUN     runs of the time charts, by label or folder (default: the first run)
  --sla RULE      SLA line of the latency charts, e.g. "p99 of READ <= 10 ms"
  --width W       width of the document in pixels (default 960)
  --height H      height of the document in pixels (default: each chart as tall as in the app)
  --theme T       light (default) or dark colours
cost options, named as the cost chart's fields (prices in US$):
  ${COST_NUMBERS.map((k) => `--${flagOf(k)}`).join(' ')}
  --consistency ${CONSISTENCIES.join('|')}
  --prices ${PRICE_PRESET_IDS.join('|')}   DynamoDB list prices to start from (default ${DEFAULT_DYNAMODB_PRICES.id})

Exit code: 0 all read, 1 something was skipped (see errors; the chart is still drawn), 2 bad usage,
3 internal error.`;

const DEFAULT_WIDTH = 960;


interface Options {
  chart: Chart;
  out: string | null;
  json: boolean;
  width: number;
  height: number | null;
  paths: string[];
  focus: string[];
  state: ViewState;
}

const DECIMAL = /^\d+(\.\d+)?$/;

function parseCommandLine(args: string[]): Options {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        chart: { type: 'string' },
        out: { type: 'string' },
        json: { type: 'boolean' },
        percentile: { type: 'string' },
        op: { type: 'string' },
        focus: { type: 'string' },
        sla: { type: 'string' },
        width: { type: 'string' },
        height: { type: 'string' },
        theme: { type: 'string' },
        consistency: { type: 'string' },
        prices: { type: 'string' },
        ...Object.fromEntries(COST_NUMBERS.map((k) => [flagOf(k), { type: 'string' as const }])),
      },
    });
  } catch (error) {
    // parseArgs reports unknown flags and missing values as TypeErrors.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const text = (flag: string): string | undefined => {
    const v = (values as Record<string, unknown>)[flag];
    return typeof v === 'string' ? v : undefined;
  };
  const decimal = (flag: string): number | undefined => {
    const v = text(flag);
    if (v === undefined) return undefined;
    if (!DECIMAL.test(v.trim())) throw new UsageError(`--${flag} needs a non-negative number, got '${v}'`);
    return Number(v);
  };
  const pixels = (flag: string): number | undefined => {
    const v = decimal(flag);
    if (v !== undefined && (!Number.isInteger(v) || v < 200)) throw new UsageError(`--${flag} needs a whole number of pixels, at least 200`);
    return v;
  };

  const chart = values.chart;
  if (chart === undefined) throw new UsageError('--chart is required');
  if (!(CHARTS as readonly string[]).includes(chart)) throw new UsageError(`--chart must be one of ${CHARTS.join(', ')}, got '${chart}'`);
  if (positionals.length === 0) throw new UsageError('no file or folder given');

  const percentile = decimal('percentile') ?? DEFAULT_STATE.percentile;
  if (percentile <= 0 || percentile >= 100) throw new UsageError(`--percentile must lie between 0 and 100, got ${percentile}`);
  // The other latency charts query any percentile; this one reads the run summaries' fixed set.
  if (chart === 'latency-vs-load' && percentileKey(percentile) === null) throw new UsageError(`--percentile ${percentile} is not among the summarised percentiles of latency-vs-load`);
  const theme = values.theme ?? 'light';
  if (theme !== 'light' && theme !== 'dark') throw new UsageError(`--theme must be light or dark, got '${theme}'`);
  const consistency = values.consistency;
  if (consistency !== undefined && !(CONSISTENCIES as readonly string[]).includes(consistency)) throw new UsageError(`--consistency must be one of ${CONSISTENCIES.join(', ')}, got '${consistency}'`);
  const cost: CostParams = {};
  for (const key of COST_NUMBERS) {
    const v = decimal(flagOf(key));
    if (v !== undefined) cost[key] = v;
  }
  if (consistency !== undefined) cost.consistency = consistency as CostParams['consistency'];
  if (values.prices !== undefined) {
    if (!isPricePresetId(values.prices)) throw new UsageError(`--prices must be one of ${PRICE_PRESET_IDS.join(', ')}, got '${values.prices}'`);
    if (values.prices !== DEFAULT_DYNAMODB_PRICES.id) cost.prices = values.prices;
  }
  if (values.sla !== undefined) {
    try {
      parseSlaRule(values.sla);
    } catch (error) {
      throw new UsageError(`--sla: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return {
    chart: chart as Chart,
    out: values.out ?? null,
    json: values.json ?? false,
    width: pixels('width') ?? DEFAULT_WIDTH,
    height: pixels('height') ?? null,
    paths: positionals,
    focus: values.focus?.split(',').filter((f) => f.length > 0) ?? [],
    state: { ...DEFAULT_STATE, percentile, op: values.op ?? '', theme, sla: values.sla ?? '', cost },
  };
}

export async function main(args: string[]): Promise<number> {
  let options;
  try {
    options = parseCommandLine(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`error: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }

  const { engine, analysis } = await loadOnDisk(options.paths, { window: options.state.window });
  const store = await engine.queryStore();
  const views = buildRunViews(analysis, options.state);

  const unknownFocus = options.focus.filter((f) => !views.some((v) => v.key === f || v.label === f));
  const ops = new Set(views.flatMap((v) => Object.keys(v.run.ops)));
  let spec;
  try {
    if (unknownFocus.length > 0) throw new UsageError(`--focus: no run ${unknownFocus.join(', ')}; runs: ${views.map((v) => v.label).join(', ')}`);
    if (options.state.op && !ops.has(options.state.op)) throw new UsageError(`--op: no operation ${options.state.op}; operations: ${[...ops].join(', ')}`);
    const focus = options.focus.map((f) => views.find((v) => v.key === f || v.label === f)?.key ?? f);
    spec = chartSpec(options.chart, store, views, { ...options.state, focus });
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof ChartInputError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }

  if (options.json) {
    const runs = views.map((v) => ({ id: v.run.id, key: v.key, label: v.label, system: v.system }));
    process.stdout.write(`${JSON.stringify({ chart: options.chart, runs, data: spec.data }, null, 2)}\n`);
  }
  if (options.out !== null || !options.json) {
    const { svg, figure } = await renderSvg(spec.element, options.width, options.height, THEMES[shownTheme(options.state.theme, false)]);
    if (options.out !== null) writeFileSync(options.out, svg);
    else process.stdout.write(svg);
    if (figure.empty !== null) process.stderr.write(`the chart is empty: ${figure.empty}\n`);
  }
  reportProblems(analysis.errors);
  return analysis.errors.length > 0 ? 1 : 0;
}
