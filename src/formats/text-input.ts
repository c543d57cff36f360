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

export class InputError extends Error {}

export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** Splits decoded text into lines across chunk boundaries. */
export class LineSplitter {
  private pending = '';
  private lineNo = 0;
  private lastWasCR = false;
  constructor(private readonly onLine: (text: string, lineNo: number) => void) {}

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
  }

  end(): void {
    if (this.pending.length > 0) this.emit(this.pending);
    this.pending = '';
  }

  get linesEmitted(): number {
    return this.lineNo;
  }

  private emit(line: string): void {
    this.lineNo++;
    this.onLine(line, this.lineNo);
  }
}

type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be';

/** The decoder drops a BOM itself; sniffing is only needed to pick UTF-16 at all. */
function sniffEncoding(first: Uint8Array): Encoding {
  if (first[0] === 0xff && first[1] === 0xfe) return 'utf-16le';
  if (first[0] === 0xfe && first[1] === 0xff) return 'utf-16be';
  // UTF-16 without BOM: ASCII text shows a zero in every other byte.
  if (first.length >= 8 && first[1] === 0 && first[3] === 0 && first[0] !== 0 && first[2] !== 0) return 'utf-16le';
  if (first.length >= 8 && first[0] === 0 && first[2] === 0 && first[1] !== 0 && first[3] !== 0) return 'utf-16be';
  return 'utf-8';
}

/**
 * Byte stream → text stream: handles gzip and the character encoding. Push bytes in, get text out
 * via the callback. `compressedBytesSeen` / `textBytesSeen` feed progress reports.
 */
export class TextDecoderPipeline {
  private gunzip: Gunzip | null = null;
  private decoder: TextDecoder | null = null;
  private started = false;
  compressedBytesSeen = 0;
  expandedBytes = 0;
  gzipped = false;

  constructor(
    private readonly onText: (text: string) => void,
    private readonly fileName: string,
  ) {}

  push(bytes: Uint8Array, final = false): void {
    if (!this.started) {
      this.started = true;
      if (isGzip(bytes)) {
        this.gzipped = true;
        this.gunzip = new Gunzip((chunk, isFinal) => this.decoded(chunk, isFinal));
      }
    }
    this.compressedBytesSeen += bytes.length;
    if (this.gunzip) {
      try {
        this.gunzip.push(bytes, final);
      } catch (e) {
        throw new InputError(`${this.fileName}: gzip data is corrupt (${(e as Error).message})`);
      }
    } else {
      this.decoded(bytes, final);
    }
  }

  private decoded(chunk: Uint8Array, final: boolean): void {
    this.expandedBytes += chunk.length;
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
    this.decoder ??= new TextDecoder(sniffEncoding(chunk), { fatal: false });
    const text = this.decoder.decode(chunk, { stream: !final });
    if (text.length > 0) this.onText(text);
  }
}
