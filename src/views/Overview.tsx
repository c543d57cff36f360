import { useMemo } from 'react';
import type { RunView } from '../display/run-views.ts';
import { LatencyOverTimeChart } from '../charts/LatencyOverTime.tsx';
import { ThroughputOverTimeChart } from '../charts/ThroughputOverTime.tsx';
import type { ChartAreaProps } from './ChartArea.tsx';
import { Headline } from './Headline.tsx';
import { busiestOps, MAX_POINTS, opsForChart } from '../display/page-views.ts';
import { SeriesPicker } from './SeriesPicker.tsx';
import { useChartQuery } from './useChartQuery.ts';

/** The overview's charts' height before their legends: both fit under the headline at 1280×800. */
const OVERVIEW_CHART_PX = 370;

/** The run an overview shows: the focused one, else the first visible. */
const focusedRun = (visible: readonly RunView[], focus: readonly string[]): RunView | undefined => visible.find((v) => v.key === focus[0]) ?? visible[0];

/**
 * One run at a glance, the first view of a single run: its headline figures (every request
 * merged exactly) and its throughput and latency over time, side by side above the fold. The
 * headline and the run's choice are drawn from `figures`, the charts from `views`: the page hands
 * the charts a new analysis a render after the figures (see App).
 */
export function Overview({ client, version, views, colours, state, sla, update, figures }: ChartAreaProps & { figures: RunView[] }) {
  const visible = useMemo(() => views.filter((v) => !v.hidden), [views]);
  const run = focusedRun(visible, state.focus);
  const shown = useMemo(() => (run ? [run] : []), [run]);
  const visibleFigures = useMemo(() => figures.filter((v) => !v.hidden), [figures]);
  const figuresRun = focusedRun(visibleFigures, state.focus);
  const ops = opsForChart('latency-over-time', shown, shown, state);
  const ranked = useMemo(() => busiestOps(shown), [shown]);
  const runIds = shown.map((v) => v.run.id);
  const throughput = useChartQuery<'throughput-over-time'>(client, run ? { kind: 'throughput-over-time', runIds, maxPoints: MAX_POINTS } : null, version);
  const latency = useChartQuery<'latency-over-time'>(client, run ? { kind: 'latency-over-time', runIds, ops, percentile: state.percentile, maxPoints: MAX_POINTS } : null, version);
  if (!figuresRun) return null;
  return (
    <section className="overview" data-testid="overview" aria-label={`overview of ${figuresRun.label}`}>
      <div className="overview-head">
        {visibleFigures.length > 1 && (
          <label>
            run{' '}
            <select value={figuresRun.key} onChange={(e) => update({ focus: [e.target.value] })}>
              {visibleFigures.map((v) => (
                <option key={v.key} value={v.key}>
                  {v.label}
                </option>
              ))}
            </select>
          </label>
        )}
        <Headline view={figuresRun} />
      </div>
      {!state.op && <SeriesPicker ranked={ranked} shown={ops} picked={state.series} onPick={(series) => update({ series })} />}
      <div className="overview-charts">
        <ThroughputOverTimeChart result={throughput.result} views={shown} events={[]} ops={ops} height={OVERVIEW_CHART_PX} />
        <LatencyOverTimeChart result={latency.result} views={shown} colours={colours} sla={sla} height={OVERVIEW_CHART_PX} />
      </div>
    </section>
  );
}
