/**
 * zlib (RFC 1950) / DEFLATE (RFC 1951) decompression for HdrHistogram's compressed encodings.
 *
 * YCSB 0.17 writes V1 histograms: one fixed 8-byte count per bucket, so a blob of ~270 bytes
 * inflates to ~16 KB that is almost all zero bytes. A general inflater (fflate) spends most of a
 * histogram's decode time writing those zeros one by one. This one writes into a buffer that is
 * all zeros between calls, so a back-reference whose source bytes are all zero — most matches
 * in such data — is skipped instead of copied, and of the others only the non-zero bytes are
 * copied. It marks the bytes it wrote non-zero (one bit per byte) for its own use, and lists their
 * positions, which lets the caller read only the counts holding them.
 *
 * It rejects what zlib rejects (bad header, over-subscribed or incomplete codes, distances too far
 * back, truncated input), except that, like fflate before it, it does not verify the Adler-32
 * checksum (its cost would be a pass over every inflated byte): the structure of the stream is
 * checked, its checksum only for presence.
 *
 * One file of over 500 lines: the bit reader, the Huffman tables and the zero-skipping copy share
 * state in the hot loop and are only fast inlined together.
 */

export class InflateError extends Error {
  override readonly name = 'InflateError';
}

/** Bits resolved by one table look-up; longer codes (rare in histogram blobs) fall back to a canonical walk. */
const FAST_BITS = 10;
const FAST_SIZE = 1 << FAST_BITS;
const MAX_BITS = 15;

const LENGTH_BASE = Uint16Array.from([3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]);
const LENGTH_EXTRA = Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]);
const DIST_BASE = Uint16Array.from([
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
]);
const DIST_EXTRA = Uint8Array.from([0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]);
const CODE_LENGTH_ORDER = Uint8Array.from([16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]);

/** A canonical Huffman code: a direct table for codes up to FAST_BITS, counts and sorted symbols for the rest. */
class Huffman {
  /** Indexed by the next `fastBits` input bits: symbol << 4 | code length, or 0 (longer code, or none). */
  readonly fast = new Uint16Array(FAST_SIZE);
  /** Table width: the longest code, up to FAST_BITS, so that small codes fill small tables. */
  fastMask = 0;
  readonly count = new Uint16Array(MAX_BITS + 1);
  readonly symbols: Uint16Array;
  private readonly offsets = new Uint16Array(MAX_BITS + 2);

  constructor(maxSymbols: number) {
    this.symbols = new Uint16Array(maxSymbols);
  }

  /**
   * Builds the code for `lengths[from, from + n)`. As zlib does, an over-subscribed set is an
   * error, and so is an incomplete one unless it is empty (decoding from it then fails) or, for
   * literal/length and distance codes (`allowIncomplete`), a single 1-bit code.
   */
  build(lengths: Uint8Array, from: number, n: number, allowIncomplete: boolean): void {
    const { count, offsets, symbols, fast } = this;
    count.fill(0);
    // Unused symbols (length 0) come in long runs: counting them would chain increments of count[0].
    for (let i = 0; i < n; i++) {
      const len = lengths[from + i]!;
      if (len !== 0) count[len]!++;
    }
    let left = 1;
    let max = 0;
    for (let len = 1; len <= MAX_BITS; len++) {
      left = (left << 1) - count[len]!;
      if (left < 0) throw new InflateError('invalid Huffman code: over-subscribed');
      if (count[len]! > 0) max = len;
    }
    if (left > 0 && max !== 0 && !(allowIncomplete && max === 1)) throw new InflateError('invalid Huffman code: incomplete');
    const bits = Math.max(1, Math.min(max, FAST_BITS));
    const size = 1 << bits;
    this.fastMask = size - 1;
    const complete = left === 0 && max <= bits;
    // A complete code no longer than the table writes every entry; otherwise some stay 0, and
    // decodeSlow needs the symbols in canonical order.
    if (!complete) {
      fast.fill(0, 0, size);
      offsets[1] = 0;
      for (let len = 1; len < MAX_BITS; len++) offsets[len + 1] = offsets[len]! + count[len]!;
      for (let s = 0; s < n; s++) {
        const len = lengths[from + s]!;
        if (len !== 0) symbols[offsets[len]!++] = s;
      }
    }
    // Canonical codes: by length, then by symbol. nextCode[len] is the next code of that length,
    // so one pass in symbol order assigns them.
    let code = 0;
    for (let len = 1; len <= bits; len++) {
      code = (code + count[len - 1]!) << 1;
      nextCode[len] = code;
    }
    for (let s = 0; s < n; s++) {
      const len = lengths[from + s]!;
      if (len === 0 || len > bits) continue;
      const entry = (s << 4) | len;
      for (let j = reverse(nextCode[len]!++, len); j < size; j += 1 << len) fast[j] = entry;
    }
  }
}

/** Scratch for Huffman.build: the next canonical code of each length. */
const nextCode = new Uint16Array(MAX_BITS + 1);

function reverse(code: number, len: number): number {
  let x = code;
  x = ((x & 0xaaaa) >>> 1) | ((x & 0x5555) << 1);
  x = ((x & 0xcccc) >>> 2) | ((x & 0x3333) << 2);
  x = ((x & 0xf0f0) >>> 4) | ((x & 0x0f0f) << 4);
  x = ((x & 0xff00) >>> 8) | ((x & 0x00ff) << 8);
  return x >>> (16 - len);
}

const fixedLitLen = new Huffman(288);
const fixedDist = new Huffman(32);
{
  const lengths = new Uint8Array(288 + 32);
  lengths.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288).fill(5, 288);
  fixedLitLen.build(lengths, 0, 288, false);
  fixedDist.build(lengths, 288, 32, false);
}
const dynLitLen = new Huffman(288);
const dynDist = new Huffman(32);
const codeLengthCode = new Huffman(19);
const codeLengths = new Uint8Array(288 + 32);
const codeLengthLengths = new Uint8Array(19);

/** Output buffer kept between calls, all zero outside the previous call's marked bytes. */
const INITIAL_OUT = 256 * 1024;
/** A buffer grown beyond this for one large input is dropped rather than kept. */
const MAX_KEPT_OUT = 8 * 1024 * 1024;
let out = new Uint8Array(INITIAL_OUT);
/**
 * One bit per byte of `out` (bit p & 31 of word p >>> 5), set where the last call may have written
 * a non-zero byte. A bitmap answers "is this match's source all zeros?" with a few words where a
 * sorted list of written ranges needs a search, and leads copies straight to the non-zero bytes.
 */
let marks = new Int32Array(INITIAL_OUT >>> 5);
/**
 * Positions of the bytes the last call wrote non-zero, ascending, each once (`nonZeroCount` of
 * them): output only grows forward, so they come in order. A reader of sparse output walks this
 * list instead of searching the marks (one entry per output byte, so it never fills).
 */
let nonZero = new Int32Array(INITIAL_OUT);
let nonZeroCount = 0;
/** Length of the last call's output: everything past it is zero. */
let written = 0;
/** End of the last call's last marked byte (all of `out` while a call runs, in case it fails). */
let markedEnd = 0;

/** Marks bytes [a, b), b > a. */
function markRange(m: Int32Array, a: number, b: number): void {
  let k = a >>> 5;
  const lastWord = (b - 1) >>> 5;
  const tail = -1 >>> (31 - ((b - 1) & 31));
  if (k === lastWord) {
    m[k]! |= (-1 << (a & 31)) & tail;
    return;
  }
  m[k]! |= -1 << (a & 31);
  for (k++; k < lastWord; k++) m[k] = -1;
  m[lastWord]! |= tail;
}

/** Whether any byte of [a, b), b > a, is marked. */
function anyMarked(m: Int32Array, a: number, b: number): boolean {
  let k = a >>> 5;
  const lastWord = (b - 1) >>> 5;
  const tail = -1 >>> (31 - ((b - 1) & 31));
  if (k === lastWord) return (m[k]! & (-1 << (a & 31)) & tail) !== 0;
  if ((m[k]! & (-1 << (a & 31))) !== 0) return true;
  for (k++; k < lastWord; k++) if (m[k] !== 0) return true;
  return (m[lastWord]! & tail) !== 0;
}

/** Below this distance a repeated pattern with any non-zero byte is dense: copy all of it. */
const DENSE_DISTANCE = 16;
/** Up to this length a JS loop copies faster than calls of the native copyWithin. */
const SHORT_COPY = 64;

/**
 * Copies a match of `len` bytes from `distance` back to `pos`, where the source has a marked byte.
 * Outside marked bytes both source and destination are zero, so only the source's non-zero bytes
 * are copied. An overlapping match repeats its first `distance` bytes; it is copied a period at a
 * time, each period's source being the one written just before it.
 */
function copyMatch(o: Uint8Array, m: Int32Array, z: Int32Array, zn: number, pos: number, distance: number, len: number): number {
  let s = pos - distance;
  if (distance < DENSE_DISTANCE) {
    if (len <= SHORT_COPY) {
      // Front to back, byte by byte, an overlapping copy repeats the period as DEFLATE means it to.
      for (let k = 0; k < len; k++) {
        const v = o[s + k]!;
        o[pos + k] = v;
        if (v !== 0) z[zn++] = pos + k;
      }
      markRange(m, pos, pos + len);
      return zn;
    }
    // Native copies of a doubling span: the pattern is periodic, so any copied prefix is a source.
    let done = Math.min(len, distance);
    o.copyWithin(pos, s, s + done);
    while (done < len) {
      const n = Math.min(done, len - done);
      o.copyWithin(pos + done, pos, pos + n);
      done += n;
    }
    markRange(m, pos, pos + len);
    return listNonZero(o, z, zn, pos, pos + len);
  }
  for (let remaining = len; remaining > 0; ) {
    const chunk = remaining < distance ? remaining : distance;
    const sEnd = s + chunk;
    // A period's destination lies at or after sEnd, so marks set while copying it are never its source.
    const lastWord = (sEnd - 1) >>> 5;
    for (let k = s >>> 5; k <= lastWord; k++) {
      let w = m[k]!;
      if (k === s >>> 5) w &= -1 << (s & 31);
      if (k === lastWord) w &= -1 >>> (31 - ((sEnd - 1) & 31));
      while (w !== 0) {
        const low = w & -w;
        w ^= low;
        const x = (k << 5) | (31 - Math.clz32(low));
        const v = o[x]!;
        // A dense copy marks zero bytes too; they need no copy and no mark.
        if (v !== 0) {
          const y = x + distance;
          o[y] = v;
          m[y >>> 5]! |= 1 << (y & 31);
          z[zn++] = y;
        }
      }
    }
    s = sEnd;
    remaining -= chunk;
  }
  return zn;
}

/** Adds the non-zero bytes of `o[a, b)` to the list `z` of `zn` positions; returns its new length. */
function listNonZero(o: Uint8Array, z: Int32Array, zn: number, a: number, b: number): number {
  let n = zn;
  for (let p = a; p < b; p++) if (o[p] !== 0) z[n++] = p;
  return n;
}

/** Restores the all-zero state the skipping of zero matches relies on. */
function restoreZeros(): void {
  // One native fill of the last output costs less than clearing its many small runs.
  if (out.length > MAX_KEPT_OUT) {
    out = new Uint8Array(INITIAL_OUT);
    marks = new Int32Array(INITIAL_OUT >>> 5);
    nonZero = new Int32Array(INITIAL_OUT);
  } else {
    // Past the last marked byte everything is zero already: V1 payloads end in long zero runs.
    out.fill(0, 0, markedEnd);
    marks.fill(0, 0, (markedEnd + 31) >>> 5);
  }
  written = 0;
  markedEnd = 0;
  nonZeroCount = 0;
}

function grow(needed: number): void {
  const size = Math.max(needed, out.length * 2);
  const bigger = new Uint8Array(size);
  bigger.set(out);
  out = bigger;
  const biggerMarks = new Int32Array((size + 31) >>> 5);
  biggerMarks.set(marks);
  marks = biggerMarks;
  const biggerNonZero = new Int32Array(size);
  biggerNonZero.set(nonZero);
  nonZero = biggerNonZero;
  // If this call fails, the next clears everything it may have written.
  markedEnd = out.length;
}

/**
 * The positions of the bytes the last `inflateZlib` call wrote non-zero, ascending: every non-zero
 * byte of its output is at one of them. Valid until the next call.
 */
export function lastNonZero(): Int32Array {
  return nonZero.subarray(0, nonZeroCount);
}

/**
 * Inflates a zlib stream. The result is a view of a shared buffer, valid until the next call.
 * Output is bounded by DEFLATE's own 1032:1 limit on the input, so its size never comes from a
 * header field.
 */
export function inflateZlib(data: Uint8Array): Uint8Array {
  restoreZeros();
  if (data.length < 2) throw new InflateError('zlib data too short');
  const cmf = data[0]!;
  const flg = data[1]!;
  if ((cmf & 15) !== 8 || cmf >>> 4 > 7 || ((cmf << 8) | flg) % 31 !== 0) throw new InflateError('invalid zlib header');
  if (flg & 32) throw new InflateError('zlib data needs a preset dictionary');
  // If inflating fails part-way, the next call clears everything it may have written.
  markedEnd = out.length;
  written = inflateRaw(data, 2);
  return out.subarray(0, written);
}

/**
 * Decodes a code longer than the fast table's width (or none), canonically, bit by bit (RFC 1951
 * codes are packed starting from the MSB of the code). Returns symbol << 4 | length, or -1.
 */
function decodeSlow(h: Huffman, bitBuf: number): number {
  let code = 0;
  let first = 0;
  let index = 0;
  for (let len = 1; len <= MAX_BITS; len++) {
    code |= (bitBuf >>> (len - 1)) & 1;
    const count = h.count[len]!;
    if (code - first < count) return (h.symbols[index + code - first]! << 4) | len;
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  return -1;
}

const END_OF_DATA = 'unexpected end of compressed data';

/**
 * DEFLATE data from `data[start]` into `out`; returns the output length. The bit reader lives in
 * locals (closures over them cost a heap access per bit operation), so the refill and Huffman
 * look-up are written out at each use; refills happen exactly where a bit-at-a-time reader would
 * need them, so damaged streams fail with the same error at the same point.
 */
function inflateRaw(data: Uint8Array, start: number): number {
  const end = data.length;
  let inPos = start;
  let bitBuf = 0;
  let bitCount = 0;
  let pos = 0;
  let final = 0;
  let type = 0;
  let o = out;
  let m = marks;
  let z = nonZero;
  let zn = 0;
  let lastMark = 0;
  // Bytes past the end read as zeros, so that a look-up may peek beyond the last code; a stream
  // that actually consumes them is truncated (checked at every refill and at the end).
  while (!final) {
    // The block header as two reads (1 and 2 bits), refilling where each would.
    for (let width = 1; width <= 2; width++) {
      if (bitCount < width) {
        while (bitCount <= 24) {
          if (inPos > end + 4) throw new InflateError(END_OF_DATA);
          bitBuf |= (inPos < end ? data[inPos]! : 0) << bitCount;
          inPos++;
          bitCount += 8;
        }
      }
      if (width === 1) final = bitBuf & 1;
      else type = bitBuf & 3;
      bitBuf >>>= width;
      bitCount -= width;
    }
    if (type === 0) {
      // Stored: drop to a byte boundary; the whole bytes still in the bit buffer come first.
      const p = inPos - ((bitCount - (bitCount & 7)) >>> 3);
      bitBuf = 0;
      bitCount = 0;
      if (p + 4 > end) throw new InflateError(END_OF_DATA);
      const len = data[p]! | (data[p + 1]! << 8);
      const nlen = data[p + 2]! | (data[p + 3]! << 8);
      if ((len ^ 0xffff) !== nlen) throw new InflateError('invalid stored block length');
      if (p + 4 + len > end) throw new InflateError(END_OF_DATA);
      if (pos + len > o.length) {
        grow(pos + len);
        o = out;
        m = marks;
        z = nonZero;
      }
      o.set(data.subarray(p + 4, p + 4 + len), pos);
      if (len > 0) {
        markRange(m, pos, pos + len);
        zn = listNonZero(o, z, zn, pos, pos + len);
        lastMark = pos + len;
      }
      pos += len;
      inPos = p + 4 + len;
      continue;
    }
    let litLen: Huffman;
    let dist: Huffman;
    if (type === 1) {
      litLen = fixedLitLen;
      dist = fixedDist;
    } else if (type === 2) {
      const r = readDynamicCodes(data, inPos, bitBuf, bitCount);
      inPos = r.inPos;
      bitBuf = r.bitBuf;
      bitCount = r.bitCount;
      litLen = dynLitLen;
      dist = dynDist;
    } else throw new InflateError('invalid block type');
    const litFast = litLen.fast;
    const litMask = litLen.fastMask;
    const distFast = dist.fast;
    const distMask = dist.fastMask;

    for (;;) {
      if (bitCount < MAX_BITS) {
        if (inPos + 4 <= end) {
          // At most 4 bytes, all inside the input: the end checks below cannot fire.
          do {
            bitBuf |= data[inPos++]! << bitCount;
            bitCount += 8;
          } while (bitCount <= 24);
        } else {
          while (bitCount <= 24) {
            if (inPos > end + 4) throw new InflateError(END_OF_DATA);
            bitBuf |= (inPos < end ? data[inPos]! : 0) << bitCount;
            inPos++;
            bitCount += 8;
          }
        }
      }
      let e = litFast[bitBuf & litMask]!;
      if (e === 0) {
        e = decodeSlow(litLen, bitBuf);
        if (e < 0) throw new InflateError('invalid Huffman code');
      }
      bitBuf >>>= e & 15;
      bitCount -= e & 15;
      const sym = e >>> 4;
      if (sym < 256) {
        if (pos >= o.length) {
          grow(pos + 1);
          o = out;
          m = marks;
          z = nonZero;
        }
        // The buffer is zero there already: a zero literal needs no write.
        if (sym !== 0) {
          o[pos] = sym;
          m[pos >>> 5]! |= 1 << (pos & 31);
          z[zn++] = pos;
          lastMark = pos + 1;
        }
        pos++;
        continue;
      }
      if (sym === 256) break;
      const li = sym - 257;
      if (li >= 29) throw new InflateError('invalid literal/length symbol');
      let len = LENGTH_BASE[li]!;
      const lenExtra = LENGTH_EXTRA[li]!;
      if (lenExtra > 0) {
        if (bitCount < lenExtra) {
          while (bitCount <= 24) {
            if (inPos > end + 4) throw new InflateError(END_OF_DATA);
            bitBuf |= (inPos < end ? data[inPos]! : 0) << bitCount;
            inPos++;
            bitCount += 8;
          }
        }
        len += bitBuf & ((1 << lenExtra) - 1);
        bitBuf >>>= lenExtra;
        bitCount -= lenExtra;
      }
      if (bitCount < MAX_BITS) {
        if (inPos + 4 <= end) {
          // At most 4 bytes, all inside the input: the end checks below cannot fire.
          do {
            bitBuf |= data[inPos++]! << bitCount;
            bitCount += 8;
          } while (bitCount <= 24);
        } else {
          while (bitCount <= 24) {
            if (inPos > end + 4) throw new InflateError(END_OF_DATA);
            bitBuf |= (inPos < end ? data[inPos]! : 0) << bitCount;
            inPos++;
            bitCount += 8;
          }
        }
      }
      e = distFast[bitBuf & distMask]!;
      if (e === 0) {
        e = decodeSlow(dist, bitBuf);
        if (e < 0) throw new InflateError('invalid Huffman code');
      }
      bitBuf >>>= e & 15;
      bitCount -= e & 15;
      const ds = e >>> 4;
      if (ds >= 30) throw new InflateError('invalid distance symbol');
      let distance = DIST_BASE[ds]!;
      const distExtra = DIST_EXTRA[ds]!;
      if (distExtra > 0) {
        if (bitCount < distExtra) {
          while (bitCount <= 24) {
            if (inPos > end + 4) throw new InflateError(END_OF_DATA);
            bitBuf |= (inPos < end ? data[inPos]! : 0) << bitCount;
            inPos++;
            bitCount += 8;
          }
        }
        distance += bitBuf & ((1 << distExtra) - 1);
        bitBuf >>>= distExtra;
        bitCount -= distExtra;
      }
      if (distance > pos) throw new InflateError('invalid distance: too far back');
      if (pos + len > o.length) {
        grow(pos + len);
        o = out;
        m = marks;
        z = nonZero;
      }
      // A match whose source is all zeros copies zeros onto zeros: nothing to do.
      const s = pos - distance;
      if (anyMarked(m, s, s + (len < distance ? len : distance))) {
        zn = copyMatch(o, m, z, zn, pos, distance, len);
        lastMark = pos + len;
      }
      pos += len;
    }
  }
  // The Adler-32 trailer must be there (a stream cut short is damaged), though it is not checked.
  if (inPos - (bitCount >>> 3) + 4 > end) throw new InflateError(END_OF_DATA);
  markedEnd = lastMark;
  nonZeroCount = zn;
  return pos;
}

/** Bit reader state handed back by readDynamicCodes (reused: one block header per histogram). */
const readerState = { inPos: 0, bitBuf: 0, bitCount: 0 };

/**
 * Reads a dynamic block's code lengths and builds dynLitLen and dynDist from them. Every histogram
 * has one such header, and reading it was half of inflating a histogram: the bit reader is in
 * locals here too (closures over them cost a heap access per bit operation), each read refilling
 * exactly where inflateRaw's would.
 */
function readDynamicCodes(data: Uint8Array, inPos: number, bitBuf: number, bitCount: number): typeof readerState {
  const end = data.length;
  // 5 + 5 + 4 header bits at once: reads of 5, 5 and 4 bits would refill, at the same input
  // position, exactly when fewer than 14 bits are there.
  if (bitCount < 14) {
    while (bitCount <= 24) {
      if (inPos > end + 4) throw new InflateError(END_OF_DATA);
      bitBuf |= (inPos < end ? data[inPos]! : 0) << bitCount;
      inPos++;
      bitCount += 8;
    }
  }
  const nLitLen = (bitBuf & 31) + 257;
  const nDist = ((bitBuf >>> 5) & 31) + 1;
  const nCodeLen = ((bitBuf >>> 10) & 15) + 4;
  bitBuf >>>= 14;
  bitCount -= 14;
  if (nLitLen > 286 || nDist > 30) throw new InflateError('too many length or distance symbols');
  codeLengthLengths.fill(0);
  for (let i = 0; i < nCodeLen; i++) {
    if (bitCount < 3) {
      while (bitCount <= 24) {
        if (inPos > end + 4) throw new InflateError(END_OF_DATA);
        bitBuf |= (inPos < end ? data[inPos]! : 0) << bitCount;
        inPos++;
        bitCount += 8;
      }
    }
    codeLengthLengths[CODE_LENGTH_ORDER[i]!] = bitBuf & 7;
    bitBuf >>>= 3;
    bitCount -= 3;
  }
  codeLengthCode.build(codeLengthLengths, 0, 19, false);
  const fast = codeLengthCode.fast;
  const mask = codeLengthCode.fastMask;
  const total = nLitLen + nDist;
  for (let i = 0; i < total; ) {
    // As inflateRaw refills before a symbol; a code length code is at most 7 bits, so its repeat
    // bits (at most 7) are there too.
    if (bitCount < MAX_BITS) {
      while (bitCount <= 24) {
        if (inPos > end + 4) throw new InflateError(END_OF_DATA);
        bitBuf |= (inPos < end ? data[inPos]! : 0) << bitCount;
        inPos++;
        bitCount += 8;
      }
    }
    let e = fast[bitBuf & mask]!;
    if (e === 0) {
      e = decodeSlow(codeLengthCode, bitBuf);
      if (e < 0) throw new InflateError('invalid Huffman code');
    }
    bitBuf >>>= e & 15;
    bitCount -= e & 15;
    const sym = e >>> 4;
    if (sym < 16) {
      codeLengths[i++] = sym;
      continue;
    }
    let value = 0;
    let repeat: number;
    if (sym === 16) {
      if (i === 0) throw new InflateError('invalid bit length repeat');
      value = codeLengths[i - 1]!;
      repeat = 3 + (bitBuf & 3);
      bitBuf >>>= 2;
      bitCount -= 2;
    } else if (sym === 17) {
      repeat = 3 + (bitBuf & 7);
      bitBuf >>>= 3;
      bitCount -= 3;
    } else {
      repeat = 11 + (bitBuf & 127);
      bitBuf >>>= 7;
      bitCount -= 7;
    }
    if (i + repeat > total) throw new InflateError('invalid bit length repeat');
    // At most 138 bytes: a loop costs less than a call of the native fill.
    for (const stop = i + repeat; i < stop; i++) codeLengths[i] = value;
  }
  if (codeLengths[256] === 0) throw new InflateError('invalid code: missing end-of-block');
  dynLitLen.build(codeLengths, 0, nLitLen, true);
  dynDist.build(codeLengths, nLitLen, nDist, true);
  readerState.inPos = inPos;
  readerState.bitBuf = bitBuf;
  readerState.bitCount = bitCount;
  return readerState;
}
