import { MAX_EPOCH_MS, msToMicros } from '../model/numbers.ts';
import type { ParsedFile, RawSeries } from '../model/types.ts';
import { type FormatModule, type FormatOptions, LineParserBase } from './format.ts';
import { RecordJoiner, splitRecord } from './quoted-records.ts';
import { ByteKeyed, bytesEqual, digitsValue, readLineBytes, readLineRun, RowFields, textOf, type PlainRowParser } from './byte-fields.ts';
import type { LineCursor } from './text-input.ts';
import { SampleCounter } from './sample-counter.ts';
import { FailureTally } from '../model/failures.ts';

/**
 * JMeter's result files (JTL), CSV or XML (`jmeter.save.saveservice.output_format`).
 *
 * Each sample is one raw sample of its label: latency = `elapsed` / `t` (whole ms, stored as µs),
 * time = `timeStamp` / `ts` (epoch ms, the sample's start by default), failed (`success` false) →
 * `<label>-FAILED`, tallied by cause: status `responseCode` / `rc`, message `failureMessage` (an
 * assertion's) or else `responseMessage` / `rm`. `Latency` / `lt` (time to first byte) becomes `<label> (first byte)` for the
 * successful samples — what JMeter's "Latencies over time" shows beside the response times; a
 * derived view of the same samples, never counted as throughput again, and left out for a label
 * whose every Latency is 0 (samplers that do not measure it write 0). The `Hostname` / `hn`
 * column, when saved, names the client (several load generators in one file); otherwise the file
 * is the client.
 *
 * CSV (CSVSaveService): any saved column set with its header, found by name; without a header,
 * JMeter's default column set (the 17 columns of SampleSaveConfiguration's defaults since 3.1)
 * when the rows really fit it. Any delimiter (`default_delimiter`: `,` `;` tab `|`), quoted fields
 * with delimiters, quotes and line ends inside, a formatted `timeStamp`
 * (`jmeter.save.saveservice.timestamp_format`: the formats JMeter itself falls back to, read as UTC,
 * the zone being unknown). Every row is a sample, sub-results (`label-0`, `label-1`, written after
 * their parent) and Transaction Controller rows included, as JMeter's HTML report counts them. A
 * row aggregating several samples (`SampleCount` > 1, statistical mode) has only their summed
 * elapsed time and is refused with a line error.
 *
 * XML (`<testResults>`): every top-level `<httpSample>` / `<sample>`; nested ones are sub-results
 * already inside their parent's time, and JMeter's listeners reading the file count only the top
 * level too. A file without `</testResults>` (a run that crashed or is still writing) keeps every
 * complete sample and says it was cut.
 */

/** JMeter's default CSV columns (jmeter.properties defaults since 3.1), for files without a header. */
const DEFAULT_COLUMNS = [
  'timeStamp',
  'elapsed',
  'label',
  'responseCode',
  'responseMessage',
  'threadName',
  'dataType',
  'success',
  'failureMessage',
  'bytes',
  'sentBytes',
  'grpThreads',
  'allThreads',
  'URL',
  'Latency',
  'IdleTime',
  'Connect',
];
/** Every column name CSVSaveService writes (printableFieldNamesToString). */
const JMETER_COLUMNS = new Set([...DEFAULT_COLUMNS, 'Filename', 'Encoding', 'SampleCount', 'ErrorCount', 'Hostname']);
const DELIMITERS = [',', ';', '\t', '|'];
const FIRST_BYTE = ' (first byte)';

/** The formats CSVSaveService tries when a timeStamp is not a number, and ISO-8601. */
const DATE_TIME = /^(\d{4})[/-](\d{2})[/-](\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,3}))?$/;
const US_DATE_TIME = /^(\d{2})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const ISO_ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})$/;

/** A JTL timestamp → epoch ms, or null. */
export function jmeterTimestamp(text: string): number | null {
  const t = text.trim();
  if (/^\d{1,16}$/.test(t)) {
    const v = Number(t);
    return v <= MAX_EPOCH_MS ? v : null;
  }
  let ms: number | null = null;
  const m = DATE_TIME.exec(t);
  if (m) {
    const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
    ms = Date.UTC(y, mo - 1, d, h, mi, s, Number((m[7] ?? '0').padEnd(3, '0')));
  } else {
    const u = US_DATE_TIME.exec(t);
    if (u) {
      const [mo, d, y, h, mi, s] = u.slice(1, 7).map(Number) as [number, number, number, number, number, number];
      ms = Date.UTC(2000 + y, mo - 1, d, h, mi, s);
    } else if (ISO_ZONED.test(t)) {
      ms = Date.parse(t);
    }
  }
  return ms !== null && Number.isFinite(ms) && ms >= 0 && ms <= MAX_EPOCH_MS ? ms : null;
}

function successOf(text: string): boolean | null {
  const t = text.trim().toLowerCase();
  return t === 'true' ? true : t === 'false' ? false : null;
}

interface Columns {
  time?: number;
  elapsed?: number;
  label?: number;
  success?: number;
  latency?: number;
  host?: number;
  sampleCount?: number;
  responseCode?: number;
  responseMessage?: number;
  failureMessage?: number;
}

function columnsOf(header: readonly string[]): Columns {
  const at = (name: string) => {
    const i = header.indexOf(name);
    return i >= 0 ? i : undefined;
  };
  const c: Columns = {};
  const set = (key: keyof Columns, i: number | undefined) => {
    if (i !== undefined) c[key] = i;
  };
  set('time', at('timeStamp'));
  set('elapsed', at('elapsed'));
  set('label', at('label'));
  set('success', at('success'));
  set('latency', at('Latency'));
  set('host', at('Hostname'));
  set('sampleCount', at('SampleCount'));
  set('responseCode', at('responseCode'));
  set('responseMessage', at('responseMessage'));
  set('failureMessage', at('failureMessage'));
  return c;
}

/** The delimiter and header of a JTL header line, or null. */
function readHeader(line: string): { delimiter: string; header: string[] } | null {
  let best: { delimiter: string; header: string[]; known: number } | null = null;
  for (const delimiter of DELIMITERS) {
    const header = (splitRecord(line, delimiter) ?? []).map((h) => h.trim());
    const known = header.filter((h) => JMETER_COLUMNS.has(h)).length;
    if (known > (best?.known ?? 0)) best = { delimiter, header, known };
  }
  if (!best || !best.header.includes('elapsed') || best.known < 3) return null;
  return { delimiter: best.delimiter, header: best.header };
}

/** The fields of a header-less row in JMeter's default layout, or null when it does not fit. */
function defaultLayoutRow(line: string): { delimiter: string; fields: string[] } | null {
  for (const delimiter of DELIMITERS) {
    const fields = splitRecord(line, delimiter);
    if (!fields || fields.length !== DEFAULT_COLUMNS.length) continue;
    const numeric = [1, 9, 10, 11, 12, 14, 15, 16].every((i) => /^\d{1,15}$/.test(fields[i] ?? ''));
    if (numeric && jmeterTimestamp(fields[0] ?? '') !== null && successOf(fields[7] ?? '') !== null) return { delimiter, fields };
  }
  return null;
}

/** XML character references and the five predefined entities. */
function decodeXml(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#\d{1,7}|amp|lt|gt|quot|apos);/g, (all, e: string) => {
    if (e === 'amp') return '&';
    if (e === 'lt') return '<';
    if (e === 'gt') return '>';
    if (e === 'quot') return '"';
    if (e === 'apos') return "'";
    const code = e.startsWith('#x') ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

const ATTRIBUTE = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

function attributesOf(tag: string): Map<string, string> {
  const out = new Map<string, string>();
  ATTRIBUTE.lastIndex = 0;
  for (let m = ATTRIBUTE.exec(tag); m; m = ATTRIBUTE.exec(tag)) out.set(m[1] ?? '', decodeXml(m[2] ?? m[3] ?? ''));
  return out;
}

/** A tag longer than this many lines is taken for damage (a `<` or quote never closed). */
const MAX_TAG_LINES = 1000;
const MAX_TAG_CHARS = 4 * 1024 * 1024;

type XmlState = 'text' | 'tag' | 'comment' | 'cdata' | 'pi';

interface SeriesKey {
  op: string;
  client?: string;
  firstByte: boolean;
}

/** A label's series as its plain rows reach them, made when first needed (-1 before). */
interface LabelSeries {
  label: string;
  ok: number;
  failed: number;
  firstByte: number;
}

class JmeterParser extends LineParserBase implements PlainRowParser {
  private readonly counter: SampleCounter;
  private readonly failures = new FailureTally();
  private readonly seriesIndex = new Map<string, number>();
  private readonly seriesKeys: SeriesKey[] = [];
  /** Series holding a first-byte value above 0. */
  private readonly measured = new Set<number>();
  private mode: 'unknown' | 'csv' | 'xml' = 'unknown';

  // CSV
  private readonly joiner: RecordJoiner;
  private header: string[] | null = null;
  private columns: Columns = {};
  private delimiter = ',';
  /** A plain row's fields, room for the header's. */
  private fields = new RowFields(44, 0);
  private readonly labels = new ByteKeyed<LabelSeries>();
  /** Why the file must be read whole, when a part of it shows one (see ParsedFile.partUnsafe). */
  private partUnsafe: string | null = null;

  // XML
  private state: XmlState = 'text';
  private tag = '';
  private tagLine = 0;
  private tagLines = 0;
  private depth = 0;
  private rootOpen = false;
  private rootClosed = false;

  constructor(path: string, options: FormatOptions = {}) {
    super(path);
    this.counter = new SampleCounter(options.rawSamples);
    this.joiner = RecordJoiner.reportingTo(this.issues, ',');
  }

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    if (this.mode === 'unknown') {
      if (text.trim().length === 0) return;
      this.mode = text.trimStart().startsWith('<') ? 'xml' : 'csv';
    }
    if (this.mode === 'xml') return this.xmlLine(text, lineNo);
    this.csvLine(text, lineNo);
  }

  // ---- CSV ----

  private csvLine(text: string, lineNo: number): void {
    if (!this.joiner.open && text.length === 0) return;
    if (!this.header) {
      if (text.trim().length === 0) return;
      const read = readHeader(text);
      if (read) {
        this.header = read.header;
        this.delimiter = read.delimiter;
        this.joiner.setDelimiter(read.delimiter);
        this.columns = columnsOf(read.header);
        this.fields = new RowFields(read.delimiter.charCodeAt(0), read.header.length);
        return;
      }
      const row = defaultLayoutRow(text);
      if (!row) return this.issues.skip(lineNo, `neither a JTL header (timeStamp, elapsed, label, …) nor a row of JMeter's default columns: "${text.slice(0, 80)}"`);
      this.header = DEFAULT_COLUMNS;
      this.delimiter = row.delimiter;
      this.joiner.setDelimiter(row.delimiter);
      this.columns = columnsOf(DEFAULT_COLUMNS);
      this.fields = new RowFields(row.delimiter.charCodeAt(0), DEFAULT_COLUMNS.length);
    }
    // Rows without quotes (nearly all) are split directly; a quoted one may span lines.
    if (!this.joiner.open && !text.includes('"')) return this.csvRow(text.split(this.delimiter), lineNo);
    const record = this.joiner.push(text, lineNo);
    if (record) this.csvRow(record.fields, record.line);
    // A part of the file that starts inside such a record would read its rest as rows.
    else if (this.joiner.open) this.partUnsafe ??= 'a quoted field holds a line end';
  }

  /**
   * A CSV row as JMeter writes nearly all of them — no quote, every field there, numbers as plain
   * digits, success `true`/`false` — read from its bytes, only the columns used; anything else
   * (and every line before the header, XML, a record spanning lines) takes the rules of `line`.
   */
  lineBytes(bytes: Uint8Array, start: number, end: number, lineNo: number): void {
    readLineBytes(this, bytes, start, end, lineNo);
  }

  /** JTL rows one after another, each split and read in one pass over its bytes. */
  lineRun(bytes: Uint8Array, end: number, cursor: LineCursor): void {
    readLineRun(this, bytes, end, cursor);
  }

  /** CSV after its header, outside a record spanning lines. */
  plainFields(): RowFields | null {
    return this.mode === 'csv' && this.header !== null && !this.joiner.open ? this.fields : null;
  }

  plainRowRead(lineNo: number): void {
    this.lines = lineNo;
  }

  /** Reads the plain row just split into `fields` (see lineBytes); false, having read nothing, for any other. */
  plainRow(bytes: Uint8Array): boolean {
    const c = this.columns;
    const b = this.fields.bounds;
    if (c.elapsed === undefined || this.fields.count !== this.header!.length) return false;
    if (c.sampleCount !== undefined) {
      const at = b[2 * c.sampleCount]!;
      if (b[2 * c.sampleCount + 1]! - at !== 1 || (bytes[at] !== 48 && bytes[at] !== 49)) return false;
    }
    const elapsed = digitsValue(bytes, b[2 * c.elapsed]!, b[2 * c.elapsed + 1]!, 12);
    if (elapsed < 0) return false;
    let time = Number.NaN;
    if (c.time !== undefined) {
      time = digitsValue(bytes, b[2 * c.time]!, b[2 * c.time + 1]!, 13);
      if (time < 0 || time > MAX_EPOCH_MS) return false;
    }
    let ok = true;
    if (c.success !== undefined) {
      const [from, to] = [b[2 * c.success]!, b[2 * c.success + 1]!];
      ok = bytesEqual(bytes, from, to, 'true');
      if (!ok && !bytesEqual(bytes, from, to, 'false')) return false;
    }
    let firstByte = -1;
    if (ok && c.latency !== undefined) {
      firstByte = digitsValue(bytes, b[2 * c.latency]!, b[2 * c.latency + 1]!, 12);
      if (firstByte < 0) return false;
    }
    if (c.host !== undefined) {
      // Several load generators in one file: named by text, as `line` does.
      const label = this.field(bytes, c.label) ?? '';
      if (!ok) this.failures.add(label, this.field(bytes, c.responseCode), this.field(bytes, c.failureMessage) || this.field(bytes, c.responseMessage));
      this.add(label, ok, (this.field(bytes, c.host) ?? '').trim(), time, elapsed * 1000, firstByte < 0 ? null : firstByte * 1000);
      return true;
    }
    const l = c.label === undefined ? null : this.labels.get(bytes, b[2 * c.label]!, b[2 * c.label + 1]!, (label) => ({ label, ok: -1, failed: -1, firstByte: -1 }));
    const s = l ?? (this.noLabel ??= { label: '', ok: -1, failed: -1, firstByte: -1 });
    if (!ok) {
      this.failures.add(s.label, this.field(bytes, c.responseCode), this.field(bytes, c.failureMessage) || this.field(bytes, c.responseMessage));
      if (s.failed < 0) s.failed = this.seriesOf(`${s.label}-FAILED`, '', false);
      this.counter.add(s.failed, time, elapsed * 1000);
      return true;
    }
    if (s.ok < 0) s.ok = this.seriesOf(s.label, '', false);
    this.counter.add(s.ok, time, elapsed * 1000);
    if (firstByte < 0) return true;
    if (s.firstByte < 0) s.firstByte = this.seriesOf(`${s.label}${FIRST_BYTE}`, '', true);
    if (firstByte > 0) this.measured.add(s.firstByte);
    this.counter.add(s.firstByte, time, firstByte * 1000);
    return true;
  }

  /** Field `i` of the plain row just split, as text; null for a column the file does not have. */
  private field(bytes: Uint8Array, i: number | undefined): string | null {
    return i === undefined ? null : textOf(bytes, this.fields.bounds[2 * i]!, this.fields.bounds[2 * i + 1]!);
  }

  /** The series of rows of a file without a label column. */
  private noLabel: LabelSeries | null = null;

  private csvRow(f: string[], lineNo: number): void {
    const header = this.header ?? [];
    const c = this.columns;
    if (f.length !== header.length) {
      if (f.length === 1 && (f[0] ?? '').trim().length === 0) return;
      return this.issues.skip(lineNo, `row has ${f.length} fields, the header has ${header.length}`);
    }
    if (c.elapsed === undefined) return this.issues.skip(lineNo, 'the header has no elapsed column: no latency to read');
    if (c.sampleCount !== undefined) {
      const n = f[c.sampleCount] ?? '';
      if (n !== '1' && n !== '0') return this.issues.skip(lineNo, `a row of SampleCount ${n.slice(0, 20)} (statistical mode) holds only the summed time of its samples`, 'SampleCount');
    }
    const elapsedText = f[c.elapsed] ?? '';
    const latency = msToMicros(elapsedText);
    if (latency === null || latency < 0) return this.issues.skip(lineNo, `elapsed "${elapsedText.slice(0, 40)}" is not a whole number of ms`, 'elapsed');
    let time = Number.NaN;
    if (c.time !== undefined) {
      const t = jmeterTimestamp(f[c.time] ?? '');
      if (t === null) return this.issues.skip(lineNo, `timeStamp "${(f[c.time] ?? '').slice(0, 40)}" is neither epoch ms nor a date and time JMeter writes`, 'timeStamp');
      time = t;
    }
    let ok = true;
    if (c.success !== undefined) {
      const s = successOf(f[c.success] ?? '');
      if (s === null) return this.issues.skip(lineNo, `success "${(f[c.success] ?? '').slice(0, 40)}" is neither true nor false`, 'success');
      ok = s;
    }
    let firstByte: number | null = null;
    if (ok && c.latency !== undefined) {
      const text = f[c.latency] ?? '';
      firstByte = msToMicros(text);
      if (firstByte === null || firstByte < 0) return this.issues.skip(lineNo, `Latency "${text.slice(0, 40)}" is not a whole number of ms`, 'Latency');
    }
    const label = c.label !== undefined ? (f[c.label] ?? '') : '';
    const host = c.host !== undefined ? (f[c.host] ?? '').trim() : '';
    if (!ok) {
      const field = (i: number | undefined) => (i === undefined ? null : (f[i] ?? null));
      this.failures.add(label, field(c.responseCode), field(c.failureMessage) || field(c.responseMessage));
    }
    this.add(label, ok, host, time, latency, firstByte);
  }

  // ---- XML ----

  private xmlLine(text: string, lineNo: number): void {
    let i = 0;
    const n = text.length;
    while (i <= n) {
      switch (this.state) {
        case 'comment':
        case 'cdata':
        case 'pi': {
          const close = this.state === 'comment' ? '-->' : this.state === 'cdata' ? ']]>' : '?>';
          const j = text.indexOf(close, i);
          if (j < 0) return;
          i = j + close.length;
          this.state = 'text';
          break;
        }
        case 'tag': {
          const j = this.tagEnd(text, i);
          if (j < 0) {
            this.tag += `${text.slice(i)}\n`;
            if (++this.tagLines >= MAX_TAG_LINES || this.tag.length >= MAX_TAG_CHARS) {
              this.issues.skippedLines += this.tagLines - 1;
              this.issues.skip(this.tagLine, `a tag opened on line ${this.tagLine} is not closed within ${this.tagLines} lines`);
              this.state = 'text';
              this.tag = '';
              this.quote = 0;
            }
            return;
          }
          this.tag += text.slice(i, j);
          this.state = 'text';
          this.element(this.tag, this.tagLine);
          this.tag = '';
          i = j + 1;
          break;
        }
        case 'text': {
          const j = text.indexOf('<', i);
          const content = text.slice(i, j < 0 ? n : j);
          // Text between samples is not JMeter's; inside a sample it is response data.
          if (this.depth <= (this.rootOpen ? 1 : 0) && content.trim().length > 0) {
            this.issues.skip(lineNo, `text outside any sample: "${content.trim().slice(0, 80)}"`);
            return;
          }
          if (j < 0) return;
          if (text.startsWith('<!--', j)) {
            this.state = 'comment';
            i = j + 4;
          } else if (text.startsWith('<![CDATA[', j)) {
            this.state = 'cdata';
            i = j + 9;
          } else if (text.startsWith('<?', j)) {
            this.state = 'pi';
            i = j + 2;
          } else {
            this.state = 'tag';
            this.tag = '';
            this.tagLine = lineNo;
            this.tagLines = 1;
            i = j + 1;
          }
          break;
        }
      }
    }
  }

  /** Where the tag being read ends (its `>` outside quoted attribute values), or -1. */
  private quote = 0;
  private tagEnd(text: string, from: number): number {
    for (let i = from; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (this.quote !== 0) {
        if (ch === this.quote) this.quote = 0;
      } else if (ch === 34 || ch === 39) this.quote = ch;
      else if (ch === 62) return i;
    }
    return -1;
  }

  private element(tag: string, lineNo: number): void {
    if (tag.startsWith('/')) {
      this.depth = Math.max(0, this.depth - 1);
      if (/^\/\s*testResults\s*$/.test(tag)) this.rootClosed = true;
      return;
    }
    if (tag.startsWith('!')) return; // <!DOCTYPE …>
    const selfClosing = tag.endsWith('/');
    const name = /^[^\s/>]*/.exec(tag)?.[0] ?? '';
    if (name === 'testResults' && this.depth === 0) {
      this.rootOpen = true;
      if (!selfClosing) this.depth++;
      if (selfClosing) this.rootClosed = true;
      return;
    }
    const topLevel = this.depth === (this.rootOpen ? 1 : 0);
    if (!selfClosing) this.depth++;
    if (topLevel) this.sample(name, attributesOf(tag), lineNo);
  }

  private sample(name: string, a: Map<string, string>, lineNo: number): void {
    const elapsedText = a.get('t');
    if (elapsedText === undefined) return this.issues.skip(lineNo, `<${name.slice(0, 40)}> without a t (elapsed) attribute`);
    const latency = msToMicros(elapsedText);
    if (latency === null || latency < 0) return this.issues.skip(lineNo, `t="${elapsedText.slice(0, 40)}" is not a whole number of ms`, 't');
    const sc = a.get('sc');
    if (sc !== undefined && sc !== '1' && sc !== '0') return this.issues.skip(lineNo, `a sample of sc="${sc.slice(0, 20)}" (statistical mode) holds only the summed time of its samples`, 'sc');
    let time = Number.NaN;
    const ts = a.get('ts');
    if (ts !== undefined) {
      const t = jmeterTimestamp(ts);
      if (t === null) return this.issues.skip(lineNo, `ts="${ts.slice(0, 40)}" is neither epoch ms nor a date and time JMeter writes`, 'ts');
      time = t;
    }
    let ok = true;
    const s = a.get('s');
    if (s !== undefined) {
      const v = successOf(s);
      if (v === null) return this.issues.skip(lineNo, `s="${s.slice(0, 40)}" is neither true nor false`, 's');
      ok = v;
    }
    let firstByte: number | null = null;
    const lt = a.get('lt');
    if (ok && lt !== undefined) {
      firstByte = msToMicros(lt);
      if (firstByte === null || firstByte < 0) return this.issues.skip(lineNo, `lt="${lt.slice(0, 40)}" is not a whole number of ms`, 'lt');
    }
    // An assertion's failureMessage is a child element, which is not read: `rm` is the message.
    if (!ok) this.failures.add(a.get('lb') ?? '', a.get('rc') ?? null, a.get('rm') ?? null);
    this.add(a.get('lb') ?? '', ok, (a.get('hn') ?? '').trim(), time, latency, firstByte);
  }

  // ---- both ----

  private seriesOf(op: string, client: string, firstByte: boolean): number {
    const key = `${client}\u0000${op}`;
    let index = this.seriesIndex.get(key);
    if (index === undefined) {
      index = this.seriesKeys.length;
      this.seriesIndex.set(key, index);
      this.seriesKeys.push(client ? { op, client, firstByte } : { op, firstByte });
    }
    return index;
  }

  private add(label: string, ok: boolean, client: string, time: number, latency: number, firstByte: number | null): void {
    this.counter.add(this.seriesOf(ok ? label : `${label}-FAILED`, client, false), time, latency);
    if (firstByte === null) return;
    const index = this.seriesOf(`${label}${FIRST_BYTE}`, client, true);
    if (firstByte > 0) this.measured.add(index);
    this.counter.add(index, time, firstByte);
  }

  finish(): ParsedFile {
    this.joiner.end();
    if (this.mode === 'xml') {
      if (this.state === 'tag') {
        this.issues.skippedLines += this.tagLines - 1;
        this.issues.skip(this.tagLine, `the file ends inside the tag opened on line ${this.tagLine}`);
      }
      if (this.rootOpen && !this.rootClosed) {
        this.issues.note(0, 'the file ends before </testResults>: it was cut short (a run that crashed, or one still writing); every complete sample before the cut was read');
      }
    }
    const counted = this.counter.finish(this.seriesKeys.length);
    const series: RawSeries[] = [];
    this.seriesKeys.forEach((k, i) => {
      if (k.firstByte && !this.measured.has(i)) {
        // Another part of the file may hold its measured samples: left out here, kept there.
        this.partUnsafe ??= `every Latency of ${k.op} is 0 here`;
        return;
      }
      series.push({ kind: 'raw', op: k.op, unit: 'us', ...counted[i]!, ...(k.client !== undefined ? { client: k.client } : {}) });
    });
    if (series.length === 0) this.issues.note(0, 'no samples found');
    const failures = this.failures.of('requests');
    return this.parsed('jmeter', { series, ...(failures ? { failures } : {}), ...(this.partUnsafe ? { partUnsafe: this.partUnsafe } : {}), producer: { tool: 'JMeter', settings: { format: this.mode === 'xml' ? 'XML' : 'CSV' } } });
  }
}

export const jmeterFormat: FormatModule = {
  id: 'jmeter',
  label: 'JMeter results (JTL, CSV or XML)',
  detect(head) {
    const start = head.trimStart();
    if (/^(?:<\?xml[^>]{0,200}\?>\s*)?<testResults[\s>]/.test(start)) return 1;
    if (/^<(?:httpSample|sample)\s[^>]{0,2000}\bt="\d/.test(start)) return 0.9;
    const first = start.split('\n', 1)[0] ?? '';
    if (readHeader(first)) return 0.9;
    const lines = start.split('\n', 20).filter((l) => l.trim().length > 0);
    if (lines.length > 1 && !head.endsWith('\n')) lines.pop();
    // Header-less: only when the rows really are JMeter's default columns.
    return lines.length > 0 && lines.every((l) => defaultLayoutRow(l) !== null) ? 0.85 : 0;
  },
  createParser: (path, options) => new JmeterParser(path, options),
  // A CSV with its header: every part is read after it. A record spanning lines, or a label whose
  // first-byte view one part would leave out, makes the file read whole (ParsedFile.partUnsafe).
  partPreamble(head) {
    const first = head.split('\n', 1)[0] ?? '';
    return first.trimStart().startsWith('<') || !readHeader(first) ? null : first;
  },
};
