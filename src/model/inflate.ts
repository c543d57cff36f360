/**
 * zlib (RFC 1950) / DEFLATE (RFC 1951) decompression for HdrHistogram's compressed encodings.
 *
 * YCSB 0.17 writes V1 histograms: one fixed 8-byte count per bucket, so a blob of ~270 bytes
 * inflates to ~16 KB that is almost all zero bytes. A general inflater (fflate) spends most of a
 * histogram's decode time writing those zeros one by one. This one writes into a buffer that is
 * all zeros between calls, so a back-reference whose source bytes are all zero — most matches
 * in such data — is skipped instead of copied. It records where it did write (the dirty ranges),
 * which lets the caller scan only those bytes for non-zero counts.
 *
 * It rejects what zlib rejects (bad header, over-subscribed or incomplete codes, distances too far
 * back, truncated input), except that, like fflate before it, it does not verify the Adler-32
 * checksum (its cost would be a pass over every inflated byte): the structure of the stream is
 * checked, its checksum only for presence.
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
    for (let i = 0; i < n; i++) count[lengths[from + i]!]!++;
    count[0] = 0;
    let left = 1;
    let max = 0;
    for (let len = 1; len <= MAX_BITS; len++) {
      left = (left << 1) - count[len]!;
      if (left < 0) throw new InflateError('invalid Huffman code: over-subscribed');
      if (count[len]! > 0) max = len;
    }
    if (left > 0 && max !== 0 && !(allowIncomplete && max === 1)) throw new InflateError('invalid Huffman code: incomplete');
    offsets[1] = 0;
    for (let len = 1; len < MAX_BITS; len++) offsets[len + 1] = offsets[len]! + count[len]!;
    for (let s = 0; s < n; s++) {
      const len = lengths[from + s]!;
      if (len !== 0) symbols[offsets[len]!++] = s;
    }
    const bits = Math.max(1, Math.min(max, FAST_BITS));
    const size = 1 << bits;
    this.fastMask = size - 1;
    // A complete code no longer than the table writes every entry; otherwise some stay 0.
    if (left > 0 || max > bits) fast.fill(0, 0, size);
    let code = 0;
    let k = 0;
    for (let len = 1; len <= bits; len++) {
      for (let c = count[len]!; c > 0; c--, k++, code++) {
        const entry = (symbols[k]! << 4) | len;
        for (let j = reverse(code, len); j < size; j += 1 << len) fast[j] = entry;
      }
      code <<= 1;
    }
  }
}

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

/** Output buffer kept between calls, all zero outside the previous call's dirty ranges. */
const INITIAL_OUT = 256 * 1024;
/** A buffer grown beyond this for one large input is dropped rather than kept. */
const MAX_KEPT_OUT = 8 * 1024 * 1024;
let out = new Uint8Array(INITIAL_OUT);
/** [start, end) pairs, in increasing order, of the bytes the last call wrote. */
let dirty = new Int32Array(512);
let dirtyCount = 0;

function markDirty(start: number, end: number): void {
  const last = dirtyCount * 2 - 1;
  if (dirtyCount > 0 && start === dirty[last]) {
    dirty[last] = end;
    return;
  }
  if (dirtyCount * 2 + 2 > dirty.length) {
    const grown = new Int32Array(dirty.length * 2);
    grown.set(dirty);
    dirty = grown;
  }
  dirty[dirtyCount * 2] = start;
  dirty[dirtyCount * 2 + 1] = end;
  dirtyCount++;
}

/** The index of the first dirty range that ends after `at` (dirtyCount if none does). */
function firstRangeEndingAfter(at: number): number {
  // Most matches copy from close behind: look at the last few ranges before bisecting.
  let hi = dirtyCount;
  for (let steps = 0; steps < 4; steps++) {
    if (hi === 0 || dirty[hi * 2 - 1]! <= at) return hi;
    hi--;
  }
  let lo = 0;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (dirty[mid * 2 + 1]! <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Below this distance a repeated pattern with any non-zero byte is dense: copy it byte by byte. */
const DENSE_DISTANCE = 16;

/**
 * Copies a match of `len` bytes from `distance` back to `pos`. Outside the dirty ranges both source
 * and destination are zero, so only the source's dirty bytes are copied: a run of zeros costs a
 * look-up. An overlapping match repeats its first `distance` bytes; it is copied a period at a
 * time, each period's source being the one written just before it.
 */
function copyMatch(pos: number, distance: number, len: number): void {
  let s = pos - distance;
  let i = firstRangeEndingAfter(s);
  if (i === dirtyCount || dirty[i * 2]! >= s + Math.min(len, distance)) return;
  if (distance < DENSE_DISTANCE) {
    // Native copies of a doubling span: the pattern is periodic, so any copied prefix is a source.
    let done = Math.min(len, distance);
    out.copyWithin(pos, s, s + done);
    while (done < len) {
      const n = Math.min(done, len - done);
      out.copyWithin(pos + done, pos, pos + n);
      done += n;
    }
    markDirty(pos, pos + len);
    return;
  }
  for (let remaining = len; remaining > 0; ) {
    const chunk = remaining < distance ? remaining : distance;
    const sEnd = s + chunk;
    // The next period's source is this one's destination: its ranges start at the current end
    // of the list (or in the last range, if the first copy merges into it).
    const next = dirtyCount > 0 ? dirtyCount - 1 : 0;
    for (; i < dirtyCount && dirty[i * 2]! < sEnd; i++) {
      const a = Math.max(dirty[i * 2]!, s);
      const b = Math.min(dirty[i * 2 + 1]!, sEnd);
      // A few bytes each (one count's non-zero bytes): a loop beats a copyWithin() call.
      for (let k = a; k < b; k++) out[k + distance] = out[k]!;
      markDirty(a + distance, b + distance);
    }
    s = sEnd;
    remaining -= chunk;
    i = next;
    while (i < dirtyCount && dirty[i * 2 + 1]! <= s) i++;
  }
}

/** Length of the last call's output: everything past it is zero. */
let written = 0;

/** Restores the all-zero state the skipping of zero matches relies on. */
function restoreZeros(): void {
  // One native fill of the last output costs less than clearing its many small dirty ranges.
  if (out.length > MAX_KEPT_OUT) out = new Uint8Array(INITIAL_OUT);
  else out.fill(0, 0, written);
  written = 0;
  dirtyCount = 0;
}

function grow(needed: number): void {
  const bigger = new Uint8Array(Math.max(needed, out.length * 2));
  bigger.set(out);
  out = bigger;
  // If this call fails, the next clears everything it may have written.
  written = out.length;
}

/**
 * The bytes the last `inflateZlib` call wrote, as [start, end) pairs in `ranges[0, 2 * count)`;
 * every byte of its output outside them is zero. Valid until the next call.
 */
export function lastDirtyRanges(): { ranges: Int32Array; count: number } {
  return { ranges: dirty, count: dirtyCount };
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
  written = out.length;
  written = inflateRaw(data, 2);
  return out.subarray(0, written);
}

/** DEFLATE data from `data[start]` into `out`; returns the output length. */
function inflateRaw(data: Uint8Array, start: number): number {
  const end = data.length;
  let inPos = start;
  let bitBuf = 0;
  let bitCount = 0;
  let pos = 0;
  let final = 0;
  // Bytes past the end read as zeros, so that a look-up may peek beyond the last code; a stream
  // that actually consumes them is truncated (checked at every refill and at the end).
  const refill = (): void => {
    while (bitCount <= 24) {
      if (inPos > end + 4) throw new InflateError('unexpected end of compressed data');
      bitBuf |= (inPos < end ? data[inPos]! : 0) << bitCount;
      inPos++;
      bitCount += 8;
    }
  };
  const bits = (n: number): number => {
    if (bitCount < n) refill();
    const v = bitBuf & ((1 << n) - 1);
    bitBuf >>>= n;
    bitCount -= n;
    return v;
  };
  const decode = (h: Huffman): number => {
    if (bitCount < MAX_BITS) refill();
    const e = h.fast[bitBuf & h.fastMask]!;
    if (e !== 0) {
      const len = e & 15;
      bitBuf >>>= len;
      bitCount -= len;
      return e >>> 4;
    }
    // Canonical decoding, bit by bit (RFC 1951 codes are packed starting from the MSB of the code).
    let code = 0;
    let first = 0;
    let index = 0;
    for (let len = 1; len <= MAX_BITS; len++) {
      code |= (bitBuf >>> (len - 1)) & 1;
      const count = h.count[len]!;
      if (code - first < count) {
        bitBuf >>>= len;
        bitCount -= len;
        return h.symbols[index + code - first]!;
      }
      index += count;
      first = (first + count) << 1;
      code <<= 1;
    }
    throw new InflateError('invalid Huffman code');
  };

  while (!final) {
    final = bits(1);
    const type = bits(2);
    if (type === 0) {
      // Stored: drop to a byte boundary; the whole bytes still in the bit buffer come first.
      bitBuf >>>= bitCount & 7;
      bitCount -= bitCount & 7;
      const p = inPos - (bitCount >>> 3);
      bitBuf = 0;
      bitCount = 0;
      if (p + 4 > end) throw new InflateError('unexpected end of compressed data');
      const len = data[p]! | (data[p + 1]! << 8);
      const nlen = data[p + 2]! | (data[p + 3]! << 8);
      if ((len ^ 0xffff) !== nlen) throw new InflateError('invalid stored block length');
      if (p + 4 + len > end) throw new InflateError('unexpected end of compressed data');
      if (pos + len > out.length) grow(pos + len);
      out.set(data.subarray(p + 4, p + 4 + len), pos);
      if (len > 0) markDirty(pos, pos + len);
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
      readDynamicCodes(bits, decode);
      litLen = dynLitLen;
      dist = dynDist;
    } else throw new InflateError('invalid block type');

    for (;;) {
      const sym = decode(litLen);
      if (sym < 256) {
        if (pos >= out.length) grow(pos + 1);
        // The buffer is zero there already: a zero literal needs no write.
        if (sym !== 0) {
          out[pos] = sym;
          markDirty(pos, pos + 1);
        }
        pos++;
        continue;
      }
      if (sym === 256) break;
      const li = sym - 257;
      if (li >= 29) throw new InflateError('invalid literal/length symbol');
      const len = LENGTH_BASE[li]! + bits(LENGTH_EXTRA[li]!);
      const ds = decode(dist);
      if (ds >= 30) throw new InflateError('invalid distance symbol');
      const distance = DIST_BASE[ds]! + bits(DIST_EXTRA[ds]!);
      if (distance > pos) throw new InflateError('invalid distance: too far back');
      if (pos + len > out.length) grow(pos + len);
      copyMatch(pos, distance, len);
      pos += len;
    }
  }
  // The Adler-32 trailer must be there (a stream cut short is damaged), though it is not checked.
  if (inPos - (bitCount >>> 3) + 4 > end) throw new InflateError('unexpected end of compressed data');
  return pos;
}

function readDynamicCodes(bits: (n: number) => number, decode: (h: Huffman) => number): void {
  const nLitLen = bits(5) + 257;
  const nDist = bits(5) + 1;
  const nCodeLen = bits(4) + 4;
  if (nLitLen > 286 || nDist > 30) throw new InflateError('too many length or distance symbols');
  codeLengthLengths.fill(0);
  for (let i = 0; i < nCodeLen; i++) codeLengthLengths[CODE_LENGTH_ORDER[i]!] = bits(3);
  codeLengthCode.build(codeLengthLengths, 0, 19, false);
  const total = nLitLen + nDist;
  for (let i = 0; i < total; ) {
    const sym = decode(codeLengthCode);
    if (sym < 16) {
      codeLengths[i++] = sym;
      continue;
    }
    let value = 0;
    let repeat: number;
    if (sym === 16) {
      if (i === 0) throw new InflateError('invalid bit length repeat');
      value = codeLengths[i - 1]!;
      repeat = 3 + bits(2);
    } else if (sym === 17) repeat = 3 + bits(3);
    else repeat = 11 + bits(7);
    if (i + repeat > total) throw new InflateError('invalid bit length repeat');
    codeLengths.fill(value, i, i + repeat);
    i += repeat;
  }
  if (codeLengths[256] === 0) throw new InflateError('invalid code: missing end-of-block');
  dynLitLen.build(codeLengths, 0, nLitLen, true);
  dynDist.build(codeLengths, nLitLen, nDist, true);
}
