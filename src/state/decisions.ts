import { decodeState, DEFAULT_STATE, encodeState, type ViewState } from './view-state.ts';

/**
 * The parts of the view a decision rests on — SLA rules, prices, the sizing percentile, run labels
 * (system, nodes, repeat…) and the comparison's sides — carried by a snapshot file, which has no
 * link around it to hold them (Snapshot.view), as a view-state fragment: reading it back goes
 * through decodeState, which checks every field.
 */

export function decisionFragment(state: ViewState): string {
  return encodeState({ ...DEFAULT_STATE, sla: state.sla, pricing: state.pricing, sizingPercentile: state.sizingPercentile, runs: state.runs, compare: state.compare });
}

/** What of a carried fragment the view takes: each part it has not set itself. */
export function carriedDecisions(current: ViewState, fragment: string): Partial<ViewState> {
  const { state } = decodeState(fragment);
  const patch: Partial<ViewState> = {};
  if (!current.sla.trim() && state.sla) patch.sla = state.sla;
  if (Object.keys(current.pricing).length === 0 && Object.keys(state.pricing).length > 0) patch.pricing = state.pricing;
  if (current.sizingPercentile === DEFAULT_STATE.sizingPercentile && state.sizingPercentile !== DEFAULT_STATE.sizingPercentile) patch.sizingPercentile = state.sizingPercentile;
  if (Object.keys(current.runs).length === 0 && Object.keys(state.runs).length > 0) patch.runs = state.runs;
  if (!current.compare && state.compare) patch.compare = state.compare;
  return patch;
}
