import type { SampleCountColumns } from '../model/types.ts';

/** A counted series as the parser hands it on; see `RawSeries`. */
export interface CountedSamples {
  samples: number;
  firstMs: number | null;
  lastMs: number | null;
  counts: SampleCountColumns;
}

/**
 * Where a parser's raw samples go instead of being counted: the reduce CLI streams them into
 * interval histograms in constant memory (a whole file's counts per (second, value) need not fit).
 * Given as `FormatOptions.rawSamples`; a parser hands it to its one SampleCounter.
 */
export interface RawSampleSink {
  /** One sample, as `SampleCounter.add` gets it. */
  add(series: number, timeMs: number, value: number): void;
  /**
   * The parser has counted its last sample: `counted[i]` is what series i hands on (samples, first
   * and last time; its counts are empty). The parser's RawSeries carry these `counts` objects, which
   * is how a series is matched with the samples it had here.
   */
  end(counted: readonly CountedSamples[]): void;
}

/** Samples buffered before they are counted: big enough to amortise, small enough for the cache. */
const CHUNK = 1 << 17;
/** Small at first: most files are small. */
const FIRST_BUFFER = 1 << 10;
/**
 * When the buffer is full, the samples of its newest seconds — about this share of it — are held
 * back: raw files are written roughly in time order (several threads, each writing as its operation
 * ends), so those seconds may still get samples. A sample for a second already counted is *late*:
 * counted apart and merged at the end.
 */
const HOLD_BACK_SHARE = 0.25;
/**
 * Series counted as their samples come, in their open seconds (OpenSeconds): files of many series
 * (a name per line) buffer the rest, which keeps a pair of tables per series from costing more than
 * the series' lines.
 */
const DIRECT_SERIES = 256;
/** Cells of closed seconds a series gathers in one run before it joins its counted cells (see OpenSeconds.close). */
const CLOSED_CELLS = 32768;

/**
 * Counts raw samples per (series, second, value) while a file is read. Benchmark latencies repeat
 * a lot (integer µs), so tens of millions of rows end as far fewer counts; and every later question
 * is about whole seconds. Each second's values are counted in a small hash table that stays in the
 * cache — one big table over every (second, value) of a file missed the cache on nearly every
 * sample. A sample in one of its series' two newest seconds is counted at once (OpenSeconds: most
 * are, raw files being written in time order); the others are buffered, ordered by second then
 * series (counting sorts: a buffer spans a few seconds) and counted a second at a time. The counts
 * come out in second order, which is how the engine keeps them.
 *
 * One file of over 500 lines: the open seconds, the buffer, the per-second value tables, late runs
 * and their merge make one counting scheme, each part of which assumes the others; the merge of a
 * file's parts (mergeCounted) counts shared seconds in the same tables.
 */
export class SampleCounter {
  // Per series, in plain columns: a file may hold tens of thousands of series of a sample or two
  // (a new name on every line), which an object each would make cost far more than their lines.
  private seriesCount = 0;
  private samples = new Float64Array(16);
  private firstMs = new Float64Array(16);
  private lastMs = new Float64Array(16);
  /**
   * Cells of every second up to the series' last, in order: runs as counted, joined once at the
   * end (growing one set of columns copied them again and again).
   */
  private readonly main: (CellRun[] | undefined)[] = [];
  /** Runs of late samples, each in second order; sizes shrink towards the top (merged as they come). */
  private readonly late = new Map<number, CellRun[]>();
  private readonly untimed = new UntimedCounts();
  private readonly scratch = new Scratch();
  /** The first DIRECT_SERIES series' open seconds, counted as samples come (see OpenSeconds). */
  private readonly open: (OpenSeconds | undefined)[] = [];
  private bufferSeries = new Int32Array(FIRST_BUFFER);
  private bufferSec = new Float64Array(FIRST_BUFFER);
  private bufferValue = new Float64Array(FIRST_BUFFER);
  private buffered = 0;

  /** With a sink, samples go to it instead of being counted (`FormatOptions.rawSamples`). */
  constructor(private readonly sink: RawSampleSink | null = null) {}

  /** One sample of series `series` (0, 1, 2… in order of first appearance); `timeMs` NaN = no time. */
  add(series: number, timeMs: number, value: number): void {
    if (series >= this.seriesCount) this.newSeries(series);
    this.samples[series]!++;
    // NaN (no time) fails both comparisons; -0 ms is 0 ms.
    if (timeMs < this.firstMs[series]!) this.firstMs[series] = timeMs + 0;
    if (timeMs > this.lastMs[series]!) this.lastMs[series] = timeMs + 0;
    if (this.sink !== null) return this.sink.add(series, timeMs, value);
    // -0 ms is second 0.
    const sec = Math.floor(timeMs / 1000) + 0;
    if (sec !== sec) {
      this.untimed.add(series, value, 1);
      return;
    }
    if (series < DIRECT_SERIES) {
      const open = (this.open[series] ??= new OpenSeconds());
      if (open.add(sec, value)) {
        if (open.full.length > 0) this.takeFull(series, open);
        return;
      }
    }
    if (this.buffered === this.bufferSec.length) this.makeRoom();
    this.bufferSeries[this.buffered] = series;
    this.bufferSec[this.buffered] = sec;
    this.bufferValue[this.buffered++] = value;
  }

  /** The counts of series 0..seriesCount-1. Nothing may be added afterwards. */
  finish(seriesCount: number): CountedSamples[] {
    this.open.forEach((open, series) => {
      if (!open) return;
      open.closeAll();
      this.takeFull(series, open);
      this.take(series, open.rest, true);
    });
    this.count(true);
    const untimed = this.untimed.bySeries(seriesCount);
    const counted = Array.from({ length: seriesCount }, (_, i): CountedSamples => {
      if (i >= this.seriesCount) return { samples: 0, firstMs: null, lastMs: null, counts: joined([], untimed[i]!) };
      const first = this.firstMs[i]!;
      const last = this.lastMs[i]!;
      const timed = first <= last;
      const late = this.late.get(i) ?? [];
      let counts: SampleCountColumns;
      if (late.length === 0) counts = joined(this.main[i] ?? [], untimed[i]!);
      else {
        // Late samples: merged into one run first (rarely more than a few thousand cells).
        let cells = concatenated(this.main[i] ?? []);
        for (const run of late.reverse()) cells = this.scratch.merge(cells, run);
        counts = joined([cells], untimed[i]!);
      }
      return { samples: this.samples[i]!, firstMs: timed ? first : null, lastMs: timed ? last : null, counts };
    });
    this.sink?.end(counted);
    return counted;
  }

  private newSeries(series: number): void {
    if (series >= this.samples.length) {
      const size = Math.max(2 * this.samples.length, series + 1);
      this.samples = grown(this.samples, size);
      this.firstMs = grown(this.firstMs, size);
      this.lastMs = grown(this.lastMs, size);
    }
    for (let s = this.seriesCount; s <= series; s++) {
      this.firstMs[s] = Infinity;
      this.lastMs[s] = -Infinity;
      // Nothing of its own until it has cells: a file may hold thousands of one-sample series.
      this.main.push(undefined);
    }
    this.seriesCount = series + 1;
  }

  /** The buffer is full: grow it, or count all but its newest seconds. */
  private makeRoom(): void {
    if (this.bufferSec.length < CHUNK) {
      const size = this.bufferSec.length * 2;
      this.bufferSeries = grownInt(this.bufferSeries, size);
      this.bufferSec = grown(this.bufferSec, size);
      this.bufferValue = grown(this.bufferValue, size);
      return;
    }
    this.count(false);
  }

  /**
   * Counts the buffered samples into each series' cells: all of them when `everything`, else all
   * but those of the newest seconds (about HOLD_BACK_SHARE of the buffer), which stay buffered.
   */
  private count(everything: boolean): void {
    const length = this.buffered;
    if (length === 0) return;
    const sec = this.bufferSec;
    const bySecond = this.scratch.orderBySecond(sec, length);
    let upTo = length;
    if (!everything) {
      const cutoff = sec[bySecond[Math.floor(length * (1 - HOLD_BACK_SHARE))] as number] as number;
      while (upTo > 0 && (sec[bySecond[upTo - 1] as number] as number) >= cutoff) upTo--;
      // A second holding most of the buffer (a very high rate): count it too.
      if (upTo < length * (1 - 2 * HOLD_BACK_SHARE)) {
        upTo = length;
        while (upTo > 0 && (sec[bySecond[upTo - 1] as number] as number) > cutoff) upTo--;
      }
    }
    const order = this.scratch.orderBySeries(this.bufferSeries, bySecond, upTo, this.seriesCount);
    for (let from = 0; from < upTo; ) {
      const series = this.bufferSeries[order[from] as number] as number;
      let to = from + 1;
      while (to < upTo && this.bufferSeries[order[to] as number] === series) to++;
      this.take(series, this.scratch.countSeconds(sec, this.bufferValue, order, from, to));
      from = to;
    }
    // What was held back moves to the front of the buffer.
    const kept = length - upTo;
    const held = this.scratch.heldBack(kept);
    for (let k = upTo; k < length; k++) {
      const i = bySecond[k] as number;
      held.series[k - upTo] = this.bufferSeries[i] as number;
      held.sec[k - upTo] = sec[i] as number;
      held.value[k - upTo] = this.bufferValue[i] as number;
    }
    this.bufferSeries.set(held.series.subarray(0, kept));
    this.bufferSec.set(held.sec.subarray(0, kept));
    this.bufferValue.set(held.value.subarray(0, kept));
    this.buffered = kept;
  }

  /** The seconds `open` has closed, to the series' cells. */
  /**
   * The full runs of seconds `open` has closed, to the series' cells: handed on as they are, where
   * copying each out to its size cost a parse worker ~0.2 s of 20M rows in the browser.
   */
  private takeFull(series: number, open: OpenSeconds): void {
    for (const run of open.full.splice(0)) this.take(series, run, true);
  }

  /**
   * Appends the seconds of `run` after the series' last counted one; the others are late. A run
   * that is the caller's to give (`owned`), none of it late and little of its room unused, is kept
   * itself; else its cells are copied out to their size.
   */
  private take(series: number, run: CellRun, owned = false): void {
    const main = this.main[series];
    const lastRun = main?.[main.length - 1];
    const lastMain = lastRun ? (lastRun.sec[lastRun.length - 1] as number) : -Infinity;
    let split = 0;
    while (split < run.length && (run.sec[split] as number) <= lastMain) split++;
    if (split > 0) {
      let late = this.late.get(series);
      if (!late) this.late.set(series, (late = []));
      let top = slice(run, 0, split);
      // Merge while the run below is not more than twice as long: each cell is merged O(log n) times.
      while (late.length > 0 && (late[late.length - 1] as CellRun).length <= 2 * top.length) top = this.scratch.merge(late.pop() as CellRun, top);
      late.push(top);
    }
    if (split === run.length) return;
    const whole = owned && split === 0 && 4 * (run.sec.length - run.length) <= run.length;
    const kept = whole ? run : slice(run, split, run.length);
    if (main) main.push(kept);
    else this.main[series] = [kept];
  }
}

/**
 * A series' newest two seconds, counted as their samples come: raw files are written in time order
 * (give or take the threads that write them, hence two), so most samples land in one of them, and
 * are counted with no buffering or sorting. A sample of a newer second closes the older one (its
 * cells go to `closed`); one of an earlier second is not counted here (`add` returns false): the
 * counter buffers it, as a late sample.
 */
class OpenSeconds {
  private older = Number.NaN;
  private newer = Number.NaN;
  private olderTable = new ValueTable(16);
  private newerTable = new ValueTable(16);
  /** Cells of the seconds closed since they were last taken, in second order. */
  private closed: CellRun = emptyRun(64);
  /** Runs of closed seconds that are full (CLOSED_CELLS, give or take a second), in second order: the counter takes them. */
  readonly full: CellRun[] = [];

  add(sec: number, value: number): boolean {
    if (sec === this.newer) this.newerTable.add(value, 1);
    else if (sec === this.older) this.olderTable.add(value, 1);
    // NaN: no second open yet.
    else if (sec > this.newer || this.newer !== this.newer) {
      this.close();
      this.older = this.newer;
      const table = this.olderTable;
      this.olderTable = this.newerTable;
      this.newerTable = table;
      this.newer = sec;
      table.add(value, 1);
    } else return false;
    return true;
  }

  /** Closes both open seconds. */
  closeAll(): void {
    this.close();
    this.older = this.newer;
    [this.olderTable, this.newerTable] = [this.newerTable, this.olderTable];
    this.close();
    this.older = this.newer = Number.NaN;
  }

  /** The closed cells not yet full, as a run (after closeAll: the last). */
  get rest(): CellRun {
    return this.closed;
  }

  /**
   * The older second's cells to `closed`, and its table emptied. Where they do not fit, `closed`
   * grows while small (most series are), else is full: the next is a new run of CLOSED_CELLS,
   * so that each run is handed on as it is, with little room unused, and never copied.
   */
  private close(): void {
    const table = this.olderTable;
    if (table.size === 0) return;
    let run = this.closed;
    if (run.sec.length - run.length < table.size) {
      if (run.sec.length < CLOSED_CELLS) {
        const bigger = emptyRun(Math.max(2 * run.sec.length, run.length + table.size));
        copyCells(run, 0, run.length, bigger);
        run = bigger;
      } else {
        this.full.push(run);
        run = emptyRun(Math.max(CLOSED_CELLS, table.size));
      }
      this.closed = run;
    }
    table.drainInto(run, this.older);
  }
}

/**
 * Two counts of one series as one (a file read in parts): cells of a second in both are counted
 * together; samples, first and last times add up. Seconds only one side has are copied in runs
 * (the parts of a file share a second or two where they meet).
 */
export function mergeCounted(a: CountedSamples, b: CountedSamples): CountedSamples {
  const x = a.counts;
  const y = b.counts;
  const xs = timedSeconds(x);
  const ys = timedSeconds(y);
  const untimedCounts = new UntimedCounts();
  for (const [c, k] of [[x, xs], [y, ys]] as const) for (let i = c.starts[k] as number; i < c.value.length; i++) untimedCounts.add(0, c.value[i] as number, c.n[i] as number);
  const untimed = untimedCounts.bySeries(1)[0] as { value: Float64Array; n: Float64Array };
  const room = (x.starts[xs] as number) + (y.starts[ys] as number) + untimed.value.length;
  const value = new Float64Array(room);
  const n = new Float64Array(room);
  const secs: number[] = [];
  const starts: number[] = [];
  let at = 0;
  /** Seconds `from..to` of `c`, copied whole. */
  const copy = (c: SampleCountColumns, from: number, to: number): void => {
    const shift = at - (c.starts[from] as number);
    for (let k = from; k < to; k++) {
      secs.push(c.secs[k] as number);
      starts.push((c.starts[k] as number) + shift);
    }
    const cells = c.starts.subarray(from, to + 1);
    value.set(c.value.subarray(cells[0], cells[cells.length - 1]), at);
    n.set(c.n.subarray(cells[0], cells[cells.length - 1]), at);
    at += (cells[cells.length - 1] as number) - (cells[0] as number);
  };
  let table: ValueTable | null = null;
  let i = 0;
  let j = 0;
  while (i < xs || j < ys) {
    const sx = i < xs ? (x.secs[i] as number) : Infinity;
    const sy = j < ys ? (y.secs[j] as number) : Infinity;
    if (sx < sy) {
      const until = secondAtOrAfter(x.secs, i, xs, sy);
      copy(x, i, until);
      i = until;
    } else if (sy < sx) {
      const until = secondAtOrAfter(y.secs, j, ys, sx);
      copy(y, j, until);
      j = until;
    } else {
      // A second in both: its values counted together.
      table ??= new ValueTable(16);
      for (const [c, k] of [[x, i], [y, j]] as const) for (let cell = c.starts[k] as number; cell < (c.starts[k + 1] as number); cell++) table.add(c.value[cell] as number, c.n[cell] as number);
      secs.push(sx);
      starts.push(at);
      at = table.drainValues(value, n, at);
      i++;
      j++;
    }
  }
  const timed = at;
  value.set(untimed.value, timed);
  n.set(untimed.n, timed);
  if (untimed.value.length > 0) {
    secs.push(Number.NaN);
    starts.push(timed);
  }
  const size = timed + untimed.value.length;
  starts.push(size);
  const firsts = [a.firstMs, b.firstMs].filter((t): t is number => t !== null);
  const lasts = [a.lastMs, b.lastMs].filter((t): t is number => t !== null);
  return {
    samples: a.samples + b.samples,
    firstMs: firsts.length > 0 ? Math.min(...firsts) : null,
    lastMs: lasts.length > 0 ? Math.max(...lasts) : null,
    counts: { secs: Float64Array.from(secs), starts: Uint32Array.from(starts), value: value.subarray(0, size), n: n.subarray(0, size) },
  };
}

/** How many of the counts' seconds are timed (all but a last NaN). */
function timedSeconds({ secs }: SampleCountColumns): number {
  return secs.length > 0 && Number.isNaN(secs[secs.length - 1]) ? secs.length - 1 : secs.length;
}

/** The first of `secs[from..to)` at or after `sec` (binary search): of a count's seconds, or of a run's cells. */
function secondAtOrAfter(secs: Float64Array, from: number, to: number, sec: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((secs[mid] as number) < sec) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Counted cells in second order, each second once. */
interface CellRun {
  sec: Float64Array;
  value: Float64Array;
  n: Float64Array;
  length: number;
}

/**
 * Work arrays shared by a counter's series (a parser counts one sample at a time): the order of a
 * buffer by second, and the small hash table that counts one second's values.
 */
class Scratch {
  private order = new Uint32Array(0);
  private bySeries = new Uint32Array(0);
  private seriesSlots = new Int32Array(0);
  private slotOf = new Int32Array(0);
  private table = new ValueTable(16);
  /** What countSeconds counts into, reused: its cells are copied out to their size. */
  private counted = emptyRun(0);
  private held = { series: new Int32Array(0), sec: new Float64Array(0), value: new Float64Array(0) };

  /** Room for `length` samples held back from a count (see SampleCounter.count), reused. */
  heldBack(length: number): { series: Int32Array; sec: Float64Array; value: Float64Array } {
    if (this.held.sec.length < length) this.held = { series: new Int32Array(length), sec: new Float64Array(length), value: new Float64Array(length) };
    return this.held;
  }

  /** Indices 0..length-1 of `sec` in ascending order of second, stable. */
  orderBySecond(sec: Float64Array, length: number): Uint32Array {
    if (this.order.length < length) this.order = new Uint32Array(length);
    const order = this.order;
    let min = Infinity;
    let max = -Infinity;
    let sorted = true;
    for (let i = 0; i < length; i++) {
      const s = sec[i] as number;
      if (s < min) min = s;
      if (s > max) max = s;
      if (i > 0 && s < (sec[i - 1] as number)) sorted = false;
    }
    if (sorted) {
      for (let i = 0; i < length; i++) order[i] = i;
      return order;
    }
    const span = max - min + 1;
    if (span > 4 * length + 65_536) {
      // Seconds scattered far apart: a comparison sort.
      const view = order.subarray(0, length);
      for (let i = 0; i < length; i++) view[i] = i;
      view.sort((a, b) => (sec[a] as number) - (sec[b] as number) || a - b);
      return order;
    }
    if (this.slotOf.length < span + 1) this.slotOf = new Int32Array(span + 1);
    const next = this.slotOf;
    next.fill(0, 0, span + 1);
    for (let i = 0; i < length; i++) next[(sec[i] as number) - min + 1]!++;
    for (let s = 1; s <= span; s++) next[s]! += next[s - 1]!;
    for (let i = 0; i < length; i++) order[next[(sec[i] as number) - min]!++] = i;
    return order;
  }

  /**
   * `bySecond[0..length)` reordered by series, stable (so in second order within a series), in a
   * second array: `bySecond` is this scratch's own order, still needed by the caller.
   */
  orderBySeries(series: Int32Array, bySecond: Uint32Array, length: number, seriesCount: number): Uint32Array {
    // One series in the whole buffer (rows of one operation in a block, as YCSB writes them): as it is.
    const only = series[0];
    let one = true;
    for (let k = 0; k < length && one; k++) one = series[k] === only;
    if (one) return bySecond;
    if (this.bySeries.length < length) this.bySeries = new Uint32Array(Math.max(length, this.order.length));
    if (this.seriesSlots.length < seriesCount + 1) this.seriesSlots = new Int32Array(2 * seriesCount + 1);
    const next = this.seriesSlots;
    next.fill(0, 0, seriesCount + 1);
    for (let k = 0; k < length; k++) next[(series[bySecond[k] as number] as number) + 1]!++;
    for (let s = 1; s <= seriesCount; s++) next[s]! += next[s - 1]!;
    const out = this.bySeries;
    for (let k = 0; k < length; k++) {
      const i = bySecond[k] as number;
      out[next[series[i] as number]!++] = i;
    }
    return out;
  }

  /**
   * The samples `order[from..to)` (in second order) counted per (second, value), in a run that is
   * valid until the next call.
   */
  countSeconds(sec: Float64Array, value: Float64Array, order: Uint32Array, from: number, to: number): CellRun {
    if (this.counted.sec.length < to - from) this.counted = emptyRun(to - from);
    const run = this.counted;
    run.length = 0;
    for (let a = from; a < to; ) {
      const s = sec[order[a] as number] as number;
      let b = a + 1;
      while (b < to && sec[order[b] as number] === s) b++;
      const table = this.tableFor(b - a);
      for (let k = a; k < b; k++) table.add(value[order[k] as number] as number, 1);
      table.drainInto(run, s);
      a = b;
    }
    return run;
  }

  /** Two runs as one: a second in both has its values counted together; `spare` cells of room after them. */
  merge(a: CellRun, b: CellRun, spare = 0): CellRun {
    const out = emptyRun(a.length + b.length + spare);
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      // Where one run is ahead of the other (parts of a file read in time order, a run of late
      // samples), its cells up to the other's next second are copied in one piece.
      if (j === b.length || (i < a.length && (a.sec[i] as number) < (b.sec[j] as number))) {
        const until = secondAtOrAfter(a.sec, i, a.length, j < b.length ? (b.sec[j] as number) : Infinity);
        copyCells(a, i, until, out);
        i = until;
        continue;
      }
      if (i === a.length || (b.sec[j] as number) < (a.sec[i] as number)) {
        const until = secondAtOrAfter(b.sec, j, b.length, i < a.length ? (a.sec[i] as number) : Infinity);
        copyCells(b, j, until, out);
        j = until;
        continue;
      }
      // A second in both: its values counted together.
      const s = a.sec[i] as number;
      const ia = i;
      while (i < a.length && a.sec[i] === s) i++;
      const jb = j;
      while (j < b.length && b.sec[j] === s) j++;
      const table = this.tableFor(i - ia + j - jb);
      for (let k = ia; k < i; k++) table.add(a.value[k] as number, a.n[k] as number);
      for (let k = jb; k < j; k++) table.add(b.value[k] as number, b.n[k] as number);
      table.drainInto(out, s);
    }
    return out;
  }

  private tableFor(entries: number): ValueTable {
    if (this.table.capacity < 2 * entries) this.table = new ValueTable(2 * entries);
    return this.table;
  }
}

/**
 * Values and their counts in open addressing over typed arrays. Slots are marked used by a
 * generation number, so emptying the table between seconds costs nothing.
 */
class ValueTable {
  capacity: number;
  private keys: Float64Array;
  private counts: Float64Array;
  private used: Int32Array;
  /** Slots filled in this generation, in order: drained without a scan of the whole table. */
  private filled: Int32Array;
  size = 0;
  private generation = 1;

  constructor(entries: number) {
    let capacity = 16;
    while (capacity < entries) capacity *= 2;
    this.capacity = capacity;

    this.keys = new Float64Array(capacity);
    this.counts = new Float64Array(capacity);
    this.used = new Int32Array(capacity);
    this.filled = new Int32Array(capacity);
  }

  add(value: number, n: number): void {
    const mask = this.capacity - 1;
    for (let i = hashValue(value) & mask; ; i = (i + 1) & mask) {
      if (this.used[i] !== this.generation) {
        this.used[i] = this.generation;
        this.keys[i] = value;
        this.counts[i] = n;
        this.filled[this.size++] = i;
        // Sized ahead where a count knows its samples (Scratch.tableFor); an open second does not.
        if (2 * this.size > this.capacity) this.grow();
        return;
      }
      // -0 and 0 are one value.
      if (this.keys[i] === value) {
        this.counts[i]! += n;
        return;
      }
    }
  }

  /** Twice the room, the values and counts as they were, in the order they came. */
  private grow(): void {
    const { keys, counts, filled, size } = this;
    this.capacity *= 2;
    this.keys = new Float64Array(this.capacity);
    this.counts = new Float64Array(this.capacity);
    this.used = new Int32Array(this.capacity);
    this.filled = new Int32Array(this.capacity);
    this.size = 0;
    this.generation = 1;
    for (let k = 0; k < size; k++) this.add(keys[filled[k] as number] as number, counts[filled[k] as number] as number);
  }

  /** Writes every value and its count from `at` on, empties the table, and returns where they end. */
  drainValues(value: Float64Array, n: Float64Array, at: number): number {
    for (let k = 0; k < this.size; k++) {
      const i = this.filled[k] as number;
      // 0 for -0: the value as one key.
      value[at] = (this.keys[i] as number) + 0;
      n[at++] = this.counts[i] as number;
    }
    this.size = 0;
    this.generation++;
    return at;
  }

  /** Appends every value of second `sec` to `run`, and empties the table. */
  drainInto(run: CellRun, sec: number): void {
    const from = run.length;
    run.length = this.drainValues(run.value, run.n, from);
    run.sec.fill(sec, from, run.length);
  }

}

/**
 * Samples without a time, counted per (series, value) in one table for every series: files without
 * a time column have them all, often in thousands of series.
 */
class UntimedCounts {
  private capacity = 16;
  private series = new Int32Array(16).fill(-1);
  private values = new Float64Array(16);
  private counts = new Float64Array(16);
  private size = 0;

  add(series: number, value: number, n: number): void {
    // 0 for -0: one value.
    const key = value + 0;
    const mask = this.capacity - 1;
    for (let i = (hashValue(key) ^ Math.imul(series, 0x9e3779b1)) & mask; ; i = (i + 1) & mask) {
      const s = this.series[i]!;
      if (s === -1) {
        this.series[i] = series;
        this.values[i] = key;
        this.counts[i] = n;
        if (++this.size * 4 > this.capacity * 3) this.grow();
        return;
      }
      if (s === series && this.values[i] === key) {
        this.counts[i]! += n;
        return;
      }
    }
  }

  /** Each series' values and counts, for series 0..seriesCount-1. */
  bySeries(seriesCount: number): { value: Float64Array; n: Float64Array }[] {
    const sizes = new Int32Array(seriesCount);
    for (let i = 0; i < this.capacity; i++) if (this.series[i]! >= 0 && this.series[i]! < seriesCount) sizes[this.series[i]!]!++;
    const out = Array.from(sizes, (size) => ({ value: new Float64Array(size), n: new Float64Array(size) }));
    const filled = new Int32Array(seriesCount);
    for (let i = 0; i < this.capacity; i++) {
      const s = this.series[i]!;
      if (s < 0 || s >= seriesCount) continue;
      const at = filled[s]!++;
      out[s]!.value[at] = this.values[i]!;
      out[s]!.n[at] = this.counts[i]!;
    }
    return out;
  }

  private grow(): void {
    const { series, values, counts, capacity } = this;
    this.capacity *= 2;
    this.series = new Int32Array(this.capacity).fill(-1);
    this.values = new Float64Array(this.capacity);
    this.counts = new Float64Array(this.capacity);
    this.size = 0;
    for (let i = 0; i < capacity; i++) if (series[i]! >= 0) this.add(series[i]!, values[i]!, counts[i]!);
  }
}

const bits = new Float64Array(1);
const bitWords = new Int32Array(bits.buffer);

function hashValue(value: number): number {
  // Integer latencies (the usual case) hash by value; fractional ones by their bit pattern.
  let h = value | 0;
  if (h !== value) {
    bits[0] = value;
    h = bitWords[0]! ^ Math.imul(bitWords[1]!, 0x9e3779b1);
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function emptyRun(capacity: number): CellRun {
  return { sec: new Float64Array(capacity), value: new Float64Array(capacity), n: new Float64Array(capacity), length: 0 };
}

function grownInt(a: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(size);
  out.set(a);
  return out;
}

function grown(a: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const out = new Float64Array(size);
  out.set(a);
  return out;
}

function slice(run: CellRun, from: number, to: number): CellRun {
  return { sec: run.sec.slice(from, to), value: run.value.slice(from, to), n: run.n.slice(from, to), length: to - from };
}


/**
 * `runs` one after another, then the untimed cells, as columns of exactly their size: a second once
 * for its cells. One run and no untimed cells (a series of one count, or merged) is used as it is.
 */
function joined(runs: readonly CellRun[], untimed: { value: Float64Array; n: Float64Array }): SampleCountColumns {
  if (runs.length === 1 && untimed.value.length === 0) return columnsOf(runs[0] as CellRun, (runs[0] as CellRun).length);
  const timed = runs.reduce((sum, r) => sum + r.length, 0);
  const size = timed + untimed.value.length;
  const value = new Float64Array(size);
  const n = new Float64Array(size);
  const seconds = new SecondStarts();
  let at = 0;
  for (const r of runs) {
    value.set(r.value.subarray(0, r.length), at);
    n.set(r.n.subarray(0, r.length), at);
    seconds.add(r.sec, r.length, at);
    at += r.length;
  }
  value.set(untimed.value, timed);
  n.set(untimed.n, timed);
  return { ...seconds.finish(timed, size), value, n };
}

/** The cells of `run` as columns (their own, not copied): `timed` cells with a second, then untimed ones. */
function columnsOf(run: CellRun, timed: number): SampleCountColumns {
  const seconds = new SecondStarts();
  seconds.add(run.sec, timed, 0);
  return { ...seconds.finish(timed, run.length), value: run.value.subarray(0, run.length), n: run.n.subarray(0, run.length) };
}

/** Where each second's cells start, from cells' seconds in order (a second may run on from one run into the next). */
class SecondStarts {
  private readonly secs: number[] = [];
  private readonly starts: number[] = [];

  /** Cells `0..length` of `sec`, which are cells `at..` of the whole. */
  add(sec: Float64Array, length: number, at: number): void {
    let last = this.secs.length > 0 ? (this.secs[this.secs.length - 1] as number) : Number.NaN;
    for (let i = 0; i < length; i++) {
      const s = sec[i] as number;
      if (s !== last) {
        this.secs.push(s);
        this.starts.push(at + i);
        last = s;
      }
    }
  }

  /** The columns, `timed` cells with a second and then, up to `size`, untimed ones (second NaN). */
  finish(timed: number, size: number): { secs: Float64Array; starts: Uint32Array } {
    if (size > timed) {
      this.secs.push(Number.NaN);
      this.starts.push(timed);
    }
    this.starts.push(size);
    return { secs: Float64Array.from(this.secs), starts: Uint32Array.from(this.starts) };
  }
}

/** `runs` one after another, as one run. */
function concatenated(runs: readonly CellRun[]): CellRun {
  const out = emptyRun(runs.reduce((sum, r) => sum + r.length, 0));
  for (const r of runs) copyCells(r, 0, r.length, out);
  return out;
}

function copyCells(from: CellRun, start: number, end: number, to: CellRun): void {
  to.sec.set(from.sec.subarray(start, end), to.length);
  to.value.set(from.value.subarray(start, end), to.length);
  to.n.set(from.n.subarray(start, end), to.length);
  to.length += end - start;
}
