/**
 * Turning the content bytes of a result file into lines, split on LF / CRLF / CR: as text, or as
 * bytes for a parser that reads them (decompression and the character encoding: decompress.ts).
 * Streaming, so a multi-gigabyte file never has to be held whole in memory.
 */

/**
 * No benchmark tool writes a line this long; a "line" that keeps growing is binary data or a
 * file without line ends, and would otherwise grow until the JS string limit (~512 Mi chars).
 */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

export class InputError extends Error {}

/** Splits decoded text into lines across chunk boundaries. */
export class LineSplitter {
  private pending = '';
  private lineNo = 0;
  private lastWasCR = false;
  constructor(
    private readonly onLine: (text: string, lineNo: number) => void,
    private readonly fileName = '',
  ) {}

  push(text: string): void {
    let start = 0;
    const s = text;
    if (this.lastWasCR && s.startsWith('\n')) start = 1; // CRLF split across chunks
    this.lastWasCR = false;
    for (let i = start; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 10 || c === 13) {
        this.emit(this.pending + s.slice(start, i));
        this.pending = '';
        if (c === 13) {
          if (i + 1 < s.length) {
            if (s.charCodeAt(i + 1) === 10) i++;
          } else {
            this.lastWasCR = true;
          }
        }
        start = i + 1;
      }
    }
    this.pending += s.slice(start);
    if (this.pending.length > MAX_LINE_CHARS) {
      const where = this.fileName ? `${this.fileName}: ` : '';
      throw new InputError(`${where}line ${this.lineNo + 1} is longer than ${MAX_LINE_CHARS} characters; this is not a text result file`);
    }
  }

  end(): void {
    if (this.pending.length > 0) this.emit(this.pending);
    this.pending = '';
  }

  /** Characters of an unfinished last line, dropped instead of emitted (see `end`). */
  discardPending(): number {
    const n = this.pending.length;
    this.pending = '';
    return n;
  }

  get linesEmitted(): number {
    return this.lineNo;
  }

  private emit(line: string): void {
    this.lineNo++;
    this.onLine(line, this.lineNo);
  }
}

/** What reads a file's lines as bytes; see `LineParser.lineBytes` and `LineParser.lineRun`. */
export interface ByteLineReader {
  lineBytes(bytes: Uint8Array, start: number, end: number, lineNo: number): void;
  lineRun?(bytes: Uint8Array, end: number, cursor: LineCursor): void;
}

/** A position in a chunk: the byte a line starts at, and how many lines came before it. */
export interface LineCursor {
  at: number;
  lineNo: number;
}

/**
 * `LineSplitter` for UTF-8 content read as bytes: lines are handed on as ranges of the chunk, so
 * no string exists for a line the reader can take from its bytes. Same line ends (LF, CRLF, CR),
 * numbering and length guard as `LineSplitter`; a UTF-8 BOM at the start is dropped, as the text
 * decoder drops it.
 */
export class ByteLineSplitter {
  private carry = new Uint8Array(256);
  private carryLength = 0;
  private lineNo = 0;
  private lastWasCR = false;
  private atStart = true;
  private readonly cursor: LineCursor = { at: 0, lineNo: 0 };
  constructor(
    private readonly reader: ByteLineReader,
    private readonly fileName = '',
  ) {}

  push(bytes: Uint8Array): void {
    let start = 0;
    if (this.atStart && bytes.length > 0) {
      this.atStart = false;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
    }
    if (this.lastWasCR && bytes[start] === 10) start++; // CRLF split across chunks
    this.lastWasCR = false;
    const n = bytes.length;
    const run = this.reader.lineRun ? this.cursor : null;
    for (let i = start; i < n; i++) {
      if (run && i === start && this.carryLength === 0) {
        // At a line start: the reader takes the lines it can read by itself, in one pass.
        run.at = i;
        run.lineNo = this.lineNo;
        this.reader.lineRun!(bytes, n, run);
        this.lineNo = run.lineNo;
        start = i = run.at;
        if (i >= n) break;
      }
      const c = bytes[i]!;
      // One comparison for nearly every byte: text is mostly above CR.
      if (c > 13 || (c !== 10 && c !== 13)) continue;
      if (this.carryLength > 0) {
        this.keep(bytes, start, i);
        this.emit(this.carry, 0, this.carryLength);
        this.carryLength = 0;
      } else {
        this.emit(bytes, start, i);
      }
      if (c === 13) {
        if (i + 1 < n) {
          if (bytes[i + 1] === 10) i++;
        } else {
          this.lastWasCR = true;
        }
      }
      start = i + 1;
    }
    this.keep(bytes, start, n);
    if (this.carryLength > MAX_LINE_CHARS) {
      const where = this.fileName ? `${this.fileName}: ` : '';
      throw new InputError(`${where}line ${this.lineNo + 1} is longer than ${MAX_LINE_CHARS} characters; this is not a text result file`);
    }
  }

  end(): void {
    if (this.carryLength > 0) this.emit(this.carry, 0, this.carryLength);
    this.carryLength = 0;
  }

  /** Bytes of an unfinished last line, dropped instead of emitted (see `end`). */
  discardPending(): number {
    const n = this.carryLength;
    this.carryLength = 0;
    return n;
  }

  get linesEmitted(): number {
    return this.lineNo;
  }

  private keep(bytes: Uint8Array, from: number, to: number): void {
    const length = this.carryLength + to - from;
    if (length > this.carry.length) {
      const bigger = new Uint8Array(Math.max(length, this.carry.length * 2));
      bigger.set(this.carry.subarray(0, this.carryLength));
      this.carry = bigger;
    }
    this.carry.set(bytes.subarray(from, to), this.carryLength);
    this.carryLength = length;
  }

  private emit(bytes: Uint8Array, start: number, end: number): void {
    this.lineNo++;
    this.reader.lineBytes(bytes, start, end, this.lineNo);
  }
}
