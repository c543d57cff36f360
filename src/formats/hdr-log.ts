import { decodeIndexedHistogram, decodeIndexedHistogramAscii, HdrDecodeError, type DecodedHistogram } from '../model/hdr-codec.ts';
import { baseName, splitClientAndOp, withoutCompression } from '../model/naming.ts';
import { secondsToMicros } from '../model/numbers.ts';
import type { FormatId, HistogramSeries, IndexedHistogram, LatencyUnit, ParsedFile, ProducerInfo } from '../model/types.ts';
import { LineParserBase, type FormatModule } from './format.ts';

/**
 * HdrHistogram interval logs (`HistogramLogWriter` format 1.0–1.3 and header-less logs), as written
 * by YCSB (`hdrhistogram.fileoutput`), cassandra-stress (`-log hdrfile`), jHiccup, wrk2 and
 * HdrHistogram's own tools. Timestamps follow `HistogramLogReader`: with `#[BaseTime]` they are
 * relative to it; otherwise the first timestamp decides — more than a year before `#[StartTime]`
 * means relative to StartTime, else absolute.
 */

const ONE_YEAR_US = 365 * 24 * 3600 * 1e6;
const utf8 = new TextDecoder();
/** Without any header, timestamps below this (≈ 1973) cannot be epoch seconds. */
const EPOCH_PLAUSIBLE_US = 1e8 * 1e6;

/** Whether `line` holds `HIST` and one base64 character (or `=`) from `at`. */
function isBlobStart(line: string, at: number): boolean {
  if (!line.startsWith('HIST', at) || line.length < at + 5) return false;
  const c = line.charCodeAt(at + 4);
  return (
    (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 /* + */ || c === 47 /* / */ || c === 61 /* = */
  );
}

/**
 * secondsToMicros of `line[a, b)`. Every producer writes plain `digits.digits` with at most 6
 * decimals; those are read from the characters in place, anything else goes through the slice.
 */
function microsAt(line: string, a: number, b: number): number | null {
  return plainMicros((i) => line.charCodeAt(i), a, b) ?? secondsToMicros(line.slice(a, b));
}

/**
 * The µs of plain `digits` or `digits.digits` (at most 6 decimals) in the codes `codeAt(a..b-1)`;
 * null for anything else, which secondsToMicros decides.
 */
function plainMicros(codeAt: (i: number) => number, a: number, b: number): number | null {
  let whole = 0;
  let i = a;
  for (; i < b; i++) {
    const d = codeAt(i) - 48;
    if (d < 0 || d > 9) break;
    whole = whole * 10 + d;
  }
  // Up to 15 digits the whole part is exact, and so is the sum below whenever it is a safe integer.
  if (i > a && i - a <= 15 && (i === b || codeAt(i) === 46 /* . */)) {
    let fraction = 0;
    let scale = 1e6;
    for (i++; i < b && scale > 1; i++) {
      const d = codeAt(i) - 48;
      if (d < 0 || d > 9) break;
      fraction = fraction * 10 + d;
      scale /= 10;
    }
    const us = whole * 1e6 + fraction * scale;
    if (i >= b && Number.isSafeInteger(us)) return us;
  }
  return null;
}

/** The first comma in `bytes[from, end)`, or -1 there is none or a byte before it is not ASCII. */
function asciiComma(bytes: Uint8Array, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    const c = bytes[i]!;
    if (c === 44) return i;
    if (c >= 128) return -1;
  }
  return -1;
}

/**
 * Buckets a file may keep: this many per character read, plus a floor. DEFLATE lets a line of a
 * few KB inflate to millions of one-count buckets (12 bytes each once decoded), so a small crafted
 * log could demand gigabytes. Real logs keep under one bucket per character (the corpus: at most
 * 0.74 on a line, 0.51 over a file); the floor leaves room for small synthetic files.
 */
const BUCKETS_PER_CHAR = 8;
const BUCKET_FLOOR = 1 << 18;

function headerSeconds(line: string, tag: string): number | null {
  const rest = line.slice(tag.length).trim();
  const token = rest.split(/[\s\]]/)[0] ?? '';
  return secondsToMicros(token);
}

/** How a producer's HdrHistogram logs differ from a plain log: its name, its tags, its unit. */
export interface HdrLogDialect {
  format: FormatId;
  /** The operation a tag stands for (cassandra-stress `WRITE-st` → `WRITE`); the tag itself when absent. */
  opOfTag?: (tag: string) => string;
  /** The unit the producer records in; µs when absent (YCSB, HdrHistogram's tools). */
  unit?: LatencyUnit;
  producer?: ProducerInfo;
}

const PLAIN_LOG: HdrLogDialect = { format: 'hdr-log' };

class HdrLogParser extends LineParserBase {
  private startTimeUs: number | null = null;
  private baseTimeUs: number | null = null;
  /** Decided at the first interval: µs to add to each timestamp, and whether the result is epoch time. */
  private timeOrigin: { offsetUs: number; absolute: boolean } | null = null;
  private loggingFor: string | null = null;
  /** The op named by the file name, worked out at the first untagged line that needs it. */
  private opFromName: string | null = null;
  private readonly byTag = new Map<string, HistogramSeries>();
  /** The unit a `#[Latency unit: …]` header states; it wins over the dialect's. */
  private statedUnit: LatencyUnit | null = null;
  private chars = 0;
  private buckets = 0;

  constructor(
    path: string,
    private readonly dialect: HdrLogDialect = PLAIN_LOG,
  ) {
    super(path);
  }

  /**
   * An interval line as every producer writes it — `[Tag=…,]start,length,max,HIST…`, ASCII, no
   * white space around it, plain timestamps, a histogram that decodes — read from its bytes: a
   * log is mostly such lines, and decoding it to text, splitting that and reading the base64 from
   * the string cost a fifth of reading it. Any other line, or any doubt, takes `line`.
   */
  lineBytes(bytes: Uint8Array, start: number, end: number, lineNo: number): void {
    if (!this.plainInterval(bytes, start, end, lineNo)) this.line(utf8.decode(bytes.subarray(start, end)), lineNo);
  }

  /** Reads the line if it is a plain interval line (see lineBytes); false, having changed nothing, otherwise. */
  private plainInterval(bytes: Uint8Array, start: number, end: number, lineNo: number): boolean {
    let from = start;
    let tag: string | null = null;
    if (bytes[start] === 84 /* T */) {
      if (bytes[start + 1] !== 97 /* a */ || bytes[start + 2] !== 103 /* g */ || bytes[start + 3] !== 61 /* = */) return false;
      const comma = asciiComma(bytes, start + 4, end);
      if (comma < 0) return false;
      const name = utf8.decode(bytes.subarray(start + 4, comma));
      tag = name.trim().length > 0 ? name : null;
      from = comma + 1;
    }
    const c1 = asciiComma(bytes, from, end);
    const c2 = c1 < 0 ? -1 : asciiComma(bytes, c1 + 1, end);
    const c3 = c2 < 0 ? -1 : asciiComma(bytes, c2 + 1, end);
    // The histogram: `HIST` and base64, which the decoder checks to the last byte (no comma, no space).
    if (c3 < 0 || end - c3 < 6 || bytes[c3 + 1] !== 72 || bytes[c3 + 2] !== 73 || bytes[c3 + 3] !== 83 || bytes[c3 + 4] !== 84) return false;
    const codeAt = (i: number): number => bytes[i]!;
    const startUs = plainMicros(codeAt, from, c1);
    const lengthUs = plainMicros(codeAt, c1 + 1, c2);
    if (startUs === null || lengthUs === null) return false;
    let decoded;
    try {
      decoded = decodeIndexedHistogramAscii(bytes, c3 + 1, end);
    } catch (e) {
      if (!(e instanceof HdrDecodeError)) throw e;
      return false;
    }
    this.lines = lineNo;
    this.chars += end - start + 1;
    this.addInterval(tag, startUs, lengthUs, decoded, lineNo, () => utf8.decode(bytes.subarray(from, c1)));
    return true;
  }

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    this.chars += text.length + 1;
    const line = text.trim();
    if (line.length === 0) return;
    if (line.startsWith('#')) {
      this.header(line);
      return;
    }
    if (line.startsWith('"StartTimestamp"') || line.startsWith('StartTimestamp')) return;
    this.interval(line, lineNo);
  }

  private header(line: string): void {
    if (line.startsWith('#[StartTime:')) this.startTimeUs = headerSeconds(line, '#[StartTime:');
    else if (line.startsWith('#[BaseTime:')) this.baseTimeUs = headerSeconds(line, '#[BaseTime:');
    else if (line.startsWith('#[Latency unit:')) {
      // Written by `npm run reduce`, whose logs keep the unit of the raw samples (ns stays ns).
      const unit = line.slice('#[Latency unit:'.length).replace(/\]\s*$/, '').trim();
      if (unit === 'ns' || unit === 'us' || unit === 'ms' || unit === 's') this.statedUnit = unit;
    } else if (line.startsWith('#[Logging for:')) {
      // YCSB names the measurement in the log; more reliable than the file name.
      this.loggingFor = line.slice('#[Logging for:'.length).replace(/\]\s*$/, '').trim() || null;
    }
  }

  private interval(line: string, lineNo: number): void {
    let tag: string | null = null;
    // Fields are found by position and only the histogram is sliced out: thousands of lines per file.
    let from = 0;
    if (line.startsWith('Tag=')) {
      const comma = line.indexOf(',');
      if (comma < 0) {
        this.issues.skip(lineNo, 'tagged interval line has no fields after the tag');
        return;
      }
      const name = line.slice(4, comma);
      // `Tag=,` names nothing: an empty (or blank) op name would be invisible everywhere it is shown.
      tag = name.trim().length > 0 ? name : null;
      from = comma + 1;
    }
    const c1 = line.indexOf(',', from);
    const c2 = c1 < 0 ? -1 : line.indexOf(',', c1 + 1);
    const c3 = c2 < 0 ? -1 : line.indexOf(',', c2 + 1);
    if (c3 < 0 || line.indexOf(',', c3 + 1) >= 0) {
      const found = line.slice(from).split(',').length;
      this.issues.skip(lineNo, `expected 4 comma-separated fields (start, length, max, histogram), found ${found}`);
      return;
    }
    const startUs = microsAt(line, from, c1);
    const lengthUs = microsAt(line, c1 + 1, c2);
    if (startUs === null || startUs < 0) {
      this.issues.skip(lineNo, `interval start "${line.slice(from, c1).slice(0, 40)}" is not a non-negative number`, 'StartTimestamp');
      return;
    }
    if (lengthUs === null || lengthUs < 0) {
      this.issues.skip(lineNo, `interval length "${line.slice(c1 + 1, c2).slice(0, 40)}" is not a non-negative number`, 'Interval_Length');
      return;
    }
    if (!isBlobStart(line, c3 + 1)) {
      this.issues.skip(lineNo, 'the histogram field is not a base64 HdrHistogram encoding (HIST…)', 'Interval_Compressed_Histogram');
      return;
    }
    let decoded;
    try {
      decoded = decodeIndexedHistogram(line.slice(c3 + 1));
    } catch (e) {
      if (!(e instanceof HdrDecodeError)) throw e;
      this.issues.skip(lineNo, `histogram cannot be decoded: ${e.message}`, 'Interval_Compressed_Histogram');
      return;
    }
    this.addInterval(tag, startUs, lengthUs, decoded, lineNo, () => line.slice(from, c1));
  }

  /** Adds a decoded interval histogram; `startText` is the start as written, for messages. */
  private addInterval(
    tag: string | null,
    startUs: number,
    lengthUs: number,
    decoded: DecodedHistogram<IndexedHistogram>,
    lineNo: number,
    startText: () => string,
  ): void {
    const bucketCount = decoded.histogram.index.length;
    const allowed = BUCKET_FLOOR + BUCKETS_PER_CHAR * this.chars;
    if (this.buckets + bucketCount > allowed) {
      this.issues.skip(
        lineNo,
        `histogram has ${bucketCount} non-empty buckets, which would bring this file to more than ${allowed} from ` +
          `${this.chars} characters; real logs hold far fewer (this looks like a decompression bomb)`,
        'Interval_Compressed_Histogram',
      );
      return;
    }
    const origin = this.origin(startUs);
    const absoluteUs = startUs + origin.offsetUs;
    // Both parts are exact, their sum need not be: past 2^53 µs (year 2255) starts would round.
    if (!Number.isSafeInteger(absoluteUs)) {
      this.issues.skip(lineNo, `interval start ${startText().slice(0, 40)} s after the base time is beyond 2^53 µs`, 'StartTimestamp');
      return;
    }
    const op = tag !== null ? (this.dialect.opOfTag?.(tag) ?? tag) : this.untaggedOp();
    let series = this.byTag.get(op);
    if (!series) {
      series = {
        kind: 'histogram',
        op,
        unit: this.statedUnit ?? this.dialect.unit ?? 'us',
        precision: decoded.precision,
        timeBase: origin.absolute ? 'absolute' : 'relative',
        intervals: [],
      };
      this.byTag.set(op, series);
    } else if (
      series.precision.significantDigits !== decoded.precision.significantDigits ||
      series.precision.lowestDiscernibleValue !== decoded.precision.lowestDiscernibleValue
    ) {
      this.issues.skip(
        lineNo,
        `histogram precision (${decoded.precision.significantDigits} digits, lowest ${decoded.precision.lowestDiscernibleValue}) ` +
          `differs from earlier intervals of ${op} (${series.precision.significantDigits} digits, lowest ` +
          `${series.precision.lowestDiscernibleValue}); buckets cannot be summed`,
      );
      return;
    }
    this.buckets += bucketCount;
    series.intervals.push({ startUs: absoluteUs, lengthUs, histogram: decoded.histogram, line: lineNo });
  }

  private origin(firstStartUs: number): { offsetUs: number; absolute: boolean } {
    if (this.timeOrigin) return this.timeOrigin;
    if (this.baseTimeUs !== null) {
      this.timeOrigin = { offsetUs: this.baseTimeUs, absolute: this.baseTimeUs > 0 || firstStartUs >= EPOCH_PLAUSIBLE_US };
    } else if (this.startTimeUs !== null && firstStartUs < this.startTimeUs - ONE_YEAR_US) {
      this.timeOrigin = { offsetUs: this.startTimeUs, absolute: true };
    } else {
      this.timeOrigin = { offsetUs: 0, absolute: firstStartUs >= EPOCH_PLAUSIBLE_US };
    }
    return this.timeOrigin;
  }

  private untaggedOp(): string {
    if (this.loggingFor) return this.loggingFor;
    if (this.opFromName === null) {
      const stem = withoutCompression(baseName(this.path)).replace(/\.(hdr|hlog|log|histogram)$/i, '');
      this.opFromName = splitClientAndOp(stem).op ?? stem;
    }
    return this.opFromName;
  }

  finish(): ParsedFile {
    if (this.byTag.size === 0 && this.issues.errors.length === 0) {
      this.issues.note(0, 'no interval histograms found');
    }
    return this.parsed(this.dialect.format, { ...(this.dialect.producer ? { producer: this.dialect.producer } : {}), series: [...this.byTag.values()] });
  }
}

/** How much `head` looks like an HdrHistogram interval log (see `hdrLogFormat.detect`). */
export function hdrLogScore(head: string, fileName: string): number {
  // Score by the share of lines that fit: a README quoting a log line is not a log.
  const lines = head.split('\n', 200).filter((l) => l.trim().length > 0);
  if (lines.length === 0) return 0;
  let dataLines = 0;
  let fitting = 0;
  for (const l of lines) {
    if (/^(Tag=[^,]*,)?[\d.]+,[\d.]+,[\d.eE+-]+,HIST[A-Za-z0-9+/]/.test(l)) {
      dataLines++;
      fitting++;
    } else if (l.startsWith('#') || l.startsWith('"StartTimestamp"')) fitting++;
  }
  const share = fitting / lines.length;
  if (dataLines > 0 && share > 0.9) return 1;
  if (share > 0.9 && /^#\[(Histogram log format version|StartTime:|BaseTime:|Logging for:)/m.test(head)) return 0.8;
  return /\.(hdr|hlog)(\.gz)?$/i.test(fileName) && share > 0.5 ? 0.3 : 0;
}

export const hdrLogFormat: FormatModule = {
  id: 'hdr-log',
  label: 'HdrHistogram interval log',
  detect: hdrLogScore,
  createParser: (path) => new HdrLogParser(path),
};

/**
 * A producer's HdrHistogram logs, read as any log and reported under the producer's name. `owns`
 * says from the content (tags, header comments) or the name that the producer wrote the log; such a
 * module scores like `hdr-log` and stands before it in the registry, so it wins where it owns a file.
 */
export function producerHdrLog(label: string, dialect: HdrLogDialect, owns: (head: string, fileName: string) => boolean): FormatModule {
  return {
    id: dialect.format,
    label,
    detect: (head, fileName) => (owns(head, fileName) ? hdrLogScore(head, fileName) : 0),
    createParser: (path) => new HdrLogParser(path, dialect),
  };
}
