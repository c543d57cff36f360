import { CartesianGrid, ComposedChart, ErrorBar, Line, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import type { HistoryChange, HistorySeries } from '../analysis/history.ts';
import { toCsv } from '../display/export.ts';
import { formatLatency, formatOps, formatPct, latencyScale } from '../display/format.ts';
import { AXIS, ChartFrame, GRID, TOOLTIP_STYLE } from './ChartFrame.tsx';
import { ChartContainer } from './ChartContainer.tsx';

/**
 * One figure of a history over its runs: each run's value with its 95% interval (whiskers), the
 * level of each stretch between change points (dashed), and each change point as a vertical line
 * at the run where it starts, labelled with its ratio.
 */

interface Row {
  run: string;
  index: number;
  value: number | null;
  /** Distances below and above the value to the interval's ends, as ErrorBar draws them. */
  ci: [number, number] | null;
  level: number;
}

const isLatency = (stat: string) => stat.startsWith('p');

export function formatHistoryValue(stat: string, v: number | null): string {
  if (v === null) return '–';
  if (stat === 'errors') return formatPct(v * 100, 2);
  if (stat === 'throughput') return `${formatOps(v)} ops/s`;
  return formatLatency(v);
}

/** The level of each run: the before/after of the change points around it. */
function levels(series: HistorySeries): number[] {
  const { points, changes } = series;
  return points.map((_, i) => {
    const next = changes.find((c) => c.index > i);
    const last = [...changes].reverse().find((c) => c.index <= i);
    return last ? last.after : next ? next.before : Number.NaN;
  });
}

export function historyCsv(series: HistorySeries): string {
  const changeAt = new Map(series.changes.map((c) => [c.index, c]));
  return toCsv(
    ['run', 'op', 'stat', 'value', 'ci_low', 'ci_high', 'change_ratio', 'change_p_value'],
    series.points.map((p, i) => [p.run, series.op, series.stat, p.value, p.ciLow, p.ciHigh, changeAt.get(i)?.ratio ?? null, changeAt.get(i)?.pValue ?? null]),
  );
}

export function HistoryChart({ series, onChange }: { series: HistorySeries; onChange?: (change: HistoryChange) => void }) {
  const level = levels(series);
  const rows: Row[] = series.points.map((p, i) => ({
    run: p.run,
    index: i,
    value: p.value,
    ci: p.value !== null && p.ciLow !== null && p.ciHigh !== null ? [p.value - p.ciLow, p.ciHigh - p.value] : null,
    level: level[i] as number,
  }));
  const max = Math.max(1, ...series.points.map((p) => p.ciHigh ?? p.value ?? 0));
  const scale = isLatency(series.stat) ? latencyScale(max) : null;
  const tick = (v: number) => (scale ? (v / scale.divisor).toLocaleString('en-US', { maximumFractionDigits: 2 }) : series.stat === 'errors' ? formatPct(v * 100, 2) : formatOps(v));
  const unit = scale ? scale.unit : series.stat === 'errors' ? 'share failed' : 'ops/s';
  const note = (
    <>
      each run's value with its 95% interval (block bootstrap of its seconds); dashed: the level between change points; vertical lines: where a change starts
      {series.note && <> · {series.note}</>}
    </>
  );
  return (
    <ChartFrame id="history" title={`${series.op} ${series.stat} by run`} note={note} seriesCount={1} csv={() => historyCsv(series)} empty={series.points.length === 0 ? 'No runs.' : null}>
      <ChartContainer height={380}>
        <ComposedChart data={rows} margin={{ top: 24, right: 30, bottom: 40, left: 10 }}>
          <CartesianGrid {...GRID} />
          <XAxis dataKey="run" interval="preserveStartEnd" angle={-30} textAnchor="end" height={50} {...AXIS} />
          <YAxis domain={[0, 'auto']} tickFormatter={tick} width={80} label={{ value: `${series.stat} (${unit})`, angle: -90, position: 'insideLeft', fill: 'var(--muted)' }} {...AXIS} />
          <Tooltip
            contentStyle={TOOLTIP_STYLE}
            formatter={(value, name, item) => {
              const row = item.payload as Row;
              const p = series.points[row.index];
              if (item.dataKey === 'level') return [formatHistoryValue(series.stat, Number(value)), 'level'];
              return [`${formatHistoryValue(series.stat, row.value)}${p && p.ciLow !== null ? ` (95%: ${formatHistoryValue(series.stat, p.ciLow)} – ${formatHistoryValue(series.stat, p.ciHigh)})` : ''}`, name];
            }}
          />
          <Line type="stepAfter" dataKey="level" stroke="var(--muted)" strokeDasharray="6 4" dot={false} isAnimationActive={false} connectNulls />
          <Line dataKey="value" name={series.stat} stroke="var(--accent)" strokeWidth={2} dot={{ r: 3 }} isAnimationActive={false}>
            <ErrorBar dataKey="ci" width={4} stroke="var(--accent)" direction="y" isAnimationActive={false} />
          </Line>
          {series.changes.map((c) => (
            <ReferenceLine
              key={c.index}
              x={c.run}
              stroke="var(--warn, #d97706)"
              strokeWidth={2}
              className="history-change"
              label={{ value: `×${c.ratio.toFixed(2)}`, position: 'top', fill: 'var(--text)', fontSize: 12 }}
              onClick={onChange ? () => onChange(c) : undefined}
            />
          ))}
        </ComposedChart>
      </ChartContainer>
    </ChartFrame>
  );
}
