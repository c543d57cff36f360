import { hdrLayout, type HdrLayout } from './hdr-layout.ts';
import type { HdrPrecision, IndexedHistogram } from './types.ts';

/**
 * Raw samples → HdrHistogram interval histograms, in constant memory: each series keeps the
 * intervals of its newest `windowMs` of data time open (a dense counts array each) and hands every
 * older one on as soon as its series' data moves past it. This is what `npm run reduce` records
 * raw result files with, so that a file far larger than memory becomes an interval log.
 *
 * Raw files are written roughly in time order (several threads each write as their operation
 * ends; YCSB writes one block per operation, each in order). A sample older than its series'
 * window is *late*: it is not moved to another interval nor dropped — its own interval is opened
 * again and handed on once more, so the log holds a second line with the same start. Readers that
 * sum the intervals of a log (benchlens, HdrHistogram's HistogramLogProcessor) count it in its
 * right interval; counts stay exact. Samples without a time (NaN) form one histogram per series,
 * handed on at the end with start NaN.
 */

/** One interval of one series, handed on when it closes. */
export interface ClosedInterval {
  series: number;
  /** Interval start in epoch ms (a multiple of the interval length), NaN for untimed samples. */
  startMs: number;
  lengthMs: number;
  histogram: IndexedHistogram;
  /** Opened for a late sample: the log already holds (or will hold) another line for this start. */
  late: boolean;
}

interface OpenInterval {
  key: number;
  counts: Float64Array;
  /** Highest counts index written, -1 when none. */
  top: number;
  late: boolean;
}

/** More intervals than this below a series' window are closed at once, whatever comes next. */
const MAX_LATE_OPEN = 64;
const FIRST_COUNTS = 1 << 11;

class SeriesWindow {
  /** The newest interval key seen; -Infinity before the first timed sample. */
  newest = -Infinity;
  readonly open = new Map<number, OpenInterval>();
  lateOpen = 0;
  untimed: OpenInterval | null = null;
}

export class IntervalRecorder {
  readonly layout: HdrLayout;
  private readonly windows: SeriesWindow[] = [];
  /** Intervals open beyond the newest one: `windowMs` of data time. */
  private readonly keep: number;
  /** The last interval a sample went to: consecutive samples nearly always share it. */
  private lastSeries = -1;
  private lastKey = Number.NaN;
  private last: OpenInterval | null = null;
  private readonly spare: Float64Array[] = [];
  /** Samples that arrived after their interval had left the window. */
  lateSamples = 0;
  /** Samples whose value is not an integer from 0 to 2^53 - 1: no histogram can hold them. */
  unrecordable = 0;
  // Inlined counts-index arithmetic of the layout (values below 2^31).
  private readonly unitMagnitude: number;
  private readonly indexBase: number;
  private readonly halfMagnitude: number;
  private readonly halfCount: number;

  constructor(
    readonly precision: HdrPrecision,
    readonly intervalMs: number,
    windowMs: number,
    private readonly onClose: (interval: ClosedInterval) => void,
  ) {
    if (!(intervalMs > 0)) throw new RangeError(`interval must be positive (got ${intervalMs} ms)`);
    this.layout = hdrLayout(precision);
    this.keep = Math.max(1, Math.ceil(windowMs / intervalMs));
    this.unitMagnitude = this.layout.unitMagnitude;
    this.indexBase = this.layout.unitMagnitude + this.layout.subBucketCountMagnitude;
    this.halfMagnitude = this.layout.subBucketHalfCountMagnitude;
    this.halfCount = this.layout.subBucketHalfCount;
  }

  /** One sample of `series`, at `timeMs` (epoch ms; NaN = no time), of `value` in the series' unit. */
  add(series: number, timeMs: number, value: number): void {
    this.addCount(series, timeMs, value, 1);
  }

  /** `n` samples of the same series, time and value. */
  addCount(series: number, timeMs: number, value: number, n: number): void {
    const key = Math.floor(timeMs / this.intervalMs);
    let open = this.last;
    if (series !== this.lastSeries || key !== this.lastKey || open === null) {
      open = this.intervalFor(series, key);
      this.lastSeries = series;
      this.lastKey = key;
      this.last = open;
    }
    let index: number;
    if (value >= 0 && value < 2147483648 && (value | 0) === value) {
      const bits = 32 - Math.clz32(value);
      const bucket = bits > this.indexBase ? bits - this.indexBase : 0;
      index = ((bucket + 1) << this.halfMagnitude) + (value >>> (bucket + this.unitMagnitude)) - this.halfCount;
    } else if (Number.isSafeInteger(value) && value >= 0) {
      index = this.layout.countsArrayIndex(value);
    } else {
      this.unrecordable += n;
      return;
    }
    if (index >= open.counts.length) open.counts = grown(open.counts, index);
    open.counts[index]! += n;
    if (index > open.top) open.top = index;
  }

  /** Hands on every interval still open. Nothing may be added afterwards. */
  finish(): void {
    for (let series = 0; series < this.windows.length; series++) {
      const window = this.windows[series]!;
      for (const open of [...window.open.values()].sort((a, b) => a.key - b.key)) this.close(series, open);
      window.open.clear();
      if (window.untimed) this.close(series, window.untimed);
      window.untimed = null;
    }
    this.last = null;
  }

  private intervalFor(series: number, key: number): OpenInterval {
    while (this.windows.length <= series) this.windows.push(new SeriesWindow());
    const window = this.windows[series]!;
    if (key !== key) return (window.untimed ??= this.opened(key, false));
    let open = window.open.get(key);
    if (open) return open;
    if (key > window.newest) {
      window.newest = key;
      // The window moves: everything below it is complete (late samples aside).
      const oldest = key - this.keep;
      for (const [k, o] of window.open) {
        if (k < oldest) {
          this.close(series, o);
          window.open.delete(k);
        }
      }
      window.lateOpen = 0;
    }
    const late = key < window.newest - this.keep;
    if (late) {
      if (window.lateOpen >= MAX_LATE_OPEN) {
        for (const [k, o] of window.open) {
          if (o.late) {
            this.close(series, o);
            window.open.delete(k);
          }
        }
        window.lateOpen = 0;
      }
      window.lateOpen++;
    }
    open = this.opened(key, late);
    window.open.set(key, open);
    return open;
  }

  private opened(key: number, late: boolean): OpenInterval {
    return { key, counts: this.spare.pop() ?? new Float64Array(FIRST_COUNTS), top: -1, late };
  }

  private close(series: number, open: OpenInterval): void {
    if (open === this.last) this.last = null;
    const { counts, top } = open;
    let buckets = 0;
    let total = 0;
    for (let i = 0; i <= top; i++) if (counts[i] !== 0) buckets++;
    const index = new Int32Array(buckets);
    const count = new Float64Array(buckets);
    for (let i = 0, j = 0; i <= top; i++) {
      const c = counts[i]!;
      if (c === 0) continue;
      index[j] = i;
      count[j++] = c;
      total += c;
      counts[i] = 0;
    }
    if (open.late) this.lateSamples += total;
    this.spare.push(counts);
    if (total === 0) return;
    this.onClose({
      series,
      startMs: open.key * this.intervalMs,
      lengthMs: open.key === open.key ? this.intervalMs : Number.NaN,
      histogram: { index, count, totalCount: total },
      late: open.late,
    });
  }
}

function grown(counts: Float64Array, index: number): Float64Array {
  let size = counts.length;
  while (size <= index) size *= 2;
  const bigger = new Float64Array(size);
  bigger.set(counts);
  return bigger;
}

/**
 * The largest integer an HdrHistogram of this precision records exactly (its bucket holds that
 * value alone): every value from 0 to it is its own bucket; above it, a bucket holds 2^k values.
 */
export function largestExactValue(precision: HdrPrecision): number {
  const layout = hdrLayout(precision);
  if (layout.sizeOfEquivalentValueRange(0) > 1) return -1;
  // Buckets of width 1 run up to the first bucket's top: subBucketCount << unitMagnitude, less one.
  return layout.subBucketCount * layout.pow2[layout.unitMagnitude]! - 1;
}
