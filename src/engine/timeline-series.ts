import type { SeriesInfo } from './store.ts';
import type { SeriesSource } from '../model/figures.ts';

/** The timed series whose counts make a run's throughput: per client and operation, one source. */
const TIMELINE_PREFERENCE: readonly SeriesSource[] = ['raw', 'histogram', 'intervals'];

/**
 * The series that count in throughput over time (operations and failed operations with a time),
 * one per client and operation: a client whose tool wrote both an HdrHistogram log and its own
 * periodic report of the same operations (cassandra-stress) is counted once, from the log; and a
 * run timed in epoch seconds leaves out its series timed from their own start.
 */
export function timelineSeries(series: readonly SeriesInfo[]): SeriesInfo[] {
  // Seconds since a run's own start and epoch seconds share no clock: where a run has series of
  // both (a tool's progress report beside its per-request log), its clock is the epoch one.
  const absoluteRuns = new Set(series.filter((s) => s.timeBase === 'absolute').map((s) => s.runId));
  const best = new Map<string, SeriesInfo>();
  for (const s of series) {
    if (s.timeBase === null || (s.kind !== 'op' && s.kind !== 'failed')) continue;
    if (s.timeBase === 'relative' && absoluteRuns.has(s.runId)) continue;
    const rank = TIMELINE_PREFERENCE.indexOf(s.source);
    if (rank < 0) continue;
    const key = `${s.runId}\u0000${s.client}\u0000${s.op}`;
    const current = best.get(key);
    if (!current || rank < TIMELINE_PREFERENCE.indexOf(current.source)) best.set(key, s);
  }
  return series.filter((s) => best.get(`${s.runId}\u0000${s.client}\u0000${s.op}`) === s);
}
