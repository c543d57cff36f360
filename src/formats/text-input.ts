import { Gunzip } from 'fflate';

/**
 * Turning the bytes of a result file into lines: gunzip when the gzip magic is present, decode
 * UTF-8 or UTF-16 (by BOM), split on LF / CRLF / CR. Streaming, so a multi-gigabyte file never
 * has to be held whole in memory, with a guard against decompression bombs.
 */

/** Expansion beyond this ratio (output ÷ compressed input) is treated as a decompression bomb. */
export const MAX_GZIP_RATIO = 200;
/** …unless the output stays below this size: tiny, highly repetitive files are legitimate. */
export const GZIP_RATIO_FLOOR_BYTES = 64 * 1024 * 1024;
/**
 * Compressed bytes inflated per step. fflate returns everything one push inflates as one buffer,
 * so a 1 MiB chunk of a bomb would become ~1 GiB before the guard could look at it; in 16 KiB
 * steps no single output exceeds DEFLATE's 1032:1 bound of that, ~16 MiB.
 */
const GZIP_STEP_BYTES = 16 * 1024;
/**
 * No benchmark tool writes a line this long; a "line" that keeps growing is binary data or a
 * file without line ends, and would otherwise grow until the JS string limit (~512 Mi chars).
 */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;
/** Bytes looked at before choosing gzip and the character encoding (a chunk may be shorter). */
const SNIFF_BYTES = 8;

export class InputError extends Error {}

export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

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

export type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be';

/** A UTF-8 BOM is dropped by the readers; sniffing is only needed to pick UTF-16 at all. */
function sniffEncoding(first: Uint8Array): Encoding {
  if (first[0] === 0xff && first[1] === 0xfe) return 'utf-16le';
  if (first[0] === 0xfe && first[1] === 0xff) return 'utf-16be';
  // UTF-16 without BOM: ASCII text shows a zero in every other byte.
  if (first.length >= 8 && first[1] === 0 && first[3] === 0 && first[0] !== 0 && first[2] !== 0) return 'utf-16le';
  if (first.length >= 8 && first[0] === 0 && first[2] === 0 && first[1] !== 0 && first[3] !== 0) return 'utf-16be';
  return 'utf-8';
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * File bytes → content bytes: gunzips when needed (with the bomb guard) and recognises the
 * character encoding. Push bytes in, get content bytes and their encoding out via the callback.
 * `compressedBytesSeen` / `expandedBytes` feed progress reports.
 */
export class InputPipeline {
  private gunzip: Gunzip | null = null;
  private encoding: Encoding | null = null;
  /** Leading input bytes held back until there are enough to recognise gzip (chunks can be tiny). */
  private inputHead: Uint8Array | null = new Uint8Array(0);
  /** Leading content bytes held back until there are enough to recognise the encoding. */
  private textHead: Uint8Array | null = new Uint8Array(0);
  private stopped = false;
  /**
   * A gzip member ends with the size of its content mod 2^32 (ISIZE). fflate does not check it, and
   * says nothing when the data simply stops, so a cut .gz would read as a shorter, valid file:
   * compare the output of the last member with the last 4 input bytes.
   */
  private memberBytes = 0;
  private readonly lastFour = new Uint8Array(4);
  compressedBytesSeen = 0;
  expandedBytes = 0;
  gzipped = false;
  /** After the final push: the gzip data stopped before its end (a cut download or copy). */
  truncated = false;

  constructor(
    private readonly onContent: (bytes: Uint8Array, encoding: Encoding, final: boolean) => void,
    private readonly fileName: string,
  ) {}

  /** Decode nothing more (the consumer has given up on the file); later pushes are ignored. */
  stop(): void {
    this.stopped = true;
  }

  push(bytes: Uint8Array, final = false): void {
    if (this.stopped) return;
    if (this.inputHead) {
      const head = this.inputHead.length === 0 ? bytes : concat(this.inputHead, bytes);
      if (head.length < SNIFF_BYTES && !final) {
        this.inputHead = head.slice();
        return;
      }
      this.inputHead = null;
      bytes = head;
      if (isGzip(bytes)) {
        this.gzipped = true;
        const gunzip = new Gunzip((chunk, isFinal) => this.decoded(chunk, isFinal));
        gunzip.onmember = () => {
          this.memberBytes = 0;
        };
        this.gunzip = gunzip;
      }
    }
    if (!this.gunzip) {
      this.compressedBytesSeen += bytes.length;
      this.decoded(bytes, final);
      return;
    }
    for (let start = 0; ; start += GZIP_STEP_BYTES) {
      const end = Math.min(bytes.length, start + GZIP_STEP_BYTES);
      const step = bytes.subarray(start, end);
      const last = end >= bytes.length;
      this.compressedBytesSeen += step.length;
      this.keepLastFour(step);
      try {
        this.gunzip.push(step, final && last);
      } catch (e) {
        // The bomb guard runs inside fflate's callback: its message must come out unchanged.
        if (e instanceof InputError) throw e;
        // Data that simply stops is a cut file, not a corrupt one: what came before it was
        // emitted already and stays readable (fflate only sometimes notices; see `truncated`).
        if (final && last && /unexpected EOF/i.test((e as Error).message)) {
          this.truncated = true;
          return;
        }
        throw new InputError(`${this.fileName}: gzip data is corrupt (${(e as Error).message})`);
      }
      if (last || this.stopped) break;
    }
    if (final && !this.stopped) {
      const size = (this.lastFour[0]! | (this.lastFour[1]! << 8) | (this.lastFour[2]! << 16) | (this.lastFour[3]! << 24)) >>> 0;
      // 18 bytes: the smallest complete member (10-byte header, empty deflate block, 8-byte trailer).
      this.truncated = this.compressedBytesSeen < 18 || size !== this.memberBytes % 4294967296;
    }
  }

  private keepLastFour(step: Uint8Array): void {
    if (step.length >= 4) {
      this.lastFour.set(step.subarray(step.length - 4));
    } else if (step.length > 0) {
      this.lastFour.copyWithin(0, step.length);
      this.lastFour.set(step, 4 - step.length);
    }
  }

  private decoded(chunk: Uint8Array, final: boolean): void {
    this.expandedBytes += chunk.length;
    this.memberBytes += chunk.length;
    if (
      this.gzipped &&
      this.expandedBytes > GZIP_RATIO_FLOOR_BYTES &&
      this.expandedBytes > MAX_GZIP_RATIO * Math.max(1, this.compressedBytesSeen)
    ) {
      throw new InputError(
        `${this.fileName}: stopped decompressing — the file expands more than ${MAX_GZIP_RATIO}× ` +
          `(${this.expandedBytes} bytes from ${this.compressedBytesSeen}); this looks like a decompression bomb`,
      );
    }
    if (this.stopped) return;
    if (this.textHead) {
      const head = this.textHead.length === 0 ? chunk : concat(this.textHead, chunk);
      if (head.length < SNIFF_BYTES && !final) {
        this.textHead = head.slice();
        return;
      }
      this.textHead = null;
      chunk = head;
      this.encoding = sniffEncoding(chunk);
    }
    this.onContent(chunk, this.encoding as Encoding, final);
  }
}
