import { MAX_EPOCH_MS, parseNonNegativeInteger, parseScaledDecimal } from '../model/numbers.ts';
import type { LatencySeries, ParsedFile, ProducerInfo, RawSeries, PrintedSeries } from '../model/types.ts';
import { parseTimestampMs } from './csv-columns.ts';
import { firstLine, type FormatModule, type FormatOptions, LineParserBase } from './format.ts';
import { isObject, parseJson } from './json-values.ts';
import { QuotedLines, splitRecord } from './quoted-records.ts';
import { outcomeSeries } from './outcomes.ts';
import { SampleCounter } from './sample-counter.ts';
import { FailureTally } from '../model/failures.ts';
import { ByteKeyed, digitsValue, readLineBytes, readLineRun, RowFields, sameBytes, textOf, type PlainRowParser } from './byte-fields.ts';
import type { LineCursor } from './text-input.ts';

/**
 * vegeta's outputs (tsenart/vegeta, lib/results.go and lib/reporters.go of v12):
 *
 * - `vegeta encode --to csv`: one result per row, no header: timestamp (Unix ns), HTTP code, latency
 *   (ns), bytes out, bytes in, error, base64 body, attack name, seq, method, URL, base64 headers.
 *   Older versions write fewer columns (the attack name, seq, method, URL and headers were added
 *   over v12's life): the first six are required, the rest used when present.
 * - `vegeta encode --to json` (and `vegeta dump` before it): one JSON result per line with
 *   `timestamp` (RFC 3339), `latency` (ns), `code`, `error`, `attack`, `method`, `url`.
 *   Both are raw samples: latencies are integer ns, kept as they are (exact nearest rank).
 *   A result fails when its code is not 2xx/3xx or it has an error (vegeta's own success ratio
 *   counts codes 200–399 only). The operation is `METHOD URL` (one operation when every result hit
 *   the same target); when a file holds results of several attacks (`-name`), the attack name
 *   prefixes it. Failed results are `<operation>-FAILED`.
 * - `vegeta report -type=json`: one summary: `latencies` {total, mean, 50th, 90th, 95th, 99th, max,
 *   min} in integer ns, `requests`, `status_codes`, `success`, `errors`. The mean is total ÷
 *   requests, exact (vegeta's `mean` is that truncated to whole ns). Its percentiles are
 *   vegeta's t-digest estimates over all requests, failed ones included (vegeta keeps no other):
 *   `requests` counts the 2xx/3xx responses (from `status_codes`), `requests-FAILED` the rest, and
 *   the latencies go to `requests (including failures)` with every request's count (src/formats/
 *   outcomes.ts) — to `requests` only when none failed, to `requests-FAILED` when all did. The
 *   failures are tallied by the failing codes of `status_codes` (the report's counts; its `errors`
 *   list has none); results' failures by `code` and `error` as written.
 * - `vegeta report` (text): the same figures as Go durations rounded to the next smaller unit
 *   (`1.825ms`, `214.519µs`, `1m2.5s`); older versions print fewer latency columns, which are read
 *   by the labels in brackets. A file with several reports (one per attacker, appended) keeps each
 *   as a client of its own, `report 1`, `report 2`….
 * - `vegeta attack`'s own output, `results.bin`, is Go's binary gob encoding: it is recognised and
 *   refused with the command that turns it into text.
 */

const REPORT_OP = 'requests';
/** Characters of a JSON report document kept while it is being read (reports are a few hundred bytes). */
const MAX_DOCUMENT_CHARS = 4 * 1024 * 1024;

type Mode = 'csv' | 'results-json' | 'report-json' | 'report-document' | 'report-text' | 'gob';

const GOB_FIELDS = ['Result', 'Attack', 'Latency', 'BytesOut'];
const CSV_ROW_START = /^\d{10,19},\d{1,3},\d+,\d+,\d+,/;
const TEXT_REPORT_LINE = /^(Requests|Duration|Latencies|Bytes In|Bytes Out|Success|Status Codes)\s+\[([^\]]*)\]\s*(.*)$/;

/** Go's `time.Duration.String` units, in ns, and the decimals each may carry to stay whole ns. */
const GO_UNITS: Record<string, { scale: number; factor: number }> = {
  h: { scale: 9, factor: 3600 },
  m: { scale: 9, factor: 60 },
  s: { scale: 9, factor: 1 },
  ms: { scale: 6, factor: 1 },
  µs: { scale: 3, factor: 1 },
  μs: { scale: 3, factor: 1 },
  us: { scale: 3, factor: 1 },
  ns: { scale: 0, factor: 1 },
};
const GO_DURATION_PART = /(\d+(?:\.\d+)?)(h|ms|m|µs|μs|us|ns|s)/y;

/** A Go duration string (`1m2.5s`, `214.519µs`, `0s`) → integer ns; null if it is not one. */
export function goDurationToNanos(text: string): number | null {
  if (text.length === 0 || text.length > 64) return null;
  let total = 0;
  GO_DURATION_PART.lastIndex = 0;
  let at = 0;
  while (at < text.length) {
    GO_DURATION_PART.lastIndex = at;
    const m = GO_DURATION_PART.exec(text);
    if (!m) return null;
    const unit = GO_UNITS[m[2] ?? ''];
    const scaled = unit ? parseScaledDecimal(m[1] ?? '', unit.scale) : null;
    if (unit === undefined || scaled === null) return null;
    total += scaled * unit.factor;
    at = GO_DURATION_PART.lastIndex;
  }
  return Number.isSafeInteger(total) ? total : null;
}

/** A vegeta result, as either encoding gives it. */
interface Result {
  timeMs: number;
  code: number;
  latencyNs: number;
  error: string;
  attack: string;
  method: string;
  url: string;
}

interface Report {
  line: number;
  requests: number | null;
  successes: number | null;
  /** Responses of each failing code (`status_codes`), as the report counts them. */
  failedCodes: Record<string, number>;
  latencies: Record<string, number>;
  settings: Record<string, string>;
}

/** A target's series as plain rows reach them: of the attack and method first seen with its URL. */
interface TargetSeries {
  attack: Uint8Array;
  method: Uint8Array;
  ok: number;
  failed: number;
}

/** Fields of a row of v12's CSV, the one layout read from bytes. */
const CSV_FIELDS = 12;

/** vegeta's success: a 2xx or 3xx code (lib/metrics.go). */
const isSuccessCode = (code: number) => code >= 200 && code < 400;

class VegetaParser extends LineParserBase implements PlainRowParser {
  private mode: Mode | null = null;
  /** attack|method|url|failed → series index, with what names it. */
  private readonly seriesIndex = new Map<string, number>();
  private readonly seriesKeys: { attack: string; method: string; url: string; failed: boolean }[] = [];
  private readonly attacks = new Set<string>();
  private readonly counter: SampleCounter;
  /** Failed results by cause, keyed by their series' index until the operations are named. */
  private readonly failedBySeries = new FailureTally();
  private readonly failures = new FailureTally();
  private readonly reports: Report[] = [];
  /** CSV records whose quoted fields span lines, joined. */
  private readonly quoted: QuotedLines;
  private document: { text: string; line: number; lines: number; overflow: boolean } | null = null;
  private readonly fields = new RowFields(44, CSV_FIELDS);
  private readonly targets = new ByteKeyed<TargetSeries>();
  /** Why the file must be read whole, when a part of it shows one (see ParsedFile.partUnsafe). */
  private partUnsafe: string | null = null;

  constructor(path: string, options: FormatOptions = {}) {
    super(path);
    this.counter = new SampleCounter(options.rawSamples);
    this.quoted = new QuotedLines(this.issues, (text, lineNo) => this.csvRecord(text, lineNo));
  }

  /**
   * A CSV row as vegeta v12 writes nearly all of them — 12 fields, no quote, Unix ns of 19 digits,
   * plain code and latency — read from its bytes; any other line takes the rules of `line`.
   */
  lineBytes(bytes: Uint8Array, start: number, end: number, lineNo: number): void {
    readLineBytes(this, bytes, start, end, lineNo);
  }

  /** Results one after another, each split and read in one pass over its bytes. */
  lineRun(bytes: Uint8Array, end: number, cursor: LineCursor): void {
    readLineRun(this, bytes, end, cursor);
  }

  /** CSV results, outside a record spanning lines. */
  plainFields(): RowFields | null {
    return this.mode === 'csv' && !this.quoted.open ? this.fields : null;
  }

  plainRowRead(lineNo: number): void {
    this.lines = lineNo;
  }

  /** Reads the plain row just split into `fields` (see lineBytes); false, having read nothing, for any other. */
  plainRow(bytes: Uint8Array): boolean {
    const b = this.fields.bounds;
    if (this.fields.count !== CSV_FIELDS) return false;
    // Unix ns → ms as parseTimestampMs reads 19 digits: the 13 digits of ms, then 6 decimals. For
    // ms of 13 digits the sum rounds to the double nearest the decimal, as parsing it does.
    if (b[1]! - b[0]! !== 19 || bytes[b[0]!] === 48) return false;
    const whole = digitsValue(bytes, b[0]!, b[0]! + 13, 13);
    const fraction = digitsValue(bytes, b[0]! + 13, b[1]!, 6);
    const code = digitsValue(bytes, b[2]!, b[3]!, 3);
    const latency = digitsValue(bytes, b[4]!, b[5]!, 15);
    if (whole < 0 || fraction < 0 || code < 0 || latency < 0) return false;
    const timeMs = whole + fraction / 1e6;
    if (timeMs > MAX_EPOCH_MS) return false;
    const t = this.targets.get(bytes, b[20]!, b[21]!, () => ({ attack: bytes.slice(b[14]!, b[15]!), method: bytes.slice(b[18]!, b[19]!), ok: -1, failed: -1 }));
    if (!sameBytes(t.attack, bytes, b[14]!, b[15]!) || !sameBytes(t.method, bytes, b[18]!, b[19]!)) return false;
    const failed = !isSuccessCode(code) || b[11]! > b[10]!;
    let index: number;
    if (failed) {
      index = t.failed < 0 ? (t.failed = this.seriesOf(textOf(bytes, b[14]!, b[15]!), textOf(bytes, b[18]!, b[19]!), textOf(bytes, b[20]!, b[21]!), true)) : t.failed;
      this.failedBySeries.add(String(index), String(code), textOf(bytes, b[10]!, b[11]!));
    } else index = t.ok < 0 ? (t.ok = this.seriesOf(textOf(bytes, b[14]!, b[15]!), textOf(bytes, b[18]!, b[19]!), textOf(bytes, b[20]!, b[21]!), false)) : t.ok;
    this.counter.add(index, timeMs, latency);
    return true;
  }

  line(raw: string, lineNo: number): void {
    this.lines = lineNo;
    const text = raw.replace(/^\uFEFF/, '');
    if (this.mode === 'gob') return void this.issues.skippedLines++;
    if (this.quoted.open) return this.quoted.line(text, lineNo);
    const t = text.trim();
    if (t.length === 0) return;
    this.mode ??= this.decideOnce(t, lineNo);
    switch (this.mode) {
      case 'gob':
        return;
      case 'csv':
        this.quoted.line(text, lineNo);
        // A part of the file that starts inside such a record would read its rest as rows.
        if (this.quoted.open) this.partUnsafe ??= 'a quoted field holds a line end';
        return;
      case 'results-json':
        return this.resultJsonLine(t, lineNo);
      case 'report-json':
        return this.reportJsonLine(t, lineNo);
      case 'report-document':
        return this.documentLine(text, lineNo);
      case 'report-text':
        return this.reportTextLine(t, lineNo);
    }
  }

  private decide(t: string, lineNo: number): Mode {
    if (isGob(t)) {
      this.issues.skip(
        lineNo,
        "this is vegeta's binary results file (Go gob encoding), which only vegeta can read: convert it with `vegeta encode --to csv results.bin > results.csv` (or `--to json`) and open that",
      );
      return 'gob';
    }
    if (t.startsWith('{')) {
      const value = parseJson(t);
      if (value === undefined) return 'report-document';
      if (isObject(value) && 'latencies' in value) return 'report-json';
      return 'results-json';
    }
    if (TEXT_REPORT_LINE.test(t)) return 'report-text';
    return 'csv';
  }

  private decideOnce(t: string, lineNo: number): Mode {
    const mode = this.decide(t, lineNo);
    // Only CSV results are read in parts: a part that reads its lines otherwise misreads them.
    if (mode !== 'csv') this.partUnsafe ??= `read as ${mode}`;
    return mode;
  }

  // ---- results: CSV ------------------------------------------------------------------------

  private csvRecord(text: string, lineNo: number): void {
    const fields = splitRecord(text, ',');
    if (fields === null) return this.issues.skip(lineNo, 'a quoted field is not closed');
    if (fields.length < 6) {
      return this.issues.skip(lineNo, `row has ${fields.length} fields; vegeta's CSV has at least 6 (timestamp ns, code, latency ns, bytes out, bytes in, error): "${text.slice(0, 80)}"`);
    }
    const [timeText = '', codeText = '', latencyText = ''] = fields;
    const timeMs = parseTimestampMs(timeText);
    if (timeMs === null) return this.issues.skip(lineNo, `timestamp "${timeText.slice(0, 40)}" is not Unix ns`, 'timestamp');
    const code = parseNonNegativeInteger(codeText);
    if (code === null || code > 999) return this.issues.skip(lineNo, `HTTP code "${codeText.slice(0, 40)}" is not a status code`, 'code');
    const latencyNs = parseNonNegativeInteger(latencyText);
    if (latencyNs === null) return this.issues.skip(lineNo, `latency "${latencyText.slice(0, 40)}" is not a whole number of ns`, 'latency');
    this.add({ timeMs, code, latencyNs, error: fields[5] ?? '', attack: fields[7] ?? '', method: fields[9] ?? '', url: fields[10] ?? '' });
  }

  // ---- results: JSON -----------------------------------------------------------------------

  private resultJsonLine(t: string, lineNo: number): void {
    const value = parseJson(t);
    if (!isObject(value)) return this.issues.skip(lineNo, `not a JSON result object: "${t.slice(0, 80)}"`);
    const { latency, code, timestamp } = value;
    if (typeof latency !== 'number' || !Number.isSafeInteger(latency) || latency < 0) return this.issues.skip(lineNo, 'latency is not a whole number of ns', 'latency');
    if (typeof code !== 'number' || !Number.isInteger(code) || code < 0 || code > 999) return this.issues.skip(lineNo, 'code is not an HTTP status code', 'code');
    const timeMs = typeof timestamp === 'string' ? parseTimestampMs(timestamp) : null;
    if (timeMs === null) return this.issues.skip(lineNo, 'timestamp is not an RFC 3339 time', 'timestamp');
    this.add({ timeMs, code, latencyNs: latency, error: text(value.error), attack: text(value.attack), method: text(value.method), url: text(value.url) });
  }

  private add(r: Result): void {
    const failed = !isSuccessCode(r.code) || r.error !== '';
    const index = this.seriesOf(r.attack, r.method, r.url, failed);
    if (failed) this.failedBySeries.add(String(index), String(r.code), r.error);
    this.counter.add(index, r.timeMs, r.latencyNs);
  }

  private seriesOf(attack: string, method: string, url: string, failed: boolean): number {
    const key = `${attack}\u0000${method}\u0000${url}\u0000${failed ? 1 : 0}`;
    let index = this.seriesIndex.get(key);
    if (index === undefined) {
      index = this.seriesKeys.length;
      this.seriesIndex.set(key, index);
      this.seriesKeys.push({ attack, method, url, failed });
      this.attacks.add(attack);
    }
    return index;
  }

  // ---- reports -----------------------------------------------------------------------------

  private reportJsonLine(t: string, lineNo: number): void {
    const value = parseJson(t);
    if (!isObject(value) || !isObject(value.latencies)) return this.issues.skip(lineNo, `not a vegeta JSON report: "${t.slice(0, 80)}"`);
    this.jsonReport(value, lineNo);
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

  private jsonReport(value: Record<string, unknown>, lineNo: number): void {
    const latencies: Record<string, number> = {};
    const source = isObject(value.latencies) ? value.latencies : {};
    for (const [key, label] of [['min', 'min'], ['mean', 'mean'], ['max', 'max'], ['50th', 'p50'], ['90th', 'p90'], ['95th', 'p95'], ['99th', 'p99']] as const) {
      const v = source[key];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return this.issues.skip(lineNo, `latencies.${key} is not a whole number of ns`);
      latencies[label] = v;
    }
    const requests = value.requests;
    if (typeof requests !== 'number' || !Number.isSafeInteger(requests) || requests < 0) return this.issues.skip(lineNo, 'the report has no request count');
    // `total` is the exact sum of the latencies; `mean` is that ÷ requests truncated to whole ns.
    const total = source.total;
    if (typeof total === 'number' && Number.isSafeInteger(total) && total >= 0 && requests > 0) latencies.mean = total / requests;
    let successes: number | null = null;
    const failedCodes: Record<string, number> = {};
    if (isObject(value.status_codes)) {
      successes = 0;
      for (const [code, n] of Object.entries(value.status_codes)) {
        if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) return this.issues.skip(lineNo, `status_codes["${code.slice(0, 10)}"] is not a count`);
        if (isSuccessCode(Number(code))) successes += n;
        else failedCodes[code] = (failedCodes[code] ?? 0) + n;
      }
    } else if (typeof value.success === 'number' && value.success >= 0 && value.success <= 1) {
      // A ratio of two integers: the nearest integer to ratio × requests is the count it came from.
      successes = Math.round(value.success * requests);
    }
    const settings: Record<string, string> = {};
    for (const key of ['earliest', 'latest', 'duration', 'wait', 'rate', 'throughput', 'success'] as const) {
      const v = value[key];
      if (typeof v === 'string' || typeof v === 'number') settings[key] = String(v);
    }
    if (Array.isArray(value.errors) && value.errors.length > 0) settings.errors = value.errors.filter((e) => typeof e === 'string').join(' | ').slice(0, 300);
    this.reports.push({ line: lineNo, requests, successes, failedCodes, latencies, settings });
  }

  private reportTextLine(t: string, lineNo: number): void {
    const m = TEXT_REPORT_LINE.exec(t);
    if (!m) {
      // "Error Set:" and the error messages under it are free text.
      if (t !== 'Error Set:' && this.reports.length === 0) this.issues.skip(lineNo, `not a line of a vegeta text report: "${t.slice(0, 80)}"`);
      return;
    }
    const [, name = '', labelText = '', valueText = ''] = m;
    if (name === 'Requests') this.reports.push({ line: lineNo, requests: null, successes: null, failedCodes: {}, latencies: {}, settings: {} });
    const report = this.reports[this.reports.length - 1];
    if (!report) return this.issues.skip(lineNo, `"${name}" before the report's Requests line`);
    if (name === 'Status Codes') return this.statusCodes(report, valueText, lineNo);
    const labels = labelText.split(',').map((l) => l.trim());
    const values = valueText.split(',').map((v) => v.trim());
    if (labels.length !== values.length) return this.issues.skip(lineNo, `${name}: ${labels.length} labels but ${values.length} values`);
    labels.forEach((label, i) => {
      const v = values[i] ?? '';
      if (name === 'Latencies') {
        const ns = goDurationToNanos(v);
        if (ns === null) return this.issues.note(lineNo, `latency ${label} "${v.slice(0, 40)}" is not a Go duration; it is not used`);
        report.latencies[/^\d+(\.\d+)?$/.test(label) ? `p${Number(label)}` : label] = ns;
      } else if (name === 'Requests' && label === 'total') {
        report.requests = parseNonNegativeInteger(v);
        if (report.requests === null) this.issues.skip(lineNo, `request total "${v.slice(0, 40)}" is not a count`);
      } else if (name === 'Requests' || name === 'Duration' || name === 'Success') {
        report.settings[`${name.toLowerCase()} ${label}`] = v;
      }
    });
  }

  private statusCodes(report: Report, text: string, lineNo: number): void {
    let successes = 0;
    for (const entry of text.split(/\s+/).filter((e) => e.length > 0)) {
      const m = /^(\d+):(\d+)$/.exec(entry);
      const n = m ? parseNonNegativeInteger(m[2] ?? '') : null;
      if (!m || n === null) return this.issues.skip(lineNo, `status code count "${entry.slice(0, 40)}" is not code:count`);
      if (isSuccessCode(Number(m[1]))) successes += n;
      else report.failedCodes[m[1] as string] = (report.failedCodes[m[1] as string] ?? 0) + n;
    }
    report.successes = successes;
  }

  // ---- the end -----------------------------------------------------------------------------

  finish(): ParsedFile {
    this.quoted.end();
    if (this.document) this.finishDocument(this.document);
    const series: LatencySeries[] = [...this.resultSeries(), ...this.reportSeries()];
    if (series.length === 0 && this.mode !== 'gob') this.issues.note(0, 'no vegeta results or report found');
    const file = this.parsed('vegeta', { series, ...(this.partUnsafe ? { partUnsafe: this.partUnsafe } : {}) });
    const failures = this.failures.of(this.seriesKeys.length > 0 ? 'requests' : 'report');
    if (failures) file.failures = failures;
    const producer = this.producer();
    if (producer) file.producer = producer;
    return file;
  }

  private finishDocument(doc: NonNullable<VegetaParser['document']>): void {
    const value = doc.overflow ? undefined : parseJson(doc.text);
    if (isObject(value) && isObject(value.latencies)) return this.jsonReport(value, doc.line);
    // Said of the file, one message whatever the damage: a document cut short is damaged as a whole,
    // and a copy cut anywhere reports the same. Every line of it goes unread.
    this.issues.note(
      0,
      doc.overflow
        ? `the JSON document from line ${doc.line} on is over ${MAX_DOCUMENT_CHARS} characters: not a vegeta report`
        : `the JSON document from line ${doc.line} on is not a complete vegeta JSON report (cut short or damaged)`,
    );
    this.issues.skippedLines += doc.lines;
  }

  private resultSeries(): RawSeries[] {
    const counted = this.counter.finish(this.seriesKeys.length);
    const ops = this.seriesKeys.map((_, i) => this.operationOf(i));
    this.failures.addAll(this.failedBySeries.list(), (i) => ops[Number(i)] as string);
    return this.seriesKeys.map((k, i) => ({ kind: 'raw', op: k.failed ? `${ops[i]}-FAILED` : (ops[i] as string), unit: 'ns', ...counted[i]! }));
  }

  private operationOf(index: number): string {
    const k = this.seriesKeys[index]!;
    const target = k.method && k.url ? `${k.method} ${k.url}` : k.url || k.attack || 'request';
    return this.attacks.size > 1 && target !== k.attack ? `${k.attack || '(unnamed)'}: ${target}` : target;
  }

  private reportSeries(): LatencySeries[] {
    const out: LatencySeries[] = [];
    const several = this.reports.length > 1;
    this.reports.forEach((r, i) => {
      const client = several ? { client: `report ${i + 1}` } : {};
      // Said for the file (line 0): what is missing may be only the report's last lines, cut off.
      if (r.requests === null) return this.issues.note(0, `the vegeta report at line ${r.line} has no request total; it is not used`);
      if (r.successes === null || r.successes > r.requests) {
        this.issues.note(0, `the vegeta report at line ${r.line} has no status codes (or more successes than requests): failed requests cannot be told apart, all are counted as requests`);
      }
      const ok = r.successes === null || r.successes > r.requests ? r.requests : r.successes;
      const { min = null, mean = null, max = null, ...rest } = r.latencies;
      const percentiles = Object.fromEntries(Object.entries(rest).filter(([k]) => k.startsWith('p')));
      // A report covers the attack's whole run: beside its results it is their report (scope 'run').
      const base = { unit: 'ns' as const, scope: 'run' as const, ...client };
      // vegeta's latencies are of every request, failed ones included (lib/metrics.go adds each result's latency).
      const figures = (op: string, count: number): PrintedSeries =>
        count > 0 ? { kind: 'printed', op, count, mean, min, max, percentiles, returns: {}, ...base } : { kind: 'printed', op, count, mean: null, min: null, max: null, percentiles: {}, returns: {}, ...base };
      out.push(...outcomeSeries(REPORT_OP, { ok, failed: r.requests - ok }, base, figures));
      if (ok < r.requests) for (const [code, n] of Object.entries(r.failedCodes)) this.failures.add(REPORT_OP, code, null, n);
    });
    return out;
  }

  private producer(): ProducerInfo | null {
    if (this.mode === null || this.mode === 'gob') return null;
    const settings: Record<string, string> = {};
    const attacks = [...this.attacks].filter((a) => a !== '');
    if (attacks.length > 0) settings.attack = attacks.join(', ').slice(0, 300);
    if (this.reports.length === 1) Object.assign(settings, this.reports[0]?.settings);
    return { tool: 'vegeta', settings };
  }
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Go's gob stream of vegeta's Result type: its type definition names the fields, in binary. */
function isGob(head: string): boolean {
  const sample = head.slice(0, 512);
  // eslint-disable-next-line no-control-regex
  return GOB_FIELDS.every((f) => sample.includes(f)) && /[\u0000-\u0008\u000e-\u001f]/.test(sample);
}

export const vegetaFormat: FormatModule = {
  id: 'vegeta',
  label: 'vegeta results (CSV, JSON) and reports',
  detect(head) {
    if (isGob(head)) return 1;
    const line = firstLine(head).trim();
    // Any of the first rows: the first may be the damaged one.
    if (head.split('\n', 8).some((l) => CSV_ROW_START.test(l))) return 0.95;
    if (line.startsWith('{')) {
      const has = (key: string) => line.includes(`"${key}":`);
      if (has('latency') && has('code') && has('timestamp') && (has('bytes_out') || has('attack') || has('seq'))) return 0.95;
      if (has('latencies') && (has('status_codes') || has('requests'))) return 0.95;
      // A pretty-printed report: its keys sit on the following lines.
      if (line === '{' && /"latencies"\s*:\s*\{/.test(head.slice(0, 4096)) && /"(?:bytes_in|requests|status_codes)"\s*:/.test(head.slice(0, 8192))) return 0.9;
      return 0;
    }
    if (/^Requests\s+\[total, rate/.test(line)) return 0.95;
    return 0;
  },
  createParser: (path, options) => new VegetaParser(path, options),
  // CSV results have no header: each part is read on its own (see partUnsafe for what stops it).
  partPreamble: (head) => (CSV_ROW_START.test(firstLine(head)) ? '' : null),
};
