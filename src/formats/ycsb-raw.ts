import { parseNonNegativeInteger } from '../model/numbers.ts';
import type { ParsedFile, RawSeries } from '../model/types.ts';
import { IssueLog, type FormatModule, type LineParser } from './format.ts';
import { Float64Column } from './growable.ts';

/**
 * YCSB raw measurements (`measurementtype=raw`, `measurement.raw.output_file`): for each
 * measurement a header line `READ latency raw data: op, timestamp(ms), latency(us)` followed by
 * `READ,<epoch ms>,<latency µs>` lines. Blocks follow one another per measurement, not in time order.
 */

const HEADER = /^(\S+) latency raw data: op, timestamp\(ms\), latency\(us\)\s*$/;
const ROW = /^([A-Za-z][\w-]*),(\d+),(-?\d+)\s*$/;

class YcsbRawParser implements LineParser {
  private readonly issues: IssueLog;
  private readonly columns = new Map<string, { time: Float64Column; latency: Float64Column }>();
  private lines = 0;

  constructor(private readonly path: string) {
    this.issues = new IssueLog(path);
  }

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    if (text.length === 0 || text.trim().length === 0) return;
    const row = ROW.exec(text);
    if (row) {
      const [, op = '', timeText = '', latencyText = ''] = row;
      const time = parseNonNegativeInteger(timeText);
      const latency = parseNonNegativeInteger(latencyText);
      if (time === null) return this.issues.skip(lineNo, `timestamp "${timeText}" is not a valid epoch ms value`, 'timestamp(ms)');
      if (latency === null) return this.issues.skip(lineNo, `latency "${latencyText}" is not a non-negative integer`, 'latency(us)');
      let col = this.columns.get(op);
      if (!col) {
        col = { time: new Float64Column(), latency: new Float64Column() };
        this.columns.set(op, col);
      }
      col.time.push(time);
      col.latency.push(latency);
      return;
    }
    if (HEADER.test(text)) return;
    this.issues.skip(lineNo, `not a raw measurement line (expected "OP,timestamp_ms,latency_us"): "${text.slice(0, 80)}"`);
  }

  finish(): ParsedFile {
    const series: RawSeries[] = [...this.columns].map(([op, col]) => ({
      kind: 'raw',
      op,
      unit: 'us',
      timeMs: col.time.finish(),
      latency: col.latency.finish(),
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
    const rows = lines.filter((l) => /^[A-Za-z][\w-]*,\d{12,14},-?\d+\s*$/.test(l)).length;
    const share = (headers + rows) / lines.length;
    if (share < 0.8) return 0;
    return headers > 0 ? 1 : 0.9;
  },
  createParser: (path) => new YcsbRawParser(path),
};
