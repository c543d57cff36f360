import type { BucketCounts, HdrPrecision, HistogramSeries, RawSeries, SparseHistogram } from '../model/types.ts';
import { hdrLayout, type HdrLayout } from '../model/hdr-layout.ts';
import { bucketColumns, indexedColumns, valuesInOrder, type BucketSum } from './bucket-sum.ts';

/**
 * Seconds per pre-merged block, kept by the worker. A window is summed in the worker from the
 * coarsest blocks inside it: an hour of 1-second interval histograms from 48 series (~40M buckets)
 * takes 10-35 ms, against 50-135 ms when DuckDB-WASM summed 600-second blocks. The last size's
 * blocks, summed, are each series' sum over all time: ~300k rows in DuckDB instead of ~40M.
 */
export const BLOCK_SIZES: readonly number[] = [60, 600];

/**
 * A timed series' latency buckets second by second, as parsed, in second order. The worker keeps
 * these instead of putting every second into DuckDB: an hour of interval logs from 12 clients is
 * some 40 million per-second buckets, which would take DuckDB-WASM several seconds to take in.
 * DuckDB gets only each series' sum over all time; the worker sums windows and the time buckets
 * of latency-over-time charts itself (TimeLevels).
 *
 * A *piece* is one interval histogram, or one second of raw counts; several pieces may share a
 * second. A bucket is keyed by its HdrHistogram counts index when the cells have a precision (as
 * the decoder gives them: no bounds to store or to turn back into indices), otherwise by its exact
 * value. Untimed raw samples are kept apart: no window holds them.
 */
export class SecondCells {
  /** The layout of `precision`: bucket keys are counts indices in it. Null: keys are exact values. */
  readonly layout: HdrLayout | null;

  private constructor(
    /** Second of each piece, ascending. */
    readonly secs: Float64Array,
    private readonly piece: (index: number, visit: PieceVisitor) => void,
    /** Raw samples without a time: values and counts. */
    readonly untimed: { value: Float64Array; n: Float64Array } | null,
    /** The HdrHistogram precision of the buckets (null: exact values). */
    readonly precision: HdrPrecision | null,
    /** The pieces as ranges of shared columns, where they are (raw seconds, levels of blocks). */
    readonly columns: LevelColumns | null = null,
  ) {
    this.layout = precision === null ? null : hdrLayout(precision);
  }

  /** Interval histograms, each in the second holding its start (as throughput counts them). */
  static ofHistograms(series: HistogramSeries): SecondCells {
    const { intervals } = series;
    const secs = Float64Array.from(intervals, (i) => Math.floor(i.startUs / 1e6));
    const order = ascending(secs);
    const sorted = Float64Array.from(order, (i) => secs[i]!);
    return new SecondCells(
      sorted,
      (k, visit) => {
        const h = intervals[order[k]!]!.histogram;
        visit(sorted[k]!, h.index, h.count, 0, h.count.length);
      },
      null,
      series.precision,
    );
  }

  /** Raw counts: one piece per second, exact values (width 1); the columns as they are. */
  static ofRaw(series: RawSeries): SecondCells {
    const { secs, starts, value, n } = series.counts;
    const untimed = secs.length > 0 && Number.isNaN(secs[secs.length - 1]);
    const timed = untimed ? secs.length - 1 : secs.length;
    const from = starts[timed] ?? 0;
    return new SecondCells(
      secs.subarray(0, timed),
      (k, visit) => visit(secs[k]!, value, n, starts[k]!, starts[k + 1]!),
      untimed ? { value: value.subarray(from), n: n.subarray(from) } : null,
      null,
      { secs: secs.subarray(0, timed), starts: starts.subarray(0, timed + 1), keys: value, n },
    );
  }

  /** Pieces that are ranges of shared columns: `starts[k]`..`starts[k+1]-1` is piece k. */
  static ofColumns(secs: Float64Array, starts: Uint32Array, keys: Int32Array | Float64Array, n: Float64Array, precision: HdrPrecision | null): SecondCells {
    return new SecondCells(secs, (k, visit) => visit(secs[k]!, keys, n, starts[k]!, starts[k + 1]!), null, precision, { secs, starts, keys, n });
  }

  get pieces(): number {
    return this.secs.length;
  }

  /** Index of the first piece at or after second `s`. */
  firstAtOrAfter(s: number): number {
    let lo = 0;
    let hi = this.secs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.secs[mid]! < s) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Calls `visit` for pieces `from`..`to-1`, in second order. */
  forEach(from: number, to: number, visit: PieceVisitor): void {
    for (let k = from; k < to; k++) this.piece(k, visit);
  }

  /** Adds pieces `from`..`to-1` to `sum`. */
  addTo(sum: BucketSum, from: number, to: number): void {
    const layout = this.layout;
    if (layout === null) this.forEach(from, to, (_, keys, n, start, end) => sum.add(keys as Float64Array, null, n, start, end));
    else this.forEach(from, to, (_, keys, n, start, end) => sum.addIndexed(layout, keys as Int32Array, n, start, end));
  }
}

/**
 * The buckets of `cells`' pieces `from`..`to-1` summed per block of `size` seconds: `emit` is
 * called with each block's start, in block order, and must drain `sum`.
 */
function sumPerBlock(cells: SecondCells, from: number, to: number, size: number, sum: BucketSum, emit: (blockStart: number, sum: BucketSum) => void): void {
  sum.usePrecision(cells.precision);
  let block = Number.NaN;
  let first = from;
  for (let k = from; k <= to; k++) {
    const b = k < to ? blockOf(cells.secs[k]!, size) : Number.NaN;
    if (b === block) continue;
    if (k > first) {
      cells.addTo(sum, first, k);
      if (sum.size > 0) emit(block, sum);
    }
    block = b;
    first = k;
  }
}

/**
 * A series' buckets at each level the worker keeps: seconds, then blocks of growing sizes (each a
 * multiple of the one before). A span of seconds is summed from the coarsest pieces inside it: a
 * window costs its whole top-level blocks, and at each end a few blocks of each finer level and at
 * most a block's worth of seconds.
 */
export class TimeLevels {
  private constructor(
    private readonly levels: readonly SecondCells[],
    /** Seconds per piece of each level: 1 for seconds. */
    private readonly sizes: readonly number[],
    /**
     * The columns of the levels above seconds, as built: what a parse worker hands on. Null: the
     * level's blocks are ranges of the level below (see blockView), which summing would not shrink.
     */
    readonly blockColumns: readonly (LevelColumns | null)[],
    /** Every bucket summed over all time, once summed (see wholeSum). */
    private whole: SparseHistogram | null = null,
  ) {}

  /**
   * The levels above `seconds` from their columns, as `blockColumns` gave them for `blockSizes`,
   * and their sum over all time when it was made with them.
   */
  static ofColumns(seconds: SecondCells, blockSizes: readonly number[], columns: readonly (LevelColumns | null)[], whole: SparseHistogram | null = null): TimeLevels {
    if (columns.length !== blockSizes.length) throw new RangeError(`${columns.length} levels of blocks for ${blockSizes.length} block sizes`);
    const levels = [seconds];
    columns.forEach((c, i) => {
      const finer = (levels[levels.length - 1] as SecondCells).columns;
      if (!c && !finer) throw new RangeError(`the level of ${blockSizes[i]}-second blocks is one of ranges, of a level that has no columns`);
      const level = c ?? blockView(finer as LevelColumns, blockSizes[i] as number);
      levels.push(SecondCells.ofColumns(level.secs, level.starts, level.keys, level.n, seconds.precision));
    });
    return new TimeLevels(levels, [1, ...blockSizes], columns, whole);
  }

  /**
   * Every bucket of the series summed over all time, untimed values too, as a histogram in order
   * (bucket-sum.ts inOrder): summed from the coarsest blocks once, then kept. In order, the whole
   * sums of several series merge without a hash table or a sort.
   */
  wholeSum(sum: BucketSum): SparseHistogram {
    if (this.whole) return this.whole;
    const { seconds, top } = this;
    if (top.columns && top.layout === null && this.blockColumns[this.blockColumns.length - 1] === null) {
      // The top level is ranges of exact values that hardly repeat: sorted, not hashed.
      const { keys, n, starts } = top.columns;
      const [from, to] = [starts[0] ?? 0, starts[top.pieces] ?? 0];
      const untimed = seconds.untimed ?? { value: new Float64Array(0), n: new Float64Array(0) };
      const values = new Float64Array(to - from + untimed.value.length);
      const counts = new Float64Array(values.length);
      values.set(keys.subarray(from, to));
      values.set(untimed.value, to - from);
      counts.set(n.subarray(from, to));
      counts.set(untimed.n, to - from);
      this.whole = valuesInOrder(values, counts);
      return this.whole;
    }
    sum.usePrecision(seconds.precision);
    top.addTo(sum, 0, top.pieces);
    if (seconds.untimed) sum.add(seconds.untimed.value, null, seconds.untimed.n, 0, seconds.untimed.n.length);
    this.whole = sum.drainInOrder();
    return this.whole;
  }

  static build(seconds: SecondCells, blockSizes: readonly number[], sum: BucketSum): TimeLevels {
    const levels = [seconds];
    const columns: (LevelColumns | null)[] = [];
    for (const size of blockSizes) {
      const finer = levels[levels.length - 1] as SecondCells;
      // Once a level is not summed, the coarser ones are not either: values that do not repeat
      // within a block seldom do within the next size.
      if (finer.columns && (columns[columns.length - 1] === null || !summingShrinks(finer, size, sum))) {
        // Values that hardly repeat (ns latencies): a block is its seconds' cells as they are.
        const view = blockView(finer.columns, size);
        columns.push(null);
        levels.push(SecondCells.ofColumns(view.secs, view.starts, view.keys, view.n, seconds.precision));
        continue;
      }
      const secs: number[] = [];
      const starts: number[] = [];
      const keyParts: (Int32Array | Float64Array)[] = [];
      const nParts: Float64Array[] = [];
      let length = 0;
      sumPerBlock(finer, 0, finer.pieces, size, sum, (block) => {
        secs.push(block);
        starts.push(length);
        const blockSize = sum.size;
        // Counts indices, or exact values (summed as buckets of width 1).
        const { columns } = finer.layout !== null ? sum.drainIndexed(indexedColumns(blockSize)) : sum.drain(bucketColumns(blockSize));
        keyParts.push('index' in columns ? columns.index : columns.lo);
        nParts.push(columns.n);
        length += blockSize;
      });
      starts.push(length);
      const keys = finer.layout !== null ? concat(keyParts as Int32Array[], new Int32Array(length)) : concat(keyParts as Float64Array[], new Float64Array(length));
      const level: LevelColumns = { secs: Float64Array.from(secs), starts: Uint32Array.from(starts), keys, n: concat(nParts, new Float64Array(length)) };
      columns.push(level);
      levels.push(SecondCells.ofColumns(level.secs, level.starts, level.keys, level.n, seconds.precision));
    }
    return new TimeLevels(levels, [1, ...blockSizes], columns);
  }

  get seconds(): SecondCells {
    return this.levels[0] as SecondCells;
  }

  /** The coarsest level kept. */
  get top(): SecondCells {
    return this.levels[this.levels.length - 1] as SecondCells;
  }

  /** Adds every bucket whose second is in [a, z) to `sum` (whose precision the caller has set). */
  addRange(sum: BucketSum, a: number, z: number, level = this.levels.length - 1): void {
    if (!(a < z)) return;
    const cells = this.levels[level] as SecondCells;
    if (level === 0) {
      cells.addTo(sum, cells.firstAtOrAfter(a), cells.firstAtOrAfter(z));
      return;
    }
    const size = this.sizes[level] as number;
    const wholeFrom = Math.ceil(a / size) * size;
    const wholeTo = Math.floor(z / size) * size;
    if (wholeFrom >= wholeTo) {
      this.addRange(sum, a, z, level - 1);
      return;
    }
    this.addRange(sum, a, wholeFrom, level - 1);
    cells.addTo(sum, cells.firstAtOrAfter(wholeFrom), cells.firstAtOrAfter(wholeTo));
    this.addRange(sum, wholeTo, z, level - 1);
  }
}

/** The start of the block of `size` seconds that second `sec` is in. */
function blockOf(sec: number, size: number): number {
  return Math.floor(sec / size) * size;
}

/** Blocks a level is tried on before it is summed: enough to see whether the values repeat. */
const SAMPLED_BLOCKS = 3;
/** A level is summed when that leaves at most this share of the cells of the level below. */
const SUMMED_SHARE = 0.5;

/**
 * Whether summing `cells` per block of `size` seconds leaves far fewer buckets, judged on the first
 * SAMPLED_BLOCKS blocks: where values hardly repeat (latencies in ns), a summed level costs a hash
 * table insert and a copy of nearly every cell, and saves a window nothing.
 */
function summingShrinks(cells: SecondCells, size: number, sum: BucketSum): boolean {
  let to = 0;
  let blocks = 0;
  for (let block = Number.NaN; to < cells.pieces; to++) {
    const b = blockOf(cells.secs[to]!, size);
    if (b !== block && ++blocks > SAMPLED_BLOCKS) break;
    block = b;
  }
  let summed = 0;
  sumPerBlock(cells, 0, to, size, sum, (_, s) => {
    summed += s.size;
    s.drain(bucketColumns(s.size));
  });
  const columns = cells.columns as LevelColumns;
  return summed <= SUMMED_SHARE * ((columns.starts[to] as number) - (columns.starts[0] as number));
}

/** Blocks of `size` seconds as ranges of `finer`'s columns (which it shares), not summed. */
function blockView(finer: LevelColumns, size: number): LevelColumns {
  const secs: number[] = [];
  const starts: number[] = [];
  for (let k = 0; k < finer.secs.length; k++) {
    const block = blockOf(finer.secs[k]!, size);
    if (secs.length === 0 || block !== secs[secs.length - 1]) {
      secs.push(block);
      starts.push(finer.starts[k]!);
    }
  }
  starts.push(finer.starts[finer.secs.length] ?? 0);
  return { secs: Float64Array.from(secs), starts: Uint32Array.from(starts), keys: finer.keys, n: finer.n };
}

/**
 * One level of blocks as columns: block `k` starts at second `secs[k]` and holds buckets
 * `starts[k]`..`starts[k+1]-1` of `keys` (counts indices, or exact values) and `n`.
 */
export interface LevelColumns {
  secs: Float64Array;
  starts: Uint32Array;
  keys: Int32Array | Float64Array;
  n: Float64Array;
}

/** A piece's buckets from `start` to `end`: keys (counts indices, or exact values; see SecondCells) and counts. */
export type PieceVisitor = (sec: number, keys: Int32Array | Float64Array, n: BucketCounts, start: number, end: number) => void;

function concat<T extends Int32Array | Float64Array>(parts: readonly T[], out: T): T {
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Indices in ascending order of `keys` (whole seconds, or NaN: last), stable. */
function ascending(keys: Float64Array): Uint32Array {
  let inOrder = true;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (Number.isNaN(k)) continue;
    // Logs are written in time order, so this is the usual case for interval histograms.
    if (i > 0 && !(keys[i - 1]! <= k)) inOrder = false;
    if (k < min) min = k;
    if (k > max) max = k;
  }
  const order = new Uint32Array(keys.length);
  if (inOrder) {
    // In order with NaNs only at the end, or none.
    let timed = 0;
    for (let i = 0; i < keys.length; i++) if (!Number.isNaN(keys[i]!)) order[timed++] = i;
    for (let i = 0, at = timed; i < keys.length; i++) if (Number.isNaN(keys[i]!)) order[at++] = i;
    return order;
  }
  const span = max - min + 1;
  if (span > 4 * keys.length + 65_536) {
    // Seconds scattered over a span far wider than their number: a comparison sort.
    for (let i = 0; i < keys.length; i++) order[i] = i;
    return order.sort((a, b) => {
      const x = keys[a]!;
      const y = keys[b]!;
      if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? a - b : 1) : -1;
      return x - y || a - b;
    });
  }
  // Seconds over a span not much wider than their number: a counting sort.
  // Slot `span` holds the NaNs; next[slot] ends as the first position of that slot.
  const next = new Uint32Array(span + 2);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    next[(Number.isNaN(k) ? span : k - min) + 1]!++;
  }
  for (let s = 1; s <= span + 1; s++) next[s]! += next[s - 1]!;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const slot = Number.isNaN(k) ? span : k - min;
    order[next[slot]!++] = i;
  }
  return order;
}
