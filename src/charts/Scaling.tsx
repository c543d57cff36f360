import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { formatLatency, formatOps, formatPct, latencyScale } from '../display/format.ts';
import { toCsv } from '../display/export.ts';
import type { RunView } from '../display/run-views.ts';
import { chartOp, percentileKey, scenarioOf } from './ByScenario.tsx';
import { AXIS, ChartFrame, GRID, legendName, TOOLTIP_STYLE } from './ChartFrame.tsx';
import { ChartContainer } from './ChartContainer.tsx';
import type { PercentileKey } from '../model/percentiles.ts';

export interface ScalingPoint {
  nodes: number;
  throughput: number;
  /** Throughput of the smallest cluster × nodes / its nodes: what perfectly linear scaling would give. */
  linear: number;
  /** Merged pXX of the chart's operation; null when not exactly known. */
  latency: number | null;
  run: string;
}

export interface ScalingSeries {
  name: string;
  system: string;
  points: ScalingPoint[];
  /** Runs not drawn because the series has a higher-throughput run at the same cluster size. */
  skipped: number;
}

/** Linear-scaling reference for points sorted by nodes: the smallest cluster's throughput per node × nodes. */
export function linearReference(points: readonly { nodes: number; throughput: number }[]): number[] {
  const first = points[0];
  if (!first) return [];
  return points.map((p) => (first.throughput * p.nodes) / first.nodes);
}

/**
 * One series per system (and per workload mix · distribution when the runs have several): at each
 * cluster size its highest-throughput run, since a load sweep at one size has one capacity.
 */
export function scalingSeries(views: readonly RunView[], key: PercentileKey | null, op: string | null): ScalingSeries[] {
  const sized = views.filter((v): v is RunView & { nodes: number } => v.nodes !== null && v.nodes > 0 && v.run.throughput !== null);
  const severalScenarios = new Set(sized.map(scenarioOf)).size > 1;
  const groups = new Map<string, { system: string; bySize: Map<number, RunView[]> }>();
  for (const v of sized) {
    const name = severalScenarios ? `${v.system} · ${scenarioOf(v)}` : v.system;
    const g = groups.get(name) ?? { system: v.system, bySize: new Map<number, RunView[]>() };
    g.bySize.set(v.nodes, [...(g.bySize.get(v.nodes) ?? []), v]);
    groups.set(name, g);
  }
  const out: ScalingSeries[] = [];
  for (const [name, g] of groups) {
    const best = [...g.bySize]
      .sort(([a], [b]) => a - b)
      .map(([nodes, runs]) => ({ nodes, run: runs.reduce((a, b) => ((b.run.throughput ?? 0) > (a.run.throughput ?? 0) ? b : a)) }));
    const measured = best.map((b) => ({ nodes: b.nodes, throughput: b.run.run.throughput ?? 0 }));
    const linear = linearReference(measured);
    out.push({
      name,
      system: g.system,
      points: best.map((b, i) => ({
        nodes: b.nodes,
        throughput: measured[i]?.throughput ?? 0,
        linear: linear[i] ?? 0,
        latency: key && op ? (b.run.run.ops[op]?.[key] ?? null) : null,
        run: b.run.label,
      })),
      skipped: [...g.bySize.values()].reduce((n, runs) => n + runs.length - 1, 0),
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
}

/**
 * One row per plotted cluster size of each series: measured throughput, the linear reference, and
 * pXX of `op` in µs (empty when not exactly known, as the chart leaves that point out).
 */
export function scalingCsv(series: readonly ScalingSeries[], op: string | null, percentile: number): string {
  const header = ['series', 'system', 'nodes', 'throughput_ops_s', 'linear_ops_s', 'op', `p${percentile}_us`, 'run'];
  const rows = series.flatMap((s) => s.points.map((p) => [s.name, s.system, p.nodes, p.throughput, p.linear, op, p.latency, p.run]));
  return toCsv(header, rows);
}

export function ScalingChart({ views, colours, percentile, op }: { views: RunView[]; colours: Map<string, string>; percentile: number; op: string }) {
  const key = percentileKey(percentile);
  const shownOp = chartOp(views, op);
  const series = scalingSeries(views, key, shownOp);
  const nodeTicks = [...new Set(series.flatMap((s) => s.points.map((p) => p.nodes)))].sort((a, b) => a - b);
  const latencies = series.flatMap((s) => s.points.map((p) => p.latency)).filter((l): l is number => l !== null);
  const scale = latencyScale(Math.max(1, ...latencies));
  const skipped = series.reduce((n, s) => n + s.skipped, 0);
  const unsized = views.filter((v) => v.nodes === null).length;
  const showLatency = latencies.length > 0;

  const note = (
    <>
      best run per cluster size; dashed: linear scaling from the smallest cluster (its throughput × nodes ÷ its nodes)
      {showLatency && <>; dotted, right axis: {shownOp} p{percentile} (merged, exact values only)</>}
      {skipped > 0 && <> · {skipped} lower-throughput run(s) at an already-plotted size not drawn</>}
      {unsized > 0 && <> · {unsized} run(s) without a cluster size left out</>}
    </>
  );

  return (
    <ChartFrame
      id="scaling"
      title="Throughput vs cluster size"
      note={note}
      seriesCount={series.length}
      empty={series.length === 0 ? "Enter each run's cluster size (nodes) in the Runs table to see how throughput scales." : null}
      csv={() => scalingCsv(series, shownOp, percentile)}
    >
      <ChartContainer height={380}>
        <LineChart margin={{ top: 10, right: 30, bottom: 20, left: 10 }}>
          <CartesianGrid {...GRID} />
          <XAxis
            type="number"
            dataKey="nodes"
            domain={['dataMin', 'dataMax']}
            ticks={nodeTicks}
            padding={{ left: 30, right: 30 }}
            label={{ value: 'cluster size (nodes)', position: 'insideBottom', offset: -10, fill: 'var(--muted)' }}
            {...AXIS}
          />
          <YAxis yAxisId="ops" domain={[0, 'auto']} tickFormatter={(v: number) => formatOps(v)} label={{ value: 'throughput (ops/s)', angle: -90, position: 'insideLeft', fill: 'var(--muted)' }} width={80} {...AXIS} />
          {showLatency && (
            <YAxis
              yAxisId="latency"
              orientation="right"
              domain={[0, 'auto']}
              tickFormatter={(v: number) => (v / scale.divisor).toLocaleString('en-US')}
              label={{ value: `${shownOp ?? ''} p${percentile} (${scale.unit})`, angle: 90, position: 'insideRight', fill: 'var(--muted)' }}
              {...AXIS}
            />
          )}
          <Tooltip
            contentStyle={TOOLTIP_STYLE}
            labelFormatter={(n) => `${String(n)} nodes`}
            formatter={(value, name, item) => {
              const p = item.payload as ScalingPoint;
              if (item.dataKey === 'latency') return [formatLatency(Number(value)), name];
              if (item.dataKey === 'linear') return [`${formatOps(Number(value))} ops/s`, name];
              return [`${formatOps(Number(value))} ops/s (${formatPct((p.throughput / p.linear) * 100, 0)} of linear; ${p.run})`, name];
            }}
          />
          <Legend verticalAlign="top" formatter={legendName} />
          {series.map((s) => {
            const colour = colours.get(s.system) ?? 'var(--accent)';
            return [
              <Line key={`${s.name}-ops`} yAxisId="ops" name={s.name} data={s.points} dataKey="throughput" stroke={colour} strokeWidth={2} dot={{ r: 4 }} isAnimationActive={false} />,
              <Line key={`${s.name}-linear`} yAxisId="ops" name={`${s.name} linear`} legendType="none" data={s.points} dataKey="linear" stroke={colour} strokeDasharray="6 4" strokeWidth={1} dot={false} isAnimationActive={false} />,
              showLatency && (
                <Line
                  key={`${s.name}-latency`}
                  yAxisId="latency"
                  name={`${s.name} p${percentile}`}
                  legendType="none"
                  data={s.points.filter((p) => p.latency !== null)}
                  dataKey="latency"
                  stroke={colour}
                  strokeDasharray="2 3"
                  strokeWidth={1.5}
                  dot={{ r: 3, strokeDasharray: '' }}
                  isAnimationActive={false}
                />
              ),
            ];
          })}
        </LineChart>
      </ChartContainer>
    </ChartFrame>
  );
}
