import { setOwn } from '../model/own.ts';
import { figuresOnlyMoments } from '../state/snapshot.ts';
import { SHOWN_PERCENTILES, type Snapshot, type SnapshotOp, type SnapshotRun } from '../state/snapshot.ts';
import type { Analysis } from './analyse.ts';
import { groupSummaries, mergedBuckets } from './group-merge.ts';
import type { Store } from './store.ts';
import { dbBacked, mergeGroups } from './summary.ts';

/**
 * The current comparison as a snapshot: each run's metadata and, per operation whose merged
 * figures are exact, the merged histogram read from DuckDB and the figures shown (for a
 * figures-only link). Operations known only as bounds (summaries, mixed sources) cannot be
 * carried and are listed in `omitted`. An operation itself opened from figures only has no
 * histogram to give: its stand-in reproduces the figures, not the data.
 */
export function buildSnapshot(store: Store, analysis: Analysis, visibleKeys?: ReadonlySet<string>): { snapshot: Snapshot; omitted: string[] } {
  const groups = mergeGroups(store).filter((m) => !visibleKeys || visibleKeys.has(m.run.key));
  const exact = groups.filter((m) => m.refusal === null && m.series.length > 0 && m.series.every(dbBacked));
  const omitted = groups.filter((m) => !exact.includes(m)).map((m) => `${m.run.label} ${m.op}`);
  const sel = { seriesIds: exact.flatMap((m) => m.series.map((s) => s.id)), groups: exact.flatMap((m, g) => m.series.map(() => g)) };
  const buckets = mergedBuckets(store.db, sel);
  // The same merge as the distribution chart and the summary, so the values are the ones shown.
  const shown = new Map(groupSummaries(store, sel, SHOWN_PERCENTILES).map((r) => [r.g, r]));
  const byGroup = new Map<number, { lo: number[]; width: number[]; n: number[] }>();
  for (const b of buckets) {
    const list = byGroup.get(b.g) ?? { lo: [], width: [], n: [] };
    list.lo.push(b.lo);
    list.width.push(b.width);
    list.n.push(b.n);
    byGroup.set(b.g, list);
  }
  const runs = new Map<string, SnapshotRun>();
  exact.forEach((m, g) => {
    const summary = analysis.runs.find((r) => r.dir === m.run.key);
    const opSummary = summary?.ops[m.op];
    const b = byGroup.get(g);
    const stats = shown.get(g);
    if (!summary || !opSummary || !b || !stats || opSummary.mean === null || opSummary.stddev === null || stats.values.some((v) => v === null)) return;
    let run = runs.get(m.run.key);
    if (!run) {
      const { id: _id, ops: _ops, allRequests: _all, paths: _paths, steps: _steps, partial: _partial, failures: _failures, failuresFrom: _from, dir, ...meta } = summary;
      run = { ...meta, key: dir, ops: {} };
      runs.set(m.run.key, run);
    }
    const first = m.series[0];
    const op: SnapshotOp = {
      unit: first?.unit ?? 'us',
      naive: opSummary.naive,
      figures: {
        raw: stats.rawValues,
        count: stats.count,
        min: stats.min,
        max: stats.max,
        // As the summary shows them: for an operation opened from figures only, the carried ones.
        mean: opSummary.mean,
        stddev: opSummary.stddev,
        percentiles: SHOWN_PERCENTILES,
        values: stats.values as number[],
      },
    };
    if (!figuresOnlyMoments(m.run.snapshot, m.op)) {
      if (first?.source === 'raw') op.exact = b.lo.map((lo, i) => [lo, b.n[i] as number]);
      else if (first?.precision) {
        op.histogram = {
          precision: first.precision,
          highestTrackableValue: Math.max(2, ...b.lo.map((lo, i) => lo + (b.width[i] as number) - 1)),
          integerToDoubleConversionRatio: 1,
          histogram: { lo: Float64Array.from(b.lo), width: Float64Array.from(b.width), count: Float64Array.from(b.n), totalCount: b.n.reduce((a, c) => a + c, 0) },
        };
      } else return;
    }
    setOwn(run.ops, m.op, op);
  });
  return { snapshot: { runs: [...runs.values()] }, omitted };
}
