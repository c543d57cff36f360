import { includingFailuresOf } from '../model/naming.ts';
import type { LatencySeries, ParsedFile, ProducerInfo, RawSeries, PrintedSeries } from '../model/types.ts';
import { parseTimestampMs } from './csv-columns.ts';
import { firstLine, type FormatModule, type FormatOptions, LineParserBase } from './format.ts';
import { isObject, parseJson } from './json-values.ts';
import { outcomeSeries } from './outcomes.ts';
import { QuotedLines, splitRecord } from './quoted-records.ts';
import { SampleCounter } from './sample-counter.ts';
import { FailureTally } from '../model/failures.ts';
import { MAX_EPOCH_MS, parseScaledDecimal } from '../model/numbers.ts';
import { ByteKeyed, bytesEqual, digitsValue, readLineBytes, readLineRun, RowFields, textOf, type PlainRowParser } from './byte-fields.ts';
import type { LineCursor } from './text-input.ts';

/**
 * k6's outputs (grafana/k6): `--out csv`, `--out json` and the end-of-test summary as JSON
 * (`--summary-export`, or `handleSummary` returning `JSON.stringify(data)`). One file is one k6
 * instance: several instances are several clients.
 *
 * Which samples are operations. k6 emits one sample per metric per event: a request gives
 * `http_req_duration` and its parts (`http_req_blocked`, `_connecting`, `_tls_handshaking`,
 * `_sending`, `_waiting`, `_receiving`), counters (`http_reqs`, `data_sent`, …), rates
 * (`http_req_failed`, `checks`) and gauges (`vus`). Only the whole request is an operation:
 * `http_req_duration`, `grpc_req_duration` (a unary gRPC call) and `ws_session_duration` (a
 * WebSocket session). The parts are not operations — counting them would count each request seven
 * times — and the counters, rates and gauges are not latencies; all of those are passed over, not
 * reported as errors. One part is kept as a view of its own: `http_req_waiting`, the time to first
 * byte, becomes `<operation> (first byte)` for the successful requests (as JMeter's Latency does),
 * a derived series that is shown but never counted as throughput again. Scripts with no protocol requests (a k6 extension talking to a database,
 * timing its calls in a custom `Trend('…', true)`) would have nothing then, so when a file has no
 * request samples at all, its custom time trends are the operations (their type is known from the
 * JSON output's `Metric` lines and the summary's `contains: "time"`; the CSV does not say it), and
 * failing those, `iteration_duration` (one iteration of the script).
 *
 * - Operation: the request's `name` tag (k6 sets it to the URL unless the script names the request);
 *   when it is the URL, `METHOD URL`, so that a GET and a POST to one URL stay apart. A failed request
 *   — `expected_response=false` (k6 ≥ 0.31: outside the script's expected statuses, 200–399 by
 *   default), or without that tag an HTTP status of 0 or ≥ 400, a gRPC status other than 0 (OK), a
 *   WebSocket handshake other than 101, or any `error_code` — is `<operation>-FAILED`, tallied by
 *   its `status` and `error_code` tags as written (src/model/failures.ts).
 * - Values: `metric_value` / `value` is ms (k6 converts each time.Duration to float ms), written with
 *   `%f` (six decimals) in the CSV and as Go's shortest float in the JSON; six decimals of ms are whole
 *   ns, so samples are kept exactly in ns.
 * - Time: the CSV `timestamp` is Unix seconds by default, `K6_CSV_TIME_FORMAT=unix_milli` ms,
 *   `rfc3339_nano` RFC 3339; the JSON `time` is RFC 3339 with ns. Read by magnitude or form.
 * - CSV columns differ by version (`expected_response` from 0.31, `service` later, `metadata` from
 *   0.47): they are found by name in the header, which may appear again (outputs appended).
 * - The summary: each request metric's trend stats (`avg`, `min`, `med`, `max`, `p(N)`, and `count`
 *   when `summaryTrendStats` asks for it) are a whole-run summary (bounds only across clients, in ms
 *   as printed). Its successful requests are the `{expected_response:true}` sub-metric k6 ≥ 0.31
 *   adds; failed ones = `http_reqs` − those (or `http_req_failed`'s passes: a rate counts its non-zero
 *   samples as passes, grafana/k6#2386). The metric's own stats cover failed requests too: with
 *   failures they are `<metric> (including failures)` (shown, never counted again), and the operation
 *   carries the sub-metric's stats, or its count only when there is no sub-metric.
 *   k6 interpolates between samples for its percentiles; they are its own figures.
 */

type Tier = 1 | 2 | 3;
type Protocol = 'http' | 'grpc' | 'ws';

const REQUEST_METRICS: Record<string, Protocol> = { http_req_duration: 'http', grpc_req_duration: 'grpc', ws_session_duration: 'ws' };
/** Counters of the requests each request metric times, for a summary without `count`. */
const REQUEST_COUNTERS: Record<Protocol, string> = { http: 'http_reqs', grpc: 'grpc_reqs', ws: 'ws_sessions' };
const ITERATION = 'iteration_duration';
/** Time to first byte of an HTTP request (k6's `http_req_waiting`). */
const WAITING = 'http_req_waiting';
const FIRST_BYTE = ' (first byte)';
/** k6's own trends that are parts of something else, never operations of their own. */
const BUILTIN_TRENDS = new Set([
  'http_req_blocked',
  'http_req_connecting',
  'http_req_tls_handshaking',
  'http_req_sending',
  'http_req_waiting',
  'http_req_receiving',
  'group_duration',
  'ws_connecting',
  'ws_ping',
]);
/** A summary is tens of KB; a document larger than this is not one and is not kept. */
const MAX_DOCUMENT_CHARS = 32 * 1024 * 1024;

type Mode = 'csv' | 'ndjson' | 'summary-line' | 'summary-document';

interface Tags {
  name: string;
  method: string;
  url: string;
  status: string;
  expected: string;
  errorCode: string;
}

interface Columns {
  delimiter: string;
  metric: number;
  time: number;
  value: number;
  name: number;
  method: number;
  url: number;
  status: number;
  expected: number;
  errorCode: number;
  width: number;
}

/** Which operation a sample belongs to, or null when it is not one. */
function classify(metric: string, customTimeTrends: ReadonlySet<string>): Tier | null {
  if (metric in REQUEST_METRICS || metric === WAITING) return 1;
  if (customTimeTrends.has(metric)) return 2;
  return metric === ITERATION ? 3 : null;
}

function operation(metric: string, tier: Tier, tags: Tags): { op: string; failed: boolean } {
  if (tier !== 1) return { op: metric, failed: false };
  const protocol = REQUEST_METRICS[metric] ?? 'http';
  let op: string;
  if (protocol === 'grpc') op = tags.name || tags.url || metric;
  else if (tags.name && tags.name !== tags.url) op = tags.name;
  else op = protocol === 'http' ? `${tags.method} ${tags.url}`.trim() || metric : tags.url || metric;
  let failed: boolean;
  if (tags.expected === 'true' || tags.expected === 'false') failed = tags.expected === 'false';
  else if (tags.errorCode !== '') failed = true;
  else if (tags.status === '') failed = false;
  else if (protocol === 'http') failed = !(Number(tags.status) > 0 && Number(tags.status) < 400);
  else failed = tags.status !== (protocol === 'grpc' ? '0' : '101');
  return { op, failed };
}

/** A k6 value in ms (decimal text) → integer ns, or null when it is not exactly whole ns. */
function millisToNanos(text: string): number | null {
  return parseScaledDecimal(text, 6);
}

/** A JSON number as the shortest decimal that reads back as it (what Go wrote), without an exponent. */
function plainDecimal(v: number): string | null {
  const s = String(v);
  if (!/e/i.test(s)) return s;
  // Only tiny values print with an exponent here (k6 writes no value ≥ 1e21 ms); they are not whole ns unless 0.
  return v === 0 ? '0' : null;
}

/** A request name's series as plain rows reach them, made when first needed (-1 before). */
interface NameSeries {
  name: string;
  ok: number;
  failed: number;
  firstByte: number;
}

/** The metrics of the rows read from bytes: a request's whole time, its time to first byte, an iteration's. */
const PLAIN_METRICS = ['http_req_duration', WAITING, ITERATION] as const;

class K6Parser extends LineParserBase implements PlainRowParser {
  private mode: Mode | null = null;
  private columns: Columns | null = null;
  private readonly customTimeTrends = new Set<string>();
  /** tier|op|failed → series index. */
  private readonly seriesIndex = new Map<string, number>();
  private readonly seriesKeys: { tier: Tier; op: string }[] = [];
  private readonly counter: SampleCounter;
  private readonly failures = new FailureTally();
  /** CSV records whose quoted fields span lines, joined. */
  private readonly quoted: QuotedLines;
  private document: { text: string; line: number; lines: number; overflow: boolean } | null = null;
  private summary: { value: Record<string, unknown>; line: number } | null = null;
  /** A plain row's fields, room for the header's. */
  private fields = new RowFields(44, 0);
  private readonly names = new ByteKeyed<NameSeries>();
  /** Metric names of rows that are no operation's, by their bytes. */
  private readonly passedOver = new ByteKeyed<boolean>();
  // Made once, not per row: a closure made for every one of a million rows was garbage to collect.
  private readonly isPassedOver = (name: string): boolean => name === name.trim() && classify(name, this.customTimeTrends) === null;
  private iterationIndex = -1;
  /** Why the file must be read whole, when a part of it shows one (see ParsedFile.partUnsafe). */
  private partUnsafe: string | null = null;

  constructor(path: string, options: FormatOptions = {}) {
    super(path);
    this.counter = new SampleCounter(options.rawSamples);
    this.quoted = new QuotedLines(this.issues, (text, lineNo) => this.csvRecord(text, lineNo));
  }

  line(raw: string, lineNo: number): void {
    this.lines = lineNo;
    // A BOM can also open a second output appended to the first.
    const text = raw.replace(/^\uFEFF/, '');
    if (this.quoted.open) return this.quoted.line(text, lineNo);
    const t = text.trim();
    if (t.length === 0) return;
    this.mode ??= this.decide(t);
    switch (this.mode) {
      case 'csv':
        this.quoted.line(text, lineNo);
        // A part of the file that starts inside such a record would read its rest as rows.
        if (this.quoted.open) this.partUnsafe ??= 'a quoted field holds a line end';
        return;
      case 'ndjson':
        return this.jsonLine(t, lineNo);
      case 'summary-line':
        return this.summaryLine(t, lineNo);
      case 'summary-document':
        return this.documentLine(text, lineNo);
    }
  }

  /**
   * A CSV row as k6 writes nearly all of them — no quote, no space around a field, every column —
   * read from its bytes: most rows are of metrics that are not operations and are passed over
   * once their name is seen; an HTTP request's time, time to first byte, or an iteration's, with
   * plain numbers and `expected_response` true or false, is counted. Any other line takes the
   * rules of `line`.
   */
  lineBytes(bytes: Uint8Array, start: number, end: number, lineNo: number): void {
    readLineBytes(this, bytes, start, end, lineNo);
  }

  /** Rows one after another, each split and read (or passed over) in one pass over its bytes. */
  lineRun(bytes: Uint8Array, end: number, cursor: LineCursor): void {
    readLineRun(this, bytes, end, cursor);
  }

  /** Comma-separated CSV after its header, outside a record spanning lines. */
  plainFields(): RowFields | null {
    const c = this.columns;
    if (this.mode !== 'csv' || c === null || c.delimiter !== ',' || this.quoted.open) return null;
    if (this.fields.room !== c.width) this.fields = new RowFields(44, c.width);
    return this.fields;
  }

  plainRowRead(lineNo: number): void {
    this.lines = lineNo;
  }

  /** Reads the plain row just split into `fields` (see lineBytes); false, having read nothing, for any other. */
  plainRow(bytes: Uint8Array): boolean {
    const c = this.columns!;
    const b = this.fields.bounds;
    const fields = this.fields.count;
    const start = b[0]!;
    const end = b[2 * fields - 1]!;
    if (c.metric < 0 || c.name < 0 || c.url < 0 || c.expected < 0 || fields <= c.metric || !plainEdges(bytes, start, end) || bytesEqual(bytes, start, Math.min(end, start + 11), 'metric_name')) return false;
    const m0 = b[2 * c.metric]!;
    const m1 = b[2 * c.metric + 1]!;
    let metric = PLAIN_METRICS.length - 1;
    while (metric >= 0 && !bytesEqual(bytes, m0, m1, PLAIN_METRICS[metric]!)) metric--;
    // Not an operation (CSV output names no custom time trend), passed over as `line` does.
    if (metric < 0) return this.passedOver.get(bytes, m0, m1, this.isPassedOver);
    if (fields !== c.width) return false;
    const ns = millisBytesToNanos(bytes, b[2 * c.value]!, b[2 * c.value + 1]!);
    const time = digitsValue(bytes, b[2 * c.time]!, b[2 * c.time + 1]!, 13);
    const digits = b[2 * c.time + 1]! - b[2 * c.time]!;
    // Unix seconds (up to 10 digits) or ms (12–13), as parseTimestampMs tells them.
    const timeMs = digits <= 10 ? time * 1000 : digits >= 12 && time >= 1e11 ? time : -1;
    if (ns < 0 || time < 0 || timeMs < 0 || timeMs > MAX_EPOCH_MS) return false;
    if (PLAIN_METRICS[metric] === ITERATION) {
      if (this.iterationIndex < 0) this.iterationIndex = this.seriesFor(3, ITERATION);
      this.counter.add(this.iterationIndex, timeMs, ns);
      return true;
    }
    const n0 = b[2 * c.name]!;
    const n1 = b[2 * c.name + 1]!;
    const u0 = b[2 * c.url]!;
    const u1 = b[2 * c.url + 1]!;
    const e0 = b[2 * c.expected]!;
    const e1 = b[2 * c.expected + 1]!;
    // The name tag as the operation: there, other than the URL, with nothing to trim.
    if (n1 === n0 || !plainEdges(bytes, n0, n1) || !plainEdges(bytes, u0, u1) || (n1 - n0 === u1 - u0 && bytesEqual(bytes, n0, n1, textOf(bytes, u0, u1)))) return false;
    const failed = bytesEqual(bytes, e0, e1, 'false');
    if (!failed && !bytesEqual(bytes, e0, e1, 'true')) return false;
    const s = this.names.get(bytes, n0, n1, newNameSeries);
    let index: number;
    if (PLAIN_METRICS[metric] === WAITING) {
      if (failed) return true;
      index = s.firstByte < 0 ? (s.firstByte = this.seriesFor(1, `${s.name}${FIRST_BYTE}`)) : s.firstByte;
    } else if (failed) {
      this.failures.add(s.name, c.status >= 0 ? textOf(bytes, b[2 * c.status]!, b[2 * c.status + 1]!).trim() : '', c.errorCode >= 0 ? textOf(bytes, b[2 * c.errorCode]!, b[2 * c.errorCode + 1]!).trim() : '');
      index = s.failed < 0 ? (s.failed = this.seriesFor(1, `${s.name}-FAILED`)) : s.failed;
    } else index = s.ok < 0 ? (s.ok = this.seriesFor(1, s.name)) : s.ok;
    this.counter.add(index, timeMs, ns);
    return true;
  }

  private decide(t: string): Mode {
    if (!t.startsWith('{')) return 'csv';
    const value = parseJson(t);
    if (value === undefined) return 'summary-document';
    return isObject(value) && isObject(value.metrics) ? 'summary-line' : 'ndjson';
  }

  // ---- CSV ---------------------------------------------------------------------------------

  private csvRecord(text: string, lineNo: number): void {
    const t = text.trim();
    if (/^"?metric_name"?[,;\t|]/.test(t)) return this.header(t, lineNo);
    const c = this.columns;
    if (!c) return this.issues.skip(lineNo, 'a row before the header (metric_name,timestamp,metric_value,…)');
    const fields = splitRecord(t, c.delimiter);
    if (fields === null) return this.issues.skip(lineNo, 'a quoted field is not closed');
    const metric = (fields[c.metric] ?? '').trim();
    const tier = classify(metric, this.customTimeTrends);
    // Counters, rates, gauges and the parts of a request are not operations (see the header comment).
    if (tier === null) return;
    // k6 writes every column on every row: a shorter or longer row is damaged, its tags unknown.
    if (fields.length !== c.width) return this.issues.skip(lineNo, `row has ${fields.length} fields, the header ${c.width}`);
    const valueText = (fields[c.value] ?? '').trim();
    const ns = millisToNanos(c.delimiter === ',' ? valueText : valueText.replace(',', '.'));
    if (ns === null || ns < 0) return this.issues.skip(lineNo, `${metric} value "${valueText.slice(0, 40)}" is not a non-negative number of ms with at most 6 decimals`, 'metric_value');
    const timeText = (fields[c.time] ?? '').trim();
    const timeMs = parseTimestampMs(timeText);
    if (timeMs === null) return this.issues.skip(lineNo, `timestamp "${timeText.slice(0, 40)}" is not Unix s/ms or RFC 3339`, 'timestamp');
    const cell = (i: number) => (i >= 0 ? (fields[i] ?? '').trim() : '');
    const tags: Tags = { name: cell(c.name), method: cell(c.method), url: cell(c.url), status: cell(c.status), expected: cell(c.expected), errorCode: cell(c.errorCode) };
    this.add(metric, tier, tags, timeMs, ns);
  }

  private header(t: string, lineNo: number): void {
    const delimiter = [',', ';', '\t', '|'].find((d) => t.startsWith(`metric_name${d}`) || t.startsWith(`"metric_name"${d}`)) ?? ',';
    const names = (splitRecord(t, delimiter) ?? []).map((h) => h.trim());
    const at = (name: string) => names.indexOf(name);
    if (at('timestamp') < 0 || at('metric_value') < 0) {
      return this.issues.skip(lineNo, 'a k6 CSV header without timestamp and metric_value columns');
    }
    if (this.columns) this.issues.note(lineNo, 'a second k6 CSV header: another output was appended here; its rows are read too');
    // Its columns may differ from the first header's, which a part after it would read by.
    if (lineNo > 1) this.partUnsafe ??= 'a second CSV header';
    this.columns = {
      delimiter,
      metric: at('metric_name'),
      time: at('timestamp'),
      value: at('metric_value'),
      name: at('name'),
      method: at('method'),
      url: at('url'),
      status: at('status'),
      expected: at('expected_response'),
      errorCode: at('error_code'),
      width: names.length,
    };
  }

  // ---- JSON lines --------------------------------------------------------------------------

  private jsonLine(t: string, lineNo: number): void {
    const value = parseJson(t);
    if (!isObject(value) || typeof value.type !== 'string') return this.issues.skip(lineNo, `not a k6 JSON output line (cut short?): "${t.slice(0, 80)}"`);
    const data = isObject(value.data) ? value.data : null;
    const metric = typeof value.metric === 'string' ? value.metric : typeof data?.name === 'string' ? data.name : '';
    if (value.type === 'Metric') {
      if (data?.type === 'trend' && data.contains === 'time' && !BUILTIN_TRENDS.has(metric) && !(metric in REQUEST_METRICS) && metric !== ITERATION) this.customTimeTrends.add(metric);
      return;
    }
    if (value.type !== 'Point') return;
    const tier = classify(metric, this.customTimeTrends);
    if (tier === null) return;
    if (!data) return this.issues.skip(lineNo, `a ${metric} point without data`);
    const ns = typeof data.value === 'number' ? millisToNanos(plainDecimal(data.value) ?? '') : null;
    if (ns === null || ns < 0) return this.issues.skip(lineNo, `${metric} value ${String(data.value).slice(0, 40)} is not a non-negative number of ms with at most 6 decimals`, 'value');
    const timeMs = typeof data.time === 'string' ? parseTimestampMs(data.time) : null;
    if (timeMs === null) return this.issues.skip(lineNo, `${metric} point time is not an RFC 3339 time`, 'time');
    const tags = isObject(data.tags) ? data.tags : {};
    const tag = (k: string) => (typeof tags[k] === 'string' ? tags[k] : typeof tags[k] === 'number' ? String(tags[k]) : '');
    this.add(metric, tier, { name: tag('name'), method: tag('method'), url: tag('url'), status: tag('status'), expected: tag('expected_response'), errorCode: tag('error_code') }, timeMs, ns);
  }

  private add(metric: string, tier: Tier, tags: Tags, timeMs: number, ns: number): void {
    const { op, failed } = operation(metric, tier, tags);
    if (metric === WAITING && failed) return;
    const name = metric === WAITING ? `${op}${FIRST_BYTE}` : failed ? `${op}-FAILED` : op;
    if (failed && metric !== WAITING) this.failures.add(op, tags.status, tags.errorCode);
    this.counter.add(this.seriesFor(tier, name), timeMs, ns);
  }

  private seriesFor(tier: Tier, name: string): number {
    const key = `${tier}\u0000${name}`;
    let index = this.seriesIndex.get(key);
    if (index === undefined) {
      index = this.seriesKeys.length;
      this.seriesIndex.set(key, index);
      this.seriesKeys.push({ tier, op: name });
    }
    return index;
  }

  // ---- the summary -------------------------------------------------------------------------

  private summaryLine(t: string, lineNo: number): void {
    if (this.summary) return this.issues.skip(lineNo, 'text after the k6 summary document');
    const value = parseJson(t);
    if (isObject(value) && isObject(value.metrics)) this.summary = { value, line: lineNo };
  }

  private documentLine(text: string, lineNo: number): void {
    const doc = (this.document ??= { text: '', line: lineNo, lines: 0, overflow: false });
    doc.lines++;
    if (doc.overflow) return;
    doc.text += `${text}\n`;
    if (doc.text.length > MAX_DOCUMENT_CHARS) {
      doc.overflow = true;
      doc.text = '';
    }
  }

  private finishDocument(doc: NonNullable<K6Parser['document']>): void {
    const value = doc.overflow ? undefined : parseJson(doc.text);
    if (isObject(value) && isObject(value.metrics)) {
      this.summary = { value, line: doc.line };
      return;
    }
    // Said of the file, one message whatever the damage: a document cut short is damaged as a whole,
    // and a copy cut anywhere reports the same. Every line of it goes unread.
    this.issues.note(
      0,
      doc.overflow
        ? `the JSON document from line ${doc.line} on is over ${MAX_DOCUMENT_CHARS} characters: not a k6 summary`
        : `the JSON document from line ${doc.line} on is not a complete k6 summary (cut short or damaged)`,
    );
    this.issues.skippedLines += doc.lines;
  }

  private summarySeries(summary: Record<string, unknown>, line: number): PrintedSeries[] {
    const metrics = summary.metrics as Record<string, unknown>;
    const values = (name: string): Record<string, unknown> | null => {
      const m = metrics[name];
      if (!isObject(m)) return null;
      return isObject(m.values) ? m.values : m;
    };
    const number = (v: Record<string, unknown> | null, key: string): number | null => {
      const x = v?.[key];
      return typeof x === 'number' && Number.isFinite(x) ? x : null;
    };
    const out: PrintedSeries[] = [];
    const requestMetrics = Object.keys(REQUEST_METRICS).filter((m) => values(m) !== null);
    for (const metric of requestMetrics) {
      const protocol = REQUEST_METRICS[metric] as Protocol;
      const all = values(metric);
      const total = number(all, 'count') ?? number(values(REQUEST_COUNTERS[protocol]), 'count');
      const ok = values(`${metric}{expected_response:true}`);
      // A rate counts its non-zero samples as passes: http_req_failed's passes are the failed requests.
      const failedByRate = protocol === 'http' ? number(values('http_req_failed'), 'passes') : null;
      if (total === null || !Number.isSafeInteger(total)) {
        this.issues.note(line, `the summary gives no count for ${metric} (add "count" to summaryTrendStats); it is not used`);
        continue;
      }
      if (ok) {
        const okCount = number(ok, 'count') ?? (failedByRate !== null ? total - failedByRate : null);
        if (okCount === null || !Number.isSafeInteger(okCount) || okCount < 0 || okCount > total) {
          this.issues.note(line, `the summary's counts of ${metric} do not add up; it is not used`);
          continue;
        }
        out.push(trendSummary(metric, okCount, ok));
        if (total > okCount) {
          // The metric's own stats are of every request, failed ones included: all requests, shown beside.
          out.push(trendSummary(`${metric}-FAILED`, total - okCount, null), trendSummary(includingFailuresOf(metric), total, all));
        }
        continue;
      }
      const failed = failedByRate ?? 0;
      if (!Number.isSafeInteger(failed) || failed < 0 || failed > total) {
        this.issues.note(line, `the summary's counts of ${metric} do not add up; it is not used`);
        continue;
      }
      // Without the {expected_response:true} sub-metric the stats are of all requests, failed ones included.
      out.push(...outcomeSeries(metric, { ok: total - failed, failed }, { unit: 'ms', scope: 'run' }, (name, n) => trendSummary(name, n, all)));
    }
    if (out.length > 0 || requestMetrics.length > 0) return out;
    const custom = Object.entries(metrics)
      .filter(([name, m]) => isObject(m) && m.type === 'trend' && m.contains === 'time' && !name.includes('{') && !BUILTIN_TRENDS.has(name) && name !== ITERATION)
      .map(([name]) => name);
    const fallback = custom.length > 0 ? custom : values(ITERATION) ? [ITERATION] : [];
    for (const name of fallback) {
      const v = values(name);
      const count = number(v, 'count') ?? (name === ITERATION ? number(values('iterations'), 'count') : null);
      if (count === null || !Number.isSafeInteger(count) || count < 0) {
        this.issues.note(line, `the summary gives no count for ${name} (add "count" to summaryTrendStats); it is not used`);
        continue;
      }
      out.push(trendSummary(name, count, v));
    }
    return out;
  }

  // ---- the end -----------------------------------------------------------------------------

  finish(): ParsedFile {
    this.quoted.end();
    if (this.document) this.finishDocument(this.document);
    const series: LatencySeries[] = this.summary ? this.summarySeries(this.summary.value, this.summary.line) : this.rawSeries();
    if (series.length === 0 && this.issues.errors.length === 0) {
      this.issues.note(0, this.mode === 'csv' || this.mode === 'ndjson' ? 'no request, custom time trend or iteration samples found' : 'no k6 output found');
    }
    const failures = this.failures.of('requests');
    const file = this.parsed('k6', { series, ...(failures ? { failures } : {}), ...(this.partUnsafe ? { partUnsafe: this.partUnsafe } : {}) });
    if (this.mode !== null) file.producer = this.producer();
    return file;
  }

  /** The samples of the first tier that has any: requests, else custom time trends, else iterations. */
  private rawSeries(): RawSeries[] {
    const counted = this.counter.finish(this.seriesKeys.length);
    const tier = Math.min(...this.seriesKeys.map((k) => k.tier));
    // Another part of the file may hold requests, which the whole file's operations would be.
    if (tier > 1) this.partUnsafe ??= 'no request samples here';
    return this.seriesKeys.flatMap((k, i) => (k.tier === tier ? [{ kind: 'raw' as const, op: k.op, unit: 'ns' as const, ...counted[i]! }] : []));
  }

  private producer(): ProducerInfo {
    const settings: Record<string, string> = {};
    const summary = this.summary?.value;
    if (summary) {
      const state = isObject(summary.state) ? summary.state : {};
      const options = isObject(summary.options) ? summary.options : {};
      if (typeof state.testRunDurationMs === 'number') settings['test run duration (ms)'] = String(state.testRunDurationMs);
      if (Array.isArray(options.summaryTrendStats)) settings.summaryTrendStats = options.summaryTrendStats.filter((s) => typeof s === 'string').join(', ');
    }
    return { tool: 'k6', settings };
  }
}

/**
 * Whether bytes[start, end) have nothing `trim` would take off: ASCII ends that are not white
 * space, or (non-ASCII) text that trims to itself.
 */
function plainEdges(bytes: Uint8Array, start: number, end: number): boolean {
  if (end === start) return true;
  const first = bytes[start]!;
  const last = bytes[end - 1]!;
  if (first <= 32 || last <= 32) return false;
  if (first < 128 && last < 128) return true;
  const text = textOf(bytes, start, end);
  return text === text.trim();
}

/** k6's ms with up to 6 decimals (`%f`) → integer ns, as millisToNanos reads them; -1 for anything else. */
/** A name's series, none made yet. */
function newNameSeries(name: string): NameSeries {
  return { name, ok: -1, failed: -1, firstByte: -1 };
}

function millisBytesToNanos(bytes: Uint8Array, start: number, end: number): number {
  let dot = start;
  while (dot < end && bytes[dot] !== 46) dot++;
  const whole = digitsValue(bytes, start, dot, 9);
  if (whole < 0) return -1;
  if (dot === end) return whole * 1e6;
  const decimals = end - dot - 1;
  const fraction = digitsValue(bytes, dot + 1, end, 6);
  return fraction < 0 ? -1 : whole * 1e6 + fraction * 10 ** (6 - decimals);
}

/** A k6 trend's stats (ms, as printed) as a summary of `count` operations. */
function trendSummary(op: string, count: number, v: Record<string, unknown> | null): PrintedSeries {
  const percentiles: Record<string, number> = {};
  let mean: number | null = null;
  let min: number | null = null;
  let max: number | null = null;
  if (v && count > 0) {
    for (const [key, x] of Object.entries(v)) {
      if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) continue;
      const p = /^p\((\d+(?:\.\d+)?)\)$/.exec(key);
      if (p && Number(p[1]) <= 100) percentiles[`p${Number(p[1])}`] = x;
      else if (key === 'med') percentiles.p50 ??= x;
      else if (key === 'avg') mean = x;
      else if (key === 'min') min = x;
      else if (key === 'max') max = x;
    }
    if (typeof v['p(50)'] === 'number') percentiles.p50 = v['p(50)'];
  }
  // The summary covers the instance's whole run: beside its samples it is their report.
  return { kind: 'printed', op, unit: 'ms', count, mean, min, max, percentiles, returns: {}, scope: 'run' };
}

export const k6Format: FormatModule = {
  id: 'k6',
  label: 'k6 results (CSV, JSON) and summary',
  detect(head) {
    const line = firstLine(head).trim();
    if (/^"?metric_name"?[,;\t|]/.test(line) && line.includes('metric_value') && line.includes('timestamp')) return 1;
    if (!line.startsWith('{')) return 0;
    if ((line.includes('"type":"Point"') || line.includes('"type":"Metric"')) && line.includes('"metric":"')) return 1;
    const start = head.slice(0, 16384);
    if (/"metrics"\s*:/.test(start) && /"(?:root_group|http_req_duration|iteration_duration|summaryTrendStats|testRunDurationMs|vus_max)"/.test(start)) return 0.95;
    return 0;
  },
  createParser: (path, options) => new K6Parser(path, options),
  // CSV output: every part is read after its header (see partUnsafe for what stops it).
  partPreamble: (head) => {
    const first = head.split('\n', 1)[0] ?? '';
    return /^metric_name,/.test(first) ? first : null;
  },
};
