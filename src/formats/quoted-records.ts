import type { IssueLog } from './format.ts';

/**
 * Delimited records as JMeter's CSVSaveService and Python's csv module (Locust) write them: a field
 * holding the delimiter, a quote or a line end is quoted, with quotes doubled; a quoted line end
 * continues the record on the next line. Shared by the load tools' CSV readers, which must read
 * such records whole (a label with a comma, a traceback over twenty lines) and say where one is
 * broken.
 */

/** The fields of one record, or null when a quoted field is still open at the end of `text`. */
export function splitRecord(text: string, delimiter: string): string[] | null {
  if (!text.includes('"')) return text.split(delimiter);
  const fields: string[] = [];
  let field = '';
  let i = 0;
  const n = text.length;
  for (;;) {
    if (text.charCodeAt(i) === 34) {
      // A quoted field: up to the lone quote that closes it; "" is one quote.
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) return null;
        field += text.slice(i, q);
        if (text.charCodeAt(q + 1) === 34) {
          field += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
    }
    // Unquoted text, or what follows a closing quote (kept, as a lenient reader does).
    const d = text.indexOf(delimiter, i);
    const to = d < 0 ? n : d;
    field += text.slice(i, to);
    fields.push(field);
    field = '';
    if (d < 0) return fields;
    i = d + delimiter.length;
  }
}

/** A record longer than this many lines is taken for a quote left open by damage, not a field. */
const MAX_RECORD_LINES = 5000;
/** …or longer than this many characters. */
const MAX_RECORD_CHARS = 4 * 1024 * 1024;

export interface CsvRecord {
  fields: string[];
  /** The line the record starts on. */
  line: number;
}

/**
 * Joins the lines of records whose quoted fields span lines. `push` gives the record a line
 * completes, or null while one is open; a record that stays open too long, or at the end of the
 * file, is given up with `onBroken` (its first line and how many lines it took).
 */
export class RecordJoiner {
  private pending: string | null = null;
  private pendingLine = 0;
  private pendingLines = 0;

  constructor(
    private delimiter: string,
    private readonly onBroken: (line: number, lines: number, reason: string) => void,
  ) {}

  /** A joiner whose broken records cost their lines in `issues`, reported at the line they opened on. */
  static reportingTo(issues: IssueLog, delimiter: string): RecordJoiner {
    return new RecordJoiner(delimiter, (line, lines, reason) => {
      issues.skippedLines += lines - 1;
      issues.skip(line, reason);
    });
  }

  setDelimiter(delimiter: string): void {
    this.delimiter = delimiter;
  }

  get open(): boolean {
    return this.pending !== null;
  }

  push(text: string, lineNo: number): CsvRecord | null {
    if (this.pending === null) {
      const fields = splitRecord(text, this.delimiter);
      if (fields) return { fields, line: lineNo };
      this.pending = text;
      this.pendingLine = lineNo;
      this.pendingLines = 1;
      return null;
    }
    this.pending += `\n${text}`;
    this.pendingLines++;
    const fields = splitRecord(this.pending, this.delimiter);
    if (fields) {
      const record = { fields, line: this.pendingLine };
      this.pending = null;
      return record;
    }
    if (this.pendingLines >= MAX_RECORD_LINES || this.pending.length >= MAX_RECORD_CHARS) {
      this.onBroken(this.pendingLine, this.pendingLines, `a quoted field opened on line ${this.pendingLine} is not closed within ${this.pendingLines} lines`);
      this.pending = null;
    }
    return null;
  }

  /** End of input: an open record is broken (a file cut inside a quoted field). */
  end(): void {
    if (this.pending === null) return;
    this.onBroken(this.pendingLine, this.pendingLines, `the file ends inside a quoted field opened on line ${this.pendingLine}`);
    this.pending = null;
  }
}

/** How many lines one record may span in a tool's own CSV (a quoted error message with line breaks). */
const MAX_TOOL_RECORD_LINES = 64;

/**
 * Joins the lines of a record whose quoted field holds line breaks, by the parity of its quotes
 * (k6's and vegeta's CSV, whose records are read as text): `line` hands each whole record to
 * `record`; a record left open too long, or at the end of the file (`end`), costs its lines,
 * reported at the line it opened on.
 */
export class QuotedLines {
  private pending: { text: string; line: number; parts: number } | null = null;

  constructor(
    private readonly issues: IssueLog,
    private readonly record: (text: string, lineNo: number) => void,
  ) {}

  /** Whether a record is open: the next line continues it, whatever it looks like. */
  get open(): boolean {
    return this.pending !== null;
  }

  line(text: string, lineNo: number): void {
    const pending = this.pending;
    if (pending === null) {
      if (quoteCount(text) % 2 === 1) this.pending = { text, line: lineNo, parts: 1 };
      else this.record(text, lineNo);
      return;
    }
    pending.text += `\n${text}`;
    pending.parts++;
    if (quoteCount(text) % 2 === 1) {
      this.pending = null;
      return this.record(pending.text, pending.line);
    }
    if (pending.parts >= MAX_TOOL_RECORD_LINES) {
      this.pending = null;
      this.issues.skip(pending.line, `a quoted field opened on this line is not closed within ${MAX_TOOL_RECORD_LINES} lines`);
      this.issues.skippedLines += pending.parts - 1;
    }
  }

  end(): void {
    if (this.pending === null) return;
    this.issues.skip(this.pending.line, 'a quoted field opened on this line is not closed before the end of the file');
    this.issues.skippedLines += this.pending.parts - 1;
    this.pending = null;
  }
}

function quoteCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('"'); i >= 0; i = text.indexOf('"', i + 1)) n++;
  return n;
}
