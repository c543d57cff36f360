import { mergeCounted, type CountedSamples } from '../formats/sample-counter.ts';
import type { HistogramSeries, LatencySeries, ParsedFile, RawSeries, SparseHistogram } from '../model/types.ts';
import { BucketSum, mergeInOrder } from './bucket-sum.ts';
import { BLOCK_SIZES, SecondCells, TimeLevels, type LevelColumns } from './second-cells.ts';

/**
 * A series' levels of blocks (TimeLevels), built by the parse worker that parsed it instead of by
 * the engine worker after the last file is in: summing tens of millions of per-second cells into
 * blocks was the largest part of the time between the last byte read and the figures on screen
 * (~0.35 s of 20M raw rows), on one thread, while the parse workers' cores sat idle. A file read in
 * parts has its parts' levels merged like their seconds.
 *
 * They travel beside the parsed file (./outcome-transfer.ts) and wait here, by series, until the
 * store takes them; a store with other block sizes builds its own.
 */
export interface PrebuiltLevels {
  sizes: readonly number[];
  /** Null: a level of ranges of the one below (TimeLevels.blockColumns). */
  levels: (LevelColumns | null)[];
  /** The series summed over all time, in order (TimeLevels.wholeSum): sorted here, not on the engine worker. */
  whole: SparseHistogram;
}

type TimedSeries = HistogramSeries | RawSeries;

const waiting = new WeakMap<TimedSeries, PrebuiltLevels>();

const isTimed = (s: LatencySeries): s is TimedSeries => s.kind === 'histogram' || s.kind === 'raw';
const sameSizes = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((size, i) => size === b[i]);

/** The levels of each series of a parsed file in the store's block sizes; null for series without time data. */
export function buildLevels(file: ParsedFile): (PrebuiltLevels | null)[] {
  const sum = new BucketSum();
  return file.series.map((s) => {
    if (!isTimed(s)) return null;
    const seconds = s.kind === 'histogram' ? SecondCells.ofHistograms(s) : SecondCells.ofRaw(s);
    const levels = TimeLevels.build(seconds, BLOCK_SIZES, sum);
    return { sizes: BLOCK_SIZES, levels: [...levels.blockColumns], whole: levels.wholeSum(sum) };
  });
}

/** Keeps `levels` for `series` until a store takes them. */
export function attachLevels(series: LatencySeries, levels: PrebuiltLevels): void {
  if (isTimed(series)) waiting.set(series, levels);
}

export function levelsAttachedTo(series: LatencySeries): PrebuiltLevels | null {
  return isTimed(series) ? (waiting.get(series) ?? null) : null;
}

/** The levels built for `series` in block sizes `sizes`, handed over once; null when there are none such. */
export function takePrebuiltLevels(series: TimedSeries, sizes: readonly number[]): PrebuiltLevels | null {
  const prebuilt = waiting.get(series);
  if (!prebuilt) return null;
  waiting.delete(series);
  return sameSizes(prebuilt.sizes, sizes) ? prebuilt : null;
}

/**
 * The levels of a series merged from two parts (see mergeCounted), from the parts' levels: a block
 * both parts have is summed value by value, as summing the merged seconds would; a level of ranges
 * in both stays one (of the merged level below). Exact values only (raw series, the only ones read
 * in parts), and levels of the same kind in both parts; null otherwise.
 */
export function mergeLevels(a: PrebuiltLevels, b: PrebuiltLevels): PrebuiltLevels | null {
  if (!sameSizes(a.sizes, b.sizes)) return null;
  const levels: (LevelColumns | null)[] = [];
  for (const [k, x] of a.levels.entries()) {
    const y = b.levels[k];
    if (x === null && y === null) levels.push(null);
    else if (!x || !y || !(x.keys instanceof Float64Array) || !(y.keys instanceof Float64Array)) return null;
    else levels.push(levelOf(mergeCounted(countedOf(x), countedOf(y))));
  }
  return { sizes: a.sizes, levels, whole: mergeInOrder(a.whole, b.whole) };
}

/** A level's blocks as counts per (block, value), the shape mergeCounted merges. */
function countedOf(level: LevelColumns): CountedSamples {
  return { samples: 0, firstMs: null, lastMs: null, counts: { secs: level.secs, starts: level.starts, value: level.keys as Float64Array, n: level.n } };
}

/** Merged blocks as a level (they all have a time: a level's blocks do). */
function levelOf({ counts }: CountedSamples): LevelColumns {
  return { secs: counts.secs, starts: counts.starts, keys: counts.value, n: counts.n };
}
