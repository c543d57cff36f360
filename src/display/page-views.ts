import { opKind } from '../model/naming.ts';
import { MAX_SERIES, type ChartId, type ViewId, type ViewState } from '../state/view-state.ts';
import { isHistory } from '../analysis/history.ts';
import { historyRunsOf, type RunView } from './run-views.ts';

/** Maximum points per series a chart receives; the worker aggregates to this. */
export const MAX_POINTS = 2000;

/**
 * Which views the loaded data offers and which the page opens on, and which operations the charts
 * draw by default: what is loaded decides, the user's choice (in the link) wins.
 */

/** Operations worth charting: real operations, not failures, intended twins, derived views or cleanup. */
export function mainOps(views: readonly RunView[]): string[] {
  const ops = new Set<string>();
  for (const v of views) for (const op of Object.keys(v.run.ops)) if (opKind(op) === 'op') ops.add(op);
  return [...ops];
}

/** Main operations, busiest first (requests summed over the runs; ties by name). */
export function busiestOps(views: readonly RunView[]): string[] {
  const total = new Map<string, number>();
  for (const v of views) for (const [op, o] of Object.entries(v.run.ops)) if (opKind(op) === 'op') total.set(op, (total.get(op) ?? 0) + o.count);
  return [...total].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([op]) => op);
}

/**
 * The operations a chart draws: those the user picked (that exist), else the busiest that keep the
 * chart to MAX_SERIES lines when each operation is drawn `linesPerOp` times (once per run, sweep…).
 */
export function chartOps(views: readonly RunView[], picked: readonly string[], linesPerOp = 1): string[] {
  const ranked = busiestOps(views);
  const chosen = picked.filter((op) => ranked.includes(op));
  if (chosen.length > 0) return chosen;
  // The busiest, listed in the runs' own order (the order the summary's engine gives).
  const kept = new Set(ranked.slice(0, Math.max(1, Math.floor(MAX_SERIES / Math.max(1, linesPerOp)))));
  return mainOps(views).filter((op) => kept.has(op));
}

/** Runs that are repeats of one test (src/analysis/history.ts): their history is what the user wants to see. */
export function areRepeats(views: readonly RunView[], state: Pick<ViewState, 'runs'>): boolean {
  return isHistory(historyRunsOf(views, state));
}

/** The views the data offers, in the switcher's order. */
export function offeredViews(views: readonly RunView[], state: Pick<ViewState, 'runs'>): ViewId[] {
  return areRepeats(views, state) ? ['overview', 'charts', 'history'] : ['overview', 'charts'];
}

/** The view the page opens on: a single run's overview, repeats' history, a sweep's latency vs load (charts). */
export function firstView(views: readonly RunView[], state: Pick<ViewState, 'runs'>): ViewId {
  const shown = views.filter((v) => !v.hidden);
  if (shown.length <= 1) return 'overview';
  return areRepeats(shown, state) ? 'history' : 'charts';
}

/** The view on screen: the user's choice when the data offers it, else the one that fits. */
export function currentView(views: readonly RunView[], state: Pick<ViewState, 'view' | 'runs'>): ViewId {
  return state.view !== null && offeredViews(views, state).includes(state.view) ? state.view : firstView(views, state);
}

/** How many lines each operation takes in a chart: once per sweep, per run shown, or once. */
function linesPerOp(chart: ChartId, visible: readonly RunView[], focused: readonly RunView[]): number {
  if (chart === 'latency-vs-load') return new Set(visible.map((v) => `${v.system}\u0000${v.workload}\u0000${v.distribution}`)).size;
  if (chart === 'latency-over-time' || chart === 'throughput') return focused.length;
  if (chart === 'percentiles') return visible.length;
  return 1;
}

/** The operations `chart` draws: the one chosen in the operation box, else chartOps' choice. */
export function opsForChart(chart: ChartId, visible: readonly RunView[], focused: readonly RunView[], state: Pick<ViewState, 'op' | 'series'>): string[] {
  if (state.op && visible.some((v) => v.run.ops[state.op] !== undefined)) return [state.op];
  return chartOps(visible, state.series, linesPerOp(chart, visible, focused));
}

/** The runs the time charts show: those ticked, else the first shown run. */
export function focusedViews(visible: readonly RunView[], focus: readonly string[]): RunView[] {
  return focus.length ? visible.filter((v) => focus.includes(v.key)) : visible.slice(0, 1);
}
