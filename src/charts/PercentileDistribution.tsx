import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { ChartResult } from '../engine/chart-queries.ts';
import { formatLatency, latencyScale } from '../display/format.ts';
import { toCsv, type Cell } from '../display/export.ts';
import { seriesColour, type RunView } from '../display/run-views.ts';
import { AXIS, ChartFrame, GRID, legendName, TOOLTIP_STYLE } from './ChartFrame.tsx';
import { ChartContainer } from './ChartContainer.tsx';

/** The highest percentile the log axis shows: 1/(1−p) is infinite at p = 100. */
export const MAX_AXIS_PERCENTILE = 99.999;

/**
 * Position of percentile `p` on the HdrHistogram-style axis, log10(1/(1−p/100)): 90% → 1,
 * 99% → 2, 99.9% → 3. Percentiles above MAX_AXIS_PERCENTILE are clamped so the result stays finite.
 */
export function percentileAxisX(p: number): number {
  return Math.log10(100 / (100 - Math.min(p, MAX_AXIS_PERCENTILE)));
}

/** The percentile at axis position `x`, rounded so that 3 reads back as 99.9 rather than 99.89999999. */
export function percentileFromAxis(x: number): number {
  return Number((100 * (1 - 10 ** -x)).toFixed(6));
}

/**
 * X-axis props shared by every chart drawn against the log percentile axis (rows carry `x`). The
 * domain ends at 5 exactly: percentileAxisX(99.999) is 4.9999999999998 in floating point, and a
 * domain ending there would leave the 99.999% tick outside it.
 */
export const PERCENTILE_AXIS = {
  type: 'number',
  dataKey: 'x',
  domain: [0, 5],
  ticks: [0, 1, 2, 3, 4, 5],
  tickFormatter: (x: number) => `${percentileFromAxis(x)}%`,
  label: { value: 'percentile (log scale of 1/(1−p))', position: 'insideBottom', offset: -10, fill: 'var(--muted)' },
} as const;

export function formatPercentileLabel(x: unknown): string {
  return `p${percentileFromAxis(Number(x))}`;
}

export interface DistributionSeries {
  /** Recharts dataKey: plain, because dots in a key would be read as a property path. */
  key: string;
  percentiles: readonly number[];
  values: readonly number[];
}

/**
 * The points of a series the log axis draws. Percentiles beyond MAX_AXIS_PERCENTILE (the maximum,
 * p100) are dropped: clamped, they would sit on the same x as p99.999 with another value and draw a
 * vertical spike that no percentile has.
 */
export function distributionPoints(s: Omit<DistributionSeries, 'key'>): { p: number; value: number }[] {
  const out: { p: number; value: number }[] = [];
  s.percentiles.forEach((p, i) => {
    const value = s.values[i];
    if (p <= MAX_AXIS_PERCENTILE && value !== undefined) out.push({ p, value });
  });
  return out;
}

/** One row per percentile, `x` on the log axis and one column per series (see distributionPoints). */
export function distributionRows(series: readonly DistributionSeries[]): Record<string, number>[] {
  const rows = new Map<number, Record<string, number>>();
  for (const s of series) {
    for (const { p, value } of distributionPoints(s)) {
      const row = rows.get(p) ?? { x: percentileAxisX(p) };
      row[s.key] = value;
      rows.set(p, row);
    }
  }
  return [...rows].sort(([a], [b]) => a - b).map(([, row]) => row);
}

/**
 * One row per drawn point of each line: the percentile (not its axis position) and the latency in
 * µs. `series` holds the lines' data under their keys.
 */
export function distributionCsv<L extends { key: string; name: string }>(lines: readonly L[], series: readonly DistributionSeries[], columns: { header: string[]; cells: (line: L) => Cell[] }): string {
  const rows = lines.flatMap((l) => {
    const s = series.find((x) => x.key === l.key);
    return s ? distributionPoints(s).map(({ p, value }) => [l.name, ...columns.cells(l), p, value]) : [];
  });
  return toCsv(['series', ...columns.header, 'percentile', 'latency_us'], rows);
}

/** The largest value among the rows' series columns (latencies, µs). */
export function maxRowValue(rows: readonly Record<string, number | null>[], keys: readonly string[]): number {
  let max = 0;
  for (const row of rows) for (const k of keys) max = Math.max(max, row[k] ?? 0);
  return max;
}

/** Dash patterns per operation, in the order the operations are shown: solid first. */
export const OP_DASHES = ['', '6 3', '2 2', '8 3 2 3'] as const;

/**
 * A colour per run: the system's colour, fainter (towards the panel background) for the least
 * loaded of its runs and stronger (towards the text colour) for the most loaded — unthrottled counts
 * as most — so runs of one system stay recognisably that system. Mixing with the theme's own
 * colours keeps both ends visible on light and dark backgrounds.
 */
export function runColours(views: readonly RunView[], colours: ReadonlyMap<string, string>): Map<number, string> {
  const out = new Map<number, string>();
  const bySystem = new Map<string, RunView[]>();
  for (const v of views) bySystem.set(v.system, [...(bySystem.get(v.system) ?? []), v]);
  for (const [system, runs] of bySystem) {
    const base = colours.get(system) ?? 'var(--text)';
    const load = (v: RunView) => v.offeredOpsPerS ?? Number.POSITIVE_INFINITY;
    const sorted = [...runs].sort((a, b) => load(a) - load(b) || a.label.localeCompare(b.label, 'en', { numeric: true }));
    sorted.forEach((v, i) => {
      const f = sorted.length === 1 ? 0.5 : i / (sorted.length - 1);
      const towards = f < 0.5 ? { colour: 'var(--panel)', pct: Math.round((0.5 - f) * 2 * 40) } : { colour: 'var(--text)', pct: Math.round((f - 0.5) * 2 * 40) };
      out.set(v.run.id, towards.pct === 0 ? base : `color-mix(in srgb, ${base}, ${towards.colour} ${towards.pct}%)`);
    });
  }
  return out;
}

export interface RunOpLine {
  key: string;
  name: string;
  colour: string;
  dash: string;
  /** The run's label and the operation, whatever the name leaves out. */
  run: string;
  op: string;
}

/**
 * One line per (run, op) of the result's series whose run is shown; names carry the run label only
 * when several runs are drawn and the operation only when several operations are. Shades come from
 * all the views, not only the drawn runs, so a run keeps its shade from chart to chart.
 */
export function runOpLines(series: readonly { runId: number; op: string }[], views: readonly RunView[], colours: ReadonlyMap<string, string>): RunOpLine[] {
  const shown = series.filter((s) => views.some((v) => v.run.id === s.runId));
  const ops = [...new Set(shown.map((s) => s.op))];
  const severalRuns = new Set(shown.map((s) => s.runId)).size > 1;
  const shades = runColours(views, colours);
  // One run's operations are told apart by colour (four dash patterns do not tell ten apart);
  // several runs' by the run's colour and the operation's dash.
  const byOp = !severalRuns && ops.length > 1;
  return shown.map((s, i) => {
    const label = views.find((v) => v.run.id === s.runId)?.label ?? String(s.runId);
    return {
      key: `s${i}`,
      name: [severalRuns || ops.length === 1 ? label : '', ops.length > 1 ? s.op : ''].filter(Boolean).join(' · '),
      colour: byOp ? seriesColour(ops.indexOf(s.op)) : (shades.get(s.runId) ?? 'var(--text)'),
      dash: byOp ? '' : (OP_DASHES[ops.indexOf(s.op) % OP_DASHES.length] ?? ''),
      run: label,
      op: s.op,
    };
  });
}

/**
 * Latency lines against the log percentile axis, the latency unit chosen for the largest value the
 * lines draw: what the percentile and intended-vs-actual charts draw alike.
 */
export function PercentileLineChart({ rows, lines }: { rows: Record<string, number>[]; lines: readonly Pick<RunOpLine, 'key' | 'name' | 'colour' | 'dash'>[] }) {
  const scale = latencyScale(Math.max(1, maxRowValue(rows, lines.map((l) => l.key))));
  return (
    <ChartContainer height={380} legend={lines.map((l) => l.name)}>
      <LineChart data={rows} margin={{ top: 10, right: 30, bottom: 20, left: 10 }}>
        <CartesianGrid {...GRID} />
        <XAxis {...PERCENTILE_AXIS} {...AXIS} />
        <YAxis tickFormatter={(v: number) => (v / scale.divisor).toLocaleString('en-US')} label={{ value: `latency (${scale.unit})`, angle: -90, position: 'insideLeft', fill: 'var(--muted)' }} {...AXIS} />
        <Tooltip contentStyle={TOOLTIP_STYLE} labelFormatter={formatPercentileLabel} formatter={(v) => formatLatency(Number(v))} />
        <Legend verticalAlign="top" iconType="plainline" iconSize={22} formatter={legendName} />
        {lines.map((l) => (
          <Line key={l.key} dataKey={l.key} name={l.name} stroke={l.colour} strokeDasharray={l.dash} strokeWidth={2} dot={false} isAnimationActive={false} />
        ))}
      </LineChart>
    </ChartContainer>
  );
}

type DistributionResult = Extract<ChartResult, { kind: 'percentile-distribution' }>;

/** The lines of the shown runs' series, their data under the lines' keys, the rows drawn, and the lines with something to draw. */
export function percentileDistributionData(result: DistributionResult, views: readonly RunView[], colours: ReadonlyMap<string, string>) {
  const shown = result.series.filter((s) => views.some((v) => v.run.id === s.runId));
  const lines = runOpLines(shown, views, colours);
  const series: DistributionSeries[] = shown.map((s, i) => ({ key: lines[i]?.key ?? '', percentiles: s.percentiles, values: s.values }));
  const rows = distributionRows(series);
  const drawn = lines.filter((l) => rows.some((r) => r[l.key] !== undefined));
  return { shown, lines, series, rows, drawn };
}

export function percentileDistributionCsv({ drawn, series }: { drawn: readonly RunOpLine[]; series: readonly DistributionSeries[] }): string {
  return distributionCsv(drawn, series, { header: ['run', 'op'], cells: (l) => [l.run, l.op] });
}

/** HdrHistogram-style percentile plot: latency against percentile on a log 1/(1−p) axis, runs × ops overlaid. */
export function PercentileDistributionChart({ result, views, colours }: { result: DistributionResult | null; views: RunView[]; colours: Map<string, string> }) {
  if (!result) return <ChartFrame id="percentiles" title="Percentile distribution" seriesCount={0} empty="Computing…">{null}</ChartFrame>;
  const shaped = percentileDistributionData(result, views, colours);
  const { shown, rows, drawn } = shaped;
  const drawnRuns = views.filter((v) => shown.some((s) => s.runId === v.run.id));
  const shaded = new Set(drawnRuns.map((v) => v.system)).size < drawnRuns.length;
  return (
    <ChartFrame
      id="percentiles"
      title="Percentile distribution"
      note={`each run's latency at each percentile of its merged histogram (all clients' buckets summed)${shaded ? '; colour per system, fainter = lower offered load' : ''}; the axis ends at p${MAX_AXIS_PERCENTILE}, so the maximum is not drawn`}
      seriesCount={drawn.length}
      empty={drawn.length === 0 ? 'No latency histograms for the selected runs and operation.' : null}
      csv={() => percentileDistributionCsv(shaped)}
    >
      <PercentileLineChart rows={rows} lines={drawn} />
    </ChartFrame>
  );
}
