import { MAX_EPOCH_MS, parseNonNegativeInteger } from '../model/numbers.ts';
import type { ParsedFile, RawSeries } from '../model/types.ts';
import { IssueLog, type FormatModule, type LineParser } from './format.ts';
import { genericCsvFormat } from './generic-csv.ts';
import { SeriesRows } from './growable.ts';

/**
 * YCSB raw measurements (`measurementtype=raw`, `measurement.raw.output_file`): for each
 * measurement a header line `READ latency raw data: op, timestamp(ms), latency(us)` followed by
 * `READ,<epoch ms>,<latency µs>` lines. Blocks follow one another per measurement, not in time order.
 */

const HEADER = /^(\S+) latency raw data: op, timestamp\(ms\), latency\(us\)\s*$/;
const ROW = /^([A-Za-z][\w-]*),(\d+),(-?\d+)\s*$/;

class YcsbRawParser implements LineParser {
  private readonly issues: IssueLog;
  /** Op name → series index, in order of first appearance. */
  private readonly ops = new Map<string, number>();
  private readonly rows = new SeriesRows();
  private lines = 0;

  constructor(private readonly path: string) {
    this.issues = new IssueLog(path);
  }

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    if (this.plainRow(text)) return;
    if (text.length === 0 || text.trim().length === 0) return;
    const row = ROW.exec(text);
    if (row) {
      const [, op = '', timeText = '', latencyText = ''] = row;
      const time = parseNonNegativeInteger(timeText);
      const latency = parseNonNegativeInteger(latencyText);
      if (time === null || time > MAX_EPOCH_MS) return this.issues.skip(lineNo, `timestamp "${timeText}" is not a valid epoch ms value (up to year 2255)`, 'timestamp(ms)');
      if (latency === null) return this.issues.skip(lineNo, `latency "${latencyText}" is not a non-negative integer`, 'latency(us)');
      let index = this.ops.get(op);
      if (index === undefined) {
        index = this.ops.size;
        this.ops.set(op, index);
      }
      this.rows.push(index, time, latency);
      return;
    }
    if (HEADER.test(text)) return;
    this.issues.skip(lineNo, `not a raw measurement line (expected "OP,timestamp_ms,latency_us"): "${text.slice(0, 80)}"`);
  }

  /**
   * The line as written by YCSB — `OP,<1–13 digits>,<1–15 digits>`, nothing else — read by char
   * codes: millions of rows, and the regular expression path costs several times more. Anything
   * else (white space, signs, long numbers, a header, garbage) returns false for the full rules.
   */
  private plainRow(text: string): boolean {
    const comma = text.indexOf(',');
    if (comma < 1) return false;
    const first = text.charCodeAt(0);
    if (!((first >= 65 && first <= 90) || (first >= 97 && first <= 122))) return false;
    for (let i = 1; i < comma; i++) {
      const c = text.charCodeAt(i);
      // [\w-]: letters, digits, underscore, hyphen
      if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45)) return false;
    }
    let i = comma + 1;
    let time = 0;
    const timeStart = i;
    for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) time = time * 10 + (c - 48);
    if (i === timeStart || i - timeStart > 13 || text.charCodeAt(i) !== 44 || time > MAX_EPOCH_MS) return false;
    const latencyStart = ++i;
    let latency = 0;
    for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) latency = latency * 10 + (c - 48);
    if (i === latencyStart || i - latencyStart > 15 || i !== text.length) return false;
    const op = text.slice(0, comma);
    let index = this.ops.get(op);
    if (index === undefined) {
      index = this.ops.size;
      this.ops.set(op, index);
    }
    this.rows.push(index, time, latency);
    return true;
  }

  finish(): ParsedFile {
    const columns = this.rows.split(this.ops.size);
    const series: RawSeries[] = [...this.ops.keys()].map((op, i) => ({
      kind: 'raw',
      op,
      unit: 'us',
      timeMs: columns[i]!.time,
      latency: columns[i]!.value,
    }));
    if (series.length === 0) this.issues.note(0, 'no raw measurement rows found');
    return {
      path: this.path,
      format: 'ycsb-raw',
      series,
      errors: this.issues.errors,
      skippedLines: this.issues.skippedLines,
      lines: this.lines,
    };
  }
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
  createParser: (path) => new YcsbRawParser(path),
};
