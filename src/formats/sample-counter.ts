import type { SampleCountColumns } from '../model/types.ts';

/** A counted series as the parser hands it on; see `RawSeries`. */
export interface CountedSamples {
  samples: number;
  firstMs: number | null;
  lastMs: number | null;
  counts: SampleCountColumns;
}

const INITIAL_CAPACITY = 1 << 12;
const EMPTY = -1;

/**
 * Counts raw samples per (series, second, value) while a file is read, in an open-addressing hash
 * table over typed arrays: no JS object per sample or per count. Benchmark latencies repeat a
 * lot (integer µs, a few thousand distinct values a second), so a file of tens of millions of
 * rows ends as a few hundred thousand entries.
 */
export class SampleCounter {
  private capacity = INITIAL_CAPACITY;
  /**
   * Entries of four numbers — series (EMPTY when free), second, value, count — side by side: a
   * probe then touches one cache line, not four arrays. Tables of a million entries are common.
   */
  private table = emptyTable(INITIAL_CAPACITY);
  private used = 0;
  private readonly samples: number[] = [];
  private readonly firstMs: number[] = [];
  private readonly lastMs: number[] = [];

  /** One sample of series `series` (0, 1, 2… in order of first appearance); `timeMs` NaN = no time. */
  add(series: number, timeMs: number, value: number): void {
    if (series >= this.samples.length) this.newSeries(series);
    this.samples[series]!++;
    // NaN (no time) fails both comparisons.
    if (timeMs < this.firstMs[series]!) this.firstMs[series] = timeMs;
    if (timeMs > this.lastMs[series]!) this.lastMs[series] = timeMs;
    const sec = Math.floor(timeMs / 1000);
    const table = this.table;
    const mask = this.capacity - 1;
    for (let i = slotHash(series, sec, value) & mask; ; i = (i + 1) & mask) {
      const at = i * 4;
      const s = table[at]!;
      if (s === EMPTY) {
        table[at] = series;
        table[at + 1] = sec;
        table[at + 2] = value;
        table[at + 3] = 1;
        if (++this.used * 4 > this.capacity * 3) this.grow();
        return;
      }
      if (s === series && table[at + 2] === value) {
        const entrySec = table[at + 1]!;
        if (entrySec === sec || (entrySec !== entrySec && sec !== sec)) {
          table[at + 3]!++;
          return;
        }
      }
    }
  }

  /** The counts of series 0..seriesCount-1. Nothing may be added afterwards. */
  finish(seriesCount: number): CountedSamples[] {
    const table = this.table;
    const sizes = new Int32Array(seriesCount);
    for (let at = 0; at < table.length; at += 4) {
      const s = table[at]!;
      if (s !== EMPTY) sizes[s]!++;
    }
    const out = Array.from(sizes, (size, s): CountedSamples => {
      const first = this.firstMs[s];
      const last = this.lastMs[s];
      const timed = first !== undefined && last !== undefined && first <= last;
      return {
        samples: this.samples[s] ?? 0,
        firstMs: timed ? first : null,
        lastMs: timed ? last : null,
        counts: { sec: new Float64Array(size), value: new Float64Array(size), n: new Float64Array(size) },
      };
    });
    const filled = new Int32Array(seriesCount);
    for (let at = 0; at < table.length; at += 4) {
      const s = table[at]!;
      if (s === EMPTY) continue;
      const j = filled[s]!++;
      const counts = out[s]!.counts;
      counts.sec[j] = table[at + 1]!;
      counts.value[j] = table[at + 2]!;
      counts.n[j] = table[at + 3]!;
    }
    return out;
  }

  private newSeries(series: number): void {
    while (this.samples.length <= series) {
      this.samples.push(0);
      this.firstMs.push(Infinity);
      this.lastMs.push(-Infinity);
    }
  }

  private grow(): void {
    const old = this.table;
    this.capacity *= 2;
    const mask = this.capacity - 1;
    const table = emptyTable(this.capacity);
    for (let from = 0; from < old.length; from += 4) {
      const s = old[from]!;
      if (s === EMPTY) continue;
      let i = slotHash(s, old[from + 1]!, old[from + 2]!) & mask;
      while (table[i * 4] !== EMPTY) i = (i + 1) & mask;
      table.set(old.subarray(from, from + 4), i * 4);
    }
    this.table = table;
  }
}

function emptyTable(capacity: number): Float64Array {
  const table = new Float64Array(capacity * 4);
  for (let at = 0; at < table.length; at += 4) table[at] = EMPTY;
  return table;
}

const bits = new Float64Array(1);
const bitWords = new Int32Array(bits.buffer);

function slotHash(series: number, sec: number, value: number): number {
  // Integer latencies (the usual case) hash by value; fractional ones by their bit pattern.
  let v = value | 0;
  if (v !== value) {
    bits[0] = value;
    v = bitWords[0]! ^ bitWords[1]!;
  }
  let h = Math.imul(series ^ Math.imul(sec | 0, 0x27d4eb2d), 0x9e3779b1) ^ v;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
