import { hdrLayout, type HdrLayout } from '../model/hdr-layout.ts';
import type { BucketCounts, HdrPrecision, SparseHistogram } from '../model/types.ts';

const INITIAL_CAPACITY = 1 << 10;
/** Exact values summed densely are below this (2^18: raw µs latencies up to ~262 ms; ~2 MB at most). */
const EXACT_DENSE_LIMIT = 1 << 18;
/** Free slots have width 0: every bucket is at least one value wide. */
const FREE = 0;

/**
 * Buckets summed by (lo, width), without a JS object per bucket: the worker pre-merges tens of
 * millions of per-second buckets into blocks with it, and sums windows from them at query time. A
 * bucket of one value in two widths (series of different precision, or raw values beside
 * HdrHistogram buckets) stays two buckets, as everywhere else.
 *
 * Buckets that are HdrHistogram buckets of the precision set with `usePrecision` are summed in a
 * dense array by their counts index (a few bit operations, no probing: ~4× faster); without a
 * precision, exact values that are whole numbers below EXACT_DENSE_LIMIT are summed in it by
 * value; any other bucket (another precision, fractions, larger values) in an open-addressing
 * table over one Float64Array.
 */
export class BucketSum {
  private layout: HdrLayout | null = null;
  private dense = new Float64Array(0);
  private denseSlots = new Int32Array(INITIAL_CAPACITY);
  private denseUsed = 0;
  private capacity = INITIAL_CAPACITY;
  /** Entries of three numbers side by side (lo, width, n), so a probe touches one cache line. */
  private table = new Float64Array(INITIAL_CAPACITY * 3);
  /** Slots in use, in order of first use: what `drain` reads and clears, instead of the whole table. */
  private slots = new Int32Array(INITIAL_CAPACITY);
  private used = 0;

  /** The sum of the counts added since the last drain. */
  total = 0;

  get size(): number {
    return this.used + this.denseUsed;
  }

  /** Sum the buckets of this precision densely from now on (null: none); only while empty. */
  usePrecision(precision: HdrPrecision | null): void {
    if (this.size > 0) throw new Error('BucketSum: the precision changes only between sums');
    this.layout = precision === null ? null : hdrLayout(precision);
  }

  /**
   * Adds buckets `start`..`end-1` of the columns; a null `width` means exact values (width 1).
   * Counts of zero are skipped, so a sum never holds an empty bucket.
   */
  add(lo: Float64Array, width: Float64Array | null, n: BucketCounts, start: number, end: number): void {
    // Where a bucket goes depends on the bucket alone, so that it is never summed in both places.
    if (this.layout !== null) this.addDense(this.layout, lo, width, n, start, end);
    else this.addWithoutPrecision(lo, width, n, start, end);
  }

  /**
   * Adds buckets `start`..`end-1` given by their counts index in `layout` (as decoded). Straight
   * into the dense array when that is the sum's precision, the common case; through their bounds
   * otherwise.
   */
  addIndexed(layout: HdrLayout, index: Int32Array, n: BucketCounts, start: number, end: number): void {
    if (layout !== this.layout) {
      const bounds = bucketColumns(end - start);
      layout.bucketBounds(index, start, end, bounds.lo, bounds.width, 0);
      this.add(bounds.lo, bounds.width, n.subarray(start, end), 0, end - start);
      return;
    }
    if (end <= start) return;
    // Room for every bucket first, so that the loop below works on locals alone: summing an hour
    // of 48 logs' interval histograms into blocks is some 40 million of these additions, and with
    // a growth check and a call per bucket they cost twice as much.
    let top = 0;
    for (let i = start; i < end; i++) if (index[i]! > top) top = index[i]!;
    if (top >= this.dense.length) this.growDense(top);
    if (this.denseUsed + (end - start) > this.denseSlots.length) this.growSlots(this.denseUsed + (end - start));
    const dense = this.dense;
    const slots = this.denseSlots;
    let used = this.denseUsed;
    let total = 0;
    for (let i = start; i < end; i++) {
      const count = n[i]!;
      if (count === 0) continue;
      total += count;
      const k = index[i]!;
      const before = dense[k]!;
      if (before === 0) slots[used++] = k;
      dense[k] = before + count;
    }
    this.denseUsed = used;
    this.total += total;
  }

  /** Adds `count` to the dense array at `index`, noting the slot when it was empty. */
  private addAt(index: number, count: number): void {
    if (index >= this.dense.length) this.growDense(index);
    const before = this.dense[index]!;
    if (before === 0) this.useDenseSlot(index);
    this.dense[index] = before + count;
  }

  private useDenseSlot(index: number): void {
    if (this.denseUsed === this.denseSlots.length) this.growSlots(this.denseUsed + 1);
    this.denseSlots[this.denseUsed++] = index;
  }

  /** Room for at least `size` dense slots. */
  private growSlots(size: number): void {
    const slots = new Int32Array(Math.max(size, this.denseSlots.length * 2));
    slots.set(this.denseSlots.subarray(0, this.denseUsed));
    this.denseSlots = slots;
  }

  private addDense(layout: HdrLayout, lo: Float64Array, width: Float64Array | null, n: BucketCounts, start: number, end: number): void {
    const { unitMagnitude, subBucketHalfCountMagnitude, subBucketHalfCount, pow2 } = layout;
    const base = unitMagnitude + layout.subBucketCountMagnitude;
    for (let i = start; i < end; i++) {
      const count = n[i]!;
      if (count === 0) continue;
      const l = lo[i]!;
      const w = width === null ? 1 : width[i]!;
      // layout.countsArrayIndex, inlined: the bit length of l gives its bucket, and so the width
      // and index it must have. A bucket that does not fit (another precision, a bound that is
      // not a bucket's lowest value) goes to the table.
      const bits = l < 4294967296 ? 32 - Math.clz32(l) : 64 - Math.clz32(Math.floor(l / 4294967296));
      const bucketIndex = bits > base ? bits - base : 0;
      const sub = l / w;
      if (w !== pow2[bucketIndex + unitMagnitude] || sub !== Math.floor(sub) || !(l >= 0) || l > Number.MAX_SAFE_INTEGER) {
        this.addHashed(lo, width, n, i, i + 1);
        continue;
      }
      this.total += count;
      this.addAt(((bucketIndex + 1) << subBucketHalfCountMagnitude) + (sub - subBucketHalfCount), count);
    }
  }

  /**
   * Buckets without a precision: exact values (width 1; raw samples) that are whole numbers below
   * EXACT_DENSE_LIMIT are summed in the dense array by value, the others in the table. Latencies
   * cluster, so the dense array's busy part stays in the cache, where hashing scatters even
   * neighbouring values over the table: summing a one-hour raw run's seconds into blocks took
   * twice as long that way.
   */
  private addWithoutPrecision(lo: Float64Array, width: Float64Array | null, n: BucketCounts, start: number, end: number): void {
    let total = 0;
    for (let i = start; i < end; i++) {
      const count = n[i]!;
      if (count === 0) continue;
      const v = lo[i]!;
      // The bucket decides where it goes, not how it came: (v, width 1) is the exact value v.
      if ((width !== null && width[i] !== 1) || !(v >= 0 && v < EXACT_DENSE_LIMIT && v === Math.floor(v))) {
        this.addHashed(lo, width, n, i, i + 1);
        continue;
      }
      total += count;
      this.addAt(v, count);
    }
    this.total += total;
  }

  private growDense(index: number): void {
    const dense = new Float64Array(Math.max(index + 1, this.dense.length * 2, 4096));
    dense.set(this.dense);
    this.dense = dense;
  }

  private addHashed(lo: Float64Array, width: Float64Array | null, n: BucketCounts, start: number, end: number): void {
    for (let i = start; i < end; i++) {
      const count = n[i]!;
      if (count === 0) continue;
      this.total += count;
      const l = lo[i]!;
      const w = width === null ? 1 : width[i]!;
      const table = this.table;
      const mask = this.capacity - 1;
      for (let slot = hash(l, w) & mask; ; slot = (slot + 1) & mask) {
        const at = slot * 3;
        const entryWidth = table[at + 1]!;
        if (entryWidth === FREE) {
          table[at] = l;
          table[at + 1] = w;
          table[at + 2] = count;
          this.slots[this.used] = slot;
          if (++this.used * 4 > this.capacity * 3) this.grow();
          break;
        }
        if (entryWidth === w && table[at] === l) {
          table[at + 2] = table[at + 2]! + count;
          break;
        }
      }
    }
  }

  /**
   * Writes the summed buckets (in no particular order) into `out` from index 0, growing it when it
   * is too small, and empties the sum. Returns the columns written to and the number of buckets.
   */
  drain(out: BucketColumns): { columns: BucketColumns; length: number } {
    const length = this.size;
    const columns = out.lo.length >= length ? out : bucketColumns(Math.max(length, out.lo.length * 2));
    const table = this.table;
    for (let k = 0; k < this.used; k++) {
      const at = this.slots[k]! * 3;
      columns.lo[k] = table[at]!;
      columns.width[k] = table[at + 1]!;
      columns.n[k] = table[at + 2]!;
      table[at + 1] = FREE;
    }
    const layout = this.layout;
    for (let k = 0, at = this.used; k < this.denseUsed; k++, at++) {
      // Without a precision the dense array holds exact values by value (see addWithoutPrecision).
      const index = this.denseSlots[k]!;
      const lo = layout === null ? index : layout.valueFromIndex(index);
      columns.lo[at] = lo;
      columns.width[at] = layout === null ? 1 : layout.sizeOfEquivalentValueRange(lo);
      columns.n[at] = this.dense[index]!;
      this.dense[index] = 0;
    }
    this.used = 0;
    this.denseUsed = 0;
    this.total = 0;
    return { columns, length };
  }

  /**
   * As drain, with the buckets in ascending lo, when all are of the sum's precision (their counts
   * indices sorted: cheaper than sorting bounds). Null, and nothing drained, otherwise.
   */
  drainSorted(out: BucketColumns): { columns: BucketColumns; length: number } | null {
    if (this.used > 0) return null;
    this.denseSlots.subarray(0, this.denseUsed).sort();
    return this.drain(out);
  }

  /** Drains the sum as a histogram in order (see inOrder), in columns of exactly its size. */
  drainInOrder(): SparseHistogram {
    const total = this.total;
    const size = this.size;
    const out = bucketColumns(size);
    if (this.drainSorted(out)) return { lo: out.lo, width: out.width, count: out.n, totalCount: total };
    return inOrder(this.drain(out).columns, 0, size);
  }

  /**
   * As drain, for a sum that holds only buckets of its precision (added with addIndexed): their
   * counts indices and counts.
   */
  drainIndexed(out: IndexedColumns): { columns: IndexedColumns; length: number } {
    if (this.used > 0 || this.layout === null) throw new Error('BucketSum: buckets outside the precision have no counts index');
    const length = this.denseUsed;
    const columns = out.index.length >= length ? out : indexedColumns(Math.max(length, out.index.length * 2));
    for (let k = 0; k < length; k++) {
      const index = this.denseSlots[k]!;
      columns.index[k] = index;
      columns.n[k] = this.dense[index]!;
      this.dense[index] = 0;
    }
    this.denseUsed = 0;
    this.total = 0;
    return { columns, length };
  }

  private grow(): void {
    const old = this.table;
    const oldSlots = this.slots;
    this.capacity *= 2;
    const mask = this.capacity - 1;
    const table = new Float64Array(this.capacity * 3);
    const slots = new Int32Array(this.capacity);
    // Plain loops: a raw series of distinct ns values grows the table to millions of entries.
    for (let k = 0; k < this.used; k++) {
      const from = oldSlots[k]! * 3;
      const lo = old[from]!;
      const width = old[from + 1]!;
      let slot = hash(lo, width) & mask;
      while (table[slot * 3 + 1] !== FREE) slot = (slot + 1) & mask;
      table[slot * 3] = lo;
      table[slot * 3 + 1] = width;
      table[slot * 3 + 2] = old[from + 2]!;
      slots[k] = slot;
    }
    this.table = table;
    this.slots = slots;
  }
}

export interface BucketColumns {
  lo: Float64Array;
  width: Float64Array;
  n: Float64Array;
}

export function bucketColumns(size: number): BucketColumns {
  return { lo: new Float64Array(size), width: new Float64Array(size), n: new Float64Array(size) };
}

/** Buckets by counts index in a known precision. */
export interface IndexedColumns {
  index: Int32Array;
  n: Float64Array;
}

export function indexedColumns(size: number): IndexedColumns {
  return { index: new Int32Array(size), n: new Float64Array(size) };
}

const bits = new Float64Array(1);
const bitWords = new Int32Array(bits.buffer);

function hash(lo: number, width: number): number {
  // Integer bucket bounds below 2^31 (the usual case) hash by value; others by their bit pattern.
  let v = lo | 0;
  if (v !== lo) {
    bits[0] = lo;
    v = bitWords[0]! ^ bitWords[1]!;
  }
  let h = Math.imul(v ^ Math.imul(width | 0, 0x27d4eb2d), 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  return h ^ (h >>> 13);
}

/**
 * Buckets `start`..`end-1` of some columns as a histogram *in order*: ascending lo, of two buckets
 * of one value the narrower first, empty buckets left out, in columns of exactly their size.
 */
export function inOrder({ lo, width, n }: BucketColumns, start: number, end: number): SparseHistogram {
  const order = orderByLo(lo.subarray(start, end));
  const out = bucketColumns(order.length);
  let length = 0;
  let total = 0;
  for (const k of order) {
    const r = start + k;
    const count = n[r] as number;
    if (count === 0) continue;
    out.lo[length] = lo[r] as number;
    out.width[length] = width[r] as number;
    out.n[length] = count;
    total += count;
    // Buckets of one value in two widths (series of different precision, or raw values): narrower first.
    for (let j = length; j > 0 && out.lo[j] === out.lo[j - 1] && (out.width[j] as number) < (out.width[j - 1] as number); j--) {
      for (const column of [out.width, out.n]) [column[j], column[j - 1]] = [column[j - 1] as number, column[j] as number];
    }
    length++;
  }
  return exactly(out, length, total);
}

/**
 * Exact values and their counts (`n[i]` of `values[i]`; a value may come more than once) summed as
 * a histogram in order, each value a bucket of width 1, as a BucketSum of them would drain in
 * order. Sorted, not hashed first: for values that hardly repeat (ns latencies), a hash table
 * costs as much again as the sort and merges nearly nothing.
 */
export function valuesInOrder(values: Float64Array, n: Float64Array): SparseHistogram {
  const order = orderByLo(values);
  const out = bucketColumns(values.length);
  let length = 0;
  let total = 0;
  for (const r of order) {
    const count = n[r] as number;
    if (count === 0) continue;
    // 0 for -0: one value.
    const value = (values[r] as number) + 0;
    total += count;
    if (length > 0 && out.lo[length - 1] === value) {
      out.n[length - 1]! += count;
      continue;
    }
    out.lo[length] = value;
    out.width[length] = 1;
    out.n[length++] = count;
  }
  return exactly(out, length, total);
}

/**
 * Two histograms in order as one, in order: a bucket in both has their counts added. What a sum and
 * a sort give, at the cost of a pass over both: whole-series sums are kept in order for this.
 */
export function mergeInOrder(a: SparseHistogram, b: SparseHistogram): SparseHistogram {
  const out = bucketColumns(a.lo.length + b.lo.length);
  let i = 0;
  let j = 0;
  let length = 0;
  while (i < a.lo.length || j < b.lo.length) {
    // Which comes first: a's bucket (< 0), b's (> 0), or the same bucket in both (0).
    const d = j === b.lo.length ? -1 : i === a.lo.length ? 1 : (a.lo[i] as number) - (b.lo[j] as number) || (a.width[i] as number) - (b.width[j] as number);
    if (d <= 0) {
      out.lo[length] = a.lo[i] as number;
      out.width[length] = a.width[i] as number;
      out.n[length] = (a.count[i++] as number) + (d === 0 ? (b.count[j++] as number) : 0);
    } else {
      out.lo[length] = b.lo[j] as number;
      out.width[length] = b.width[j] as number;
      out.n[length] = b.count[j++] as number;
    }
    length++;
  }
  return exactly(out, length, a.totalCount + b.totalCount);
}

/** Histograms in order as one (at least one), merged two by two: each bucket is copied log2(k) times. */
export function mergeAllInOrder(histograms: readonly SparseHistogram[]): SparseHistogram {
  let level = histograms;
  while (level.length > 1) {
    const next: SparseHistogram[] = [];
    for (let k = 0; k < level.length; k += 2) {
      const [a, b] = [level[k] as SparseHistogram, level[k + 1]];
      next.push(b ? mergeInOrder(a, b) : a);
    }
    level = next;
  }
  return level[0] as SparseHistogram;
}

/** The first `length` buckets of `columns` as a histogram, in columns of exactly that size. */
function exactly(columns: BucketColumns, length: number, totalCount: number): SparseHistogram {
  if (length === columns.lo.length) return { lo: columns.lo, width: columns.width, count: columns.n, totalCount };
  return { lo: columns.lo.slice(0, length), width: columns.width.slice(0, length), count: columns.n.slice(0, length), totalCount };
}

/** Row numbers in ascending `lo`, rows of one `lo` in row order: bucket bounds, nearly always whole numbers. */
export function orderByLo(lo: Float64Array): Uint32Array {
  const rows = lo.length;
  // Each key is lo with the row number in its low bits: exact in a double while lo < 2^(53 − bits).
  const scale = 2 ** Math.ceil(Math.log2(rows + 1));
  const limit = Number.MAX_SAFE_INTEGER / scale;
  const keys = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    const v = lo[r] as number;
    // A fraction (raw values in a unit finer than their digits) would mix with the row number, and
    // large values (ns of seconds) leave it no bits.
    if (!(v >= 0 && v < limit && Number.isInteger(v))) return orderBySortedValues(lo);
    keys[r] = v * scale + r;
  }
  keys.sort();
  const order = new Uint32Array(rows);
  for (let i = 0; i < rows; i++) order[i] = (keys[i] as number) % scale;
  return order;
}

/**
 * The same order for any values: sorted by the engine's numeric sort (no comparator called per
 * pair, which costs seconds for millions of rows), each row then placed after those of its value
 * placed before it, from the value's first place, found by bisection.
 */
function orderBySortedValues(lo: Float64Array): Uint32Array {
  const rows = lo.length;
  const sorted = Float64Array.from(lo).sort();
  const order = new Uint32Array(rows);
  /** Rows placed so far at each value's first place. */
  const placed = new Uint32Array(rows);
  for (let r = 0; r < rows; r++) {
    const v = lo[r] as number;
    let a = 0;
    let b = rows;
    while (a < b) {
      const m = (a + b) >>> 1;
      if ((sorted[m] as number) < v) a = m + 1;
      else b = m;
    }
    order[a + placed[a]!++] = r;
  }
  return order;
}
