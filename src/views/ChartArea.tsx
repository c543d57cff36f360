import { useContext, useMemo } from 'react';
import type { SlaRule } from '../analysis/sla.ts';
import { ByScenarioChart } from '../charts/ByScenario.tsx';
import { CostChart } from '../charts/Cost.tsx';
import { IntendedVsActualChart } from '../charts/IntendedVsActual.tsx';
import { LatencyOverTimeChart } from '../charts/LatencyOverTime.tsx';
import { LatencyVsLoadChart } from '../charts/LatencyVsLoad.tsx';
import { PercentileDistributionChart } from '../charts/PercentileDistribution.tsx';
import { ScalingChart } from '../charts/Scaling.tsx';
import { parseEvents, ThroughputOverTimeChart } from '../charts/ThroughputOverTime.tsx';
import type { EngineClient } from '../engine/client.ts';
import { CHART_IDS, PERCENTILE_CHOICES, type ChartId, type ViewState } from '../state/view-state.ts';
import { ExportContext } from '../charts/ExportMenu.tsx';
import type { RunView } from '../display/run-views.ts';
import { useChartQuery } from './useChartQuery.ts';
import { busiestOps, focusedViews, MAX_POINTS, opsForChart } from '../display/page-views.ts';
import { SeriesPicker } from './SeriesPicker.tsx';

const CHART_TITLES: Record<ChartId, string> = {
  'latency-vs-load': 'Latency vs load',
  throughput: 'Throughput over time',
  'latency-over-time': 'Latency over time',
  percentiles: 'Percentile distribution',
  intended: 'Intended vs actual',
  'by-scenario': 'pXX by scenario',
  scaling: 'Scaling',
  cost: 'Cost',
};

export interface ChartAreaProps {
  client: EngineClient | null;
  version: unknown;
  views: RunView[];
  colours: Map<string, string>;
  state: ViewState;
  sla: SlaRule | null;
  update: (patch: Partial<ViewState>) => void;
}

export function ChartArea({ client, version, views, colours, state, sla, update }: ChartAreaProps) {
  // An embed shows the chart alone: no tabs, controls, run choice or event editor.
  const { embedded } = useContext(ExportContext);
  const visible = views.filter((v) => !v.hidden);
  const allOps = useMemo(() => [...new Set(visible.flatMap((v) => Object.keys(v.run.ops)))], [visible]);
  const focusViews = focusedViews(visible, state.focus);
  const ops = opsForChart(state.chart, visible, focusViews, state);
  const ranked = useMemo(() => busiestOps(visible), [visible]);
  const focusIds = focusViews.map((v) => v.run.id);
  const throughput = useChartQuery<'throughput-over-time'>(client, state.chart === 'throughput' ? { kind: 'throughput-over-time', runIds: focusIds, maxPoints: MAX_POINTS } : null, version);
  const latencyOverTime = useChartQuery<'latency-over-time'>(
    client,
    state.chart === 'latency-over-time' ? { kind: 'latency-over-time', runIds: focusIds, ops, percentile: state.percentile, maxPoints: MAX_POINTS } : null,
    version,
  );
  const visibleIds = visible.map((v) => v.run.id);
  const distribution = useChartQuery<'percentile-distribution'>(client, state.chart === 'percentiles' ? { kind: 'percentile-distribution', runIds: visibleIds, ops, window: state.window } : null, version);
  const intendedOps = allOps.filter((op) => /^Intended-/.test(op) && !/CLEANUP$/i.test(op));
  const intendedRuns = visible.filter((v) => Object.keys(v.run.ops).some((op) => /^Intended-/.test(op))).map((v) => v.run.id);
  const intended = useChartQuery<'percentile-distribution'>(
    client,
    state.chart === 'intended' ? { kind: 'percentile-distribution', runIds: intendedRuns, ops: [...intendedOps, ...intendedOps.map((op) => op.replace(/^Intended-/, ''))], window: state.window } : null,
    version,
  );
  const events = useMemo(() => parseEvents(state.events), [state.events]);
  // The worker's time for the chart on screen: what a user waits after changing percentile, runs or window.
  const activeQueryMs = { throughput, 'latency-over-time': latencyOverTime, percentiles: distribution, intended }[state.chart as string]?.ms ?? null;
  const timeChart = state.chart === 'throughput' || state.chart === 'latency-over-time';

  return (
    <section className="charts">
      {!embedded && (
        <>
          <nav className="tabs" role="tablist">
            {CHART_IDS.map((id) => (
              <button key={id} type="button" role="tab" aria-selected={state.chart === id} className={state.chart === id ? 'tab active' : 'tab'} onClick={() => update({ chart: id })}>
                {CHART_TITLES[id]}
              </button>
            ))}
          </nav>
          <div className="controls">
            <label>
              percentile{' '}
              <select value={state.percentile} onChange={(e) => update({ percentile: Number(e.target.value) })} aria-label="percentile">
                {PERCENTILE_CHOICES.map((p) => (
                  <option key={p} value={p}>
                    p{p}
                  </option>
                ))}
              </select>
            </label>
            <label>
              operation{' '}
              <select value={state.op} onChange={(e) => update({ op: e.target.value })} aria-label="operation">
                <option value="">all operations</option>
                {allOps.map((op) => (
                  <option key={op} value={op}>
                    {op}
                  </option>
                ))}
              </select>
            </label>
            {state.chart === 'latency-vs-load' && (
              <label>
                x axis{' '}
                <select value={state.xAxis} onChange={(e) => update({ xAxis: e.target.value as ViewState['xAxis'] })} aria-label="x axis">
                  <option value="throughput">throughput</option>
                  <option value="utilisation">utilisation</option>
                </select>
              </label>
            )}
            {timeChart && (
              <fieldset className="focus">
                <legend>runs</legend>
                {visible.map((v) => (
                  <label key={v.key}>
                    <input
                      type="checkbox"
                      checked={focusViews.includes(v)}
                      onChange={(e) => {
                        const current = focusViews.map((f) => f.key);
                        update({ focus: e.target.checked ? [...current, v.key] : current.filter((k) => k !== v.key) });
                      }}
                    />
                    {v.label}
                  </label>
                ))}
              </fieldset>
            )}
            {!state.op && <SeriesPicker ranked={ranked} shown={ops} picked={state.series} onPick={(series) => update({ series })} />}
            {activeQueryMs !== null && (
              <span className="muted small" data-testid="chart-query-ms" data-ms={activeQueryMs.toFixed(1)}>
                query {activeQueryMs.toFixed(0)} ms
              </span>
            )}
          </div>
        </>
      )}
      {state.chart === 'latency-vs-load' && <LatencyVsLoadChart views={visible} colours={colours} percentile={state.percentile} ops={ops} xAxis={state.xAxis} sla={sla} />}
      {state.chart === 'throughput' && (
        <>
          <ThroughputOverTimeChart result={throughput.result} views={visible} events={events.events} ops={ops} />
          {!embedded && (
            <label className="events">
              <span>
                events (one per line: <code>seconds,label</code> or <code>start-end,label</code>)
              </span>
              <textarea value={state.events} rows={3} onChange={(e) => update({ events: e.target.value })} placeholder={'30,node added\n600-900,compaction'} />
              {events.errors.length > 0 && <span className="warn">{events.errors.join('; ')}</span>}
            </label>
          )}
        </>
      )}
      {state.chart === 'latency-over-time' && <LatencyOverTimeChart result={latencyOverTime.result} views={visible} colours={colours} sla={sla} />}
      {(state.chart === 'percentiles' || state.chart === 'intended') && state.window && (
        <p className="muted small" data-testid="chart-window">
          Seconds {state.window.fromS ?? 0} to {state.window.toS ?? 'the end'} of each run, as in the summary table.
        </p>
      )}
      {state.chart === 'percentiles' && <PercentileDistributionChart result={distribution.result} views={visible} colours={colours} />}
      {state.chart === 'intended' && <IntendedVsActualChart result={intended.result} views={visible} />}
      {state.chart === 'by-scenario' && (
        <ByScenarioChart views={visible} colours={colours} percentile={state.percentile} op={state.op} includeFailed={state.includeFailed} onIncludeFailed={(includeFailed) => update({ includeFailed })} />
      )}
      {state.chart === 'scaling' && <ScalingChart views={visible} colours={colours} percentile={state.percentile} op={state.op} />}
      {state.chart === 'cost' && <CostChart views={visible} params={state.cost} onChange={(cost) => update({ cost: { ...state.cost, ...cost } })} />}
    </section>
  );
}
