import Papa from 'papaparse';
import { MAX_EPOCH_MS, parseScaledDecimal } from '../model/numbers.ts';
import type { LatencyUnit, ParsedFile, RawSeries } from '../model/types.ts';
import { IssueLog, type FormatModule, type FormatOptions, type LineParser } from './format.ts';
import { SampleCounter } from './sample-counter.ts';

/**
 * Any per-operation CSV with a header row (JMeter's JTL CSV, custom load generators): columns for
 * time, latency, operation, status and client are recognised by their header names, and can be
 * named explicitly. Latencies become integer µs (ns stays ns) so percentiles remain exact; failed
 * operations go to `<OP>-FAILED` series as YCSB reports them.
 */

type Role = 'time' | 'latency' | 'op' | 'status' | 'client';

const ROLE_PATTERNS: Record<Role, RegExp> = {
  time: /^(timestamp|timeStamp|time|ts|epoch|start|start_?time|end|end_?time|date_?time|datetime|date)([\s_(].*)?$/i,
  latency: /^(latency|lat|elapsed|duration|response_?time|rt|took|service_?time)([\s_(].*)?$/i,
  op: /^(op|operation|label|type|method|request|query|name|command)$/i,
  status: /^(success|ok|status|result|error|failed|response_?code|code|outcome)$/i,
  client: /^(client|host|hostname|loader|worker|instance|node)$/i,
};

const UNIT_SUFFIX = /(?:[_\s([]|^)(ns|us|µs|μs|ms|s|sec|secs|seconds|millis|micros|nanos)[)\]]?$/i;

function unitFromHeader(header: string): LatencyUnit | null {
  const m = UNIT_SUFFIX.exec(header.trim());
  if (!m) return /^elapsed$/i.test(header.trim()) ? 'ms' : null; // JMeter's elapsed is ms
  const u = (m[1] ?? '').toLowerCase();
  if (u === 'ns' || u === 'nanos') return 'ns';
  if (u === 'us' || u === 'µs' || u === 'μs' || u === 'micros') return 'us';
  if (u === 'ms' || u === 'millis') return 'ms';
  return 's';
}

/** Latency text in `unit` → integer in the stored unit (µs, or ns for ns input); null if not exact. */
function toStoredLatency(text: string, unit: LatencyUnit): number | null {
  switch (unit) {
    case 'ns':
      return parseScaledDecimal(text, 0);
    case 'us':
      return parseScaledDecimal(text, 0);
    case 'ms':
      return parseScaledDecimal(text, 3);
    case 's':
      return parseScaledDecimal(text, 6);
  }
}

/**
 * A plain decimal (`123.45`) times 10^shift, as the double nearest the exact result: the point is
 * moved in the text, so `1795255808.123` s is exactly 1795255808123 ms (multiplying the parsed
 * double by 1000 is not) and ns keep every digit that fits.
 */
function shiftDecimal(text: string, shift: number): number {
  const dot = text.indexOf('.');
  const int = dot < 0 ? text : text.slice(0, dot);
  const digits = int + (dot < 0 ? '' : text.slice(dot + 1));
  const point = int.length + shift;
  if (point <= 0) return Number(`0.${'0'.repeat(-point)}${digits}`);
  if (point >= digits.length) return Number(digits.padEnd(point, '0'));
  return Number(`${digits.slice(0, point)}.${digits.slice(point)}`);
}

/** Epoch number or ISO-8601 text → epoch ms. Magnitude tells seconds from ms/µs/ns. */
export function parseTimestampMs(text: string): number | null {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) {
    const intDigits = t.split('.')[0]?.length ?? 0;
    const v = Number(t);
    // 18+ integer digits: ns (now ≈ 1.8e18); they exceed 2^53, so the magnitude is read from the text.
    const ms = intDigits >= 18 ? shiftDecimal(t, -6) : v < 1e11 ? shiftDecimal(t, 3) : v < 1e14 ? v : shiftDecimal(t, -3);
    return ms <= MAX_EPOCH_MS ? ms : null;
  }
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(t)) {
    const ms = Date.parse(t.includes('T') ? t : t.replace(' ', 'T'));
    return Number.isFinite(ms) && Math.abs(ms) <= MAX_EPOCH_MS ? ms : null;
  }
  return null;
}

function isFailure(value: string, header: string): boolean {
  const v = value.trim().toLowerCase();
  if (/^(error|failed|failure)$/i.test(header)) return v !== '' && v !== '0' && v !== 'false' && v !== 'none';
  if (/^(success|ok)$/i.test(header)) return !(v === 'true' || v === '1' || v === 'ok' || v === 'yes');
  if (/^\d{3}$/.test(v)) return Number(v) >= 400; // HTTP-style codes
  return !(v === 'ok' || v === 'success' || v === 'true' || v === '0' || v === '');
}

class GenericCsvParser implements LineParser {
  private readonly issues: IssueLog;
  private delimiter = ',';
  private header: string[] | null = null;
  private index: Partial<Record<Role, number>> = {};
  private latencyUnit: LatencyUnit = 'ms';
  private storedUnit: LatencyUnit = 'us';
  /** client + op → series index, in order of first appearance. */
  private readonly seriesIndex = new Map<string, number>();
  private readonly seriesKeys: { client?: string; op: string }[] = [];
  private readonly counter = new SampleCounter();
  private lines = 0;

  constructor(
    private readonly path: string,
    private readonly options: FormatOptions = {},
  ) {
    this.issues = new IssueLog(path);
  }

  private split(line: string): string[] {
    if (!line.includes('"')) return line.split(this.delimiter);
    const parsed = Papa.parse<string[]>(line, { delimiter: this.delimiter });
    return parsed.data[0] ?? [];
  }

  private readHeader(line: string, lineNo: number): void {
    this.delimiter = Papa.parse(line, { preview: 1 }).meta.delimiter || ',';
    this.header = this.split(line).map((h) => h.trim());
    for (const role of Object.keys(ROLE_PATTERNS) as Role[]) {
      const wanted = this.options.columns?.[role];
      const i = wanted !== undefined ? this.header.indexOf(wanted) : this.header.findIndex((h) => ROLE_PATTERNS[role].test(h));
      if (i >= 0) this.index[role] = i;
      else if (wanted !== undefined) this.issues.note(lineNo, `column "${wanted}" given for ${role} is not in the header`);
    }
    const latencyHeader = this.index.latency !== undefined ? this.header[this.index.latency] : undefined;
    this.latencyUnit = this.options.latencyUnit ?? (latencyHeader ? unitFromHeader(latencyHeader) : null) ?? 'ms';
    this.storedUnit = this.latencyUnit === 'ns' ? 'ns' : 'us';
    if (this.index.latency === undefined) this.issues.note(lineNo, 'no latency column recognised in the header; name it explicitly');
  }

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    if (text.trim().length === 0) return;
    if (!this.header) return this.readHeader(text, lineNo);
    const latencyIndex = this.index.latency;
    if (latencyIndex === undefined) return void this.issues.skippedLines++;
    const fields = this.split(text);
    const latencyText = fields[latencyIndex];
    if (latencyText === undefined) return this.issues.skip(lineNo, `row has ${fields.length} fields, the latency column is #${latencyIndex + 1}`);
    const latency = toStoredLatency(latencyText, this.latencyUnit);
    if (latency === null || latency < 0) {
      return this.issues.skip(lineNo, `latency "${latencyText.slice(0, 40)}" is not a non-negative ${this.latencyUnit} value representable exactly in ${this.storedUnit}`, this.header[latencyIndex]);
    }
    let timeMs = Number.NaN;
    if (this.index.time !== undefined) {
      const t = parseTimestampMs(fields[this.index.time] ?? '');
      if (t === null) return this.issues.skip(lineNo, `timestamp "${(fields[this.index.time] ?? '').slice(0, 40)}" is not epoch s/ms/µs/ns or ISO-8601 (up to year 2255)`, this.header[this.index.time]);
      timeMs = t;
    }
    let op = this.index.op !== undefined ? (fields[this.index.op] ?? '').trim() || 'OP' : 'OP';
    if (this.index.status !== undefined && isFailure(fields[this.index.status] ?? '', this.header[this.index.status] ?? '')) op += '-FAILED';
    const client = this.index.client !== undefined ? (fields[this.index.client] ?? '').trim() || undefined : undefined;
    const key = `${client ?? ''}\u0000${op}`;
    let index = this.seriesIndex.get(key);
    if (index === undefined) {
      index = this.seriesKeys.length;
      this.seriesIndex.set(key, index);
      this.seriesKeys.push(client !== undefined ? { op, client } : { op });
    }
    this.counter.add(index, timeMs, latency);
  }

  finish(): ParsedFile {
    const counted = this.counter.finish(this.seriesKeys.length);
    const series: RawSeries[] = this.seriesKeys.map((c, i) => ({
      kind: 'raw',
      op: c.op,
      unit: this.storedUnit,
      ...counted[i]!,
      ...(c.client !== undefined ? { client: c.client } : {}),
    }));
    if (series.length === 0 && this.header) this.issues.note(0, 'no rows with a latency found');
    return {
      path: this.path,
      format: 'generic-csv',
      series,
      errors: this.issues.errors,
      skippedLines: this.issues.skippedLines,
      lines: this.lines,
    };
  }
}

export const genericCsvFormat: FormatModule = {
  id: 'generic-csv',
  label: 'Per-operation CSV (generic)',
  detect(head) {
    const firstLine = head.split('\n', 1)[0] ?? '';
    const meta = Papa.parse<string[]>(firstLine, { preview: 1 });
    const header = (meta.data[0] ?? []).map((h) => h.trim());
    if (header.length < 2) return 0;
    const hasLatency = header.some((h) => ROLE_PATTERNS.latency.test(h));
    if (!hasLatency) return 0;
    return header.some((h) => ROLE_PATTERNS.time.test(h) || ROLE_PATTERNS.op.test(h)) ? 0.7 : 0.5;
  },
  createParser: (path, options) => new GenericCsvParser(path, options),
};
