import { decodeHistogram, HdrDecodeError } from '../model/hdr-codec.ts';
import { baseName, splitClientAndOp, withoutCompression } from '../model/naming.ts';
import { secondsToMicros } from '../model/numbers.ts';
import type { HistogramSeries, ParsedFile } from '../model/types.ts';
import { IssueLog, type FormatModule, type LineParser } from './format.ts';

/**
 * HdrHistogram interval logs (`HistogramLogWriter` format 1.0–1.3 and header-less logs), as written
 * by YCSB (`hdrhistogram.fileoutput`), cassandra-stress (`-log hdrfile`), jHiccup, wrk2 and
 * HdrHistogram's own tools. Timestamps follow `HistogramLogReader`: with `#[BaseTime]` they are
 * relative to it; otherwise the first timestamp decides — more than a year before `#[StartTime]`
 * means relative to StartTime, else absolute.
 */

const ONE_YEAR_US = 365 * 24 * 3600 * 1e6;
/** Without any header, timestamps below this (≈ 1973) cannot be epoch seconds. */
const EPOCH_PLAUSIBLE_US = 1e8 * 1e6;
const BLOB_PREFIX = /^HIST[A-Za-z0-9+/=]/;
/**
 * Buckets a file may keep: this many per character read, plus a floor. DEFLATE lets a line of a
 * few KB inflate to millions of one-count buckets (24 bytes each once decoded), so a small crafted
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

class HdrLogParser implements LineParser {
  private readonly issues: IssueLog;
  private startTimeUs: number | null = null;
  private baseTimeUs: number | null = null;
  /** Decided at the first interval: µs to add to each timestamp, and whether the result is epoch time. */
  private timeOrigin: { offsetUs: number; absolute: boolean } | null = null;
  private loggingFor: string | null = null;
  private readonly byTag = new Map<string, HistogramSeries>();
  private lines = 0;
  private chars = 0;
  private buckets = 0;

  constructor(private readonly path: string) {
    this.issues = new IssueLog(path);
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
    else if (line.startsWith('#[Logging for:')) {
      // YCSB names the measurement in the log; more reliable than the file name.
      this.loggingFor = line.slice('#[Logging for:'.length).replace(/\]\s*$/, '').trim() || null;
    }
  }

  private interval(line: string, lineNo: number): void {
    let tag: string | null = null;
    let body = line;
    if (body.startsWith('Tag=')) {
      const comma = body.indexOf(',');
      if (comma < 0) {
        this.issues.skip(lineNo, 'tagged interval line has no fields after the tag');
        return;
      }
      const name = body.slice(4, comma);
      // `Tag=,` names nothing: an empty (or blank) op name would be invisible everywhere it is shown.
      tag = name.trim().length > 0 ? name : null;
      body = body.slice(comma + 1);
    }
    const fields = body.split(',');
    if (fields.length !== 4) {
      this.issues.skip(lineNo, `expected 4 comma-separated fields (start, length, max, histogram), found ${fields.length}`);
      return;
    }
    const [startText = '', lengthText = '', , blob = ''] = fields;
    const startUs = secondsToMicros(startText);
    const lengthUs = secondsToMicros(lengthText);
    if (startUs === null || startUs < 0) {
      this.issues.skip(lineNo, `interval start "${startText.slice(0, 40)}" is not a non-negative number`, 'StartTimestamp');
      return;
    }
    if (lengthUs === null || lengthUs < 0) {
      this.issues.skip(lineNo, `interval length "${lengthText.slice(0, 40)}" is not a non-negative number`, 'Interval_Length');
      return;
    }
    if (!BLOB_PREFIX.test(blob)) {
      this.issues.skip(lineNo, 'the histogram field is not a base64 HdrHistogram encoding (HIST…)', 'Interval_Compressed_Histogram');
      return;
    }
    let decoded;
    try {
      decoded = decodeHistogram(blob);
    } catch (e) {
      if (!(e instanceof HdrDecodeError)) throw e;
      this.issues.skip(lineNo, `histogram cannot be decoded: ${e.message}`, 'Interval_Compressed_Histogram');
      return;
    }
    const bucketCount = decoded.histogram.lo.length;
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
      this.issues.skip(lineNo, `interval start ${startText.slice(0, 40)} s after the base time is beyond 2^53 µs`, 'StartTimestamp');
      return;
    }
    const op = tag ?? this.untaggedOp();
    let series = this.byTag.get(op);
    if (!series) {
      series = {
        kind: 'histogram',
        op,
        unit: 'us',
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
    const stem = withoutCompression(baseName(this.path)).replace(/\.(hdr|hlog|log|histogram)$/i, '');
    return splitClientAndOp(stem).op ?? stem;
  }

  finish(): ParsedFile {
    if (this.byTag.size === 0 && this.issues.errors.length === 0) {
      this.issues.note(0, 'no interval histograms found');
    }
    return {
      path: this.path,
      format: 'hdr-log',
      series: [...this.byTag.values()],
      errors: this.issues.errors,
      skippedLines: this.issues.skippedLines,
      lines: this.lines,
    };
  }
}

export const hdrLogFormat: FormatModule = {
  id: 'hdr-log',
  label: 'HdrHistogram interval log',
  detect(head, fileName) {
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
  },
  createParser: (path) => new HdrLogParser(path),
};
