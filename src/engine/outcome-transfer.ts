import { isFailed, type FailedFile, type FileOutcome } from '../formats/read-file.ts';
import type { HistogramInterval, HistogramSeries, LatencySeries, ParsedFile } from '../model/types.ts';
import { attachLevels, type PrebuiltLevels } from './prebuilt-levels.ts';

/**
 * A parsed file as it crosses from a parse worker to the engine worker: its typed arrays
 * transferred, not copied, and its interval histograms as columns. Structured clone of the
 * intervals themselves — an object, a histogram object and (then) three typed-array views each — cost
 * the receiving thread 316 ms for 170,000 intervals in 48 files (Chromium, 2 cores); as columns
 * they arrive in 3–5 ms and are views again in 50–70 ms.
 */
export type PackedOutcome = FailedFile | PackedFile;

type PackedFile = Omit<ParsedFile, 'series'> & {
  series: (Exclude<LatencySeries, HistogramSeries> | PackedHistogramSeries)[];
  /** Each series' levels of blocks, built where it was parsed (./prebuilt-levels.ts). */
  levels?: (PrebuiltLevels | null)[];
};

type PackedHistogramSeries = Omit<HistogramSeries, 'kind' | 'intervals'> & {
  kind: 'packed-histogram';
  /** INTERVAL_FIELDS numbers per interval. */
  columns: Float64Array;
  /** The buffers the histograms' arrays are views of: decoder slabs (hdr-codec.ts), a few dozen a file. */
  buffers: ArrayBuffer[];
};

/**
 * Per interval: start, length, line, total count, buckets, then buffer index and byte offset of
 * index and count (the decoder puts both in one slab; nothing here relies on it), and the bytes
 * of a count (4: Uint32Array, 8: Float64Array).
 */
const INTERVAL_FIELDS = 10;

/**
 * The outcome packed, and the buffers to transfer with it. Those buffers are detached in this
 * thread once posted, which the HdrHistogram decoder notices: it starts a fresh slab.
 */
export function packOutcome(outcome: FileOutcome, levels?: (PrebuiltLevels | null)[]): { packed: PackedOutcome; transfer: ArrayBuffer[] } {
  if (isFailed(outcome)) return { packed: outcome, transfer: [] };
  const transfer = new Set<ArrayBuffer>();
  // Typed arrays the parsers make are always over plain ArrayBuffers, never shared memory.
  const bufferOf = (array: Float64Array | Int32Array | Uint32Array): ArrayBuffer => array.buffer as ArrayBuffer;
  const series = outcome.series.map((s): PackedFile['series'][number] => {
    switch (s.kind) {
      case 'histogram': {
        const packed = packHistogramSeries(s, bufferOf);
        transfer.add(bufferOf(packed.columns));
        for (const b of packed.buffers) transfer.add(b);
        return packed;
      }
      case 'raw':
        for (const column of [s.counts.secs, s.counts.starts, s.counts.value, s.counts.n]) transfer.add(bufferOf(column));
        return s;
      case 'distribution':
      case 'printed':
      case 'intervals':
        // Plain numbers and objects only.
        return s;
    }
  });
  for (const built of levels ?? []) {
    if (!built) continue;
    for (const level of built.levels) if (level) for (const column of [level.secs, level.starts, level.keys, level.n]) transfer.add(column.buffer as ArrayBuffer);
    for (const column of [built.whole.lo, built.whole.width, built.whole.count]) transfer.add(column.buffer as ArrayBuffer);
  }
  return { packed: { ...outcome, series, ...(levels ? { levels } : {}) }, transfer: [...transfer] };
}

function packHistogramSeries({ kind: _, intervals, ...rest }: HistogramSeries, bufferOf: (array: Float64Array | Int32Array | Uint32Array) => ArrayBuffer): PackedHistogramSeries {
  const columns = new Float64Array(intervals.length * INTERVAL_FIELDS);
  const buffers: ArrayBuffer[] = [];
  const indexOf = new Map<ArrayBuffer, number>();
  /** Writes where `array` lies at `at`, `at + 1`. */
  const place = (array: Float64Array | Int32Array | Uint32Array, at: number): void => {
    const buffer = bufferOf(array);
    let index = indexOf.get(buffer);
    if (index === undefined) {
      index = buffers.push(buffer) - 1;
      indexOf.set(buffer, index);
    }
    columns[at] = index;
    columns[at + 1] = array.byteOffset;
  };
  let at = 0;
  for (const { startUs, lengthUs, line, histogram } of intervals) {
    columns[at] = startUs;
    columns[at + 1] = lengthUs;
    columns[at + 2] = line;
    columns[at + 3] = histogram.totalCount;
    columns[at + 4] = histogram.count.length;
    place(histogram.index, at + 5);
    place(histogram.count, at + 7);
    columns[at + 9] = histogram.count.BYTES_PER_ELEMENT;
    at += INTERVAL_FIELDS;
  }
  return { ...rest, kind: 'packed-histogram', columns, buffers };
}

/** The parsed file again, in the shape every other module reads: views over the transferred buffers. */
export function unpackOutcome(packed: PackedOutcome): FileOutcome {
  if ('failed' in packed) return packed;
  const { levels, ...file } = packed;
  const series = file.series.map((s) => (s.kind === 'packed-histogram' ? unpackHistogramSeries(s) : s));
  series.forEach((s, i) => {
    const built = levels?.[i];
    if (built) attachLevels(s, built);
  });
  return { ...file, series };
}

function unpackHistogramSeries({ kind: _, columns, buffers, ...rest }: PackedHistogramSeries): HistogramSeries {
  const intervals: HistogramInterval[] = new Array(columns.length / INTERVAL_FIELDS);
  for (let i = 0, at = 0; at < columns.length; i++, at += INTERVAL_FIELDS) {
    const n = columns[at + 4]!;
    // Properties in the parser's order: the objects keep the shape the engine's code was optimised for.
    intervals[i] = {
      startUs: columns[at]!,
      lengthUs: columns[at + 1]!,
      histogram: {
        index: new Int32Array(buffers[columns[at + 5]!]!, columns[at + 6]!, n),
        count: columns[at + 9] === 4 ? new Uint32Array(buffers[columns[at + 7]!]!, columns[at + 8]!, n) : new Float64Array(buffers[columns[at + 7]!]!, columns[at + 8]!, n),
        totalCount: columns[at + 3]!,
      },
      line: columns[at + 2]!,
    };
  }
  return { kind: 'histogram', ...rest, intervals };
}
