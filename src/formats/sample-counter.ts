import type { SampleCountColumns } from '../model/types.ts';

/** A counted series as the parser hands it on; see `RawSeries`. */
export interface CountedSamples {
  samples: number;
  firstMs: number | null;
  lastMs: number | null;
  /** In second order, each (second, value) once; samples without a time (NaN second) last. */
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

/** Samples a series buffers before they are counted: big enough to amortise, small enough for the cache. */
const CHUNK = 1 << 16;
const FIRST_BUFFER = 1 << 10;
/**
 * The newest seconds of a buffer are held back when it is counted: raw files are written roughly
 * in time order (several threads, each writing when its operation ends), so those seconds may still
 * get samples. A sample for a second already counted is *late*: counted apart and merged at the end.
 */
const HOLD_BACK_S = 2;

/**
 * Counts raw samples per (series, second, value) while a file is read. Benchmark latencies repeat
 * a lot (integer µs), so tens of millions of rows end as far fewer counts; and every later question
 * is about whole seconds. Samples are buffered per series, ordered by second (a counting sort: a
 * buffer spans a few seconds), and each second's values counted in a small hash table that stays in
 * the cache — one big table over every (second, value) of a file missed the cache on nearly every
 * sample. The counts come out in second order, which is how the engine keeps them.
 */
export class SampleCounter {
  private readonly series: SeriesCounter[] = [];
  private readonly scratch = new Scratch();

  /** With a sink, samples go to it instead of being counted (`FormatOptions.rawSamples`). */
  constructor(private readonly sink: RawSampleSink | null = null) {}

  /** One sample of series `series` (0, 1, 2… in order of first appearance); `timeMs` NaN = no time. */
  add(series: number, timeMs: number, value: number): void {
    let s = this.series[series];
    if (s === undefined) {
      while (this.series.length <= series) this.series.push(new SeriesCounter());
      s = this.series[series] as SeriesCounter;
    }
    s.samples++;
    // NaN (no time) fails both comparisons; -0 ms is 0 ms.
    if (timeMs < s.firstMs) s.firstMs = timeMs + 0;
    if (timeMs > s.lastMs) s.lastMs = timeMs + 0;
    if (this.sink !== null) return this.sink.add(series, timeMs, value);
    const sec = Math.floor(timeMs / 1000);
    if (sec !== sec) {
      s.untimed.add(value);
      return;
    }
    if (s.buffered === s.bufferSec.length) s.makeRoom(this.scratch);
    s.bufferSec[s.buffered] = sec;
    s.bufferValue[s.buffered++] = value;
  }

  /** The counts of series 0..seriesCount-1. Nothing may be added afterwards. */
  finish(seriesCount: number): CountedSamples[] {
    const counted = Array.from({ length: seriesCount }, (_, i): CountedSamples => {
      const s = this.series[i];
      if (!s) return { samples: 0, firstMs: null, lastMs: null, counts: { sec: new Float64Array(0), value: new Float64Array(0), n: new Float64Array(0) } };
      const timed = s.firstMs <= s.lastMs;
      return { samples: s.samples, firstMs: timed ? s.firstMs : null, lastMs: timed ? s.lastMs : null, counts: s.finish(this.scratch) };
    });
    this.sink?.end(counted);
    return counted;
  }
}

/**
 * Two counts of one series as one (a file read in parts): cells of a second in both are counted
 * together; samples, first and last times add up. Both in second order, untimed last, as counted.
 */
export function mergeCounted(a: CountedSamples, b: CountedSamples): CountedSamples {
  const scratch = new Scratch();
  const timedA = timedRun(a.counts);
  const timedB = timedRun(b.counts);
  const timed = scratch.merge(timedA, timedB);
  const untimed = new ValueCounts();
  for (const c of [a.counts, b.counts]) for (let i = c.sec.length - 1; i >= 0 && Number.isNaN(c.sec[i]); i--) untimed.addCount(c.value[i] as number, c.n[i] as number);
  const firsts = [a.firstMs, b.firstMs].filter((t): t is number => t !== null);
  const lasts = [a.lastMs, b.lastMs].filter((t): t is number => t !== null);
  return {
    samples: a.samples + b.samples,
    firstMs: firsts.length > 0 ? Math.min(...firsts) : null,
    lastMs: lasts.length > 0 ? Math.max(...lasts) : null,
    counts: withUntimed(timed, untimed),
  };
}

/** The timed cells of counts in second order (untimed last), as a run. */
function timedRun(counts: SampleCountColumns): CellRun {
  let length = counts.sec.length;
  while (length > 0 && Number.isNaN(counts.sec[length - 1])) length--;
  return { sec: counts.sec, value: counts.value, n: counts.n, length };
}

/** Counted cells in second order, each second once. */
interface CellRun {
  sec: Float64Array;
  value: Float64Array;
  n: Float64Array;
  length: number;
}

class SeriesCounter {
  samples = 0;
  firstMs = Infinity;
  lastMs = -Infinity;
  bufferSec: Float64Array = new Float64Array(FIRST_BUFFER);
  bufferValue: Float64Array = new Float64Array(FIRST_BUFFER);
  buffered = 0;
  /** Cells of every second up to `main`'s last, in order. */
  private main: CellRun = emptyRun(0);
  /** Runs of late samples, each in second order; sizes shrink towards the top (merged as they come). */
  private late: CellRun[] = [];
  readonly untimed = new ValueCounts();

  /** The buffer is full: grow it, or count all but its newest seconds. */
  makeRoom(scratch: Scratch): void {
    if (this.bufferSec.length < CHUNK) {
      this.bufferSec = grown(this.bufferSec, this.bufferSec.length * 2);
      this.bufferValue = grown(this.bufferValue, this.bufferValue.length * 2);
      return;
    }
    this.count(scratch, false);
  }

  /**
   * Counts the buffered samples (all of them when `everything`, else all but those of the newest
   * `HOLD_BACK_S` seconds, unless nothing would be left to count) into `main` and `late`.
   */
  private count(scratch: Scratch, everything: boolean): void {
    const length = this.buffered;
    if (length === 0) return;
    const order = scratch.orderBySecond(this.bufferSec, length);
    let upTo = length;
    if (!everything) {
      const newest = this.bufferSec[order[length - 1] as number] as number;
      while (upTo > 0 && (this.bufferSec[order[upTo - 1] as number] as number) > newest - HOLD_BACK_S) upTo--;
      if (upTo === 0) upTo = length;
    }
    const run = scratch.countSeconds(this.bufferSec, this.bufferValue, order, upTo);
    // Keep what was held back, in its order of arrival.
    const keptSec = new Float64Array(length - upTo);
    const keptValue = new Float64Array(length - upTo);
    for (let k = upTo; k < length; k++) {
      const i = order[k] as number;
      keptSec[k - upTo] = this.bufferSec[i] as number;
      keptValue[k - upTo] = this.bufferValue[i] as number;
    }
    this.bufferSec.set(keptSec);
    this.bufferValue.set(keptValue);
    this.buffered = length - upTo;
    this.take(run, scratch);
  }

  /** Appends the seconds of `run` after `main`'s last to it; the others are late. */
  private take(run: CellRun, scratch: Scratch): void {
    const lastMain = this.main.length > 0 ? (this.main.sec[this.main.length - 1] as number) : -Infinity;
    let split = 0;
    while (split < run.length && (run.sec[split] as number) <= lastMain) split++;
    if (split > 0) this.addLate(slice(run, 0, split), scratch);
    if (split < run.length) this.main = appended(this.main, run, split);
  }

  private addLate(run: CellRun, scratch: Scratch): void {
    let top = run;
    // Merge while the run below is not more than twice as long: each cell is merged O(log n) times.
    while (this.late.length > 0 && (this.late[this.late.length - 1] as CellRun).length <= 2 * top.length) {
      top = scratch.merge(this.late.pop() as CellRun, top);
    }
    this.late.push(top);
  }

  finish(scratch: Scratch): SampleCountColumns {
    this.count(scratch, true);
    let all = this.main;
    while (this.late.length > 0) all = scratch.merge(all, this.late.pop() as CellRun);
    return withUntimed(all, this.untimed);
  }
}

/** Columns of `timed` followed by the untimed values (NaN second). */
function withUntimed(timed: CellRun, counts: ValueCounts): SampleCountColumns {
  const untimed = counts.drain();
  const size = timed.length + untimed.value.length;
  const out = { sec: new Float64Array(size), value: new Float64Array(size), n: new Float64Array(size) };
  out.sec.set(timed.sec.subarray(0, timed.length));
  out.value.set(timed.value.subarray(0, timed.length));
  out.n.set(timed.n.subarray(0, timed.length));
  out.sec.fill(Number.NaN, timed.length);
  out.value.set(untimed.value, timed.length);
  out.n.set(untimed.n, timed.length);
  return out;
}

/**
 * Work arrays shared by a counter's series (a parser counts one sample at a time): the order of a
 * buffer by second, and the small hash table that counts one second's values.
 */
class Scratch {
  private order = new Uint32Array(CHUNK);
  private slotOf = new Int32Array(1 << 16);
  private table = new ValueTable(1 << 12);

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

  /** The samples `order[0..upTo)` (in second order) counted per (second, value). */
  countSeconds(sec: Float64Array, value: Float64Array, order: Uint32Array, upTo: number): CellRun {
    const run = emptyRun(upTo);
    let from = 0;
    while (from < upTo) {
      const s = sec[order[from] as number] as number;
      let to = from + 1;
      while (to < upTo && sec[order[to] as number] === s) to++;
      const table = this.tableFor(to - from);
      for (let k = from; k < to; k++) table.add(value[order[k] as number] as number, 1);
      table.drainInto(run, s);
      from = to;
    }
    return run;
  }

  /** Two runs as one: a second in both has its values counted together. */
  merge(a: CellRun, b: CellRun): CellRun {
    const out = emptyRun(a.length + b.length);
    // Parts of a file read in time order: one run's seconds all before the other's.
    const [first, second] = a.length > 0 && b.length > 0 && (b.sec[b.length - 1] as number) < (a.sec[0] as number) ? [b, a] : [a, b];
    if (first.length === 0 || second.length === 0 || (first.sec[first.length - 1] as number) < (second.sec[0] as number)) {
      copyCells(first, 0, first.length, out);
      copyCells(second, 0, second.length, out);
      return out;
    }
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      const sa = i < a.length ? (a.sec[i] as number) : Infinity;
      const sb = j < b.length ? (b.sec[j] as number) : Infinity;
      const s = Math.min(sa, sb);
      const ia = i;
      while (i < a.length && a.sec[i] === s) i++;
      const jb = j;
      while (j < b.length && b.sec[j] === s) j++;
      if (jb === j) copyCells(a, ia, i, out);
      else if (ia === i) copyCells(b, jb, j, out);
      else {
        const table = this.tableFor(i - ia + j - jb);
        for (let k = ia; k < i; k++) table.add(a.value[k] as number, a.n[k] as number);
        for (let k = jb; k < j; k++) table.add(b.value[k] as number, b.n[k] as number);
        table.drainInto(out, s);
      }
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
  readonly capacity: number;
  private readonly keys: Float64Array;
  private readonly counts: Float64Array;
  private readonly used: Int32Array;
  /** Slots filled in this generation, in order: drained without a scan of the whole table. */
  private readonly filled: Int32Array;
  private size = 0;
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
        return;
      }
      // -0 and 0 are one value.
      if (this.keys[i] === value) {
        this.counts[i]! += n;
        return;
      }
    }
  }

  /** Appends every value of second `sec` to `run`, and empties the table. */
  drainInto(run: CellRun, sec: number): void {
    let at = run.length;
    for (let k = 0; k < this.size; k++) {
      const i = this.filled[k] as number;
      run.sec[at] = sec;
      // 0 for -0: the value as one key.
      run.value[at] = (this.keys[i] as number) + 0;
      run.n[at++] = this.counts[i] as number;
    }
    run.length = at;
    this.size = 0;
    this.generation++;
  }
}

/** Untimed samples: counted by value alone. */
class ValueCounts {
  private table = new Map<number, number>();

  add(value: number): void {
    this.addCount(value, 1);
  }

  addCount(value: number, n: number): void {
    // 0 for -0: the Map tells them apart.
    const key = value + 0;
    this.table.set(key, (this.table.get(key) ?? 0) + n);
  }

  drain(): { value: Float64Array; n: Float64Array } {
    const value = Float64Array.from(this.table.keys());
    const n = Float64Array.from(this.table.values());
    this.table = new Map();
    return { value, n };
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

function grown(a: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const out = new Float64Array(size);
  out.set(a);
  return out;
}

function slice(run: CellRun, from: number, to: number): CellRun {
  return { sec: run.sec.slice(from, to), value: run.value.slice(from, to), n: run.n.slice(from, to), length: to - from };
}

/** `main` with cells `from..` of `run` after it; its columns double as they fill. */
function appended(main: CellRun, run: CellRun, from: number): CellRun {
  const needed = main.length + run.length - from;
  let out = main;
  if (needed > main.sec.length) {
    const capacity = Math.max(needed, 2 * main.sec.length);
    out = { sec: grown(main.sec, capacity), value: grown(main.value, capacity), n: grown(main.n, capacity), length: main.length };
  }
  copyCells(run, from, run.length, out);
  return out;
}

function copyCells(from: CellRun, start: number, end: number, to: CellRun): void {
  to.sec.set(from.sec.subarray(start, end), to.length);
  to.value.set(from.value.subarray(start, end), to.length);
  to.n.set(from.n.subarray(start, end), to.length);
  to.length += end - start;
}
