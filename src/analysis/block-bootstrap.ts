import { percentileRank } from '../model/percentiles.ts';
import type { Rng } from './rng.ts';

/**
 * The moving-block bootstrap over a run's seconds, exact at every resample.
 *
 * A run is a sequence of seconds, each holding the merged histogram of one operation (HdrHistogram
 * buckets, or raw values counted per second). A resample is a run of the same length made of blocks
 * of `b` consecutive seconds drawn with replacement (Künsch 1989): blocks keep the autocorrelation
 * of a load test (a GC pause, a compaction, a noisy neighbour lasting several seconds) that
 * resampling single requests would destroy. Its percentile is read from the summed counts by the
 * same rank rule as the merged figure (HdrHistogram 2.2.2 or exact nearest rank), so a resample of
 * every second once is the merged figure itself.
 *
 * Speed. Summing thousands of per-second histograms per resample would cost an hour of data for
 * each of thousands of resamples. Instead the buckets are numbered in value order (slots) and cut
 * into ~√D groups of ~√D slots; a table of counts per group summed over seconds [0, t) turns any
 * block into one subtraction per group. A resample sums its blocks' group counts (blocks × √D
 * additions), finds the group holding each rank, then finds the slot inside it by binary search
 * over a table of that group's slots summed over seconds and slots, built the first time the group
 * is needed. An hour of seconds with 5,000 distinct buckets takes ~2 MB per table.
 */

// ---- Per-second histograms ----------------------------------------------------------------------

/**
 * One operation's latency second by second on a time axis of `seconds` seconds: the buckets of
 * second t are cells rowStart[t]..rowStart[t+1]-1, each a slot and a count (a slot may appear more
 * than once in a second: the cells add up); `slotValue` is the value reported when a rank falls in
 * a slot (the bucket's highest equivalent value, or the exact raw value), ascending.
 */
export interface SecondHistograms {
  seconds: number;
  rowStart: Uint32Array;
  slot: Uint32Array;
  count: Float64Array;
  slotValue: Float64Array;
  /** Exact nearest rank (raw samples) rather than HdrHistogram's rule. */
  raw: boolean;
}

/**
 * Collects (second, key, count) cells in any order and numbers the distinct keys in order. A key is
 * the value itself, or anything that sorts as the values do (an HdrHistogram counts index) with
 * `valueOf` giving the value: small whole-number keys are numbered with a plain array, others
 * through a hash table.
 */
export class SecondHistogramsBuilder {
  private t = new Uint32Array(1024);
  private v = new Float64Array(1024);
  private n = new Float64Array(1024);
  private cells = 0;

  /** `seconds`: the length of the time axis, or null when finish() is told it. */
  constructor(
    private readonly seconds: number | null,
    private readonly raw: boolean,
    private readonly valueOf: (key: number) => number = (key) => key,
  ) {}

  /** Cells start..end-1 of columns `values` (keys) / `counts`, in second `t` (0 ≤ t < seconds). */
  add(t: number, values: ArrayLike<number>, counts: ArrayLike<number>, start = 0, end = counts.length): void {
    if (!(t >= 0 && (this.seconds === null || t < this.seconds) && Number.isInteger(t))) throw new RangeError(`second ${t} is outside the time axis (0..${(this.seconds ?? Infinity) - 1})`);
    if (this.cells + end - start > this.n.length) this.grow(this.cells + end - start);
    for (let i = start; i < end; i++) {
      const c = counts[i] as number;
      if (c === 0) continue;
      this.t[this.cells] = t;
      this.v[this.cells] = values[i] as number;
      this.n[this.cells++] = c;
    }
  }

  private grow(needed: number): void {
    const size = Math.max(needed, 2 * this.n.length);
    const t = new Uint32Array(size);
    const v = new Float64Array(size);
    const n = new Float64Array(size);
    t.set(this.t.subarray(0, this.cells));
    v.set(this.v.subarray(0, this.cells));
    n.set(this.n.subarray(0, this.cells));
    this.t = t;
    this.v = v;
    this.n = n;
  }

  /** The histograms; `seconds` is the axis's length when the constructor was not told it. */
  finish(seconds = this.seconds): SecondHistograms {
    if (seconds === null) throw new RangeError('the length of the time axis is needed');
    const cells = this.cells;
    for (let i = 0; i < cells; i++) if ((this.t[i] as number) >= seconds) throw new RangeError(`second ${this.t[i]} is outside 0..${seconds - 1}`);
    const { keys, slotOfCell } = numberKeys(this.v.subarray(0, cells));
    const slotValue = keys.map(this.valueOf);
    // Cells grouped by second (a counting sort); within a second in the order they came.
    const rowStart = new Uint32Array(seconds + 1);
    for (let i = 0; i < cells; i++) rowStart[(this.t[i] as number) + 1]!++;
    for (let t = 0; t < seconds; t++) rowStart[t + 1] = (rowStart[t + 1] as number) + (rowStart[t] as number);
    const next = rowStart.slice(0, seconds);
    const slot = new Uint32Array(cells);
    const count = new Float64Array(cells);
    for (let i = 0; i < cells; i++) {
      const t = this.t[i] as number;
      const at = next[t] as number;
      next[t] = at + 1;
      slot[at] = slotOfCell[i] as number;
      count[at] = this.n[i] as number;
    }
    this.cells = 0;
    return { seconds, rowStart, slot, count, slotValue, raw: this.raw };
  }
}

const hashBits = new Float64Array(1);
const hashWords = new Uint32Array(hashBits.buffer);

/** Whole-number keys spanning at most this many values are numbered through a plain array. */
const DENSE_KEY_SPAN = 1 << 22;

/** The distinct keys ascending, and each cell's key's index among them. */
function numberKeys(keys: Float64Array): { keys: Float64Array; slotOfCell: Uint32Array } {
  let min = Infinity;
  let max = -Infinity;
  let whole = true;
  for (let i = 0; i < keys.length && whole; i++) {
    const k = keys[i] as number;
    whole = Number.isInteger(k);
    if (k < min) min = k;
    if (k > max) max = k;
  }
  if (!whole || keys.length === 0 || max - min >= DENSE_KEY_SPAN) return hashedKeys(keys);
  // Mark the keys present, number them in order, then look each cell's up.
  const slotAt = new Int32Array(max - min + 1);
  for (let i = 0; i < keys.length; i++) slotAt[(keys[i] as number) - min] = 1;
  let distinct = 0;
  for (let j = 0; j < slotAt.length; j++) if (slotAt[j] === 1) slotAt[j] = ++distinct;
  const sorted = new Float64Array(distinct);
  for (let j = 0; j < slotAt.length; j++) if ((slotAt[j] as number) > 0) sorted[(slotAt[j] as number) - 1] = min + j;
  const slotOfCell = new Uint32Array(keys.length);
  for (let i = 0; i < keys.length; i++) slotOfCell[i] = (slotAt[(keys[i] as number) - min] as number) - 1;
  return { keys: sorted, slotOfCell };
}

/**
 * As numberKeys, for any keys: an open-addressing table over their bits (a Set or a Map of a
 * million doubles, or sorting them all, costs several times more).
 */
function hashedKeys(values: Float64Array): { keys: Float64Array; slotOfCell: Uint32Array } {
  let capacity = 1024;
  while (capacity < 2 * values.length) capacity *= 2;
  const keys = new Float64Array(capacity).fill(Number.NaN);
  const entryOf = new Uint32Array(values.length);
  const distinct: number[] = [];
  const slotAt = new Int32Array(capacity);
  const mask = capacity - 1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    hashBits[0] = v;
    let h = Math.imul((hashWords[0] as number) ^ Math.imul(hashWords[1] as number, 0x27d4eb2d), 0x9e3779b1);
    h = (h ^ (h >>> 15)) & mask;
    while (!Number.isNaN(keys[h]) && keys[h] !== v) h = (h + 1) & mask;
    if (Number.isNaN(keys[h])) {
      keys[h] = v;
      slotAt[h] = distinct.length;
      distinct.push(v);
    }
    entryOf[i] = slotAt[h] as number;
  }
  // Number the distinct values in ascending order.
  const order = Array.from(distinct.keys()).sort((a, b) => (distinct[a] as number) - (distinct[b] as number));
  const rank = new Uint32Array(distinct.length);
  order.forEach((d, r) => (rank[d] = r));
  const slotOfCell = new Uint32Array(values.length);
  for (let i = 0; i < values.length; i++) slotOfCell[i] = rank[entryOf[i] as number] as number;
  return { keys: Float64Array.from(order, (d) => distinct[d] as number), slotOfCell };
}

/** Samples in each second of [from, to). */
export function samplesPerSecond(h: SecondHistograms, from = 0, to = h.seconds): Float64Array {
  const out = new Float64Array(to - from);
  for (let t = from; t < to; t++) {
    let n = 0;
    for (let c = h.rowStart[t] as number; c < (h.rowStart[t + 1] as number); c++) n += h.count[c] as number;
    out[t - from] = n;
  }
  return out;
}

/** The slot holding `value` (a value some slot reports). */
export function slotOf(h: SecondHistograms, value: number): number {
  let lo = 0;
  let hi = h.slotValue.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((h.slotValue[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The per-second series a percentile's estimate moves with (its influence function, up to scale):
 * per second of [from, to), the samples at or below the observed value's slot minus p/100 of all
 * the second's samples. Its autocorrelation is what blocks must keep for that percentile.
 */
export function percentileInfluence(h: SecondHistograms, slot: number, p: number, from = 0, to = h.seconds): Float64Array {
  const out = new Float64Array(to - from);
  for (let t = from; t < to; t++) {
    let below = 0;
    let all = 0;
    for (let c = h.rowStart[t] as number; c < (h.rowStart[t + 1] as number); c++) {
      const count = h.count[c] as number;
      all += count;
      if ((h.slot[c] as number) <= slot) below += count;
    }
    out[t - from] = below - (p / 100) * all;
  }
  return out;
}

// ---- Resample plans -----------------------------------------------------------------------------

/** Seconds [from, to) of one run on a side's time axis, resampled in blocks of `blockLength`. */
export interface Segment {
  from: number;
  to: number;
  blockLength: number;
}

/**
 * The blocks of every resample: resample r is blocks r·blocksPer … (r+1)·blocksPer − 1, block i
 * covering seconds [starts[i], ends[i]). Each segment (run) of a side is resampled within itself,
 * in ⌈length / b⌉ blocks whose start is uniform over the segment's length − b + 1 positions; the
 * last block is cut so the resample is exactly as long as the run.
 */
export interface ResamplePlan {
  resamples: number;
  blocksPer: number;
  starts: Int32Array;
  ends: Int32Array;
  /** The segments' block lengths: most blocks are this long (the last of each segment is cut). */
  blockLengths: readonly number[];
}

export function resamplePlan(segments: readonly Segment[], resamples: number, rng: Rng): ResamplePlan {
  const blocksPer = segments.reduce((k, s) => k + Math.ceil((s.to - s.from) / s.blockLength), 0);
  const starts = new Int32Array(resamples * blocksPer);
  const ends = new Int32Array(resamples * blocksPer);
  let at = 0;
  for (let r = 0; r < resamples; r++) {
    for (const { from, to, blockLength: b } of segments) {
      const length = to - from;
      const k = Math.ceil(length / b);
      for (let i = 0; i < k; i++) {
        const start = from + rng.below(length - b + 1);
        starts[at] = start;
        ends[at++] = start + (i < k - 1 ? b : length - (k - 1) * b);
      }
    }
  }
  return { resamples, blocksPer, starts, ends, blockLengths: [...new Set(segments.map((s) => s.blockLength))] };
}

/** The plan whose one resample is every second once: the merged figures themselves. */
export function identityPlan(segments: readonly Segment[]): ResamplePlan {
  return { resamples: 1, blocksPer: segments.length, starts: Int32Array.from(segments, (s) => s.from), ends: Int32Array.from(segments, (s) => s.to), blockLengths: [] };
}

/** Σ over a resample's blocks of values[t] for t in each block, from prefix sums (prefix[t] = Σ values[0..t-1]). */
export function blockSum(prefix: Float64Array, plan: ResamplePlan, resample: number): number {
  let s = 0;
  const end = (resample + 1) * plan.blocksPer;
  for (let i = resample * plan.blocksPer; i < end; i++) s += (prefix[plan.ends[i] as number] as number) - (prefix[plan.starts[i] as number] as number);
  return s;
}

export function prefixSums(values: ArrayLike<number>): Float64Array {
  const out = new Float64Array(values.length + 1);
  for (let i = 0; i < values.length; i++) out[i + 1] = (out[i] as number) + (values[i] as number);
  return out;
}

// ---- Percentiles of resamples -------------------------------------------------------------------

/** The two-level tables that read any resample's percentiles without summing its seconds (see above). */
export class PercentileTables {
  /** Slots per group (the last group may hold fewer). */
  private readonly width: number;
  private readonly groups: number;
  /** (seconds + 1) × groups: counts per group in seconds [0, t). */
  private readonly coarse: Float64Array;
  /** Per group, (seconds + 1) × width: counts in seconds [0, t) of the group's slots up to j. */
  private readonly fine = new Map<number, Float64Array>();
  private readonly vector: Float64Array;

  constructor(private readonly h: SecondHistograms) {
    const slots = h.slotValue.length;
    this.width = Math.max(1, Math.ceil(Math.sqrt(slots)));
    this.groups = Math.max(1, Math.ceil(slots / this.width));
    const G = this.groups;
    const coarse = new Float64Array((h.seconds + 1) * G);
    for (let t = 0; t < h.seconds; t++) {
      const row = (t + 1) * G;
      coarse.copyWithin(row, t * G, row);
      for (let c = h.rowStart[t] as number; c < (h.rowStart[t + 1] as number); c++) {
        const at = row + Math.floor((h.slot[c] as number) / this.width);
        coarse[at] = (coarse[at] as number) + (h.count[c] as number);
      }
    }
    this.coarse = coarse;
    this.vector = new Float64Array(G);
  }

  /**
   * The values at `percentiles` (in order) of resample `resample` of `plan` into `out`, NaN when
   * the resample holds no sample; returns its number of samples.
   */
  evaluate(plan: ResamplePlan, resample: number, percentiles: readonly number[], out: Float64Array): number {
    const G = this.groups;
    const v = this.vector;
    v.fill(0);
    const coarse = this.coarse;
    const from = resample * plan.blocksPer;
    const to = from + plan.blocksPer;
    let length = -1;
    let sums: Float64Array | null = null;
    for (let i = from; i < to; i++) {
      const start = plan.starts[i] as number;
      const end = plan.ends[i] as number;
      if (end - start !== length) {
        length = end - start;
        sums = plan.blockLengths.includes(length) ? this.blockSums(length) : null;
      }
      if (sums) {
        // A block of the usual length: its counts per group, summed ahead (one row, not two).
        const at = start * G;
        for (let g = 0; g < G; g++) v[g] = (v[g] as number) + (sums[at + g] as number);
      } else {
        const z = end * G;
        const a = start * G;
        for (let g = 0; g < G; g++) v[g] = (v[g] as number) + (coarse[z + g] as number) - (coarse[a + g] as number);
      }
    }
    let total = 0;
    for (let g = 0; g < G; g++) total += v[g] as number;
    for (let k = 0; k < percentiles.length; k++) {
      if (total === 0) {
        out[k] = Number.NaN;
        continue;
      }
      const rank = percentileRank(percentiles[k] as number, total, this.h.raw);
      let before = 0;
      let g = 0;
      while (g < G - 1 && before + (v[g] as number) < rank) before += v[g++] as number;
      out[k] = this.h.slotValue[this.slotAtRank(g, rank - before, plan, from, to)] as number;
    }
    return total;
  }

  private readonly blocks = new Map<number, Float64Array>();

  /** (seconds − length + 1) × groups: the counts per group of every block of `length` seconds. */
  private blockSums(length: number): Float64Array {
    let sums = this.blocks.get(length);
    if (!sums) {
      const G = this.groups;
      const starts = this.h.seconds - length + 1;
      sums = new Float64Array(Math.max(0, starts) * G);
      for (let s = 0; s < starts; s++) {
        for (let g = 0; g < G; g++) sums[s * G + g] = (this.coarse[(s + length) * G + g] as number) - (this.coarse[s * G + g] as number);
      }
      this.blocks.set(length, sums);
    }
    return sums;
  }

  /** The slot of group g where the resample's count within the group first reaches `rank`. */
  private slotAtRank(g: number, rank: number, plan: ResamplePlan, from: number, to: number): number {
    const width = this.width;
    const table = this.fineTable(g);
    const slots = Math.min(width, this.h.slotValue.length - g * width);
    let lo = 0;
    let hi = slots - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      let n = 0;
      for (let i = from; i < to; i++) n += (table[(plan.ends[i] as number) * width + mid] as number) - (table[(plan.starts[i] as number) * width + mid] as number);
      if (n >= rank) hi = mid;
      else lo = mid + 1;
    }
    return g * width + lo;
  }

  private fineTable(g: number): Float64Array {
    const cached = this.fine.get(g);
    if (cached) return cached;
    const { h, width } = this;
    const first = g * width;
    const { groupStart, groupCells, cellSecond } = this.byGroup();
    const table = new Float64Array((h.seconds + 1) * width);
    const delta = new Float64Array(width);
    let c = groupStart[g] as number;
    const end = groupStart[g + 1] as number;
    for (let t = 0; t < h.seconds; t++) {
      delta.fill(0);
      for (; c < end && cellSecond[groupCells[c] as number] === t; c++) {
        const cell = groupCells[c] as number;
        const j = (h.slot[cell] as number) - first;
        delta[j] = (delta[j] as number) + (h.count[cell] as number);
      }
      const row = (t + 1) * width;
      const prev = t * width;
      let cumulative = 0;
      for (let j = 0; j < width; j++) {
        cumulative += delta[j] as number;
        table[row + j] = (table[prev + j] as number) + cumulative;
      }
    }
    this.fine.set(g, table);
    return table;
  }

  private grouped: { groupStart: Uint32Array; groupCells: Uint32Array; cellSecond: Uint32Array } | null = null;

  /** The cells grouped by slot group, in second order within a group (a stable counting sort), built once. */
  private byGroup() {
    if (this.grouped) return this.grouped;
    const { h, width, groups } = this;
    const cells = h.count.length;
    const cellSecond = new Uint32Array(cells);
    for (let t = 0; t < h.seconds; t++) cellSecond.fill(t, h.rowStart[t] as number, h.rowStart[t + 1] as number);
    const groupStart = new Uint32Array(groups + 1);
    for (let c = 0; c < cells; c++) groupStart[Math.floor((h.slot[c] as number) / width) + 1]!++;
    for (let g = 0; g < groups; g++) groupStart[g + 1] = (groupStart[g + 1] as number) + (groupStart[g] as number);
    const next = groupStart.slice(0, groups);
    const groupCells = new Uint32Array(cells);
    for (let c = 0; c < cells; c++) {
      const g = Math.floor((h.slot[c] as number) / width);
      groupCells[next[g] as number] = c;
      next[g]!++;
    }
    this.grouped = { groupStart, groupCells, cellSecond };
    return this.grouped;
  }
}
