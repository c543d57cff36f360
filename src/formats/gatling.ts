import { MAX_EPOCH_MS } from '../model/numbers.ts';
import type { ParsedFile, ProducerInfo, RawSeries } from '../model/types.ts';
import { type FormatModule, type FormatOptions, LineParserBase } from './format.ts';
import { SampleCounter } from './sample-counter.ts';
import { FailureTally } from '../model/failures.ts';
import { ByteKeyed, bytesEqual, digitsValue, readLineBytes, readLineRun, RowFields, textOf, type PlainRowParser } from './byte-fields.ts';
import type { LineCursor } from './text-input.ts';

/**
 * Gatling's `simulation.log`, the text file Gatling 2.0–3.12 write (LogFileDataWriter): one
 * tab-separated record a line. Every REQUEST record is one request with its start and end in
 * epoch ms, so the samples are exact: latency = end − start (whole ms, stored as µs), counted in
 * the second of its end. The record layouts, from gatling-core's writers:
 *
 * - 2.0–2.1 (scenario first): `scenario, userId, REQUEST, groups, name, requestStart, requestEnd,
 *   responseStart, responseEnd, OK|KO, message[, extra…]`; latency = responseEnd − requestStart,
 *   what those versions' reports call the response time. RUN: `class, simulationId, RUN, start,
 *   description, 2.0`.
 * - 2.2–2.3: `REQUEST, scenario, userId, groups, name, start, end, OK|KO, message[, extra…]`;
 *   RUN: `RUN, class, userDefinedId, defaultId, start, description, 2.0`.
 * - 3.0–3.3: `REQUEST, userId, groups, name, start, end, OK|KO, message`.
 * - 3.4–3.12: `REQUEST, groups, name, start, end, OK|KO, message`; RUN: `RUN, class,
 *   simulationId, start, description, gatlingVersion` (3.x writes its real version there; 2.x
 *   writes the log format's "2.0").
 *
 * Groups are a comma-separated path; a request inside groups is reported as `Group / Sub / name`,
 * as Gatling's reports show it. KO requests form `<name>-FAILED`, tallied by
 * status `KO` and their message as written. USER, GROUP (a group's own
 * duration, which includes pauses: not a request), ASSERTION and ERROR records (errors outside
 * any request, counted in the producer settings) hold no request latency.
 *
 * Gatling 3.13 and later write a binary `simulation.log` (RecordHeader.Run = byte 0, then the
 * version as a length-prefixed string): it is recognised and refused with its version.
 */

const RECORD_TYPES = new Set(['RUN', 'USER', 'REQUEST', 'GROUP', 'ERROR', 'ASSERTION']);
const STATUS = new Set(['OK', 'KO']);
/** A whole number of at most 16 digits: an epoch ms or a user id. */
const INTEGER = /^\d{1,16}$/;

/**
 * The binary log's first record: byte 0 (RUN), the version's byte length as a big-endian int, the
 * version's bytes. Read from the decoded text, where those bytes are the first characters.
 */
function binaryVersion(head: string): string | null {
  for (let i = 0; i < 4; i++) if (head.charCodeAt(i) !== 0) return null;
  const length = head.charCodeAt(4);
  if (!(length >= 1 && length < 64)) return null;
  const version = head.slice(5, 5 + length);
  return /^\d+\.\d+[\w.+-]*$/.test(version) ? version : null;
}

interface RequestFields {
  groups: string;
  name: string;
  start: string;
  end: string;
  status: string;
  /** The KO message, as written (empty for OK). */
  message: string;
}

/** The request fields of a REQUEST record in any of the layouts above, or null. */
function requestFields(f: string[]): RequestFields | null {
  const at = (i: number) => f[i] ?? '';
  if (at(0) === 'REQUEST') {
    // 3.4–3.12: exactly 7 fields (the message is sanitised of tabs and never absent).
    if (f.length === 7 && STATUS.has(at(5))) return { groups: at(1), name: at(2), start: at(3), end: at(4), status: at(5), message: at(6) };
    // 3.0–3.3: a user id first.
    if (f.length === 8 && INTEGER.test(at(1)) && STATUS.has(at(6))) return { groups: at(2), name: at(3), start: at(4), end: at(5), status: at(6), message: at(7) };
    // 2.2–2.3: scenario and user id; extra info may follow the message.
    if (f.length >= 9 && INTEGER.test(at(2)) && STATUS.has(at(7))) return { groups: at(3), name: at(4), start: at(5), end: at(6), status: at(7), message: at(8) };
    return null;
  }
  // 2.0–2.1: request start … response end.
  if (at(2) === 'REQUEST' && f.length >= 11 && STATUS.has(at(9))) return { groups: at(3), name: at(4), start: at(5), end: at(8), status: at(9), message: at(10) };
  return null;
}

/** A request's series as plain records reach them, made when first needed (-1 before). */
interface RequestSeries {
  path: string;
  ok: number;
  failed: number;
}

/** Fields of a 3.4–3.12 REQUEST record, the one layout read from bytes. */
const REQUEST_FIELDS = 7;
const TAB = 9;

class GatlingParser extends LineParserBase implements PlainRowParser {
  private readonly fields = new RowFields(TAB, REQUEST_FIELDS);
  private readonly requests = new ByteKeyed<RequestSeries>();
  private readonly ops = new Map<string, number>();
  private readonly counter: SampleCounter;
  private readonly failures = new FailureTally();
  private producer: ProducerInfo | null = null;
  private runLine = 0;
  private errorRecords = 0;
  /** A binary log: refused as a whole. */
  private binary = false;
  /** Why the file must be read whole, when a part of it shows one (see ParsedFile.partUnsafe). */
  private partUnsafe: string | null = null;

  constructor(path: string, options: FormatOptions = {}) {
    super(path);
    this.counter = new SampleCounter(options.rawSamples);
  }

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    if (this.binary) return void this.issues.skippedLines++;
    if (lineNo === 1 && text.startsWith('\0')) return this.refuseBinary(text);
    if (text.length === 0) return;
    const fields = text.split('\t');
    const type = RECORD_TYPES.has(fields[0] ?? '') ? fields[0] : RECORD_TYPES.has(fields[2] ?? '') ? fields[2] : null;
    if (type === 'REQUEST') return this.request(fields, lineNo);
    if (type === 'RUN') return this.run(fields, lineNo);
    if (type === 'ERROR') {
      // Counted for the file as a whole, in its producer settings.
      this.partUnsafe ??= 'ERROR records';
      this.errorRecords++;
      return;
    }
    if (type !== null) return;
    if (text.trim().length === 0) return;
    this.issues.skip(lineNo, `not a Gatling simulation.log record (RUN, USER, REQUEST, GROUP, ERROR, ASSERTION): "${text.slice(0, 80)}"`);
  }

  /**
   * The records Gatling 3.4–3.12 write by the million — a REQUEST of 7 fields with plain epoch ms
   * and OK/KO, a USER or GROUP record — read from their bytes; any other line takes the rules of
   * `line`.
   */
  lineBytes(bytes: Uint8Array, start: number, end: number, lineNo: number): void {
    readLineBytes(this, bytes, start, end, lineNo);
  }

  /** Records one after another, each split and read in one pass over its bytes. */
  lineRun(bytes: Uint8Array, end: number, cursor: LineCursor): void {
    readLineRun(this, bytes, end, cursor);
  }

  /** After the first line (which may open a binary log), in a text log. */
  plainFields(): RowFields | null {
    return !this.binary && this.lines > 0 ? this.fields : null;
  }

  plainRowRead(lineNo: number): void {
    this.lines = lineNo;
  }

  /** Reads the plain record just split into `fields` (see lineBytes); false, having read nothing, for any other. */
  plainRow(bytes: Uint8Array): boolean {
    const b = this.fields.bounds;
    const count = this.fields.count;
    // USER and GROUP records hold no request: passed over, as `line` does.
    if (count > 1 && (bytesEqual(bytes, b[0]!, b[1]!, 'USER') || bytesEqual(bytes, b[0]!, b[1]!, 'GROUP'))) return true;
    if (count !== REQUEST_FIELDS || !bytesEqual(bytes, b[0]!, b[1]!, 'REQUEST')) return false;
    const ok = bytesEqual(bytes, b[10]!, b[11]!, 'OK');
    if (!ok && !bytesEqual(bytes, b[10]!, b[11]!, 'KO')) return false;
    const startMs = digitsValue(bytes, b[6]!, b[7]!, 15);
    const endMs = digitsValue(bytes, b[8]!, b[9]!, 13);
    if (startMs < 0 || endMs < 0 || endMs > MAX_EPOCH_MS || endMs < startMs) return false;
    // Groups and name, one key: the series' path is made from them once.
    const r = this.requests.get(bytes, b[2]!, b[5]!, (text) => {
      const [groups = '', name = ''] = text.split('\t');
      return { path: requestPath(groups, name), ok: -1, failed: -1 };
    });
    let index: number;
    if (ok) index = r.ok < 0 ? (r.ok = this.opIndex(r.path)) : r.ok;
    else {
      this.failures.add(r.path, 'KO', textOf(bytes, b[12]!, b[13]!));
      index = r.failed < 0 ? (r.failed = this.opIndex(`${r.path}-FAILED`)) : r.failed;
    }
    this.counter.add(index, endMs, (endMs - startMs) * 1000);
    return true;
  }

  /** The series of operation `op`, numbered in order of first appearance. */
  private opIndex(op: string): number {
    const known = this.ops.get(op);
    if (known !== undefined) return known;
    this.ops.set(op, this.ops.size);
    return this.ops.size - 1;
  }

  private refuseBinary(text: string): void {
    this.binary = true;
    this.issues.skippedLines++;
    const version = binaryVersion(text);
    this.issues.note(
      0,
      `a binary Gatling simulation.log${version ? ` written by Gatling ${version}` : ''}: Gatling 3.13 and later write this format, which benchlens does not read. ` +
        'Give benchlens the text simulation.log of a Gatling 2.x–3.12 run, or export the requests from the run as a CSV with a time, latency, name and status column.',
    );
  }

  private run(f: string[], lineNo: number): void {
    // A second run's record, which only the whole file tells from the first.
    if (lineNo > 1) this.partUnsafe ??= 'a RUN record after the first line';
    if (this.producer !== null) {
      this.issues.note(lineNo, `a second RUN record (line ${this.runLine} was the first): two simulation logs concatenated? Requests of both are read; the first run's description is kept`);
      return;
    }
    this.runLine = lineNo;
    const scenarioFirst = f[2] === 'RUN';
    // 2.0–2.1: class, id, RUN, start, description, 2.0; 2.2–2.3: RUN, class, user id, default id,
    // start, description, 2.0; 3.x: RUN, class, id, start, description, version.
    const simulation = scenarioFirst ? f[0] : f[1];
    const id = scenarioFirst ? f[1] : f.length >= 7 ? f[2] || f[3] : f[2];
    const start = scenarioFirst ? f[3] : f.length >= 7 ? f[4] : f[3];
    const description = (scenarioFirst ? f[4] : f.length >= 7 ? f[5] : f[4])?.trim() ?? '';
    const last = f[f.length - 1]?.trim() ?? '';
    const settings: Record<string, string> = {};
    if (simulation) settings.simulation = simulation;
    if (id) settings['run id'] = id;
    if (start && INTEGER.test(start)) settings['start (epoch ms)'] = start;
    if (description) settings.description = description;
    const producer: ProducerInfo = { tool: 'Gatling', settings };
    // 2.x writes its log format's version ("2.0") where 3.x writes Gatling's own.
    if (last === '2.0') settings['log format'] = '2.0';
    else if (/^\d+\.\d+/.test(last)) producer.version = last;
    this.producer = producer;
  }

  private request(f: string[], lineNo: number): void {
    const r = requestFields(f);
    if (!r) return this.issues.skip(lineNo, `REQUEST record with ${f.length} fields in no known Gatling layout (groups, name, start, end, OK|KO, message)`);
    if (!INTEGER.test(r.start) || !INTEGER.test(r.end)) return this.issues.skip(lineNo, `request start "${r.start.slice(0, 40)}" or end "${r.end.slice(0, 40)}" is not an epoch ms value`);
    const start = Number(r.start);
    const end = Number(r.end);
    if (end > MAX_EPOCH_MS) return this.issues.skip(lineNo, `request end ${r.end} is beyond what can be placed in time (year 2255)`);
    if (end < start) return this.issues.skip(lineNo, `request ends (${r.end}) before it starts (${r.start})`);
    const path = requestPath(r.groups, r.name);
    if (r.status === 'KO') this.failures.add(path, r.status, r.message);
    // Whole ms (Gatling's clock) as µs: exact.
    this.counter.add(this.opIndex(r.status === 'KO' ? `${path}-FAILED` : path), end, (end - start) * 1000);
  }

  finish(): ParsedFile {
    const counted = this.counter.finish(this.ops.size);
    const series: RawSeries[] = [...this.ops.keys()].map((op, i) => ({ kind: 'raw', op, unit: 'us', ...counted[i]! }));
    if (!this.binary && series.length === 0) this.issues.note(0, 'no REQUEST records found');
    const failures = this.failures.of('requests');
    const file = this.parsed('gatling', { series, ...(failures ? { failures } : {}), ...(this.partUnsafe ? { partUnsafe: this.partUnsafe } : {}) });
    if (this.producer) {
      const producer = this.errorRecords > 0 ? { ...this.producer, settings: { ...this.producer.settings, 'ERROR records': String(this.errorRecords) } } : this.producer;
      file.producer = producer;
    }
    return file;
  }
}

/** A request's name as Gatling's reports show it: `Group / Sub / name`. */
function requestPath(groups: string, name: string): string {
  return groups.length > 0 ? `${groups.split(',').join(' / ')} / ${name}` : name;
}

/** A line that is a record of some simulation.log layout. */
function isRecord(line: string): boolean {
  const f = line.split('\t', 4);
  if (RECORD_TYPES.has(f[0] ?? '')) return f.length >= 2;
  return f[2] === 'RUN' || f[2] === 'REQUEST' || f[2] === 'USER' || f[2] === 'GROUP';
}

export const gatlingFormat: FormatModule = {
  id: 'gatling',
  label: 'Gatling simulation.log',
  detect(head) {
    if (binaryVersion(head) !== null) return 0.9;
    const lines = head.split('\n', 200).filter((l) => l.trim().length > 0);
    // The last line of the head may be cut short.
    if (lines.length > 1 && !head.endsWith('\n')) lines.pop();
    if (lines.length === 0) return 0;
    const records = lines.filter(isRecord).length;
    const hasRequestOrRun = lines.some((l) => /^(?:RUN|REQUEST)\t/.test(l) || /^[^\t]*\t[^\t]*\t(?:RUN|REQUEST)\t/.test(l));
    if (!hasRequestOrRun) return 0;
    return records / lines.length >= 0.8 ? 0.95 : 0;
  },
  createParser: (path, options) => new GatlingParser(path, options),
  // One record a line, none spanning lines (Gatling sanitises messages of tabs and line ends). Each
  // part is read after the log's RUN record, so that one in a part is a second run's (partUnsafe).
  partPreamble: (head) => {
    const first = head.split('\n', 1)[0] ?? '';
    return /^RUN\t/.test(first) || /^[^\t]*\t[^\t]*\tRUN\t/.test(first) ? first : null;
  },
};
