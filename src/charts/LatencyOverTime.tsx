import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import type { SlaRule } from '../analysis/sla.ts';
import type { ChartResult, TimeSeries } from '../engine/chart-queries.ts';
import { formatLatency, formatOffset, latencyScale } from '../display/format.ts';
import { toCsv } from '../display/export.ts';
import type { RunView } from '../display/run-views.ts';
import { AXIS, ChartFrame, GRID, legendName, TOOLTIP_STYLE } from './ChartFrame.tsx';
import { ChartContainer } from './ChartContainer.tsx';
import { maxRowValue, runOpLines, type RunOpLine } from './PercentileDistribution.tsx';

/**
 * One row per time bucket, one column per series (`key`), null where a series has no value.
 *
 * Buckets start on multiples of `bucketS` in epoch time, so a run's first bucket starts up to
 * bucketS − 1 s before its first second (t ≤ 0) and runs started at different phases would never
 * share a row; a line whose points fall in every other row draws no segments at all. Each bucket is
 * therefore placed at its index × bucketS from the run's first bucket — exact with 1-s buckets and
 * less than one bucket off otherwise, which the chart cannot resolve anyway.
 */
export function latencyRows(series: readonly (Pick<TimeSeries, 't' | 'values'> & { key: string })[], bucketS: number): Record<string, number | null>[] {
  const rows = new Map<number, Record<string, number | null>>();
  const put = (at: number, key: string, value: number | null): void => {
    const row = rows.get(at) ?? { t: at };
    row[key] = value;
    rows.set(at, row);
  };
  for (const s of series) {
    let last: number | null = null;
    s.t.forEach((t, i) => {
      // The first bucket's ceil is −0; max makes it a plain 0 for the axis and the tooltip.
      const at = Math.max(0, Math.ceil(t / bucketS) * bucketS);
      // A bucket with no request between two points (an outage, two runs of one folder): the line
      // breaks there instead of joining its points across the gap, as it does where another
      // line's row has no value of its own (see isolatedPoints).
      if (last !== null && at - last > bucketS) put(last + bucketS, s.key, null);
      put(at, s.key, s.values[i] ?? null);
      last = at;
    });
  }
  return [...rows].sort(([a], [b]) => a - b).map(([, row]) => row);
}

const TICK_STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400];

/**
 * Ticks at round minutes and seconds (0:05, 0:10 …) from 0 to `maxS`: a plain numeric axis picks
 * steps such as 7 s. The time charts' grids draw their vertical lines at these too: left to itself,
 * Recharts' grid takes every row's time as a candidate line and measures each one's label in the
 * DOM (a forced layout each, ~800 for an hour in 2-s buckets), on every render of the chart.
 */
export function timeTicks(maxS: number, maxTicks = 10): number[] {
  const step = TICK_STEPS_S.find((s) => maxS / s <= maxTicks) ?? Math.ceil(maxS / maxTicks / 86_400) * 86_400;
  return Array.from({ length: Math.floor(maxS / step) + 1 }, (_, i) => i * step);
}

type LatencyResult = Extract<ChartResult, { kind: 'latency-over-time' }>;

/**
 * The lines of the shown runs' series, the rows they are drawn from (see latencyRows), and the lines
 * that have at least one value to draw.
 */
export function latencyOverTimeData(result: LatencyResult, views: readonly RunView[], colours: ReadonlyMap<string, string>): { lines: RunOpLine[]; rows: Record<string, number | null>[]; drawn: RunOpLine[] } {
  const shown = result.series.filter((s) => views.some((v) => v.run.id === s.runId));
  const lines = runOpLines(shown, views, colours);
  const rows = latencyRows(
    shown.map((s, i) => ({ key: lines[i]?.key ?? '', t: s.t, values: s.values })),
    result.bucketS,
  );
  const drawn = lines.filter((l) => rows.some((r) => r[l.key] !== undefined && r[l.key] !== null));
  return { lines, rows, drawn };
}

/**
 * The rows where line `key` has a value and neither row beside it has one: a line draws no segment
 * there, so such a point is drawn as a dot (an operation of a few requests a second, beside busy
 * ones whose rows it has no value in).
 */
export function isolatedPoints(rows: readonly Record<string, number | null>[], key: string): Set<number> {
  const has = (i: number): boolean => rows[i]?.[key] !== undefined && rows[i]?.[key] !== null;
  return new Set(rows.flatMap((_, i) => (has(i) && !has(i - 1) && !has(i + 1) ? [i] : [])));
}

/** One row per drawn point: seconds from the run's start (as placed on the axis) and the percentile in µs. */
export function latencyOverTimeCsv({ rows, drawn }: { rows: readonly Record<string, number | null>[]; drawn: readonly RunOpLine[] }, percentile: number): string {
  const header = ['series', 'run', 'op', 't_s', `p${percentile}_us`];
  const out = drawn.flatMap((l) => rows.flatMap((r) => {
    const value = r[l.key];
    return value === undefined || value === null ? [] : [[l.name, l.run, l.op, r.t ?? null, value]];
  }));
  return toCsv(header, out);
}

/** The chosen percentile of each time bucket's merged histogram, one line per (run, op). */
export function LatencyOverTimeChart({
  result,
  views,
  colours,
  sla,
  height = 380,
}: {
  result: LatencyResult | null;
  views: RunView[];
  colours: Map<string, string>;
  sla: SlaRule | null;
  height?: number;
}) {
  if (!result) return <ChartFrame id="latency-over-time" title="Latency over time" seriesCount={0} empty="Computing…">{null}</ChartFrame>;
  const p = result.percentile;
  const shaped = latencyOverTimeData(result, views, colours);
  const { rows, drawn } = shaped;
  const maxT = Math.max(0, ...rows.map((r) => r.t ?? 0));
  const ticks = timeTicks(maxT);
  // A line of one or two points draws no visible segment: its points are marked instead.
  const sparse = new Set(drawn.filter((l) => rows.filter((r) => r[l.key] !== undefined && r[l.key] !== null).length < 3).map((l) => l.key));
  const slaShown = sla !== null && sla.percentile === p;
  const scale = latencyScale(Math.max(1, maxRowValue(rows, drawn.map((l) => l.key)), slaShown ? sla.maxLatencyUs : 0));
  return (
    <ChartFrame
      id="latency-over-time"
      title={`p${p} latency over time`}
      note={`p${p} of each ${result.bucketS}-s bucket's merged histogram (all clients' buckets summed, then the percentile read once) — not an average or maximum of per-client percentiles`}
      seriesCount={drawn.length}
      empty={drawn.length === 0 ? 'No latency time series in the ticked runs: tick a run with HdrHistogram or raw CSV results (summaries have none).' : null}
      csv={() => latencyOverTimeCsv(shaped, p)}
    >
      <ChartContainer height={height} legend={drawn.map((l) => l.name)}>
        <LineChart data={rows} margin={{ top: 10, right: 30, bottom: 20, left: 10 }}>
          <CartesianGrid {...GRID} verticalValues={ticks} />
          <XAxis type="number" dataKey="t" domain={[0, maxT]} ticks={ticks} tickFormatter={formatOffset} label={{ value: 'time since run start', position: 'insideBottom', offset: -10, fill: 'var(--muted)' }} {...AXIS} />
          <YAxis
            domain={[0, 'auto']}
            tickFormatter={(v: number) => (v / scale.divisor).toLocaleString('en-US')}
            label={{ value: `p${p} (${scale.unit})`, angle: -90, position: 'insideLeft', fill: 'var(--muted)' }}
            {...AXIS}
          />
          <Tooltip contentStyle={TOOLTIP_STYLE} labelFormatter={(t) => `${formatOffset(Number(t))} from start`} formatter={(v) => formatLatency(Number(v))} />
          <Legend verticalAlign="top" iconType="plainline" iconSize={22} formatter={legendName} />
          {drawn.map((l) => {
            const alone = sparse.has(l.key) ? null : isolatedPoints(rows, l.key);
            const dot = alone === null ? { r: 3 } : alone.size === 0 ? false : (d: { cx?: number; cy?: number; index?: number }) => (alone.has(d.index ?? -1) ? <circle key={`${l.key}-${d.index}`} cx={d.cx} cy={d.cy} r={2.5} fill={l.colour} /> : <g key={`${l.key}-${d.index}`} />);
            return <Line key={l.key} dataKey={l.key} name={l.name} stroke={l.colour} strokeDasharray={l.dash} strokeWidth={1.5} dot={dot} isAnimationActive={false} />;
          })}
          {slaShown && <ReferenceLine y={sla.maxLatencyUs} stroke="var(--fail)" strokeDasharray="4 4" label={{ value: `SLA p${sla.percentile} of ${sla.op} ≤ ${formatLatency(sla.maxLatencyUs)}`, fill: 'var(--fail)', position: 'insideTopRight' }} />}
        </LineChart>
      </ChartContainer>
    </ChartFrame>
  );
}
