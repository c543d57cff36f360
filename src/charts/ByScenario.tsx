import { useContext } from 'react';
import { Bar, BarChart, CartesianGrid, LabelList, Legend, Tooltip, XAxis, YAxis, type BarShapeProps } from 'recharts';
import { formatLatency, formatOps, latencyScale } from '../display/format.ts';
import { toCsv } from '../display/export.ts';
import { ExportContext } from './ExportMenu.tsx';
import type { RunView } from '../display/run-views.ts';
import { AXIS, ChartFrame, GRID, legendName, TOOLTIP_STYLE } from './ChartFrame.tsx';
import { ChartContainer } from './ChartContainer.tsx';
import { PERCENTILE_KEYS, type PercentileKey } from '../model/percentiles.ts';
import type { Figures } from '../model/figures.ts';

/** A percentile as far as it can be known: exactly, or only as an interval it lies in. */
export type Estimate = { exact: true; value: number } | { exact: false; low: number; high: number; reason: 'bounded' | 'failed' };

const NOT_MAIN = /-FAILED$|^Intended-|^CLEANUP$/i;

/** The operation a single-operation chart shows: the chosen one, else READ, else the first real operation. */
export function chartOp(views: readonly RunView[], op: string): string | null {
  if (op) return op;
  const ops = [...new Set(views.flatMap((v) => Object.keys(v.run.ops)))].filter((o) => !NOT_MAIN.test(o));
  return ops.includes('READ') ? 'READ' : (ops[0] ?? null);
}

/** `p99.9` for 99.9, or null when the engine does not compute that percentile. */
export function percentileKey(percentile: number): PercentileKey | null {
  const key = `p${percentile}`;
  return (PERCENTILE_KEYS as readonly string[]).includes(key) ? (key as PercentileKey) : null;
}

function interval(f: Figures, key: PercentileKey): { low: number; high: number; exact: boolean } | null {
  const v = f[key];
  if (v !== null) return { low: v, high: v, exact: true };
  const b = f.bounds?.[key];
  return b ? { low: b.min, high: b.max, exact: false } : null;
}

/**
 * pXX of `op`, or of `op` ∪ `op-FAILED` when failures are included. Without the histograms the merged
 * percentile of the two cannot be computed here, but it lies between the two operations' own pXX
 * (a quantile of a union of two sets lies between the sets' quantiles), so that interval is returned.
 */
export function percentileEstimate(ops: Readonly<Record<string, Figures>>, op: string, key: PercentileKey, includeFailed: boolean): Estimate | null {
  const ok = ops[op];
  const failed = includeFailed ? ops[`${op}-FAILED`] : undefined;
  const parts = [ok, failed].filter((f): f is Figures => f !== undefined && f.count > 0);
  const intervals = parts.map((f) => interval(f, key));
  if (intervals.length === 0 || intervals.some((i) => i === null)) return null;
  const known = intervals as { low: number; high: number; exact: boolean }[];
  const low = Math.min(...known.map((i) => i.low));
  const high = Math.max(...known.map((i) => i.high));
  if (low === high) return { exact: true, value: low };
  return { exact: false, low, high, reason: known.length > 1 ? 'failed' : 'bounded' };
}

export function scenarioOf(v: RunView): string {
  return `${v.workload} · ${v.distribution}`;
}

export interface ScenarioBar {
  estimate: Estimate;
  run: string;
  throughput: number | null;
  /** How many runs the system has of this scenario; the bar shows the highest-throughput one. */
  runsOfScenario: number;
}

export interface ScenarioRow {
  scenario: string;
  bars: Record<string, ScenarioBar>;
}

/**
 * One row per scenario (workload mix · distribution), one bar per system. A system with several runs
 * of a scenario (a load sweep) is represented by its highest-throughput run: the run at capacity.
 */
export function scenarioRows(views: readonly RunView[], key: PercentileKey, op: string, includeFailed: boolean): { rows: ScenarioRow[]; systems: string[] } {
  const groups = new Map<string, Map<string, RunView[]>>();
  for (const v of views) {
    const bySystem = groups.get(scenarioOf(v)) ?? new Map<string, RunView[]>();
    bySystem.set(v.system, [...(bySystem.get(v.system) ?? []), v]);
    groups.set(scenarioOf(v), bySystem);
  }
  const order = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });
  const systems = new Set<string>();
  const rows: ScenarioRow[] = [];
  for (const scenario of [...groups.keys()].sort(order)) {
    const bars: Record<string, ScenarioBar> = {};
    for (const [system, runs] of groups.get(scenario) ?? []) {
      const best = runs.reduce((a, b) => ((b.run.throughput ?? -Infinity) > (a.run.throughput ?? -Infinity) ? b : a));
      const estimate = percentileEstimate(best.run.ops, op, key, includeFailed);
      if (!estimate) continue;
      bars[system] = { estimate, run: best.label, throughput: best.run.throughput, runsOfScenario: runs.length };
      systems.add(system);
    }
    if (Object.keys(bars).length) rows.push({ scenario, bars });
  }
  return { rows, systems: [...systems].sort(order) };
}

/**
 * One row per bar, in the order drawn: the scenario, the system and the run the bar shows, and pXX
 * in µs — exact, or (`range` bounded or failed) only known to lie between the low and high bounds.
 */
export function byScenarioCsv(rows: readonly ScenarioRow[], systems: readonly string[], op: string, percentile: number): string {
  const p = `p${percentile}`;
  const header = ['scenario', 'system', 'op', 'run', 'throughput_ops_s', 'runs_of_scenario', `${p}_us`, `${p}_low_us`, `${p}_high_us`, 'range'];
  const out = rows.flatMap((r) =>
    systems.flatMap((system) => {
      const bar = r.bars[system];
      if (!bar) return [];
      const e = bar.estimate;
      return [[r.scenario, system, op, bar.run, bar.throughput, bar.runsOfScenario, e.exact ? e.value : null, e.exact ? e.value : e.low, e.exact ? e.value : e.high, e.exact ? '' : e.reason]];
    }),
  );
  return toCsv(header, out);
}

/** Exact values are bars from zero; intervals are floating bars from the lower to the upper bound. */
function barValue(bar: ScenarioBar | undefined): number | [number, number] | null {
  if (!bar) return null;
  return bar.estimate.exact ? bar.estimate.value : [bar.estimate.low, bar.estimate.high];
}

function barLabel(bar: ScenarioBar | undefined): string {
  if (!bar) return '';
  return bar.estimate.exact ? formatLatency(bar.estimate.value) : `${formatLatency(bar.estimate.low)} – ${formatLatency(bar.estimate.high)}`;
}

function RangeAwareBar(props: BarShapeProps & { colour: string }) {
  const { x, y, width, height, value, colour } = props;
  if (!Array.isArray(value)) return <rect x={x} y={y} width={width} height={height} fill={colour} />;
  // An interval, not a value: drawn hollow and dashed, with caps at both bounds like an error bar.
  return (
    <g>
      <rect x={x} y={y} width={width} height={height} fill={colour} fillOpacity={0.18} stroke={colour} strokeDasharray="4 3" />
      <line x1={x} x2={x + width} y1={y} y2={y} stroke={colour} strokeWidth={2} />
      <line x1={x} x2={x + width} y1={y + height} y2={y + height} stroke={colour} strokeWidth={2} />
    </g>
  );
}

export function ByScenarioChart({
  views,
  colours,
  percentile,
  op,
  includeFailed,
  onIncludeFailed,
}: {
  views: RunView[];
  colours: Map<string, string>;
  percentile: number;
  op: string;
  includeFailed: boolean;
  onIncludeFailed: (includeFailed: boolean) => void;
}) {
  const { embedded } = useContext(ExportContext);
  const key = percentileKey(percentile);
  const shownOp = chartOp(views, op);
  const { rows, systems } = key && shownOp ? scenarioRows(views, key, shownOp, includeFailed) : { rows: [], systems: [] };
  const bars = rows.flatMap((r) => Object.entries(r.bars));
  const maxY = Math.max(1, ...bars.map(([, b]) => (b.estimate.exact ? b.estimate.value : b.estimate.high)));
  const scale = latencyScale(maxY);
  const sweeps = bars.filter(([, b]) => b.runsOfScenario > 1).map(([system, b]) => `${system}: ${b.run} of ${b.runsOfScenario}`);
  const failedRanges = bars.some(([, b]) => !b.estimate.exact && b.estimate.reason === 'failed');
  const boundedRanges = bars.some(([, b]) => !b.estimate.exact && b.estimate.reason === 'bounded');
  const empty = !key
    ? `p${percentile} is not computed; choose one of ${PERCENTILE_KEYS.join(', ')}.`
    : !shownOp
      ? 'No run has an operation to show.'
      : rows.length === 0
        ? `No run has p${percentile} of ${shownOp}.`
        : null;

  const note = (
    <>
      {shownOp} p{percentile}, merged across clients
      {sweeps.length > 0 && <> · several runs of one scenario: the highest-throughput run is shown ({sweeps.join('; ')})</>}
      {failedRanges && <> · including failed: {shownOp} and {shownOp}-FAILED are recorded separately, so the merged p{percentile} is only known to lie between their own p{percentile} (dashed range)</>}
      {boundedRanges && <> · dashed range: only per-client summaries, the merged value lies within</>}
    </>
  );

  return (
    <ChartFrame id="by-scenario" title={`p${percentile} by scenario`} note={note} seriesCount={systems.length} empty={empty} csv={() => byScenarioCsv(rows, systems, shownOp ?? '', percentile)}>
      {!embedded && (
        <label className="small">
          <input type="checkbox" checked={includeFailed} onChange={(e) => onIncludeFailed(e.target.checked)} /> include failed operations (successful only when unticked)
        </label>
      )}
      <ChartContainer height={380}>
        <BarChart data={rows} margin={{ top: 10, right: 30, bottom: 20, left: 10 }}>
          <CartesianGrid {...GRID} vertical={false} />
          <XAxis dataKey="scenario" label={{ value: 'workload mix · request distribution', position: 'insideBottom', offset: -10, fill: 'var(--muted)' }} {...AXIS} />
          <YAxis
            domain={[0, 'auto']}
            tickFormatter={(v: number) => (v / scale.divisor).toLocaleString('en-US')}
            label={{ value: `${shownOp ?? ''} p${percentile} (${scale.unit})`, angle: -90, position: 'insideLeft', fill: 'var(--muted)' }}
            {...AXIS}
          />
          <Tooltip
            contentStyle={TOOLTIP_STYLE}
            cursor={{ fill: 'var(--grid)', fillOpacity: 0.4 }}
            formatter={(value, name, item) => {
              const bar = (item.payload as ScenarioRow).bars[String(name)];
              const text = Array.isArray(value) ? `between ${formatLatency(Number(value[0]))} and ${formatLatency(Number(value[1]))}` : formatLatency(Number(value));
              return [bar ? `${text} (${bar.run}, ${formatOps(bar.throughput)} ops/s)` : text, name];
            }}
          />
          <Legend verticalAlign="top" formatter={legendName} />
          {systems.map((system) => {
            const colour = colours.get(system) ?? 'var(--accent)';
            return (
              <Bar
                key={system}
                name={system}
                dataKey={(row: ScenarioRow) => barValue(row.bars[system])}
                fill={colour}
                shape={(props: BarShapeProps) => <RangeAwareBar {...props} colour={colour} />}
                isAnimationActive={false}
              >
                <LabelList dataKey={(row: ScenarioRow) => barLabel(row.bars[system])} position="top" fill="var(--text)" fontSize={11} />
              </Bar>
            );
          })}
        </BarChart>
      </ChartContainer>
    </ChartFrame>
  );
}
