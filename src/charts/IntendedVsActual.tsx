import type { ChartResult } from '../engine/chart-queries.ts';
import type { RunView } from '../display/run-views.ts';
import { ChartFrame } from './ChartFrame.tsx';
import { distributionCsv, distributionRows, PercentileLineChart, type DistributionSeries } from './PercentileDistribution.tsx';

type DistributionResult = Extract<ChartResult, { kind: 'percentile-distribution' }>;

export interface IntendedLine {
  key: string;
  name: string;
  colour: string;
  intended: boolean;
  series: DistributionResult['series'][number];
  /** The run's label. */
  run: string;
}

/** Distinct colours per (run, operation) pair: the pair, not the system, is what is compared here. */
const PAIR_COLOURS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777'];

/**
 * Each `Intended-X` series of a shown run with its `X` twin from the same run, actual first; the two
 * share a colour. An intended series without its twin is still drawn, an actual one without an
 * intended twin is not: it has nothing to be compared with.
 */
export function intendedLines(series: DistributionResult['series'], views: readonly RunView[]): IntendedLine[] {
  const shown = series.filter((s) => views.some((v) => v.run.id === s.runId));
  const intended = shown.filter((s) => /^Intended-/.test(s.op));
  const severalRuns = new Set(intended.map((s) => s.runId)).size > 1;
  const lines: IntendedLine[] = [];
  intended.forEach((s, i) => {
    const op = s.op.replace(/^Intended-/, '');
    const colour = PAIR_COLOURS[i % PAIR_COLOURS.length] ?? 'var(--text)';
    const run = views.find((v) => v.run.id === s.runId)?.label ?? String(s.runId);
    const prefix = severalRuns ? `${run} · ` : '';
    const actual = shown.find((a) => a.runId === s.runId && a.op === op);
    if (actual) lines.push({ key: `s${lines.length}`, name: `${prefix}${op} actual`, colour, intended: false, series: actual, run });
    lines.push({ key: `s${lines.length}`, name: `${prefix}${op} intended`, colour, intended: true, series: s, run });
  });
  return lines;
}

const lineSeries = (lines: readonly IntendedLine[]): DistributionSeries[] => lines.map((l) => ({ key: l.key, percentiles: l.series.percentiles, values: l.series.values }));

/** One row per drawn point: run, the operation as recorded (X or Intended-X), which latency it is, percentile and µs. */
export function intendedCsv(lines: readonly IntendedLine[]): string {
  return distributionCsv(lines, lineSeries(lines), { header: ['run', 'op', 'latency'], cells: (l) => [l.run, l.series.op, l.intended ? 'intended' : 'actual'] });
}

/** Percentile distributions of intended and actual latency overlaid, so coordinated omission shows as the gap between them. */
export function IntendedVsActualChart({ result, views }: { result: DistributionResult | null; views: RunView[] }) {
  const hasIntended = views.some((v) => Object.keys(v.run.ops).some((op) => /^Intended-/.test(op)));
  const lines = result ? intendedLines(result.series, views) : [];
  const rows = distributionRows(lineSeries(lines));
  const empty =
    !hasIntended || (result && lines.length === 0)
      ? 'No run has Intended-* latencies. Run YCSB with -p measurement.interval=both (and a -target rate) to record, for every operation, the latency counted from when it should have started.'
      : result
        ? null
        : 'Computing…';
  return (
    <ChartFrame
      id="intended"
      title="Intended vs actual latency"
      note="Intended latency counts from when the operation should have started (coordinated omission corrected)"
      seriesCount={empty ? 0 : lines.length}
      empty={empty}
      csv={() => intendedCsv(lines)}
    >
      <PercentileLineChart rows={rows} lines={lines.map((l) => ({ ...l, dash: l.intended ? '6 3' : '' }))} />
    </ChartFrame>
  );
}
