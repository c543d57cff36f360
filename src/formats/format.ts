import type { FormatId, ParsedFile, ParseIssue } from '../model/types.ts';
import type { CsvMapping } from './csv-mapping.ts';
import type { RawSampleSink } from './sample-counter.ts';
import type { LineCursor } from './text-input.ts';

/**
 * A format module reads one kind of input file. Parsing is push-based, one line at a time, so the
 * same module serves a whole string (tests, CLI) and a file streamed in chunks inside a worker
 * (progress, cancel, no whole-file copy).
 */
export interface FormatModule {
  id: FormatId;
  /** Human-readable name for the UI. */
  label: string;
  /**
   * How sure the module is that it can read a file starting with `head` (the first lines, BOM
   * removed, line ends normalised): 0 = no, 1 = certain. The file name is a hint only; content wins.
   */
  detect(head: string, fileName: string): number;
  /** A fresh line consumer for one file. */
  createParser(path: string, options?: FormatOptions): LineParser;
  /**
   * For formats read by the million, one sample a line: whether a file starting with `head` can be
   * read in parts, each from a line start on its own (on several cores). Returns the text each part
   * is read after — a CSV's header line, '' for none — or null when the file cannot be split (a
   * quoted field may hold a line end). Absent: never split.
   */
  partPreamble?(head: string): string | null;
  /**
   * For a format whose files hold one series after another, each in a block of its own (YCSB raw:
   * an operation's rows after its header line): the series a line belongs to, null for a line of
   * none. Parts are then cut where a block starts, when one is near, and hold whole series.
   */
  partSeries?(line: string): string | null;
}

/** What the user says about a file whose layout is guessed: the generic CSV's columns and unit. */
export interface FormatOptions {
  mapping?: CsvMapping;
  /**
   * Raw samples go here instead of being counted (the reduce CLI): a parser that reads raw samples
   * hands it to its SampleCounter, and its RawSeries then carry no counts.
   */
  rawSamples?: RawSampleSink;
}

export interface LineParser {
  /** One line without its line terminator; `lineNo` is 1-based. */
  line(text: string, lineNo: number): void;
  /**
   * Optional, for formats read by the million: the same line as UTF-8 bytes `bytes[start, end)`,
   * for parsers that read most lines without making a string of them. Must have exactly the effect
   * of `line` on the decoded text; the bytes are valid only during the call.
   */
  lineBytes?(bytes: Uint8Array, start: number, end: number, lineNo: number): void;
  /**
   * Optional, with `lineBytes`: read as many LF-terminated lines from `bytes[cursor.at, end)` as the
   * parser can take without help, in one pass, advancing the cursor past each (position and line
   * number). The line it stops at goes to `lineBytes`. Same effect as `lineBytes` on each line.
   */
  lineRun?(bytes: Uint8Array, end: number, cursor: LineCursor): void;
  /** No more lines: return what was read. */
  finish(): ParsedFile;
}

/** Cap on per-line error messages kept per file; the skipped count stays exact beyond it. */
export const MAX_ERRORS_PER_FILE = 100;
/**
 * Cap on the length of a message or field name. Messages quote the offending text, and a quoted
 * 10 MB line would be kept (and shown) whole.
 */
export const MAX_MESSAGE_CHARS = 400;

/** `text` cut to `max` characters, the last an ellipsis where it was cut. */
export function clip(text: string, max = MAX_MESSAGE_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The first line of a detector's `head` that holds more than white space, as written, up to
 * `max` characters from its first non-blank one (a long first line is not copied whole).
 */
export function firstLine(head: string, max = 8192): string {
  const start = head.search(/\S/);
  if (start < 0) return '';
  const end = head.indexOf('\n', start);
  return head.slice(head.lastIndexOf('\n', start) + 1, Math.min(end < 0 ? head.length : end, start + max));
}

/** The entry that ends a file's error list when it has more errors than it lists. */
export const FURTHER_ERRORS = 'further errors in this file are not listed';

/** Shared bookkeeping for parsers: per-line errors with a cap, skipped-line counting. */
export class IssueLog {
  readonly errors: ParsedFile['errors'] = [];
  skippedLines = 0;
  /** Set by `stopAt`: the rest of the file is not read. */
  private stopped = false;
  constructor(private readonly file: string) {}

  /** Skip line `line` for `message` and read no more of the file (a second run starts there). */
  stopAt(line: number, message: string): void {
    this.skip(line, message);
    this.stopped = true;
  }

  /** Whether reading stopped (`stopAt`); when it has, the line at hand is counted as skipped. */
  countIfStopped(): boolean {
    if (this.stopped) this.skippedLines++;
    return this.stopped;
  }

  /** Record that line `line` was skipped for `message`. */
  skip(line: number, message: string, field?: string): void {
    this.skippedLines++;
    this.note(line, message, field);
  }

  /** Record a problem that did not cost a line (e.g. a file-level warning). */
  note(line: number, message: string, field?: string): void {
    if (this.errors.length > MAX_ERRORS_PER_FILE) return;
    this.add(field === undefined ? { file: this.file, line, message: clip(message) } : { file: this.file, line, field: clip(field), message: clip(message) });
  }

  /** List `issue` as it is (clipped already: another log's, of the same file), within the cap. */
  add(issue: ParseIssue): void {
    if (this.errors.length < MAX_ERRORS_PER_FILE) this.errors.push(issue);
    else if (this.errors.length === MAX_ERRORS_PER_FILE) this.errors.push({ file: this.file, line: issue.line, message: FURTHER_ERRORS });
  }
}

/**
 * What every line parser of a file keeps, written once: its issues (per-line errors, capped;
 * skipped lines, counted), the lines read (`lines`: the number of the last one, which a parser
 * sets as it reads) and the ParsedFile that `finish` returns with them.
 */
export abstract class LineParserBase implements LineParser {
  protected readonly issues: IssueLog;
  protected lines = 0;

  constructor(protected readonly path: string) {
    this.issues = new IssueLog(path);
  }

  abstract line(text: string, lineNo: number): void;
  abstract finish(): ParsedFile;

  /** The file as read: what the format found (`found`), with this file's path, errors and line counts. */
  protected parsed(format: FormatId, found: Omit<ParsedFile, 'path' | 'format' | 'errors' | 'skippedLines' | 'lines'>): ParsedFile {
    return { path: this.path, format, ...found, errors: this.issues.errors, skippedLines: this.issues.skippedLines, lines: this.lines };
  }
}
