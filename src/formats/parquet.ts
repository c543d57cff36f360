import { parquetMetadataAsync, parquetSchema, parquetScan, type AsyncBuffer, type FileMetaData, type SchemaElement } from 'hyparquet';
import { MAX_EPOCH_MS } from '../model/numbers.ts';
import type { LatencyUnit, ParsedFile, RawSeries } from '../model/types.ts';
import { isFailure, isNotOk, parseTimestampMs, ROLE_PATTERNS, toStoredLatency, unitFromHeader, type Role } from './csv-columns.ts';
import { CHECK_ROWS, mappingProblem, type CsvMapping } from './csv-mapping.ts';
import { PARQUET_CODECS } from './decompress.ts';
import { IssueLog } from './format.ts';
import { SampleCounter, type RawSampleSink } from './sample-counter.ts';
import { InputError } from './text-input.ts';

/**
 * Per-operation result files in Parquet: the columns are recognised as in a per-operation CSV
 * (time, latency with its unit in the name, operation, status, client — `csv-columns.ts`), or
 * named by a column mapping, and become the same raw series a CSV would. Read with hyparquet, a
 * row group at a time, from a file the reader can seek in (a File's slices, a file on disk, HTTP
 * ranges): only the footer and the used columns of one row group are in memory at once.
 *
 * Values keep the CSV's exactness: a latency becomes an integer in the stored unit (µs, or ns for
 * ns columns) only when that is exact — an integer column scaled by its unit, a DECIMAL by its
 * scale, a FLOAT or DOUBLE when the shortest decimal that reads back as it (what a CSV writer
 * prints) has no more digits than the unit allows; anything else is a skipped row, as in a CSV.
 * Errors name the row (1-based) where a CSV would name the line.
 */

/** A file read by byte ranges. */
export interface RandomAccessInput {
  size: number;
  read(start: number, end: number): Promise<Uint8Array>;
}

/** Parquet files start (and end) with these four bytes. */
const PARQUET_MAGIC = [0x50, 0x41, 0x52, 0x31] as const;

function isParquetMagic(bytes: Uint8Array): boolean {
  return PARQUET_MAGIC.every((b, i) => bytes[i] === b);
}

/**
 * Whether the chunks start with Parquet's magic bytes, and if not the chunks as they were (those
 * looked at first, then the rest). A Parquet file is not streamed: `readParquet` seeks in it.
 */
export async function sniffParquet(chunks: AsyncIterable<Uint8Array>): Promise<{ parquet: true } | { parquet: false; rest: AsyncIterable<Uint8Array> }> {
  const it = chunks[Symbol.asyncIterator]();
  const seen: Uint8Array[] = [];
  let length = 0;
  let done = false;
  while (length < PARQUET_MAGIC.length) {
    const next = await it.next();
    if (next.done) {
      done = true;
      break;
    }
    // A short chunk is copied: its buffer may be reused by its producer while the next is read.
    seen.push(next.value.length < PARQUET_MAGIC.length ? next.value.slice() : next.value);
    length += next.value.length;
  }
  const first = seen.length === 1 ? seen[0]! : concatenated(seen, length);
  if (isParquetMagic(first)) {
    if (!done) await it.return?.();
    return { parquet: true };
  }
  async function* rest(): AsyncIterable<Uint8Array> {
    let finished = done;
    try {
      yield* seen;
      while (!finished) {
        const next = await it.next();
        if (next.done) finished = true;
        else yield next.value;
      }
    } finally {
      if (!finished) await it.return?.();
    }
  }
  return { parquet: false, rest: rest() };
}

function concatenated(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export interface ParquetReadOptions {
  /** The column mapping the user gave for a table of these columns, if any. */
  mappingFor: (header: readonly string[]) => CsvMapping | null;
  rawSamples?: RawSampleSink;
  /** Called before each row group with the bytes and rows read so far; may throw to stop. */
  onRowGroup?: (bytesRead: number, rowsRead: number) => void;
}

/** Timestamps and dates as epoch ms numbers (hyparquet's default is a Date, to the ms). */
const EPOCH_MS_PARSERS = {
  timestampFromMilliseconds: (ms: bigint) => Number(ms),
  timestampFromMicroseconds: (us: bigint) => Number(us) / 1000,
  timestampFromNanoseconds: (ns: bigint) => Number(ns / 1000n) / 1000,
  dateFromDays: (days: number) => days * 86_400_000,
};

type ValueKind = 'integer' | 'decimal' | 'float' | 'double' | 'text' | 'timestamp' | 'boolean' | 'other';

function kindOf(e: SchemaElement): ValueKind {
  const logical = e.logical_type?.type;
  const converted = e.converted_type;
  if (converted === 'DECIMAL' || logical === 'DECIMAL') return 'decimal';
  if (logical === 'TIMESTAMP' || logical === 'DATE' || converted === 'TIMESTAMP_MILLIS' || converted === 'TIMESTAMP_MICROS' || converted === 'DATE' || (e.type === 'INT96' && !converted)) return 'timestamp';
  if (logical === 'TIME' || converted === 'TIME_MILLIS' || converted === 'TIME_MICROS' || converted === 'INTERVAL' || logical === 'FLOAT16') return 'other';
  if (e.type === 'INT32' || e.type === 'INT64') return 'integer';
  if (e.type === 'FLOAT') return 'float';
  if (e.type === 'DOUBLE') return 'double';
  if (e.type === 'BOOLEAN') return 'boolean';
  if (e.type === 'BYTE_ARRAY' && (converted === 'UTF8' || logical === 'STRING' || logical === 'ENUM' || converted === 'ENUM' || (!converted && !logical))) return 'text';
  return 'other';
}

/** Decimal digits a latency in `unit` is shifted by to become the stored unit (µs; ns stays ns). */
const SHIFT: Record<LatencyUnit, number> = { ns: 0, us: 0, ms: 3, s: 6 };

/** How a latency cell becomes an integer in the stored unit; null: not exact (or not a number). */
function latencyReader(e: SchemaElement, kind: ValueKind, unit: LatencyUnit): ((v: unknown) => number | null) | null {
  const shift = SHIFT[unit];
  const scale = 10 ** shift;
  const exact = (n: number) => (Number.isSafeInteger(n) && n >= 0 ? n : null);
  switch (kind) {
    case 'integer':
      return (v) => exact(Number(v) * scale);
    case 'decimal': {
      // hyparquet gives unscaled × 10^-s as a double: the unscaled integer is recovered by rounding.
      const s = e.scale ?? 0;
      return (v) => {
        const unscaled = Math.round(Number(v) * 10 ** s);
        if (shift >= s) return exact(unscaled * 10 ** (shift - s));
        const divisor = 10 ** (s - shift);
        return unscaled % divisor === 0 ? exact(unscaled / divisor) : null;
      };
    }
    case 'double':
      // The shortest decimal of x has at most `shift` decimals exactly when x is the double nearest
      // to round(x·10^shift) / 10^shift.
      return (v) => {
        const x = v as number;
        const n = Math.round(x * scale);
        return n / scale === x ? exact(n) : null;
      };
    case 'float':
      return (v) => {
        const x = v as number;
        const n = Math.round(x * scale);
        return Math.fround(n / scale) === x ? exact(n) : null;
      };
    case 'text':
      return (v) => toStoredLatency(String(v), unit);
    default:
      return null;
  }
}

/** Epoch ms from a number by its magnitude, as `parseTimestampMs` reads digits: s, ms, µs or ns. */
function epochMsOfNumber(v: number | bigint): number | null {
  let ms: number;
  if (typeof v === 'bigint') {
    if (v < 0n) return null;
    ms = v >= 100_000_000_000_000_000n ? Number(v / 1000n) / 1000 : epochMsOfMagnitude(Number(v));
  } else {
    if (!(v >= 0)) return null;
    ms = epochMsOfMagnitude(v);
  }
  return ms <= MAX_EPOCH_MS ? ms : null;
}

function epochMsOfMagnitude(v: number): number {
  return v < 1e11 ? v * 1000 : v < 1e14 ? v : v < 1e17 ? v / 1000 : v / 1e6;
}

function timeReader(kind: ValueKind): ((v: unknown) => number | null) | null {
  switch (kind) {
    case 'timestamp':
      return (v) => (typeof v === 'number' && Math.abs(v) <= MAX_EPOCH_MS ? v : null);
    case 'integer':
    case 'decimal':
    case 'float':
    case 'double':
      return (v) => epochMsOfNumber(v as number | bigint);
    case 'text':
      return (v) => parseTimestampMs(String(v));
    default:
      return null;
  }
}

function asyncBuffer(input: RandomAccessInput, counted: { bytes: number }): AsyncBuffer {
  return {
    byteLength: input.size,
    async slice(start: number, end?: number): Promise<ArrayBuffer> {
      const bytes = await input.read(start, end ?? input.size);
      counted.bytes += bytes.length;
      return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : (bytes.slice().buffer as ArrayBuffer);
    },
  };
}

const TYPE_NAMES: Record<ValueKind, string> = {
  integer: 'an integer',
  decimal: 'a DECIMAL',
  float: 'a FLOAT',
  double: 'a DOUBLE',
  text: 'text',
  timestamp: 'a TIMESTAMP/DATE',
  boolean: 'a BOOLEAN',
  other: 'of a type that is not a number',
};

/** Reads a Parquet file of per-operation rows; InputError says why a file cannot be read at all. */
export async function readParquet(path: string, input: RandomAccessInput, options: ParquetReadOptions): Promise<ParsedFile> {
  const read = { bytes: 0 };
  const file = asyncBuffer(input, read);
  let metadata: FileMetaData;
  try {
    metadata = await parquetMetadataAsync(file, { parsers: EPOCH_MS_PARSERS });
  } catch (e) {
    throw new InputError(`${path}: not a readable Parquet file (${e instanceof Error ? e.message : String(e)})`);
  }
  const issues = new IssueLog(path);
  // Top-level columns holding one value a row; lists and structs are not per-operation columns.
  const columns = new Map<string, SchemaElement>();
  for (const child of parquetSchema(metadata).children) if (child.children.length === 0 && child.element.repetition_type !== 'REPEATED') columns.set(child.element.name, child.element);
  const header = [...columns.keys()];
  const mapping = options.mappingFor(header);
  const index: Partial<Record<Role, string>> = {};
  let unit: LatencyUnit;
  if (mapping) {
    const named: Record<Role, string | undefined> = { time: mapping.time, latency: mapping.latency, op: mapping.op, status: mapping.ok, client: mapping.client };
    for (const role of Object.keys(named) as Role[]) {
      const column = named[role];
      if (column === undefined) continue;
      if (!columns.has(column)) throw new InputError(`${path}: column mapping refused: the file has no column "${column}" (for ${role}); its columns: ${header.join(', ')}`);
      index[role] = column;
    }
    unit = mapping.unit;
  } else {
    for (const role of Object.keys(ROLE_PATTERNS) as Role[]) {
      const found = header.find((h) => ROLE_PATTERNS[role].test(h));
      if (found !== undefined) index[role] = found;
    }
    if (index.latency === undefined) throw new InputError(`${path}: a Parquet file with no latency column recognised (its columns: ${header.join(', ') || 'none'}); name it with a column mapping (--map latency=<column>:<unit>)`);
    const stated = unitFromHeader(index.latency);
    unit = stated ?? 'ms';
    if (stated === null) issues.note(0, `the latency column "${index.latency}" names no unit; read as ms — map the file's columns to say otherwise`);
  }
  const latencyColumn = index.latency as string;
  const latencyKind = kindOf(columns.get(latencyColumn) as SchemaElement);
  const latencyOf = latencyReader(columns.get(latencyColumn) as SchemaElement, latencyKind, unit);
  if (!latencyOf) throw new InputError(`${path}: the latency column "${latencyColumn}" is ${TYPE_NAMES[latencyKind]}, not a number of ${unit}`);
  const timeColumn = index.time;
  const timeKind = timeColumn !== undefined ? kindOf(columns.get(timeColumn) as SchemaElement) : null;
  const timeOf = timeKind !== null ? timeReader(timeKind) : null;
  if (timeColumn !== undefined && !timeOf) throw new InputError(`${path}: the time column "${timeColumn}" is ${TYPE_NAMES[timeKind as ValueKind]}, not a time`);
  const storedUnit: LatencyUnit = unit === 'ns' ? 'ns' : 'us';
  const statusHeader = index.status ?? '';
  const failed = mapping ? (v: string) => isNotOk(v) : (v: string) => isFailure(v, statusHeader);

  const used = [...new Set(Object.values(index))];
  const roleAt = (role: Role) => (index[role] === undefined ? -1 : used.indexOf(index[role]));
  const at = { time: roleAt('time'), latency: roleAt('latency'), op: roleAt('op'), status: roleAt('status'), client: roleAt('client') };
  const counter = new SampleCounter(options.rawSamples);
  const seriesIndex = new Map<string, number>();
  const seriesKeys: { client?: string; op: string }[] = [];
  const failedStatus = new Map<string, boolean>();
  let scan;
  try {
    scan = await parquetScan({ file, metadata, columns: used, compressors: PARQUET_CODECS, parsers: EPOCH_MS_PARSERS });
  } catch (e) {
    throw new InputError(`${path}: the Parquet file cannot be read (${e instanceof Error ? e.message : String(e)})`);
  }
  let rowsRead = 0;
  let checked = !mapping;
  for (const range of scan.ranges) {
    options.onRowGroup?.(read.bytes, rowsRead);
    let data: ArrayLike<unknown>[];
    try {
      data = await Promise.all(used.map((column) => scan.readColumn({ column, ...range }) as Promise<ArrayLike<unknown>>));
    } catch (e) {
      throw new InputError(`${path}: rows ${range.rowStart + 1}–${range.rowEnd} cannot be read (${e instanceof Error ? e.message : String(e)})`);
    }
    const rows = range.rowEnd - range.rowStart;
    if (!checked) {
      // A mapping the user gave is checked on the first rows, as for a CSV: a refused one reads nothing.
      checked = true;
      const sample = Array.from({ length: Math.min(rows, CHECK_ROWS) }, (_, r) => header.map((h) => (used.includes(h) ? cellText(data[used.indexOf(h)]![r]) : '')));
      const problem = mappingProblem(mapping as CsvMapping, header, sample);
      if (problem) throw new InputError(`${path}: column mapping refused: ${problem}`);
    }
    const latencies = data[at.latency]!;
    for (let r = 0; r < rows; r++) {
      const row = range.rowStart + r + 1;
      const cell = latencies[r];
      if (cell === null || cell === undefined) {
        issues.skip(row, 'row has no latency (null)', latencyColumn);
        continue;
      }
      const latency = latencyOf(cell);
      if (latency === null) {
        issues.skip(row, `latency "${cellText(cell).slice(0, 40)}" is not a non-negative ${unit} value representable exactly in ${storedUnit}`, latencyColumn);
        continue;
      }
      let timeMs = Number.NaN;
      if (timeOf) {
        const t = data[at.time]![r];
        const ms = t === null || t === undefined ? null : timeOf(t);
        if (ms === null) {
          issues.skip(row, `timestamp "${cellText(t).slice(0, 40)}" is not epoch s/ms/µs/ns, a TIMESTAMP or ISO-8601 (up to year 2255)`, timeColumn);
          continue;
        }
        timeMs = ms;
      }
      let op = at.op >= 0 ? cellText(data[at.op]![r]).trim() || 'OP' : 'OP';
      if (at.status >= 0) {
        const status = cellText(data[at.status]![r]);
        let isFailed = failedStatus.get(status);
        if (isFailed === undefined) {
          isFailed = failed(status);
          if (failedStatus.size < 4096) failedStatus.set(status, isFailed);
        }
        if (isFailed) op += '-FAILED';
      }
      const client = at.client >= 0 ? cellText(data[at.client]![r]).trim() || undefined : undefined;
      const key = client === undefined ? op : `${client}\u0000${op}`;
      let series = seriesIndex.get(key);
      if (series === undefined) {
        series = seriesKeys.length;
        seriesIndex.set(key, series);
        seriesKeys.push(client !== undefined ? { op, client } : { op });
      }
      counter.add(series, timeMs, latency);
    }
    rowsRead += rows;
  }
  options.onRowGroup?.(read.bytes, rowsRead);
  const counted = counter.finish(seriesKeys.length);
  const series: RawSeries[] = seriesKeys.map((c, i) => ({ kind: 'raw', op: c.op, unit: storedUnit, ...counted[i]!, ...(c.client !== undefined ? { client: c.client } : {}) }));
  if (series.length === 0) issues.note(0, 'no rows with a latency found');
  return { path, format: 'parquet', series, errors: issues.errors, skippedLines: issues.skippedLines, lines: Number(metadata.num_rows) };
}

/** A cell as the text a CSV would hold (null: empty). */
function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : String(v);
}
