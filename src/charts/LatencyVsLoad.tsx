import { CartesianGrid, Legend, Line, LineChart, ReferenceDot, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import { findKnee } from '../analysis/sweep.ts';
import type { SlaRule } from '../analysis/sla.ts';
import { formatLatency, formatOps, latencyScale } from '../display/format.ts';
import { toCsv } from '../display/export.ts';
import type { RunView } from '../display/run-views.ts';
import { AXIS, ChartFrame, GRID, legendName, TOOLTIP_STYLE } from './ChartFrame.tsx';
import { ChartContainer } from './ChartContainer.tsx';
import type { PercentileKey } from '../model/percentiles.ts';

export interface LoadPoint {
  x: number;
  y: number;
  run: string;
}

export interface LoadSeries {
  system: string;
  workload: string;
  distribution: string;
  op: string;
  points: LoadPoint[];
}

/**
 * One line per sweep — a system running one workload mix and distribution at several load levels —
 * and per operation when several are shown. Runs of other mixes are other lines, never joined.
 */
export function latencyVsLoadSeries(views: readonly RunView[], percentile: number, ops: readonly string[], xAxis: 'throughput' | 'utilisation') {
  const key = `p${percentile}` as PercentileKey;
  const out = new Map<string, LoadSeries>();
  for (const v of views) {
    if (v.hidden) continue;
    const x = xAxis === 'throughput' ? v.run.throughput : v.utilisationPct;
    if (x === null) continue;
    for (const op of ops) {
      const y = v.run.ops[op]?.[key];
      if (y === null || y === undefined) continue;
      // Runs labelled by nothing (an HTTP tool's) form one line per operation, named by it.
      const labels = [v.system, v.workload, v.distribution].filter(Boolean);
      const name = [...labels, ops.length > 1 || labels.length === 0 ? op : ''].filter(Boolean).join(' · ');
      const s = out.get(name) ?? { system: v.system, workload: v.workload, distribution: v.distribution, op, points: [] };
      s.points.push({ x, y, run: v.label });
      out.set(name, s);
    }
  }
  for (const s of out.values()) s.points.sort((a, b) => a.x - b.x);
  return out;
}

/** The points the chart draws, one row per point: x in ops/s or % of capacity, the percentile in µs. */
export function latencyVsLoadCsv(series: ReadonlyMap<string, LoadSeries>, percentile: number, xAxis: 'throughput' | 'utilisation'): string {
  const header = ['series', 'system', 'workload', 'distribution', 'op', xAxis === 'throughput' ? 'throughput_ops_s' : 'utilisation_pct', `p${percentile}_us`, 'run'];
  const rows = [...series].flatMap(([name, s]) => s.points.map((p) => [name, s.system, s.workload, s.distribution, s.op, p.x, p.y, p.run]));
  return toCsv(header, rows);
}

export function LatencyVsLoadChart({ views, colours, percentile, ops, xAxis, sla }: { views: RunView[]; colours: Map<string, string>; percentile: number; ops: string[]; xAxis: 'throughput' | 'utilisation'; sla: SlaRule | null }) {
  const series = latencyVsLoadSeries(views, percentile, ops, xAxis);
  const maxY = Math.max(1, ...[...series.values()].flatMap((s) => s.points.map((p) => p.y)), sla && sla.percentile === percentile ? sla.maxLatencyUs : 0);
  const scale = latencyScale(maxY);
  const dash = ['', '6 3', '2 2', '8 3 2 3'];
  return (
    <ChartFrame
      id="latency-vs-load"
      title={`p${percentile} latency vs ${xAxis === 'throughput' ? 'throughput' : 'utilisation'}`}
      note="merged across clients from summed histogram buckets; ○ marks the knee"
      seriesCount={series.size}
      empty={series.size === 0 ? 'No run has this percentile for the selected operation.' : null}
      csv={() => latencyVsLoadCsv(series, percentile, xAxis)}
    >
      <ChartContainer height={380} legend={[...series.keys()]}>
        <LineChart margin={{ top: 10, right: 30, bottom: 20, left: 10 }}>
          <CartesianGrid {...GRID} />
          <XAxis
            type="number"
            dataKey="x"
            domain={xAxis === 'utilisation' ? [0, 'auto'] : ['auto', 'auto']}
            tickFormatter={(v: number) => (xAxis === 'utilisation' ? `${v.toFixed(0)}%` : formatOps(v))}
            label={{ value: xAxis === 'utilisation' ? 'utilisation (% of capacity)' : 'throughput (ops/s)', position: 'insideBottom', offset: -10, fill: 'var(--muted)' }}
            {...AXIS}
          />
          <YAxis type="number" dataKey="y" tickFormatter={(v: number) => (v / scale.divisor).toLocaleString('en-US')} label={{ value: `p${percentile} (${scale.unit})`, angle: -90, position: 'insideLeft', fill: 'var(--muted)' }} {...AXIS} />
          <Tooltip
            contentStyle={TOOLTIP_STYLE}
            formatter={(value) => formatLatency(Number(value))}
            labelFormatter={(x) => (xAxis === 'utilisation' ? `${Number(x).toFixed(1)}% utilisation` : `${formatOps(Number(x))} ops/s`)}
          />
          <Legend verticalAlign="top" formatter={legendName} />
          {[...series].map(([name, s]) => (
            <Line key={name} name={name} data={s.points} dataKey="y" stroke={colours.get(s.system)} strokeDasharray={dash[ops.indexOf(s.op) % dash.length]} strokeWidth={2} dot={{ r: 3 }} isAnimationActive={false} />
          ))}
          {[...series].map(([name, s]) => {
            const knee = findKnee(s.points);
            const p = knee !== null ? s.points[knee] : undefined;
            return p ? <ReferenceDot key={`knee-${name}`} x={p.x} y={p.y} r={8} fill="none" stroke={colours.get(s.system)} strokeWidth={2} label={{ value: 'knee', position: 'top', fill: 'var(--muted)', fontSize: 11 }} /> : null;
          })}
          {sla && sla.percentile === percentile && <ReferenceLine y={sla.maxLatencyUs} stroke="var(--fail)" strokeDasharray="4 4" label={{ value: `SLA p${sla.percentile} ≤ ${formatLatency(sla.maxLatencyUs)}`, fill: 'var(--fail)', position: 'insideTopRight' }} />}
          {sla?.minThroughputOpsPerS && xAxis === 'throughput' && <ReferenceLine x={sla.minThroughputOpsPerS} stroke="var(--fail)" strokeDasharray="4 4" />}
        </LineChart>
      </ChartContainer>
    </ChartFrame>
  );
}
