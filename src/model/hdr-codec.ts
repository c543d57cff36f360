/**
 * Decoding and encoding of HdrHistogram's binary histogram encodings (as found base64-encoded in
 * interval logs), matching what org.HdrHistogram 2.2.2 reads.
 *
 * Encodings (all integers big-endian):
 *
 * - V0 (cookie base 0x1c849308, HdrHistogram 1.x): 32-byte header (cookie, significant digits,
 *   lowestDiscernibleValue, highestTrackableValue, totalCount) then one fixed-width count per
 *   counts-array index up to the end of the data. The word size (2, 4 or 8) sits in bits 4..7 of
 *   the cookie.
 * - V1 (0x1c849301, 2.0.x-2.1.x, e.g. the HdrHistogram 2.1.4 bundled with YCSB 0.17): 40-byte
 *   header (cookie, payload length, normalizingIndexOffset, significant digits,
 *   lowestDiscernibleValue, highestTrackableValue, integerToDoubleValueConversionRatio), then
 *   payload-length bytes of fixed-width counts, word size in the cookie as in V0.
 * - V2 (0x1c849303, 2.1.5+): same header; the payload is ZigZag LEB128 longs, a negative one
 *   standing for that many zero counts.
 * - Compressed forms (V0 0x1c849309, V1 0x1c849302, V2 0x1c849304): cookie, length of the zlib
 *   data, zlib data whose inflated content is the matching uncompressed encoding.
 *
 * Java compares cookies after clearing bits 4..7 (`getCookieBase`), so e.g. 2.1.4's 0x1c849382
 * (V1 compressed, 8-byte words) and 2.2.2's 0x1c849314 (V2 compressed) are both accepted.
 *
 * Decoding runs in a hot loop (a few thousand histograms per file), so it reuses module-level
 * scratch buffers and decodes base64 and LEB128 by hand. Fixed-width counts that were inflated are
 * read only where the inflater wrote non-zero bytes (./inflate.ts): the rest of a V1 payload is
 * zeros. Every allocation is bounded by the size of the input, never by a header field.
 *
 * One file of over 500 lines: every encoding (V0, V1, V2, compressed or not) shares the cookie and
 * header checks and the scratch buffers, and the encoders are tested as the decoders' inverses.
 */
import { zlibSync } from 'fflate';
import { hdrLayout, type HdrLayout } from './hdr-layout.ts';
import { InflateError, inflateZlib, lastNonZero } from './inflate.ts';
import type { HdrPrecision, IndexedHistogram, SparseHistogram } from './types.ts';

export interface DecodedHistogram<Buckets = SparseHistogram> {
  precision: HdrPrecision;
  /** As written in the header (rounded to the nearest double above 2^53). */
  highestTrackableValue: number;
  integerToDoubleConversionRatio: number;
  histogram: Buckets;
}

/** What was wrong with an input, for callers that want to classify failures. */
export type HdrDecodeReason = 'base64' | 'cookie' | 'header' | 'truncated' | 'zlib' | 'payload';

export class HdrDecodeError extends Error {
  override readonly name = 'HdrDecodeError';
  constructor(
    readonly reason: HdrDecodeReason,
    message: string,
  ) {
    super(message);
  }
}

const V0_COOKIE = 0x1c849308;
const V0_COMPRESSED_COOKIE = 0x1c849309;
const V1_COOKIE = 0x1c849301;
const V1_COMPRESSED_COOKIE = 0x1c849302;
const V2_COOKIE = 0x1c849303;
const V2_COMPRESSED_COOKIE = 0x1c849304;
/** 2.2.2 writes its V2 cookies with bit 4 set ("TLZE encoding"); readers ignore bits 4..7. */
const V2_COOKIE_FLAG = 0x10;
const DOUBLE_HISTOGRAM_COOKIE = 0x0c72124e;
const DOUBLE_HISTOGRAM_COMPRESSED_COOKIE = 0x0c72124f;
const V0_HEADER_SIZE = 32;
const HEADER_SIZE = 40;
/** Java's word size for V2 payloads (LEB128-64b9B: up to 9 bytes per count). */
const LEB128_WORD = 9;
const INT32_MAX = 2147483647;
/** Largest count or total we can hold exactly. */
const MAX_EXACT = Number.MAX_SAFE_INTEGER;

function cookieBase(cookie: number): number {
  return cookie & ~0xf0;
}

/** Java getWordSizeInBytesFromCookie for V0/V1 cookies (bit 4 is a flag, not part of the size). */
function fixedWordSize(cookie: number): number {
  return ((cookie & 0xf0) >>> 4) & 0xe;
}

function readInt32(b: Uint8Array, p: number): number {
  return (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
}

/** A signed 64-bit integer as the nearest double (exact below 2^53). */
function readInt64(b: Uint8Array, p: number): number {
  return readInt32(b, p) * 4294967296 + (readInt32(b, p + 4) >>> 0);
}

// ---------------------------------------------------------------------------------------------
// Scratch buffers, grown on demand and reused across calls (decoding is synchronous).

let base64Scratch = new Uint8Array(4096);
/** Reads the header's big-endian double without a DataView per histogram. */
const doubleView = new DataView(new ArrayBuffer(8));
let indexScratch = new Int32Array(1024);
let countScratch = new Float64Array(1024);

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** Char code -> 6-bit value, or -1. */
const BASE64_VALUES: Int8Array = (() => {
  const t = new Int8Array(256).fill(-1);
  for (let i = 0; i < 64; i++) t[BASE64_ALPHABET.charCodeAt(i)] = i;
  return t;
})();

/** A string's chars as bytes, one per char (non-ASCII chars as 255, never a base64 byte). */
let asciiScratch = new Uint8Array(4096);

/** Decodes standard base64 (padding optional, as java.util.Base64 accepts) into the scratch buffer. */
function decodeBase64(text: string): Uint8Array {
  const n = text.length;
  if (asciiScratch.length < n) asciiScratch = new Uint8Array(Math.max(n, asciiScratch.length * 2));
  const ascii = asciiScratch;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    ascii[i] = c < 128 ? c : 255;
  }
  return decodeBase64Ascii(ascii, 0, n, (at) => text[at]!);
}

/**
 * Decodes the base64 in `src[from, to)` into the scratch buffer. A log is read as bytes, and
 * loading bytes costs less than reading a string's chars; `charAt` names the character at an
 * offset from `from` for error messages.
 */
function decodeBase64Ascii(src: Uint8Array, from: number, to: number, charAt: (at: number) => string): Uint8Array {
  let end = to;
  if (end > from && src[end - 1] === 61 /* = */) {
    end--;
    if (end > from && src[end - 1] === 61) end--;
    if ((to - from) % 4 !== 0) throw new HdrDecodeError('base64', 'invalid base64: misplaced padding');
  }
  const tail = (end - from) % 4;
  if (tail === 1) throw new HdrDecodeError('base64', 'invalid base64: truncated (length is 1 mod 4)');
  const size = ((end - from - tail) / 4) * 3 + (tail === 0 ? 0 : tail - 1);
  if (base64Scratch.length < size) base64Scratch = new Uint8Array(Math.max(size, base64Scratch.length * 2));
  const out = base64Scratch;
  const values = BASE64_VALUES;
  let o = 0;
  let i = from;
  const fullEnd = end - tail;
  for (; i < fullEnd; i += 4) {
    const a = values[src[i]!]!;
    const b = values[src[i + 1]!]!;
    const c = values[src[i + 2]!]!;
    const d = values[src[i + 3]!]!;
    if ((a | b | c | d) < 0) throw badBase64(src, i, from, charAt);
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = n >>> 16;
    out[o++] = (n >>> 8) & 255;
    out[o++] = n & 255;
  }
  if (tail > 0) {
    let n = 0;
    for (let k = 0; k < tail; k++) {
      const v = values[src[i + k]!]!;
      if (v < 0) throw badBase64(src, i + k, from, charAt);
      n = (n << 6) | v;
    }
    if (tail === 2) {
      out[o] = n >>> 4;
    } else {
      out[o] = n >>> 10;
      out[o + 1] = (n >>> 2) & 255;
    }
  }
  return out.subarray(0, size);
}

function badBase64(src: Uint8Array, at: number, from: number, charAt: (at: number) => string): HdrDecodeError {
  for (let k = at; k < at + 4 && k < src.length; k++) {
    if (BASE64_VALUES[src[k]!]! < 0) {
      return new HdrDecodeError('base64', `invalid base64: character ${JSON.stringify(charAt(k - from))} at position ${k - from}`);
    }
  }
  return new HdrDecodeError('base64', `invalid base64 near position ${at - from}`);
}

function encodeBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  let chunk = '';
  let i = 0;
  for (; i + 3 <= bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    chunk +=
      BASE64_ALPHABET[n >>> 18]! + BASE64_ALPHABET[(n >>> 12) & 63]! + BASE64_ALPHABET[(n >>> 6) & 63]! + BASE64_ALPHABET[n & 63]!;
    if (chunk.length >= 4096) {
      parts.push(chunk);
      chunk = '';
    }
  }
  const rest = bytes.length - i;
  if (rest > 0) {
    const n = (bytes[i]! << 16) | (rest === 2 ? bytes[i + 1]! << 8 : 0);
    chunk += BASE64_ALPHABET[n >>> 18]! + BASE64_ALPHABET[(n >>> 12) & 63]!;
    chunk += rest === 2 ? BASE64_ALPHABET[(n >>> 6) & 63]! + '=' : '==';
  }
  parts.push(chunk);
  return parts.join('');
}

// ---------------------------------------------------------------------------------------------
// Inflate

function inflate(zlib: Uint8Array): Uint8Array {
  try {
    return inflateZlib(zlib);
  } catch (e) {
    if (!(e instanceof InflateError)) throw e;
    throw new HdrDecodeError('zlib', `invalid compressed histogram: ${e.message}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Decode

/** Decodes one base64 histogram as written in an HdrHistogram interval log (any encoding). */
export function decodeHistogram(base64: string): DecodedHistogram {
  return withBounds(decodeIndexedBytes(decodeBase64(base64)));
}

/** Decodes one binary histogram encoding (compressed or not, V0/V1/V2). */
export function decodeHistogramBytes(bytes: Uint8Array): DecodedHistogram {
  return withBounds(decodeIndexedBytes(bytes));
}

/** As decodeHistogram, with the buckets by counts index: the form interval logs are kept in. */
export function decodeIndexedHistogram(base64: string): DecodedHistogram<IndexedHistogram> {
  return decodeIndexedBytes(decodeBase64(base64));
}

/** As decodeIndexedHistogram, from base64 held as ASCII bytes `bytes[start, end)`. */
export function decodeIndexedHistogramAscii(bytes: Uint8Array, start: number, end: number): DecodedHistogram<IndexedHistogram> {
  return decodeIndexedBytes(decodeBase64Ascii(bytes, start, end, (at) => String.fromCharCode(bytes[start + at]!)));
}

function withBounds(decoded: DecodedHistogram<IndexedHistogram>): DecodedHistogram {
  return { ...decoded, histogram: boundsOf(hdrLayout(decoded.precision), decoded.histogram) };
}

/** The buckets of `histogram` (in the precision of `layout`) by lo and width. */
export function boundsOf(layout: HdrLayout, { index, count, totalCount }: IndexedHistogram): SparseHistogram {
  const lo = new Float64Array(index.length);
  const width = new Float64Array(index.length);
  layout.bucketBounds(index, 0, index.length, lo, width, 0);
  return { lo, width, count: count instanceof Float64Array ? count : Float64Array.from(count), totalCount };
}

function decodeIndexedBytes(bytes: Uint8Array): DecodedHistogram<IndexedHistogram> {
  if (bytes.length < 4) throw new HdrDecodeError('truncated', `histogram data too short (${bytes.length} bytes)`);
  const cookie = readInt32(bytes, 0);
  const base = cookieBase(cookie);
  if (base === V0_COMPRESSED_COOKIE || base === V1_COMPRESSED_COOKIE || base === V2_COMPRESSED_COOKIE) {
    if (bytes.length < 8) throw new HdrDecodeError('truncated', 'compressed histogram too short for its header');
    const length = readInt32(bytes, 4);
    if (length < 0 || length > bytes.length - 8) {
      throw new HdrDecodeError(
        'truncated',
        `compressed histogram declares ${length} bytes of zlib data but only ${bytes.length - 8} follow`,
      );
    }
    const inner = inflate(bytes.subarray(8, 8 + length));
    const innerBase = inner.length >= 4 ? cookieBase(readInt32(inner, 0)) : -1;
    // Java sizes the inner header by the outer cookie, so V0 must wrap V0 and V1/V2 wrap V1/V2.
    const consistent =
      base === V0_COMPRESSED_COOKIE ? innerBase === V0_COOKIE : innerBase === V1_COOKIE || innerBase === V2_COOKIE;
    if (!consistent) {
      throw new HdrDecodeError(
        'cookie',
        `compressed histogram (cookie 0x${hex(cookie)}) does not contain a matching histogram encoding`,
      );
    }
    return decodeUncompressed(inner, true);
  }
  if (base === V0_COOKIE || base === V1_COOKIE || base === V2_COOKIE) return decodeUncompressed(bytes, false);
  if (cookie === DOUBLE_HISTOGRAM_COOKIE || cookie === DOUBLE_HISTOGRAM_COMPRESSED_COOKIE) {
    throw new HdrDecodeError('cookie', 'DoubleHistogram encodings are not supported');
  }
  throw new HdrDecodeError('cookie', `not an HdrHistogram encoding (cookie 0x${hex(cookie)})`);
}

function hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

function decodeUncompressed(buf: Uint8Array, inflated: boolean): DecodedHistogram<IndexedHistogram> {
  const cookie = readInt32(buf, 0);
  const base = cookieBase(cookie);
  let significantDigits: number;
  let lowest: number;
  let highest: number;
  let ratio: number;
  let payloadStart: number;
  let payloadEnd: number;
  if (base === V0_COOKIE) {
    if (buf.length < V0_HEADER_SIZE) throw new HdrDecodeError('truncated', 'V0 histogram shorter than its header');
    significantDigits = readInt32(buf, 4);
    lowest = readInt64(buf, 8);
    highest = readInt64(buf, 16);
    // The V0 totalCount field (offset 24) is ignored, as Java does: counts are authoritative.
    // V0 has no payload length: the counts run to the end of the data. (2.2.2 itself reads a fixed
    // counts-array length of 8-byte words and so fails on 2- and 4-byte V0 words; they read fine here.)
    ratio = 1;
    payloadStart = V0_HEADER_SIZE;
    payloadEnd = buf.length;
  } else {
    if (buf.length < HEADER_SIZE) throw new HdrDecodeError('truncated', 'histogram shorter than its header');
    const payloadLength = readInt32(buf, 4);
    // The normalizingIndexOffset (offset 8) only rotates where Java *stores* counts: Java's
    // getCountAtIndex/setCountAtIndex both apply it, so an integer histogram's content is the same
    // whatever its value, and it is not needed here.
    significantDigits = readInt32(buf, 12);
    lowest = readInt64(buf, 16);
    highest = readInt64(buf, 24);
    doubleView.setInt32(0, readInt32(buf, 32));
    doubleView.setInt32(4, readInt32(buf, 36));
    ratio = doubleView.getFloat64(0);
    payloadStart = HEADER_SIZE;
    if (payloadLength < 0) throw new HdrDecodeError('header', `negative payload length ${payloadLength}`);
    payloadEnd = HEADER_SIZE + payloadLength;
    if (payloadEnd > buf.length) {
      throw new HdrDecodeError(
        'truncated',
        `histogram payload declares ${payloadLength} bytes but only ${buf.length - HEADER_SIZE} are present`,
      );
    }
    // Every producer compresses exactly header + payload; anything else means a damaged stream.
    if (inflated && payloadEnd !== buf.length) {
      throw new HdrDecodeError(
        'payload',
        `inflated histogram has ${buf.length - payloadEnd} bytes beyond its declared payload`,
      );
    }
  }
  const precision = { significantDigits, lowestDiscernibleValue: lowest };
  let layout: HdrLayout;
  let countsLength: number;
  try {
    layout = hdrLayout(precision);
    countsLength = layout.countsArrayLength(highest);
  } catch (e) {
    throw new HdrDecodeError('header', `invalid histogram header: ${e instanceof Error ? e.message : String(e)}`);
  }
  const wordSize = base === V2_COOKIE ? LEB128_WORD : fixedWordSize(cookie);
  let histogram: IndexedHistogram;
  if (wordSize === LEB128_WORD) histogram = readLeb128Counts(buf, payloadStart, payloadEnd, layout, countsLength, highest);
  else {
    histogram = readFixedCounts(buf, payloadStart, payloadEnd, wordSize, layout, countsLength, highest, inflated ? lastNonZero() : null);
  }
  return { precision, highestTrackableValue: highest, integerToDoubleConversionRatio: ratio, histogram };
}

function ensureScratch(entries: number): void {
  if (indexScratch.length < entries) {
    const size = Math.max(entries, indexScratch.length * 2);
    indexScratch = new Int32Array(size);
    countScratch = new Float64Array(size);
  }
}

function rangeError(index: number, layout: HdrLayout, countsLength: number, highest: number): HdrDecodeError {
  return index >= countsLength
    ? new HdrDecodeError(
        'payload',
        `count at index ${index} lies beyond the histogram's range (highestTrackableValue ${highest})`,
      )
    : new HdrDecodeError(
        'payload',
        `count at index ${index} is for values above 2^53 (${layout.valueFromIndex(layout.exactIndexLimit - 1)}…), which cannot be represented exactly`,
      );
}

/**
 * Reads fixed-width counts. With the inflater's list of the bytes it wrote non-zero (./inflate.ts),
 * it reads only those (readSparseCounts). Without (data that was not inflated), it reads every word.
 */
function readFixedCounts(
  buf: Uint8Array,
  start: number,
  end: number,
  wordSize: number,
  layout: HdrLayout,
  countsLength: number,
  highest: number,
  nonZero: Int32Array | null,
): IndexedHistogram {
  if (wordSize !== 2 && wordSize !== 4 && wordSize !== 8) {
    throw new HdrDecodeError('header', `word size must be 2, 4 or 8 bytes (cookie says ${wordSize})`);
  }
  const bytes = end - start;
  if (bytes % wordSize !== 0) {
    throw new HdrDecodeError('truncated', `payload of ${bytes} bytes is not a whole number of ${wordSize}-byte counts`);
  }
  const words = bytes / wordSize;
  const limit = Math.min(countsLength, layout.exactIndexLimit);
  ensureScratch(Math.min(words, limit));
  if (nonZero !== null) return readSparseCounts(buf, start, end, wordSize, limit, layout, countsLength, highest, nonZero);
  const indices = indexScratch;
  const counts = countScratch;
  // DataView reads big-endian words at any alignment, and V8 compiles them to plain loads.
  const view = new DataView(buf.buffer, buf.byteOffset + start, bytes);
  let n = 0;
  let total = 0;
  let widest = 0;
  for (let index = 0; index < words; index++) {
    const p = index * wordSize;
    let count: number;
    if (wordSize === 8) {
      const hi = view.getInt32(p);
      const lo = view.getUint32(p + 4);
      count = hi * 4294967296 + lo;
      if (hi < 0) throw new HdrDecodeError('payload', `negative count at index ${index}`);
      if (hi >= 0x200000) throw new HdrDecodeError('payload', `count at index ${index} exceeds 2^53`);
    } else {
      count = wordSize === 4 ? view.getInt32(p) : view.getInt16(p);
      if (count < 0) throw new HdrDecodeError('payload', `negative count at index ${index}`);
    }
    if (count !== 0) {
      if (index >= limit) throw rangeError(index, layout, countsLength, highest);
      indices[n] = index;
      counts[n++] = count;
      total += count;
      if (count > widest) widest = count;
    }
  }
  return buildIndexed(n, total, widest);
}

/** 256^k for a byte k places from the low end of a big-endian word. */
const BYTE_WEIGHTS = Float64Array.from({ length: 8 }, (_, k) => 256 ** k);

/**
 * readFixedCounts over inflated data, whose only non-zero bytes are those of `nonZero` (ascending
 * positions): a word's count is the sum of its non-zero bytes by their weight, read in index order
 * with the same checks and errors as reading every word. A YCSB V1 payload is ~4,000 words of which
 * ~250 hold one non-zero byte each, the low one: one byte read a count, not the whole word.
 */
function readSparseCounts(
  buf: Uint8Array,
  start: number,
  end: number,
  wordSize: number,
  limit: number,
  layout: HdrLayout,
  countsLength: number,
  highest: number,
  nonZero: Int32Array,
): IndexedHistogram {
  const indices = indexScratch;
  const counts = countScratch;
  const last = nonZero.length;
  const shift = wordSize === 8 ? 3 : wordSize === 4 ? 2 : 1;
  // The top byte of a word: its sign bit makes the count negative.
  const top = wordSize - 1;
  let n = 0;
  let total = 0;
  let widest = 0;
  // The first non-zero byte at or after the payload (the header's come before it).
  let next = 0;
  while (next < last && nonZero[next]! < start) next++;
  while (next < last) {
    const first = nonZero[next]!;
    if (first >= end) break;
    const index = (first - start) >> shift;
    const wordEnd = start + ((index + 1) << shift);
    // Bytes above the low four (8-byte words only), and the low ones, apart: each part is exact.
    let high = 0;
    let low = 0;
    let signByte = 0;
    do {
      const at = nonZero[next]!;
      const place = wordEnd - 1 - at;
      const v = buf[at]!;
      if (place === top) signByte = v;
      if (place >= 4) high += v * BYTE_WEIGHTS[place - 4]!;
      else low += v * BYTE_WEIGHTS[place]!;
      next++;
    } while (next < last && nonZero[next]! < wordEnd);
    if (signByte >= 0x80) throw new HdrDecodeError('payload', `negative count at index ${index}`);
    if (high >= 0x200000) throw new HdrDecodeError('payload', `count at index ${index} exceeds 2^53`);
    const count = high * 4294967296 + low;
    if (index >= limit) throw rangeError(index, layout, countsLength, highest);
    indices[n] = index;
    counts[n++] = count;
    total += count;
    if (count > widest) widest = count;
  }
  return buildIndexed(n, total, widest);
}

function readLeb128Counts(
  buf: Uint8Array,
  start: number,
  end: number,
  layout: HdrLayout,
  countsLength: number,
  highest: number,
): IndexedHistogram {
  const limit = Math.min(countsLength, layout.exactIndexLimit);
  ensureScratch(Math.min(end - start, limit));
  const indices = indexScratch;
  const counts = countScratch;
  let n = 0;
  let total = 0;
  let widest = 0;
  let index = 0;
  let p = start;
  while (p < end) {
    let b = buf[p++]!;
    const odd = b & 1;
    // half = floor(zigzag / 2), accumulated directly so that it stays exact up to 2^53 even when
    // the zigzag word itself (up to 2^54 for legal counts) does not.
    let half = (b & 0x7f) >>> 1;
    if (b >= 0x80) {
      let weight = 64;
      for (let byteNo = 1; ; byteNo++) {
        if (p >= end) throw new HdrDecodeError('truncated', 'payload ends inside a LEB128 count');
        b = buf[p++]!;
        if (byteNo === 8) {
          // The ninth byte of Java's LEB128-64b9B carries a full 8 bits.
          half += b * weight;
          break;
        }
        half += (b & 0x7f) * weight;
        if (b < 0x80) break;
        weight *= 128;
      }
    }
    if (odd) {
      // ZigZag odd = negative value -(half + 1): a run of that many zero counts.
      if (half >= INT32_MAX) {
        throw new HdrDecodeError('payload', `a run of ${half + 1} zero counts exceeds Java's limit of 2^31 - 1`);
      }
      index += half + 1;
      continue;
    }
    if (half !== 0) {
      if (half > MAX_EXACT) throw new HdrDecodeError('payload', `count at index ${index} exceeds 2^53`);
      if (index >= limit) throw rangeError(index, layout, countsLength, highest);
      indices[n] = index;
      counts[n++] = half;
      total += half;
      if (half > widest) widest = half;
    }
    index++;
  }
  return buildIndexed(n, total, widest);
}

/**
 * Histograms' arrays are views of shared slabs: allocating an ArrayBuffer per histogram cost more
 * than decoding it. A slab is kept alive by any histogram in it; the histograms of one file are
 * made together and live together, so little is held beyond them. A parse worker transfers a
 * file's slabs to the engine worker, which detaches them here (byte length 0): the next histogram
 * then starts a new slab, even an empty one, which needs no room but a live buffer.
 */
const SLAB_DOUBLES = 1 << 16;
let slab = new ArrayBuffer(0);
let slabUsed = 0;

/** Room for `doubles` values: its byte offset in `slab`. */
function slabSpace(doubles: number): number {
  if (slab.byteLength === 0 || slabUsed + doubles > slab.byteLength / 8) {
    // A histogram too big for a slab gets a buffer of its own, and leaves the current slab in use.
    if (doubles > SLAB_DOUBLES / 4) return -1;
    slab = new ArrayBuffer(8 * SLAB_DOUBLES);
    slabUsed = 0;
  }
  const offset = 8 * slabUsed;
  slabUsed += doubles;
  return offset;
}

/** Largest count a Uint32Array holds. */
const UINT32_MAX = 0xffffffff;

/**
 * Turns the first `n` scratch (index, count) pairs into a histogram; `widest` is its largest count,
 * which decides whether 32-bit counts hold them all (see BucketCounts). A total past 2^53 is refused.
 */
function buildIndexed(n: number, totalCount: number, widest: number): IndexedHistogram {
  if (totalCount > MAX_EXACT) throw new HdrDecodeError('payload', 'total count exceeds 2^53');
  const narrow = widest <= UINT32_MAX;
  const countBytes = narrow ? 4 : 8;
  // Counts first, at the slab's 8-byte alignment; the indices (4 bytes) after them.
  let offset = slabSpace(Math.ceil(((countBytes + 4) * n) / 8));
  let buffer = slab;
  if (offset < 0) {
    buffer = new ArrayBuffer((countBytes + 4) * n);
    offset = 0;
  }
  const index = new Int32Array(buffer, offset + countBytes * n, n);
  const indices = indexScratch;
  const counts = countScratch;
  // Copied here rather than with set(subarray()): in Chromium that pair cost 13% of a decode. One
  // loop per count type keeps each loop's stores of one kind.
  if (narrow) {
    const count = new Uint32Array(buffer, offset, n);
    for (let j = 0; j < n; j++) {
      count[j] = counts[j]!;
      index[j] = indices[j]!;
    }
    return { index, count, totalCount };
  }
  const count = new Float64Array(buffer, offset, n);
  for (let j = 0; j < n; j++) {
    count[j] = counts[j]!;
    index[j] = indices[j]!;
  }
  return { index, count, totalCount };
}

// ---------------------------------------------------------------------------------------------
// Encode

/**
 * The V2 (uncompressed) encoding, as 2.2.2's encodeIntoByteBuffer writes it: counts up to the
 * highest non-empty index (index 0 alone for an empty histogram), runs of two or more zero counts
 * as one negative word. Throws RangeError if `decoded` is not a valid histogram of its precision.
 */
export function encodeHistogramV2(decoded: DecodedHistogram): Uint8Array {
  const { precision, histogram } = decoded;
  const layout = hdrLayout(precision);
  const { lo, width, count } = histogram;
  const n = lo.length;
  if (width.length !== n || count.length !== n) throw new RangeError('lo, width and count differ in length');
  const indices = new Int32Array(n);
  let total = 0;
  for (let j = 0; j < n; j++) {
    const index = layout.countsArrayIndex(lo[j]!);
    if (layout.valueFromIndex(index) !== lo[j] || layout.sizeOfEquivalentValueRange(lo[j]!) !== width[j]) {
      throw new RangeError(`bucket ${j} (${lo[j]}, width ${width[j]}) is not a bucket of this precision`);
    }
    if (j > 0 && index <= indices[j - 1]!) throw new RangeError('buckets are not in increasing value order');
    const c = count[j]!;
    if (!Number.isSafeInteger(c) || c <= 0) throw new RangeError(`bucket ${j} has an invalid count ${c}`);
    indices[j] = index;
    total += c;
  }
  if (total !== histogram.totalCount) {
    throw new RangeError(`totalCount ${histogram.totalCount} differs from the sum of counts ${total}`);
  }
  let highest = decoded.highestTrackableValue;
  if (!Number.isInteger(highest)) throw new RangeError(`highestTrackableValue ${highest} is not an integer`);
  highest = Math.max(highest, 2 * precision.lowestDiscernibleValue);
  // Java histograms auto-resize to hold what they record; declare a range that holds the data (a
  // sum of histograms can outgrow each one's), or the result would not decode.
  if (n > 0 && indices[n - 1]! >= layout.countsArrayLength(highest)) highest = lo[n - 1]! + width[n - 1]! - 1;

  // Worst case per bucket: a zero run (below 2^31: 5 bytes) and a count (below 2^53: 8 bytes).
  const out = new Uint8Array(HEADER_SIZE + 13 * n + 1);
  const view = new DataView(out.buffer);
  view.setInt32(0, V2_COOKIE | V2_COOKIE_FLAG);
  view.setInt32(8, 0);
  view.setInt32(12, precision.significantDigits);
  view.setBigInt64(16, BigInt(precision.lowestDiscernibleValue));
  view.setBigInt64(24, highest >= 2 ** 63 ? 2n ** 63n - 1n : BigInt(highest));
  view.setFloat64(32, decoded.integerToDoubleConversionRatio);
  let p = HEADER_SIZE;
  let next = 0;
  for (let j = 0; j < n; j++) {
    const zeros = indices[j]! - next;
    if (zeros > 1) p = putZigZag(out, p, -zeros);
    else if (zeros === 1) p = putZigZag(out, p, 0);
    p = putZigZag(out, p, count[j]!);
    next = indices[j]! + 1;
  }
  if (n === 0) p = putZigZag(out, p, 0);
  view.setInt32(4, p - HEADER_SIZE);
  return out.slice(0, p);
}

/** Java ZigZagEncoding.putLong for |value| < 2^53. */
function putZigZag(out: Uint8Array, p: number, value: number): number {
  let z = value >= 0 ? value * 2 : -value * 2 - 1;
  for (let byteNo = 1; byteNo < 9 && z >= 0x80; byteNo++) {
    out[p++] = (z % 128) | 0x80;
    z = Math.floor(z / 128);
  }
  out[p++] = z;
  return p;
}

/** Base64 of the V2 compressed encoding, as HdrHistogram 2.2.2's HistogramLogWriter writes it. */
export function encodeHistogramV2Compressed(decoded: DecodedHistogram): string {
  return encodeBase64(compressedEnvelope(encodeHistogramV2(decoded), V2_COMPRESSED_COOKIE | V2_COOKIE_FLAG));
}

/** The compressed form around an encoded histogram: cookie, deflated length, zlib stream. */
export function compressedEnvelope(inner: Uint8Array, cookie: number, level: 6 | 9 = 6): Uint8Array {
  const zlib = zlibSync(inner, { level });
  const out = new Uint8Array(8 + zlib.length);
  const view = new DataView(out.buffer);
  view.setInt32(0, cookie);
  view.setInt32(4, zlib.length);
  out.set(zlib, 8);
  return out;
}
