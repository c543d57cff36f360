import { Area, CartesianGrid, ComposedChart, Legend, Line, ReferenceArea, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import { formatStep } from '../analysis/steps.ts';
import type { ChartResult } from '../engine/chart-queries.ts';
import { formatOffset, formatOps, formatPct } from '../display/format.ts';
import { toCsv } from '../display/export.ts';
import type { RunView } from '../display/run-views.ts';
import { MAX_SERIES } from '../state/view-state.ts';
import { AXIS, ChartFrame, GRID, legendName, TOOLTIP_STYLE } from './ChartFrame.tsx';
import { ChartContainer } from './ChartContainer.tsx';
import { timeTicks } from './LatencyOverTime.tsx';

export interface EventAnnotation {
  fromS: number;
  toS: number | null;
  label: string;
}

/**
 * Parses event annotations, one per line: `seconds,label`, `m:ss,label` or a span
 * `start-end,label` (e.g. `600-900,compaction`). Lines that do not parse are returned as errors.
 */
export function parseEvents(text: string): { events: EventAnnotation[]; errors: string[] } {
  const events: EventAnnotation[] = [];
  const errors: string[] = [];
  const time = (t: string): number | null => {
    const parts = t.trim().split(':').map(Number);
    if (parts.length === 0 || parts.length > 3 || parts.some((p) => !Number.isFinite(p) || p < 0)) return null;
    return parts.reduce((a, p) => a * 60 + p, 0);
  };
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '' || /^\s*time\s*,/i.test(line)) return;
    const comma = line.indexOf(',');
    const [fromText, toText] = (comma < 0 ? line : line.slice(0, comma)).split(/\s*-\s*(?=\d)/);
    const fromS = time(fromText ?? '');
    const toS = toText !== undefined ? time(toText) : null;
    if (comma < 0 || fromS === null || (toText !== undefined && toS === null)) errors.push(`line ${i + 1}: expected "seconds,label" or "start-end,label"`);
    else events.push({ fromS, toS, label: line.slice(comma + 1).trim() });
  });
  return { events, errors };
}

type ThroughputResult = Extract<ChartResult, { kind: 'throughput-over-time' }>;

export interface ThroughputArea {
  /** Recharts dataKey and legend name. */
  key: string;
  kind: 'ok' | 'failed';
  runId: number;
  run: string;
  op: string;
}

/**
 * The operations drawn as areas of their own, `ops` first, busiest first: as many as keep the
 * legend to MAX_SERIES entries, the areas of the rest (one per run and status) counted.
 */
function keptOps(result: ThroughputResult, ops: readonly string[]): string[] {
  const all = [...result.ok.map((s) => ({ ...s, kind: 'ok' })), ...result.failed.map((s) => ({ ...s, kind: 'failed' }))];
  const entries = (of: (op: string) => boolean) => new Set(all.filter((s) => of(s.op)).map((s) => `${s.runId}\u0000${s.kind}\u0000${s.op}`)).size;
  const restEntries = (kept: readonly string[]) => new Set(all.filter((s) => !kept.includes(s.op)).map((s) => `${s.runId}\u0000${s.kind}`)).size;
  const volume = (op: string) => all.filter((s) => s.op === op).reduce((a, s) => a + s.values.reduce<number>((x, v) => x + (v ?? 0), 0), 0);
  // The chart's operations first, then those it does not name (an operation whose every request
  // failed is no chart operation, yet has throughput) while the legend has room.
  const named = [...ops].sort((a, b) => volume(b) - volume(a));
  const rest = [...new Set(all.map((s) => s.op))].filter((op) => !ops.includes(op)).sort((a, b) => volume(b) - volume(a));
  const kept: string[] = [];
  for (const op of [...named, ...rest]) {
    const next = [...kept, op];
    if (entries((o) => next.includes(o)) + restEntries(next) > MAX_SERIES) break;
    kept.push(op);
  }
  return [...ops, ...rest].filter((op) => kept.includes(op));
}

/**
 * The chart's areas, successful first then failed, and one row per time bucket with a column per
 * area (`key`); a bucket an area has no value in counts as 0 ops/s, as the stacked chart draws it.
 * With failures, each run's error rate (failed ÷ all requests of the bucket, %) is a column of its
 * own (`rates`), absent from buckets without requests.
 */
export function throughputData(result: ThroughputResult, views: readonly RunView[], ops: readonly string[] | null = null): { runIds: number[]; areas: ThroughputArea[]; rates: { key: string; runId: number }[]; data: Record<string, number>[] } {
  const runIds = [...new Set(result.ok.map((s) => s.runId))];
  const several = runIds.length > 1;
  const runOf = (id: number) => views.find((v) => v.run.id === id)?.label ?? String(id);
  const rows = new Map<number, Record<string, number>>();
  const areas: ThroughputArea[] = [];
  // Operations not drawn on their own are summed into one area per run and status, so the stack
  // keeps every request while the legend stays short.
  const kept = ops === null ? null : keptOps(result, ops);
  const others = kept === null ? 0 : new Set([...result.ok, ...result.failed].map((s) => s.op).filter((op) => !kept.includes(op))).size;
  const other = `${others} other operation${others === 1 ? '' : 's'}`;
  for (const [kind, list] of [
    ['ok', result.ok],
    ['failed', result.failed],
  ] as const) {
    for (const s of list) {
      const op = kept === null || kept.includes(s.op) ? s.op : other;
      const key = `${several ? `${runOf(s.runId)} ` : ''}${op}${kind === 'failed' ? ' failed' : ''}`;
      if (!areas.some((a) => a.key === key)) areas.push({ key, kind, runId: s.runId, run: runOf(s.runId), op });
      s.t.forEach((t, i) => {
        const row = rows.get(t) ?? { t };
        row[key] = (row[key] ?? 0) + (s.values[i] ?? 0);
        rows.set(t, row);
      });
    }
  }
  // The summed rest last among its status's areas: the legend lists the named operations first.
  areas.sort((a, b) => (a.kind === b.kind ? Number(a.op === other) - Number(b.op === other) : a.kind === 'ok' ? -1 : 1));
  // A bucket with no request at all (an outage, the gap between two runs in one folder) is a row
  // of zeros: a step-shaped area would otherwise hold the level before it across the gap. The
  // engine puts every run's buckets on one grid (0, bucketS, 2·bucketS … from each run's start).
  const times = [...rows.keys()].sort((a, b) => a - b);
  for (let k = 1; k < times.length; k++) for (let t = (times[k - 1] as number) + result.bucketS; t < (times[k] as number); t += result.bucketS) rows.set(t, { t });
  const data = [...rows.values()].sort((a, b) => (a.t as number) - (b.t as number));
  for (const row of data) for (const a of areas) row[a.key] ??= 0;
  const failing = runIds.filter((id) => areas.some((a) => a.runId === id && a.kind === 'failed'));
  const rates = failing.map((runId) => ({ key: `${several ? `${runOf(runId)} ` : ''}error rate`, runId }));
  for (const row of data) {
    for (const { key, runId } of rates) {
      let failed = 0;
      let all = 0;
      for (const a of areas) {
        if (a.runId !== runId) continue;
        all += row[a.key] as number;
        if (a.kind === 'failed') failed += row[a.key] as number;
      }
      if (all > 0) row[key] = (failed / all) * 100;
    }
  }
  return { runIds, areas, rates, data };
}

/** One row per area and time bucket, as drawn (not stacked): seconds from the run's start and ops/s. */
export function throughputCsv({ areas, data }: { areas: readonly ThroughputArea[]; data: readonly Record<string, number>[] }): string {
  const header = ['series', 'run', 'op', 'status', 't_s', 'ops_per_s'];
  const rows = areas.flatMap((a) => data.map((row) => [a.key, a.run, a.op, a.kind, row.t ?? null, row[a.key] ?? null]));
  return toCsv(header, rows);
}

/** Ops/s over time, per operation, successful stacked with failed (throttled); detected steps marked. */
export function ThroughputOverTimeChart({ result, views, events, ops = null, height = 420 }: { result: ThroughputResult | null; views: RunView[]; events: EventAnnotation[]; ops?: readonly string[] | null; height?: number }) {
  if (!result) return <ChartFrame id="throughput" title="Throughput over time" seriesCount={0} empty="Computing…">{null}</ChartFrame>;
  const shaped = throughputData(result, views, ops);
  const { runIds, areas: seriesNames, rates, data } = shaped;
  const several = runIds.length > 1;
  const viewOf = (id: number) => views.find((v) => v.run.id === id);
  const okColours = ['#2563eb', '#16a34a', '#9333ea', '#0891b2', '#ca8a04', '#4b5563'];
  const failColours = ['#dc2626', '#ea580c', '#db2777', '#b91c1c'];
  const steps = runIds.flatMap((id) => (viewOf(id)?.run.steps ?? []).map((step) => ({ step, id }))).sort((a, b) => a.step.offsetS - b.step.offsetS);
  // The time axis's ticks, as on the latency chart; the grid's vertical lines at the same values
  // (see timeTicks).
  const firstT = (data[0]?.t as number | undefined) ?? 0;
  const lastT = (data[data.length - 1]?.t as number | undefined) ?? 0;
  const ticks = timeTicks(lastT).filter((t) => t >= firstT);
  return (
    <ChartFrame
      id="throughput"
      title="Throughput over time"
      note={`all clients summed in absolute time, ${result.bucketS}-s buckets; failed/throttled stacked on top${rates.length ? ', error rate (% of requests) dashed on the right axis' : ''}${steps.length ? `; ${steps.length} step(s) detected` : ''}`}
      seriesCount={seriesNames.length}
      empty={data.length === 0 ? 'No time series in the selected runs (summaries have none).' : null}
      csv={() => throughputCsv(shaped)}
    >
      <ChartContainer height={height} legend={seriesNames.map((s) => s.key)}>
        <ComposedChart data={data} margin={{ top: 24, right: 30, bottom: 10, left: 10 }}>
          <CartesianGrid {...GRID} verticalValues={ticks} />
          <XAxis type="number" dataKey="t" domain={['dataMin', 'dataMax']} ticks={ticks} tickFormatter={formatOffset} label={{ value: 'time since run start', position: 'insideBottom', offset: -10, fill: 'var(--muted)' }} {...AXIS} />
          <YAxis tickFormatter={(v: number) => formatOps(v)} label={{ value: 'ops/s', angle: -90, position: 'insideLeft', fill: 'var(--muted)' }} {...AXIS} />
          {rates.length > 0 && <YAxis yAxisId="rate" orientation="right" domain={[0, 100]} tickFormatter={(v: number) => `${v}%`} label={{ value: 'error rate', angle: 90, position: 'insideRight', fill: 'var(--muted)' }} {...AXIS} />}
          <Tooltip contentStyle={TOOLTIP_STYLE} labelFormatter={(t) => formatOffset(Number(t))} formatter={(v, name) => (rates.some((r) => r.key === name) ? formatPct(Number(v)) : `${formatOps(Number(v))} ops/s`)} />
          {/* Below the plot: the step labels sit along its top edge. */}
          <Legend verticalAlign="bottom" wrapperStyle={{ paddingTop: 24 }} formatter={legendName} />
          {seriesNames.map((s, i) => (
            <Area
              key={s.key}
              dataKey={s.key}
              name={s.key}
              type="stepAfter"
              stackId={several ? `run-${s.runId}` : 'all'}
              stroke={s.kind === 'ok' ? okColours[i % okColours.length] : failColours[i % failColours.length]}
              fill={s.kind === 'ok' ? okColours[i % okColours.length] : failColours[i % failColours.length]}
              fillOpacity={several ? 0.1 : 0.35}
              isAnimationActive={false}
            />
          ))}
          {rates.map((r, i) => (
            <Line key={r.key} yAxisId="rate" dataKey={r.key} name={r.key} type="stepAfter" stroke={i === 0 ? 'var(--text)' : failColours[i % failColours.length]} strokeDasharray="4 2" dot={false} connectNulls={false} isAnimationActive={false} />
          ))}
          {steps.map(({ step, id }, i) => (
            // Labels run away from the nearer edge of the plot, so that none is cut off there, and
            // every other one sits a line lower, so that two steps close together stay readable.
            <ReferenceLine
              key={`step-${id}-${step.offsetS}`}
              x={step.offsetS}
              stroke="var(--text)"
              strokeDasharray="3 3"
              label={{ value: formatStep(step), position: step.offsetS > (firstT + lastT) / 2 ? 'insideTopRight' : 'insideTopLeft', fill: 'var(--text)', fontSize: 11, dy: (i % 2) * 14 }}
            />
          ))}
          {events.map((e, i) =>
            e.toS !== null ? (
              <ReferenceArea key={`ev-${i}`} x1={e.fromS} x2={e.toS} fill="var(--accent)" fillOpacity={0.08} label={{ value: e.label, position: 'insideTop', fill: 'var(--muted)', fontSize: 11 }} />
            ) : (
              <ReferenceLine key={`ev-${i}`} x={e.fromS} stroke="var(--accent)" label={{ value: e.label, position: 'insideTopLeft', fill: 'var(--muted)', fontSize: 11 }} />
            ),
          )}
        </ComposedChart>
      </ChartContainer>
    </ChartFrame>
  );
}
