import { Gunzip, gunzipSync } from 'fflate';
import { decompress as zstdDecompress } from 'fzstd';
import type { Compressors } from 'hyparquet';
import { InputError } from './text-input.ts';

/**
 * Decompression: a result file's gzip (streamed, with a guard against decompression bombs and a
 * check for cut files) and its character encoding, before its lines are split (text-input.ts);
 * and the codecs of Parquet's pages (parquet.ts).
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
/** Bytes looked at before choosing gzip and the character encoding (a chunk may be shorter). */
const SNIFF_BYTES = 8;

export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
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

/** A stream's leading bytes, held back until there are SNIFF_BYTES to look at (chunks can be tiny). */
class HeldHead {
  private held: Uint8Array | null = new Uint8Array(0);

  /** Still holding: nothing has been let through yet. */
  get open(): boolean {
    return this.held !== null;
  }

  /** What was held with `bytes` after it, once there is enough of it (or the stream ends); null while it still holds. */
  take(bytes: Uint8Array, final: boolean): Uint8Array | null {
    const held = this.held as Uint8Array;
    const head = held.length === 0 ? bytes : concat(held, bytes);
    if (head.length < SNIFF_BYTES && !final) {
      this.held = head.slice();
      return null;
    }
    this.held = null;
    return head;
  }
}

/**
 * File bytes → content bytes: gunzips when needed (with the bomb guard) and recognises the
 * character encoding. Push bytes in, get content bytes and their encoding out via the callback.
 * `compressedBytesSeen` / `expandedBytes` feed progress reports.
 */
export class InputPipeline {
  private gunzip: Gunzip | null = null;
  private encoding: Encoding | null = null;
  /** Leading input bytes, to recognise gzip. */
  private readonly inputHead = new HeldHead();
  /** Leading content bytes, to recognise the encoding. */
  private readonly textHead = new HeldHead();
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
    if (this.inputHead.open) {
      const head = this.inputHead.take(bytes, final);
      if (!head) return;
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
    if (this.textHead.open) {
      const head = this.textHead.take(chunk, final);
      if (!head) return;
      chunk = head;
      this.encoding = sniffEncoding(chunk);
    }
    this.onContent(chunk, this.encoding as Encoding, final);
  }
}

/**
 * Codecs beyond hyparquet's built-in SNAPPY and UNCOMPRESSED: GZIP (fflate) and ZSTD (fzstd), the
 * ones Parquet writers use by default or on request (pyarrow, DuckDB, Spark). BROTLI, LZ4 and LZO
 * files are refused by the reader with the codec's name.
 */
export const PARQUET_CODECS: Compressors = {
  GZIP: (input) => gunzipSync(input),
  ZSTD: (input, outputLength) => zstdDecompress(input, new Uint8Array(outputLength)),
};
