import { tableFromArrays } from 'apache-arrow';
import { samePrecision } from '../model/hdr-layout.ts';
import { max, mean, min, stdDeviation, valueAtRank } from '../model/hdr-stats.ts';
import type { HdrPrecision, SparseHistogram } from '../model/types.ts';
import { BucketSum, bucketColumns, inOrder, mergeAllInOrder, type BucketColumns } from './bucket-sum.ts';
import type { Db } from './db.ts';
import type { SeriesInfo, Store } from './store.ts';
import { percentileRank } from '../model/percentiles.ts';

/**
 * A selection of series merged per group: each group's histogram (whole, or per time bucket) and
 * the figures read from it, its operations per second, its time extent. A *selection* is series
 * ids, each mapped to a group number `g` chosen by the caller (e.g. one group per run × operation
 * to merge clients, or one per client). Histograms are merged in TypeScript from the store's
 * whole-series sums, blocks and seconds (bucket-sum.ts), counts per second and extents from what
 * the store keeps; DuckDB answers only the merged buckets a comparison's snapshot carries. Its
 * selection goes into a temporary table from Arrow data, so no value from a file or the user is
 * ever spliced into SQL text.
 */

export interface Selection {
  seriesIds: readonly number[];
  groups: readonly number[];
  /**
   * Optional time window per series (aligned with seriesIds), half-open [from, to) in whole seconds
   * of the series' own time (epoch s for absolute logs); null = unbounded. Intervals count whole in
   * the second of their start, raw samples in the second of their timestamp.
   * Per series because each run has its own start: "the first minute" means a different instant for each.
   */
  fromS?: readonly (number | null)[];
  toS?: readonly (number | null)[];
}

export interface GroupStats {
  g: number;
  count: number;
  min: number;
  max: number;
  mean: number;
  stddev: number;
  /** Every value exact (raw samples) rather than HdrHistogram buckets. */
  rawValues: boolean;
}

/** A series' window as read: whole seconds [from, to), null = unbounded. */
interface SeriesWindow {
  from: number | null;
  to: number | null;
}

function seriesWindows(sel: Selection): Map<number, SeriesWindow> {
  const out = new Map<number, SeriesWindow>();
  sel.seriesIds.forEach((id, i) => {
    const from = sel.fromS?.[i] ?? null;
    const to = sel.toS?.[i] ?? null;
    const w = { from: from === null ? null : Math.ceil(from), to: to === null ? null : Math.ceil(to) };
    const seen = out.get(id);
    // Each series is read once per selection (its own window), whatever groups it stands in.
    if (seen && (seen.from !== w.from || seen.to !== w.to)) throw new RangeError(`series ${id} is selected with two different windows`);
    out.set(id, w);
  });
  return out;
}

function setSelection(db: Db, sel: Selection): void {
  const windows = seriesWindows(sel);
  // NaN stands for "unbounded" in the Arrow columns and becomes NULL in the table.
  const column = (pick: (w: SeriesWindow) => number | null) =>
    Float64Array.from(sel.seriesIds, (id) => {
      const v = pick(windows.get(id) as SeriesWindow);
      return v === null || !Number.isFinite(v) ? Number.NaN : v;
    });
  db.insert(
    'sel_input',
    tableFromArrays({
      series_id: Int32Array.from(sel.seriesIds),
      g: Int32Array.from(sel.groups),
      from_s: column((w) => w.from),
      to_s: column((w) => w.to),
    }),
    true,
  );
  const nullable = (c: string) => `CASE WHEN isnan(${c}) THEN NULL ELSE ${c}::BIGINT END AS ${c}`;
  db.exec(`CREATE OR REPLACE TEMP TABLE sel AS
    SELECT series_id, g, ${['from_s', 'to_s'].map(nullable).join(', ')}
    FROM sel_input;
    DROP TABLE sel_input`);
}

export interface GroupSummary extends GroupStats {
  /** Second starting the time bucket (0 without bucketing). */
  tb: number;
  /** Values at the requested percentiles, in order (null when the group is empty). */
  values: (number | null)[];
}

/**
 * For every group (and time bucket of `bucketS` seconds, when given): count, min, max, mean and
 * standard deviation as HdrHistogram 2.2.2 computes them, and the values at `percentiles` — read
 * from the merged histogram, never averaged or maxed over clients or intervals. A series may stand
 * in several groups (its client's and its run's), so per-client and merged figures come from one
 * call.
 */
export function groupSummaries(store: Store, sel: Selection, percentiles: readonly number[], bucketS: number | null = null): GroupSummary[] {
  return summariesAt(mergeHistograms(store, sel, bucketS), percentiles);
}

/** One merged histogram: a group's, or a group's in one time bucket. */
export interface MergedHistogram {
  g: number;
  /** Second starting the time bucket (0 without bucketing). */
  tb: number;
  /** Raw samples (exact values) rather than HdrHistogram buckets. */
  raw: boolean;
  histogram: SparseHistogram;
}

/**
 * Every group's merged histogram (per time bucket when `bucketS` is given), in (g, tb) order, with
 * its buckets in (lo, width) order. Each histogram holds its own typed arrays, so reading figures
 * from it (again, for other percentiles) costs no query.
 */
export function mergeHistograms(store: Store, sel: Selection, bucketS: number | null = null): MergedHistogram[] {
  return bucketS === null ? mergeGroups(store, sel) : mergeOverTime(store, sel, bucketS);
}

/**
 * Per time bucket of `bucketS` seconds (starting at multiples of it), each group's merged
 * histogram, summed in the worker from its members' blocks and seconds as whole windows are. The
 * per-second buckets of an hour of interval logs are tens of millions: putting them into DuckDB
 * for a GROUP BY took 3.7-11 s and ~2 GB of its memory; summed by counts index here, each time
 * bucket costs its members' few pieces.
 */
function mergeOverTime(store: Store, sel: Selection, bucketS: number): MergedHistogram[] {
  const windows = seriesWindows(sel);
  const out: MergedHistogram[] = [];
  for (const [g, ids] of groupMembers(sel, (id) => store.nextSecond(id, -Infinity) < Infinity)) {
    const from = (id: number) => windows.get(id)?.from ?? -Infinity;
    const to = (id: number) => windows.get(id)?.to ?? Infinity;
    // The first second at or after `s` that some member has inside its window.
    const next = (s: number) => Math.min(...ids.map((id) => {
      const sec = store.nextSecond(id, Math.max(s, from(id)));
      return sec < to(id) ? sec : Infinity;
    }));
    const precision = sharedPrecision(store, ids);
    for (let sec = next(-Infinity); sec < Infinity; ) {
      const tb = Math.floor(sec / bucketS) * bucketS;
      groupSum.usePrecision(precision);
      let raw = true;
      for (const id of ids) {
        const before = groupSum.total;
        store.addRange(id, Math.max(tb, from(id)), Math.min(tb + bucketS, to(id)), groupSum);
        // Raw only if every member with data in this bucket is.
        if (groupSum.total > before) raw &&= store.series[id]?.source === 'raw';
      }
      if (groupSum.size > 0) {
        out.push({ g, tb, raw, histogram: groupSum.drainInOrder() });
      }
      sec = next(tb + bucketS);
    }
  }
  return out;
}

/**
 * Each group's member series in group order, a series listed twice in a group twice (as any sum
 * over the selection counts it), those `keep` refuses left out; groups left empty are left out.
 */
function groupMembers(sel: Selection, keep: (id: number) => boolean): [number, number[]][] {
  const members = new Map<number, number[]>();
  sel.seriesIds.forEach((id, i) => {
    if (!keep(id)) return;
    const g = sel.groups[i] as number;
    const list = members.get(g);
    if (list) list.push(id);
    else members.set(g, [id]);
  });
  return [...members].sort(([a], [b]) => a - b);
}

/** The precision all of `ids` share, or null (they differ, or some are raw values): how to sum them. */
function sharedPrecision(store: Store, ids: readonly number[]): HdrPrecision | null {
  const first = store.series[ids[0] as number]?.precision ?? null;
  const shared = first !== null && ids.every((id) => {
    const p = store.series[id]?.precision;
    return p !== null && p !== undefined && samePrecision(p, first);
  });
  return shared ? first : null;
}

/**
 * Whole groups. Each series' sum comes from the store's whole-series sums (the worker's copy of
 * what DuckDB's `series_buckets` holds), or, within a window, from the worker's blocks and seconds
 * (TimeLevels): summing those by counts index took 10-35 ms for
 * 48 series and an hour of interval logs, where DuckDB-WASM took 50-135 ms to sum its blocks and
 * as long again to hand over the rows. The series of a group are merged here: summing them in SQL
 * too is a second hash aggregation, and DuckDB's sort of the result costs more than its scan.
 */
function mergeGroups(store: Store, sel: Selection): MergedHistogram[] {
  const series = seriesWindows(sel);
  const windows = new Map<number, Members>();
  for (const [id, w] of series) {
    if (w.from === null && w.to === null) {
      // Over all time: the sum the store made as it added the series, in order.
      const whole = store.wholeSum(id);
      if (whole && whole.lo.length > 0) windows.set(id, whole);
      continue;
    }
    // A window: its buckets from the worker's blocks and seconds.
    groupSum.usePrecision(store.series[id]?.precision ?? null);
    store.addRange(id, w.from ?? -Infinity, w.to ?? Infinity, groupSum);
    if (groupSum.size === 0) continue;
    const { columns, length } = groupSum.drain(bucketColumns(groupSum.size));
    windows.set(id, { columns, start: 0, end: length });
  }
  const out: MergedHistogram[] = [];
  for (const [g, ids] of groupMembers(sel, (id) => windows.has(id))) {
    const histogram = ids.length === 1 ? histogramOf(windows.get(ids[0] as number) as Members) : summed(store, ids, windows);
    if (histogram.lo.length > 0) out.push({ g, tb: 0, raw: ids.every((id) => store.series[id]?.source === 'raw'), histogram });
  }
  return out;
}

/** Buckets `start`..`end-1` of some columns. */
interface Buckets {
  columns: BucketColumns;
  start: number;
  end: number;
}

/** A series' buckets in a selection: its whole sum (a histogram in order), or a window's buckets. */
type Members = SparseHistogram | Buckets;

const isInOrder = (m: Members): m is SparseHistogram => 'count' in m;
const histogramOf = (m: Members): SparseHistogram => (isInOrder(m) ? m : inOrder(m.columns, m.start, m.end));

const groupSum = new BucketSum();

/** The bucket-wise sum of several series' buckets. */
function summed(store: Store, ids: readonly number[], members: ReadonlyMap<number, Members>): SparseHistogram {
  const precision = sharedPrecision(store, ids);
  const all = ids.map((id) => members.get(id) as Members);
  // Whole sums without one precision (raw values): merged two by two, a pass each, instead of a
  // hash table of every bucket and a sort of the result (~1 s for 1M distinct ns latencies).
  if (precision === null && all.every(isInOrder)) return mergeAllInOrder(all);
  // Dense summing needs one precision; a group mixing precisions (or raw values) uses the table.
  groupSum.usePrecision(precision);
  for (const m of all) {
    if (isInOrder(m)) groupSum.add(m.lo, m.width, m.count, 0, m.lo.length);
    else groupSum.add(m.columns.lo, m.columns.width, m.columns.n, m.start, m.end);
  }
  return groupSum.drainInOrder();
}

/**
 * Each histogram's figures with its values at `percentiles`: HdrHistogram 2.2.2's own algorithms
 * (the JavaScript reference in src/model/hdr-stats.ts, bit for bit the Java results) for histogram
 * buckets; for raw samples the exact nearest rank ⌈p/100 · n⌉ in integers.
 */
export function summariesAt(merged: readonly MergedHistogram[], percentiles: readonly number[]): GroupSummary[] {
  return merged.map(({ g, tb, raw, histogram: h }) => ({
    g,
    tb,
    count: h.totalCount,
    min: min(h),
    max: max(h),
    mean: mean(h),
    stddev: stdDeviation(h),
    rawValues: raw,
    values: percentiles.map((p) => valueAtRank(h, percentileRank(p, h.totalCount, raw))),
  }));
}

export interface SecondCounts {
  g: number;
  /** Epoch second starting the bucket (absolute logs and raw samples) or seconds since the log's origin. */
  sec: number;
  ok: number;
  failed: number;
}

/**
 * Operations per second, per group and bucket of `bucketS` seconds, in group then second order:
 * an interval histogram counts whole in the second holding its start (as HdrHistogram's log
 * processor assigns intervals), a raw sample in the second of its timestamp. `op_kind` 'failed'
 * series (READ-FAILED …) count as failed, 'op' as ok; others are not throughput. Counted from the
 * store's counts by second (`Store.countsOf`), which are what DuckDB's `intervals` and
 * `raw_seconds` hold: no query, so the throughput timelines never wait for DuckDB. Seconds and
 * buckets are divided as DuckDB's `//` divides integers (towards zero), window bounds that are
 * not finite are none. With `originOf`, a group's buckets start at its origin second instead
 * (a chart's runs, each timed from its own start, then share one grid of buckets).
 */
export function countsPerSecond(store: Store, sel: Selection, bucketS = 1, originOf?: (group: number) => number): SecondCounts[] {
  const windows = seriesWindows(sel);
  const bound = (v: number | null): number | null => (v === null || !Number.isFinite(v) ? null : v);
  const byGroup = new Map<number, Map<number, SecondCounts>>();
  sel.seriesIds.forEach((id, i) => {
    const kind = store.series[id]?.kind;
    const counts = store.countsOf(id);
    if ((kind !== 'op' && kind !== 'failed') || !counts) return;
    const g = sel.groups[i] as number;
    const origin = originOf?.(g) ?? null;
    const w = windows.get(id) as SeriesWindow;
    const from = bound(w.from);
    const to = bound(w.to);
    let seconds = byGroup.get(g);
    if (!seconds) byGroup.set(g, (seconds = new Map()));
    for (let k = 0; k < counts.sec.length; k++) {
      const s = counts.sec[k] as number;
      if ((from !== null && s < from) || (to !== null && s >= to)) continue;
      const sec = origin === null ? s - (s % bucketS) + 0 : origin + Math.floor((s - origin) / bucketS) * bucketS;
      let row = seconds.get(sec);
      if (!row) seconds.set(sec, (row = { g, sec, ok: 0, failed: 0 }));
      if (kind === 'op') row.ok += counts.n[k] as number;
      else row.failed += counts.n[k] as number;
    }
  });
  return [...byGroup.keys()]
    .sort((a, b) => a - b)
    .flatMap((g) => [...(byGroup.get(g) as Map<number, SecondCounts>).values()].sort((a, b) => a.sec - b.sec));
}

export interface Extent {
  g: number;
  startUs: number;
  endUs: number;
}

/**
 * Time covered by each run's `series` (g = run id): earliest interval start (raw: first sample) to
 * latest interval end (raw: last sample), from the extents the store keeps of each series — no
 * query, so the figures never wait for DuckDB. Kept until the data changes.
 */
export function runExtents(store: Store, series: readonly SeriesInfo[]): Extent[] {
  return store.memo(`extents:${series.map((s) => s.id).join(',')}`, () => {
    const byRun = new Map<number, Extent>();
    for (const s of series) {
      const e = store.extentOf(s.id);
      if (!e) continue;
      const run = byRun.get(s.runId);
      if (!run) byRun.set(s.runId, { g: s.runId, startUs: e.startUs, endUs: e.endUs });
      else {
        run.startUs = Math.min(run.startUs, e.startUs);
        run.endUs = Math.max(run.endUs, e.endUs);
      }
    }
    return [...byRun.values()].sort((a, b) => a.g - b.g);
  });
}

/** The merged histogram of each group over all time, bucket by bucket in value order. */
export function mergedBuckets(db: Db, sel: Selection): { g: number; lo: number; width: number; n: number }[] {
  setSelection(db, sel);
  return db
    .query(
      `SELECT sel.g, sh.lo, sh.width, sum(sh.n)::BIGINT AS n
       FROM sel JOIN series_buckets sh ON sh.series_id = sel.series_id
       GROUP BY sel.g, sh.lo, sh.width ORDER BY sel.g, sh.lo`,
    )
    .map((r) => ({ g: r.g as number, lo: r.lo as number, width: r.width as number, n: r.n as number }));
}
