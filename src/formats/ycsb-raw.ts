import { MAX_EPOCH_MS, parseNonNegativeInteger } from '../model/numbers.ts';
import type { ParsedFile, RawSeries } from '../model/types.ts';
import { LineParserBase, type FormatModule, type FormatOptions } from './format.ts';
import type { LineCursor } from './text-input.ts';
import { genericCsvFormat } from './generic-csv.ts';
import { SampleCounter } from './sample-counter.ts';

/**
 * YCSB raw measurements (`measurementtype=raw`, `measurement.raw.output_file`): for each
 * measurement a header line `READ latency raw data: op, timestamp(ms), latency(us)` followed by
 * `READ,<epoch ms>,<latency µs>` lines. Blocks follow one another per measurement, not in time order.
 */

const HEADER = /^(\S+) latency raw data: op, timestamp\(ms\), latency\(us\)\s*$/;
const ROW = /^([A-Za-z][\w-]*),(\d+),(-?\d+)\s*$/;

const utf8 = new TextDecoder();

class YcsbRawParser extends LineParserBase {
  /** Op name → series index, in order of first appearance. */
  private readonly ops = new Map<string, number>();
  private readonly counter: SampleCounter;
  /** The op of the previous plain row, as bytes: rows come in blocks of one op. */
  private lastOp = new Uint8Array(64);
  private lastOpLength = 0;
  private lastOpIndex = -1;
  /** The plain row read last: where its op ends, its time and its latency. */
  private rowOpEnd = 0;
  private rowTime = 0;
  private rowLatency = 0;

  constructor(
    path: string,
    options: FormatOptions = {},
  ) {
    super(path);
    this.counter = new SampleCounter(options.rawSamples);
  }

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    if (text.length === 0 || text.trim().length === 0) return;
    const row = ROW.exec(text);
    if (row) {
      const [, op = '', timeText = '', latencyText = ''] = row;
      const time = parseNonNegativeInteger(timeText);
      const latency = parseNonNegativeInteger(latencyText);
      if (time === null || time > MAX_EPOCH_MS) return this.issues.skip(lineNo, `timestamp "${timeText}" is not a valid epoch ms value (up to year 2255)`, 'timestamp(ms)');
      if (latency === null) return this.issues.skip(lineNo, `latency "${latencyText}" is not a non-negative integer`, 'latency(us)');
      this.counter.add(this.opIndex(op), time, latency);
      return;
    }
    if (HEADER.test(text)) return;
    this.issues.skip(lineNo, `not a raw measurement line (expected "OP,timestamp_ms,latency_us"): "${text.slice(0, 80)}"`);
  }

  /**
   * The line as written by YCSB — `OP,<1–13 digits>,<1–15 digits>`, nothing else — read from its
   * bytes: millions of rows, and decoding each to a string for the regular expression costs
   * several times more. Anything else (white space, signs, long numbers, a header, garbage, other
   * UTF-8) takes the full rules of `line`.
   */
  lineBytes(bytes: Uint8Array, start: number, end: number, lineNo: number): void {
    this.lines = lineNo;
    if (this.plainRow(bytes, start, end) === end) this.addRow(bytes, start);
    else this.line(utf8.decode(bytes.subarray(start, end)), lineNo);
  }

  /**
   * Plain rows ending in LF, one after another in one loop: nearly every byte of a raw file is
   * read here, so the row is taken apart with locals only (`plainRow` is the same rule for a
   * line on its own), and the op is first compared with the previous row's, which it nearly
   * always is.
   */
  lineRun(bytes: Uint8Array, end: number, cursor: LineCursor): void {
    let at = cursor.at;
    let lineNo = cursor.lineNo;
    const counter = this.counter;
    while (at < end) {
      const known = this.lastOp;
      const knownLength = this.lastOpLength;
      let k = 0;
      while (k < knownLength && bytes[at + k] === known[k]) k++;
      const sameOp = knownLength > 0 && k === knownLength && at + k < end && bytes[at + k] === 44;
      let i = sameOp ? at + k : opEnd(bytes, at, end);
      if (i < 0) break;
      const timeStart = ++i;
      let time = 0;
      let c = 0;
      while (i < end && (c = bytes[i]!) >= 48 && c <= 57) {
        time = time * 10 + (c - 48);
        i++;
      }
      if (i === timeStart || i - timeStart > 13 || i >= end || c !== 44 || time > MAX_EPOCH_MS) break;
      const latencyStart = ++i;
      let latency = 0;
      while (i < end && (c = bytes[i]!) >= 48 && c <= 57) {
        latency = latency * 10 + (c - 48);
        i++;
      }
      if (i === latencyStart || i - latencyStart > 15 || i >= end || c !== 10) break;
      // A new op is named only once its row has proved plain: a broken row names no series.
      counter.add(sameOp ? this.lastOpIndex : this.opIndexOfBytes(bytes, at, timeStart - 1), time, latency);
      lineNo++;
      at = i + 1;
    }
    cursor.at = at;
    cursor.lineNo = lineNo;
    this.lines = lineNo;
  }

  /**
   * Reads a plain row from `start` (up to `limit`) into the row fields; returns where it stops,
   * or -1 when what is there is not a plain row so far.
   */
  private plainRow(bytes: Uint8Array, start: number, limit: number): number {
    let i = opEnd(bytes, start, limit);
    if (i < 0) return -1;
    this.rowOpEnd = i;
    let time = 0;
    const timeStart = ++i;
    for (let c = bytes[i]!; i < limit && c >= 48 && c <= 57; c = bytes[++i]!) time = time * 10 + (c - 48);
    if (i === timeStart || i - timeStart > 13 || i === limit || bytes[i] !== 44 || time > MAX_EPOCH_MS) return -1;
    const latencyStart = ++i;
    let latency = 0;
    for (let c = bytes[i]!; i < limit && c >= 48 && c <= 57; c = bytes[++i]!) latency = latency * 10 + (c - 48);
    if (i === latencyStart || i - latencyStart > 15) return -1;
    this.rowTime = time;
    this.rowLatency = latency;
    return i;
  }

  private addRow(bytes: Uint8Array, start: number): void {
    this.counter.add(this.opIndexOfBytes(bytes, start, this.rowOpEnd), this.rowTime, this.rowLatency);
  }

  private opIndexOfBytes(bytes: Uint8Array, start: number, end: number): number {
    const length = end - start;
    if (length === this.lastOpLength) {
      let same = true;
      for (let k = 0; k < length; k++) {
        if (bytes[start + k] !== this.lastOp[k]) {
          same = false;
          break;
        }
      }
      if (same) return this.lastOpIndex;
    }
    if (length > this.lastOp.length) this.lastOp = new Uint8Array(length);
    this.lastOp.set(bytes.subarray(start, end));
    this.lastOpLength = length;
    // ASCII only (checked by the caller), so char codes are the bytes.
    this.lastOpIndex = this.opIndex(String.fromCharCode(...bytes.subarray(start, end)));
    return this.lastOpIndex;
  }

  private opIndex(op: string): number {
    let index = this.ops.get(op);
    if (index === undefined) {
      index = this.ops.size;
      this.ops.set(op, index);
    }
    return index;
  }

  finish(): ParsedFile {
    const counted = this.counter.finish(this.ops.size);
    const series: RawSeries[] = [...this.ops.keys()].map((op, i) => ({ kind: 'raw', op, unit: 'us', ...counted[i]! }));
    if (series.length === 0) this.issues.note(0, 'no raw measurement rows found');
    return this.parsed('ycsb-raw', { series });
  }
}

/** Where the op of a plain row starting at `start` ends (its comma), or -1: a letter, then [\w-]*, then a comma. */
function opEnd(bytes: Uint8Array, start: number, limit: number): number {
  if (start >= limit) return -1;
  const first = bytes[start]!;
  if (!((first >= 65 && first <= 90) || (first >= 97 && first <= 122))) return -1;
  let i = start + 1;
  for (; i < limit; i++) {
    const c = bytes[i]!;
    // [\w-]: letters, digits, underscore, hyphen
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45)) break;
  }
  return i < limit && bytes[i] === 44 ? i : -1;
}

export const ycsbRawFormat: FormatModule = {
  id: 'ycsb-raw',
  label: 'YCSB raw measurements CSV',
  detect(head) {
    // Share of lines that fit: raw files hold nothing else, a document quoting one line is not one.
    const lines = head.split('\n', 200).filter((l) => l.trim().length > 0);
    if (lines.length === 0) return 0;
    const headers = lines.filter((l) => HEADER.test(l)).length;
    const isRow = (l: string) => /^[A-Za-z][\w-]*,\d{12,14},-?\d+\s*$/.test(l);
    const rows = lines.filter(isRow).length;
    const first = lines[0] ?? '';
    // YCSB never writes a row of column names. A CSV headed `op,timestamp,latency_ms` has rows of
    // this very shape, and read as raw its milliseconds would silently become microseconds.
    if (!HEADER.test(first) && !isRow(first) && genericCsvFormat.detect(first, '') > 0) return 0;
    const share = (headers + rows) / lines.length;
    if (share < 0.8) return 0;
    return headers > 0 ? 1 : 0.9;
  },
  createParser: (path, options) => new YcsbRawParser(path, options),
  // Every row names its operation: a part needs nothing before it.
  partPreamble: () => '',
  partSeries: (line) => /^([A-Za-z][\w-]*),\d/.exec(line)?.[1] ?? null,
};
