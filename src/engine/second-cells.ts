import type { HdrPrecision, HistogramSeries, RawSeries } from '../model/types.ts';
import { Float64Column } from '../formats/growable.ts';
import { bucketColumns, type BucketColumns, type BucketSum } from './bucket-sum.ts';

/**
 * A timed series' latency buckets second by second, as parsed, in second order. The worker keeps
 * these instead of putting every second into DuckDB: an hour of interval logs from 12 clients is
 * some 40 million per-second buckets, which would take DuckDB-WASM several seconds to take in.
 * DuckDB gets blocks pre-merged from them; the worker adds the ragged ends of a window itself, and
 * the seconds go into DuckDB only when a latency-over-time chart needs them.
 *
 * A *piece* is one interval histogram, or one second of raw counts; several pieces may share a
 * second. Untimed raw samples are kept apart: no window holds them.
 */
export class SecondCells {
  private constructor(
    /** Second of each piece, ascending. */
    readonly secs: Float64Array,
    private readonly piece: (index: number, visit: PieceVisitor) => void,
    /** Raw samples without a time: values and counts. */
    readonly untimed: { value: Float64Array; n: Float64Array } | null,
    /** The HdrHistogram precision of the buckets (null: exact values). */
    readonly precision: HdrPrecision | null,
  ) {}

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
        visit(sorted[k]!, h.lo, h.width, h.count, 0, h.lo.length);
      },
      null,
      series.precision,
    );
  }

  /** Raw counts: one piece per second, exact values (width 1). */
  static ofRaw(series: RawSeries): SecondCells {
    const { sec, value, n } = series.counts;
    let timed = 0;
    for (let i = 0; i < sec.length; i++) if (!Number.isNaN(sec[i])) timed++;
    const order = ascending(sec);
    // NaN sorts last: the timed entries come first, in second order.
    const sortedValue = Float64Array.from(order, (i) => value[i]!);
    const sortedN = Float64Array.from(order, (i) => n[i]!);
    const starts: number[] = [];
    const secs: number[] = [];
    for (let k = 0; k < timed; k++) {
      const s = sec[order[k]!]!;
      if (k === 0 || s !== secs[secs.length - 1]) {
        starts.push(k);
        secs.push(s);
      }
    }
    starts.push(timed);
    return new SecondCells(
      Float64Array.from(secs),
      (k, visit) => visit(secs[k]!, sortedValue, null, sortedN, starts[k]!, starts[k + 1]!),
      timed < sec.length ? { value: sortedValue.subarray(timed), n: sortedN.subarray(timed) } : null,
      null,
    );
  }

  /** Pieces that are ranges of shared columns: `starts[k]`..`starts[k+1]-1` is piece k. */
  static ofColumns(secs: Float64Array, starts: Uint32Array, columns: BucketColumns, precision: HdrPrecision | null): SecondCells {
    return new SecondCells(secs, (k, visit) => visit(secs[k]!, columns.lo, columns.width, columns.n, starts[k]!, starts[k + 1]!), null, precision);
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
    this.forEach(from, to, (_, lo, width, n, start, end) => sum.add(lo, width, n, start, end));
  }
}

/**
 * The buckets of `cells`' pieces `from`..`to-1` summed per block of `size` seconds, handed to
 * `emit` in block order (block start, columns valid until the next call, length).
 */
export function sumPerBlock(cells: SecondCells, from: number, to: number, size: number, sum: BucketSum, emit: (blockStart: number, columns: BucketColumns, length: number) => void): void {
  sum.usePrecision(cells.precision);
  let block = Number.NaN;
  let scratch = bucketColumns(1024);
  const drain = () => {
    if (sum.size === 0) return;
    const { columns, length } = sum.drain(scratch);
    scratch = columns;
    emit(block, columns, length);
  };
  cells.forEach(from, to, (sec, lo, width, n, start, end) => {
    const b = Math.floor(sec / size) * size;
    if (b !== block) {
      drain();
      block = b;
    }
    sum.add(lo, width, n, start, end);
  });
  drain();
}

/**
 * A series' buckets at each level the worker keeps: seconds, then blocks of growing sizes (each a
 * multiple of the one before). A span of seconds is summed from the coarsest pieces inside it, so
 * the ragged ends of a window cost a few blocks and at most a block's worth of seconds each.
 */
export class TimeLevels {
  private constructor(
    private readonly levels: readonly SecondCells[],
    /** Seconds per piece of each level: 1 for seconds. */
    private readonly sizes: readonly number[],
  ) {}

  static build(seconds: SecondCells, blockSizes: readonly number[], sum: BucketSum): TimeLevels {
    const levels = [seconds];
    for (const size of blockSizes) {
      const finer = levels[levels.length - 1] as SecondCells;
      const secs = new Float64Column();
      const starts = new Float64Column();
      const lo = new Float64Column();
      const width = new Float64Column();
      const n = new Float64Column();
      sumPerBlock(finer, 0, finer.pieces, size, sum, (block, c, length) => {
        secs.push(block);
        starts.push(lo.length);
        for (let k = 0; k < length; k++) {
          lo.push(c.lo[k]!);
          width.push(c.width[k]!);
          n.push(c.n[k]!);
        }
      });
      starts.push(lo.length);
      levels.push(SecondCells.ofColumns(secs.finish(), Uint32Array.from(starts.finish()), { lo: lo.finish(), width: width.finish(), n: n.finish() }, seconds.precision));
    }
    return new TimeLevels(levels, [1, ...blockSizes]);
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

/** A piece's buckets: `lo`/`width`/`n` from `start` to `end`; a null width means exact values. */
export type PieceVisitor = (sec: number, lo: Float64Array, width: Float64Array | null, n: Float64Array, start: number, end: number) => void;

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
  // Raw counts come in hash-table order over a run's few thousand seconds: a counting sort.
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
