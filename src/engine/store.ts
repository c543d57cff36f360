/**
 * The store: what the engine keeps of the loaded runs, and its rows for DuckDB. Over 500 lines
 * because adding a series is one walk that fills every place it lives (the worker's seconds and
 * blocks, its extent, DuckDB's tables, or the rows waiting for DuckDB to start); split, each part
 * would walk the series again.
 */
import { tableFromArrays, type Table } from 'apache-arrow';
import { Float64Column } from '../formats/growable.ts';
import type { RunData } from '../model/grouping.ts';
import { opKind } from '../model/naming.ts';
import type {
  DistributionSeries,
  FileFailures,
  HdrPrecision,
  IntervalsSeries,
  HistogramSeries,
  LatencyUnit,
  OpKind,
  OverallSummary,
  ParsedFile,
  RawSeries,
  StatusPoint,
  PrintedSeries,
  SparseHistogram,
  YcsbCommandLine,
} from '../model/types.ts';
import { snapshotBuckets, type Snapshot, type SnapshotOp, type SnapshotRun } from '../state/snapshot.ts';
import type { Db } from './db.ts';
import { BucketSum, inOrder } from './bucket-sum.ts';
import { SCHEMA_SQL } from './schema.ts';
import { BLOCK_SIZES, SecondCells, TimeLevels } from './second-cells.ts';
import { takePrebuiltLevels } from './prebuilt-levels.ts';
import type { SeriesSource } from '../model/figures.ts';
import type { CompareResult } from '../model/comparison.ts';

/** What the engine knows about one latency series; its buckets are in the worker (Store.levels, wholeSums). */
export interface SeriesInfo {
  id: number;
  runId: number;
  client: string;
  op: string;
  kind: OpKind;
  source: SeriesSource;
  file: string;
  unit: LatencyUnit;
  precision: HdrPrecision | null;
  timeBase: 'absolute' | 'relative' | null;
  /** Samples or recorded values. */
  count: number;
  /** Summaries and distributions have no rows in DuckDB; they are kept as parsed. */
  summary?: PrintedSeries;
  distribution?: DistributionSeries;
  /** A periodic report: its counts are in `intervals` (throughput), its figures kept as parsed. */
  periodic?: IntervalsSeries;
  /** 'timeline': counts per second only (a comparison's throughput), not latency data. */
  role?: 'timeline';
  /** Naive per-client figures carried by a comparison, which has no per-client data. */
  naive?: SnapshotOp['naive'];
}

export interface ClientInfo {
  name: string;
  files: string[];
  commandLine: YcsbCommandLine | null;
  overall: OverallSummary | null;
  status: StatusPoint[] | null;
}

export interface RunInfo {
  id: number;
  key: string;
  label: string;
  paths: string[];
  clients: ClientInfo[];
  /** Failed requests by cause, as its files tally them. */
  failures: FileFailures[];
  /** A run from a comparison (link or file): its run-level figures as they were computed. */
  snapshot?: SnapshotRun;
}


/** A series' counts by second, in the order they were added (a second may repeat). */
export interface SeriesSeconds {
  sec: number[];
  n: number[];
}

/** The time a series covers, in µs (epoch µs for absolute series). */
export interface SeriesExtent {
  startUs: number;
  endUs: number;
}

export interface StoreOptions {
  /** Seconds per block at each level the worker keeps, each a multiple of the one before. */
  blockSizes?: readonly number[];
}

/**
 * Loads grouped runs: series, intervals and each series' sum over all time into DuckDB, each timed
 * series' per-second buckets and blocks kept in the worker, which sums windows from them. Rows are
 * gathered in typed columns and appended in Arrow batches, so millions of buckets or samples never
 * exist as JS objects.
 */
export class Store {
  runs: RunInfo[] = [];
  series: SeriesInfo[] = [];
  /** Bumped on every change of the data, so derived results can be cached. */
  version = 0;
  /** The A/B comparison a loaded comparison (link or file) carried, as computed before it was shared. */
  carriedComparison: CompareResult | null = null;
  /** The view-state fragment a loaded snapshot file carried (see Snapshot.view). */
  carriedView: string | null = null;
  private memos = { version: -1, values: new Map<string, unknown>() };
  /** Block sizes the worker keeps above seconds. */
  private readonly workerBlockSizes: readonly number[];
  /**
   * Each series' buckets summed over all time, by series id: what `series_buckets` holds, kept
   * here too for the figures over all time, which need them every time the summary is drawn.
   */
  private readonly wholeSums = new Map<number, SparseHistogram>();
  /** Each timed series' buckets by second and by block, by series id: the worker's copy. */
  private readonly levels = new Map<number, TimeLevels>();
  /**
   * The same by parsed series, built once per series: a rebuild (another load, a regrouping)
   * reuses them, and the worker can build them while other files are still being parsed.
   */
  private readonly levelsBySeries = new WeakMap<HistogramSeries | RawSeries, TimeLevels>();
  /** Whole-series sums added since the last flush, for DuckDB's `series_buckets`. */
  private unsentSums: { id: number; whole: SparseHistogram }[] = [];
  private readonly sum = new BucketSum();
  private intervals = this.emptyIntervals();
  private rawExtents = this.emptyRawExtents();
  private rawSeconds = this.emptyRawSeconds();

  /** DuckDB, once attached. */
  private attachedDb: Db | null = null;
  /**
   * Rows for DuckDB not yet in it, in insertion order, as how to make them: they are made (as Arrow
   * tables) and go in when DuckDB is next asked something (`db`), not while a load's figures are
   * computed — taking in a run's buckets costs DuckDB-WASM 0.1–0.3 s, and making its tables some
   * tens of ms, on the thread the summary waits for; a session that never starts DuckDB makes none.
   */
  private pending: { table: string; rows: () => Table }[] = [];
  /** Each timed series' first and last instant (µs), by series id: what its intervals or raw extent cover. */
  private readonly extents = new Map<number, SeriesExtent>();
  /**
   * Each timed series' counts by second, by series id, as DuckDB's `intervals` and `raw_seconds`
   * hold them: throughput over time is counted from these, so it never waits for DuckDB.
   */
  private readonly perSecond = new Map<number, SeriesSeconds>();

  /**
   * `db` may come later (`attach`): the store keeps its cells and figures without DuckDB, so the
   * summary never waits for DuckDB to download or start; only the throughput timelines and SQL do.
   */
  constructor(db: Db | null, options: StoreOptions = {}) {
    const sizes = options.blockSizes ?? BLOCK_SIZES;
    if (sizes.length === 0 || sizes.some((size, i) => !Number.isInteger(size) || size < 1 || size % (sizes[i - 1] ?? 1) !== 0)) {
      throw new RangeError(`block sizes ${sizes.join(', ')} must be whole seconds, each a multiple of the one before`);
    }
    this.workerBlockSizes = sizes;
    if (db) this.attach(db);
  }

  /** DuckDB, with every row added so far; throws before `attach` (ask the Engine for an attached store). */
  get db(): Db {
    const db = this.attachedDb;
    if (!db) throw new Error('the query engine has not started yet');
    for (const { table, rows } of this.pending.splice(0)) {
      const data = rows();
      if (data.numRows > 0) db.insert(table, data, false);
    }
    return db;
  }

  get attached(): boolean {
    return this.attachedDb !== null;
  }

  /** Hands the store to DuckDB: creates its tables; the rows gathered so far go in when it is first asked something. */
  attach(db: Db): void {
    if (this.attachedDb) throw new Error('the store already has its DuckDB');
    for (const sql of SCHEMA_SQL) db.exec(sql);
    this.attachedDb = db;
  }

  /** Appends rows to a DuckDB table when DuckDB is next asked something; what `rows` reads must not change meanwhile. */
  private insert(table: string, rows: () => Table): void {
    this.pending.push({ table, rows });
  }

  /** Series `id`'s first and last instant in µs; null for a series with no time. */
  extentOf(id: number): SeriesExtent | null {
    return this.extents.get(id) ?? null;
  }

  /** Series `id`'s counts by second (an interval in the second holding its start); null for a series with no time. */
  countsOf(id: number): SeriesSeconds | null {
    return this.perSecond.get(id) ?? null;
  }

  /** Counts `n` in second `sec` of series `id`, as stored in DuckDB's BIGINT columns. */
  private count(id: number, sec: number, n: number): void {
    let counts = this.perSecond.get(id);
    if (!counts) this.perSecond.set(id, (counts = { sec: [], n: [] }));
    counts.sec.push(asStoredInteger(sec));
    counts.n.push(asStoredInteger(n));
  }

  /** Counts an interval starting at `startUs` in the second holding its start, as `start_us // 1000000` does in DuckDB. */
  private countInterval(id: number, startUs: number, n: number): void {
    const us = asStoredInteger(startUs);
    // DuckDB's integer division truncates towards zero, as `%` does here; both exact in doubles.
    this.count(id, (us - (us % 1e6)) / 1e6 + 0, n);
  }

  /**
   * Widens series `id`'s extent to [start, end) µs, rounded as DuckDB's BIGINT columns store them
   * (to nearest, ties to even), so the figures are those its `intervals` and `raw_extents` gave.
   */
  private cover(id: number, startUs: number, lengthUs: number): void {
    const start = asStoredInteger(startUs);
    const end = start + asStoredInteger(lengthUs);
    const e = this.extents.get(id);
    if (!e) this.extents.set(id, { startUs: start, endUs: end });
    else {
      e.startUs = Math.min(e.startUs, start);
      e.endUs = Math.max(e.endUs, end);
    }
  }

  /**
   * Adds the buckets of series `id` whose second is in [a, z) to `sum` (whose precision the caller
   * has set), from the coarsest pieces the worker keeps. Nothing for a series with no time.
   */
  addRange(id: number, a: number, z: number, sum: BucketSum): void {
    this.levels.get(id)?.addRange(sum, a, z);
  }

  /** Series `id`'s buckets summed over all time, in order (bucket-sum.ts inOrder); null for a series without latency buckets. */
  wholeSum(id: number): SparseHistogram | null {
    return this.wholeSums.get(id) ?? null;
  }

  /** The first second at or after `s` in which series `id` has data; Infinity when none (or no time). */
  nextSecond(id: number, s: number): number {
    const seconds = this.levels.get(id)?.seconds;
    if (!seconds) return Infinity;
    const k = seconds.firstAtOrAfter(s);
    return k < seconds.pieces ? (seconds.secs[k] as number) : Infinity;
  }

  /** Builds what the worker keeps of a parsed file's timed series, ahead of loading it. */
  prepare(file: ParsedFile): void {
    for (const series of file.series) if (series.kind === 'histogram' || series.kind === 'raw') this.levelsOf(series);
  }

  private levelsOf(series: HistogramSeries | RawSeries): TimeLevels {
    let levels = this.levelsBySeries.get(series);
    if (!levels) {
      const seconds = series.kind === 'histogram' ? SecondCells.ofHistograms(series) : SecondCells.ofRaw(series);
      const prebuilt = takePrebuiltLevels(series, this.workerBlockSizes);
      levels = prebuilt ? TimeLevels.ofColumns(seconds, this.workerBlockSizes, prebuilt.levels, prebuilt.whole) : TimeLevels.build(seconds, this.workerBlockSizes, this.sum);
      this.levelsBySeries.set(series, levels);
    }
    return levels;
  }

  /**
   * Keeps a timed series' buckets in the worker and puts their sum over all time into DuckDB (its
   * coarsest blocks and its untimed values, summed here: nothing asks DuckDB for a block's time, and
   * summing a few blocks in the worker costs less than DuckDB taking them in to group them); returns
   * its seconds.
   */
  private addTimed(id: number, series: HistogramSeries | RawSeries): SecondCells {
    const levels = this.levelsOf(series);
    this.levels.set(id, levels);
    const whole = levels.wholeSum(this.sum);
    this.unsentSums.push({ id, whole });
    this.wholeSums.set(id, whole);
    return levels.seconds;
  }

  /** `compute()`, kept until the data changes: for figures that do not depend on the view (time extents). */
  memo<T>(key: string, compute: () => T): T {
    if (this.memos.version !== this.version) this.memos = { version: this.version, values: new Map() };
    if (!this.memos.values.has(key)) this.memos.values.set(key, compute());
    return this.memos.values.get(key) as T;
  }

  /**
   * `compute()` for `key`, kept among the `limit` most recently used results of `space` until the
   * data changes — for results that depend on the view (a window, a chart's selection). Results
   * `keep` refuses (too large to hold on to) are computed every time.
   */
  recent<T>(space: string, key: string, limit: number, compute: () => T, keep: (value: T) => boolean = () => true): T {
    const entries = this.memo(`recent:${space}`, () => new Map<string, T>());
    const hit = entries.get(key);
    if (hit !== undefined) {
      // Most recently used last.
      entries.delete(key);
      entries.set(key, hit);
      return hit;
    }
    const value = compute();
    if (keep(value)) {
      entries.set(key, value);
      if (entries.size > limit) entries.delete(entries.keys().next().value as string);
    }
    return value;
  }

  /** Forget everything loaded so far. */
  clear(): void {
    if (this.attachedDb) for (const t of ['series', 'intervals', 'series_buckets', 'raw_seconds', 'raw_extents']) this.attachedDb.exec(`DELETE FROM ${t}`);
    this.pending = [];
    this.unsentSums = [];
    this.extents.clear();
    this.perSecond.clear();
    this.runs = [];
    this.series = [];
    this.levels.clear();
    this.wholeSums.clear();
    this.carriedComparison = null;
    this.carriedView = null;
    this.version++;
  }

  addRuns(runs: readonly RunData[]): void {
    const firstSeries = this.series.length;
    for (const run of runs) {
      const runId = this.runs.length;
      this.runs.push({
        id: runId,
        key: run.key,
        label: run.label,
        paths: run.paths,
        clients: run.clients.map((c) => ({
          name: c.name,
          files: c.files,
          commandLine: c.commandLine,
          overall: c.overall,
          status: c.status,
        })),
        failures: run.failures,
      });
      for (const client of run.clients) {
        for (const { file, data } of client.series) {
          const info: SeriesInfo = {
            id: this.series.length,
            runId,
            client: client.name,
            op: data.op,
            kind: opKind(data.op),
            // Printed figures keep the source name 'summary' that summarize --json and the query tables carry.
            source: data.kind === 'printed' ? 'summary' : data.kind,
            file,
            unit: data.unit,
            precision: data.kind === 'histogram' ? data.precision : data.kind === 'distribution' ? data.precision : null,
            timeBase: data.kind === 'histogram' || data.kind === 'intervals' ? data.timeBase : data.kind === 'raw' ? 'absolute' : null,
            count: 0,
          };
          if (data.kind === 'histogram') {
            for (const interval of data.intervals) {
              const h = interval.histogram;
              this.intervals.series.push(info.id);
              this.intervals.start.push(interval.startUs);
              this.intervals.length.push(interval.lengthUs);
              this.intervals.n.push(h.totalCount);
              this.cover(info.id, interval.startUs, interval.lengthUs);
              this.countInterval(info.id, interval.startUs, h.totalCount);
              info.count += h.totalCount;
            }
            this.addTimed(info.id, data);
          } else if (data.kind === 'raw') {
            if (data.firstMs !== null && data.lastMs !== null) {
              this.rawExtents.series.push(info.id);
              this.rawExtents.start.push(Math.floor(data.firstMs) * 1000);
              this.rawExtents.end.push(Math.floor(data.lastMs) * 1000);
              this.cover(info.id, Math.floor(data.firstMs) * 1000, Math.floor(data.lastMs) * 1000 - Math.floor(data.firstMs) * 1000);
            }
            const cells = this.addTimed(info.id, data);
            cells.forEach(0, cells.pieces, (sec, _keys, n, start, end) => {
              let total = 0;
              for (let i = start; i < end; i++) total += n[i]!;
              this.rawSeconds.series.push(info.id);
              this.rawSeconds.sec.push(sec);
              this.rawSeconds.n.push(total);
              this.count(info.id, sec, total);
            });
            info.count = data.samples;
          } else if (data.kind === 'distribution') {
            info.distribution = data;
            info.count = data.totalCount;
          } else if (data.kind === 'intervals') {
            for (const row of data.rows) {
              this.intervals.series.push(info.id);
              this.intervals.start.push(row.startUs);
              this.intervals.length.push(row.lengthUs);
              this.intervals.n.push(row.count);
              this.cover(info.id, row.startUs, row.lengthUs);
              this.countInterval(info.id, row.startUs, row.count);
              info.count += row.count;
            }
            info.periodic = data;
          } else {
            info.summary = data;
            info.count = data.count;
          }
          this.series.push(info);
        }
      }
    }
    this.flush();
    this.insertSeriesRows(this.series.slice(firstSeries));
    this.version++;
  }

  /**
   * Load a comparison: each operation's merged histogram goes straight into `series_buckets` and the
   * store's whole-series sums (so the same code recomputes every figure), and the per-second throughput becomes one-second intervals
   * of two timeline series (ok, failed). Per-client and per-interval latency data are not part of
   * a comparison.
   */
  addSnapshot(snapshot: Snapshot): void {
    const first = this.series.length;
    this.carriedComparison = snapshot.comparison ?? null;
    this.carriedView = snapshot.view ?? null;
    for (const r of snapshot.runs) {
      const runId = this.runs.length;
      this.runs.push({ id: runId, key: r.key, label: r.label, paths: [], clients: [], failures: [], snapshot: r });
      for (const [op, o] of Object.entries(r.ops)) {
        const b = snapshotBuckets(o);
        const id = this.series.length;
        this.series.push({
          id,
          runId,
          client: 'all clients',
          op,
          kind: opKind(op),
          source: b.raw ? 'raw' : 'histogram',
          file: 'snapshot',
          unit: o.unit as LatencyUnit,
          precision: b.precision,
          timeBase: null,
          count: b.count.reduce((a, c) => a + c, 0),
          naive: o.naive,
        });
        // A comparison's latency data has no time: one cell per bucket.
        const whole = inOrder({ lo: Float64Array.from(b.lo), width: Float64Array.from(b.width), n: Float64Array.from(b.count) }, 0, b.count.length);
        this.unsentSums.push({ id, whole });
        this.wholeSums.set(id, whole);
      }
      const t = r.throughputPerSecond;
      if (t) {
        for (const [op, counts] of [
          ['all operations', t.ok],
          ['all operations-FAILED', t.failed],
        ] as const) {
          const id = this.series.length;
          this.series.push({ id, runId, client: 'all clients', op, kind: opKind(op), source: 'histogram', file: 'snapshot', unit: 'us', precision: null, timeBase: 'absolute', count: 0, role: 'timeline' });
          const bucketS = t.bucketS ?? 1;
          counts.forEach((n, i) => {
            this.intervals.series.push(id);
            this.intervals.start.push((t.startEpochS + i * bucketS) * 1e6);
            this.intervals.length.push(bucketS * 1e6);
            this.intervals.n.push(n);
            this.cover(id, (t.startEpochS + i * bucketS) * 1e6, bucketS * 1e6);
            this.countInterval(id, (t.startEpochS + i * bucketS) * 1e6, n);
          });
        }
      }
    }
    this.flush();
    this.insertSeriesRows(this.series.slice(first));
    this.version++;
  }

  private insertSeriesRows(added: readonly SeriesInfo[]): void {
    this.insert('series', () =>
      tableFromArrays({
        series_id: Int32Array.from(added, (s) => s.id),
        run_id: Int32Array.from(added, (s) => s.runId),
        client: added.map((s) => s.client),
        op: added.map((s) => s.op),
        op_kind: added.map((s) => s.kind),
        source: added.map((s) => s.source),
        file: added.map((s) => s.file),
      }),
    );
  }

  private flush(): void {
    if (this.intervals.n.length > 0) {
      const columns = { series_id: this.intervals.series.finish(), start_us: this.intervals.start.finish(), length_us: this.intervals.length.finish(), n: this.intervals.n.finish() };
      this.insert('intervals', () => tableFromArrays(columns));
      this.intervals = this.emptyIntervals();
    }
    this.flushBuckets();
    if (this.rawSeconds.series.length > 0) {
      const columns = { series_id: this.rawSeconds.series.finish(), sec: this.rawSeconds.sec.finish(), n: this.rawSeconds.n.finish() };
      this.insert('raw_seconds', () => tableFromArrays(columns));
      this.rawSeconds = this.emptyRawSeconds();
    }
    if (this.rawExtents.series.length > 0) {
      const columns = { series_id: this.rawExtents.series.finish(), start_us: this.rawExtents.start.finish(), end_us: this.rawExtents.end.finish() };
      this.insert('raw_extents', () => tableFromArrays(columns));
      this.rawExtents = this.emptyRawExtents();
    }
  }

  /** Appends the whole-series sums added since to `series_buckets` (they are kept, and never change). */
  private flushBuckets(): void {
    const sums = this.unsentSums;
    if (sums.length === 0) return;
    this.unsentSums = [];
    this.insert('series_buckets', () => {
      const rows = sums.reduce((total, { whole }) => total + whole.lo.length, 0);
      const [series_id, lo, width, n] = [new Int32Array(rows), new Float64Array(rows), new Float64Array(rows), new Float64Array(rows)];
      let at = 0;
      for (const { id, whole } of sums) {
        series_id.fill(id, at, at + whole.lo.length);
        lo.set(whole.lo, at);
        width.set(whole.width, at);
        n.set(whole.count, at);
        at += whole.lo.length;
      }
      return tableFromArrays({ series_id, lo: int32IfExact(lo), width: int32IfExact(width), n: int32IfExact(n) });
    });
  }
  private emptyIntervals() {
    return { series: new Float64Column(), start: new Float64Column(), length: new Float64Column(), n: new Float64Column() };
  }
  private emptyRawExtents() {
    return { series: new Float64Column(), start: new Float64Column(), end: new Float64Column() };
  }
  private emptyRawSeconds() {
    return { series: new Float64Column(), sec: new Float64Column(), n: new Float64Column() };
  }
}

/**
 * A value as DuckDB stores it in a BIGINT column: a DOUBLE is cast to the nearest integer, ties to
 * even (2.5 → 2, 3.5 → 4).
 */
function asStoredInteger(v: number): number {
  const r = Math.round(v);
  // `+ 0`: no -0, which DuckDB's integers do not have.
  return (r - v === 0.5 && r % 2 !== 0 ? r - 1 : r) + 0;
}

/**
 * The column as 32-bit integers when every value is one (the usual case: seconds before 2038,
 * µs latencies, counts), else unchanged. DuckDB-WASM appends INT32 to its BIGINT columns 3–4×
 * faster than DOUBLE, whose cast checks each value (1M rows: ~60–140 ms against ~190–550 ms).
 */
function int32IfExact(column: Float64Array): Int32Array | Float64Array {
  // NaN, fractions and values beyond ±2^31 all fail `(v | 0) === v`.
  for (let i = 0; i < column.length; i++) if ((column[i]! | 0) !== column[i]) return column;
  const out = new Int32Array(column.length);
  out.set(column);
  return out;
}

