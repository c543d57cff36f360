import type { ParsedFile } from '../model/types.ts';

/**
 * The memory check: a budget for the latency cells of the files loaded, checked before each parsed
 * file is handed to the store, so that a load too large is refused with how much input fits
 * instead of failing part-way. Where the cells live now: the per-second cells are the parsed files'
 * typed arrays in the engine worker's JavaScript heap (SecondCells reads them in place), and DuckDB-
 * WASM, in its own WebAssembly memory of at most 4 GiB, holds only each series' sum over all time
 * and the counts over time. The budget below is still the one set when every cell was a DuckDB
 * row — bytes per cell measured then, against DuckDB's memory limit — so it bounds DuckDB's share
 * from above; it does not measure the worker's heap, which holds the cells.
 */

/**
 * DuckDB bytes per latency cell (a histogram bucket in one interval, or a distinct raw value in one
 * second), with its share of `series_buckets` and `intervals`, plus a fixed part. Measured with
 * duckdb_memory() when every second was also in DuckDB: 2.43 M cells of generated YCSB
 * HdrHistogram logs took 129.8 MB (53.5 B a cell), the test corpus 0.53 M cells 35.1 MB. DuckDB now
 * holds each series' sum over all time (the seconds stay in the worker's heap), so its real share
 * is far less; tests/unit/memory-check.test.ts keeps this an upper bound of what DuckDB takes, also
 * where no value repeats (every cell a `series_buckets` row).
 */
export const ENGINE_BYTES_PER_CELL = 56;
export const ENGINE_FIXED_BYTES = 16e6;
/**
 * Share of the engine's memory the stored data may take; the rest is working memory for queries,
 * whose merges group millions of cells into a few thousand buckets.
 */
export const STORAGE_SHARE = 0.75;

/** The cells a parsed file adds to the engine. */
export function cellsOf(file: ParsedFile): number {
  let cells = counted.get(file);
  if (cells === undefined) {
    cells = 0;
    for (const s of file.series) {
      if (s.kind === 'histogram') for (const i of s.intervals) cells += i.histogram.count.length;
      else if (s.kind === 'raw') cells += s.counts.value.length;
    }
    counted.set(file, cells);
  }
  return cells;
}

/** Counted once per file: a load checks every file read so far as each new one arrives. */
const counted = new WeakMap<ParsedFile, number>();

/** The memory check of a load: the cells it would hold, the bytes they need and have, and whether they fit. */
export interface MemoryCheck {
  cells: number;
  neededBytes: number;
  /** What the cells may take: the storage share of the engine's memory limit. */
  availableBytes: number;
  fits: boolean;
}

export function checkMemory(cells: number, memoryLimitBytes: number): MemoryCheck {
  const neededBytes = ENGINE_FIXED_BYTES + cells * ENGINE_BYTES_PER_CELL;
  const availableBytes = Math.floor(memoryLimitBytes * STORAGE_SHARE);
  return { cells, neededBytes, availableBytes, fits: neededBytes <= availableBytes };
}

const UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };

/** DuckDB's `memory_limit` setting as bytes ("3.1 GiB" → 3328599654); null when it is not a size. */
export function memorySettingBytes(setting: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B|B)\s*$/i.exec(setting);
  if (!m) return null;
  return Math.floor(Number(m[1]) * (UNITS[(m[2] as string).toLowerCase()] as number));
}

function size(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.max(1, Math.round(bytes / 1e6))} MB`;
}

/**
 * Why files were not loaded: what they need, what the engine has, and how much of this kind of
 * input fits — scaled from the input read so far (`inputBytes` for `check.cells`).
 */
export function tooLargeMessage(check: MemoryCheck, inputBytes: number): string {
  const cellsThatFit = (check.availableBytes - ENGINE_FIXED_BYTES) / ENGINE_BYTES_PER_CELL;
  const fitting = inputBytes > 0 && check.cells > 0 && cellsThatFit > 0 ? size((inputBytes * cellsThatFit) / check.cells) : null;
  return (
    `not loaded: with this file the results hold ${(check.cells / 1e6).toFixed(1)} M latency buckets, about ${size(check.neededBytes)} ` +
    `in the in-browser query engine, which has ${size(check.availableBytes)} for them (WebAssembly memory is limited to 4 GB)` +
    (fitting ? `; about ${fitting} of input like this fits — load fewer clients or a shorter part of the run` : '')
  );
}
