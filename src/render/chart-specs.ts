/**
 * Each dashboard chart that can be drawn without a browser, as its component with the data the
 * engine gives it: the `chart` CLI and the report draw the same charts from the same queries.
 */
import { createElement, type ReactElement } from 'react';
import { parseSlaRule, type SlaRule } from '../analysis/sla.ts';
import { CostChart } from '../charts/Cost.tsx';
import { costRows } from '../display/cost-rows.ts';
import { LatencyOverTimeChart } from '../charts/LatencyOverTime.tsx';
import { LatencyVsLoadChart, latencyVsLoadSeries } from '../charts/LatencyVsLoad.tsx';
import { PercentileDistributionChart } from '../charts/PercentileDistribution.tsx';
import { ThroughputOverTimeChart } from '../charts/ThroughputOverTime.tsx';
import { runChartQuery, type ChartQuery, type ChartResult } from '../engine/chart-queries.ts';
import type { Store } from '../engine/store.ts';
import type { ViewState } from '../state/view-state.ts';
import { focusedViews, MAX_POINTS, opsForChart } from '../display/page-views.ts';
import { colourMap, type RunView } from '../display/run-views.ts';

export const CHART_KINDS = ['latency-vs-load', 'throughput', 'latency-over-time', 'percentiles', 'cost'] as const;
export type ChartKind = (typeof CHART_KINDS)[number];

/** The chart cannot be drawn from what it was given (e.g. a cost model with a zero item size). */
export class ChartInputError extends Error {}

export interface ChartSpec {
  element: ReactElement;
  data: unknown;
}

/** runChartQuery's result for the kind of query asked (as useChartQuery narrows it in the app). */
function query<K extends ChartQuery['kind']>(store: Store, q: Extract<ChartQuery, { kind: K }>): Extract<ChartResult, { kind: K }> {
  return runChartQuery(store, q) as Extract<ChartResult, { kind: K }>;
}

export function chartSpec(chart: ChartKind, store: Store, views: RunView[], state: ViewState): ChartSpec {
  const visible = views.filter((v) => !v.hidden);
  const colours = colourMap(views.map((v) => v.system));
  const sla: SlaRule | null = state.sla ? parseSlaRule(state.sla) : null;
  const focused = focusedViews(visible, state.focus);
  const ops = opsForChart(chart === 'cost' ? 'cost' : chart, visible, focused, state);
  const focusIds = focused.map((v) => v.run.id);
  switch (chart) {
    case 'throughput': {
      const result = query(store, { kind: 'throughput-over-time', runIds: focusIds, maxPoints: MAX_POINTS });
      return { element: createElement(ThroughputOverTimeChart, { result, views: visible, events: [], ops }), data: result };
    }
    case 'latency-over-time': {
      const result = query(store, { kind: 'latency-over-time', runIds: focusIds, ops, percentile: state.percentile, maxPoints: MAX_POINTS });
      return { element: createElement(LatencyOverTimeChart, { result, views: visible, colours, sla }), data: result };
    }
    case 'percentiles': {
      const result = query(store, { kind: 'percentile-distribution', runIds: visible.map((v) => v.run.id), ops, window: state.window });
      return { element: createElement(PercentileDistributionChart, { result, views: visible, colours }), data: result };
    }
    case 'cost': {
      let rows;
      try {
        rows = costRows(visible, state.cost);
      } catch (error) {
        // The cost model's RangeErrors (a zero item size, a zero-cost cluster) are bad arguments.
        if (error instanceof RangeError) throw new ChartInputError(`cannot price: ${error.message}`);
        throw error;
      }
      return { element: createElement(CostChart, { views: visible, params: state.cost, onChange: () => {} }), data: { params: state.cost, rows } };
    }
    case 'latency-vs-load': {
      const series = [...latencyVsLoadSeries(visible, state.percentile, ops, state.xAxis)].map(([name, s]) => ({ name, ...s }));
      return {
        element: createElement(LatencyVsLoadChart, { views: visible, colours, percentile: state.percentile, ops, xAxis: state.xAxis, sla }),
        data: { percentile: state.percentile, ops, xAxis: state.xAxis, series },
      };
    }
  }
}
