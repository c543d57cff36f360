import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { unzlibSync, zlibSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import {
  compressedEnvelope,
  decodeHistogram,
  decodeHistogramBytes,
  encodeHistogramV2,
  encodeHistogramV2Compressed,
  HdrDecodeError,
  type DecodedHistogram,
} from '../../src/model/hdr-codec.ts';
import { HdrLayout, hdrLayout } from '../../src/model/hdr-layout.ts';
import type { SparseHistogram } from '../../src/model/types.ts';

const CORPUS = join(import.meta.dirname, '..', 'fixtures', 'corpus');

function logFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return logFiles(path);
    return /\.(hdr|hlog)$/.test(e.name) ? [path] : [];
  });
}

/** Base64 histograms of an interval log, optionally only those of one tag. */
function blobsOf(path: string, tag?: string): string[] {
  return readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('"'))
    .filter((l) => tag === undefined || l.startsWith(`Tag=${tag},`))
    .map((l) => l.slice(l.lastIndexOf(',') + 1));
}

const corpusBlobs = logFiles(CORPUS).flatMap((file) => blobsOf(file).map((blob) => ({ file: relative(CORPUS, file), blob })));

// ---- Hand-built encodings, written from the format description (big-endian throughout) --------

class Writer {
  readonly bytes: number[] = [];
  int16(v: number): this {
    return this.raw(2, BigInt(v));
  }
  int32(v: number): this {
    return this.raw(4, BigInt(v));
  }
  int64(v: number | bigint): this {
    return this.raw(8, BigInt(v));
  }
  double(v: number): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, v);
    this.bytes.push(...b);
    return this;
  }
  word(size: number, v: number | bigint): this {
    return this.raw(size, BigInt(v));
  }
  /** Java ZigZagEncoding.putLong: 7 bits per byte, the ninth byte carrying 8. */
  zigzag(v: number | bigint): this {
    let z = BigInt.asUintN(64, (BigInt(v) << 1n) ^ (BigInt(v) >> 63n));
    for (let i = 0; i < 8; i++) {
      if (z < 0x80n) {
        this.bytes.push(Number(z));
        return this;
      }
      this.bytes.push(Number(z & 0x7fn) | 0x80);
      z >>= 7n;
    }
    this.bytes.push(Number(z));
    return this;
  }
  append(bytes: Uint8Array | number[]): this {
    this.bytes.push(...bytes);
    return this;
  }
  private raw(size: number, v: bigint): this {
    const u = BigInt.asUintN(size * 8, v);
    for (let i = size - 1; i >= 0; i--) this.bytes.push(Number((u >> BigInt(8 * i)) & 0xffn));
    return this;
  }
  done(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/**
 * Sample histogram, 3 significant digits, lowest discernible value 1: sub-buckets of 2048, so
 * index i < 2048 holds value i; above, index i is bucket b = ⌊i / 1024⌋ - 1 with values from
 * (i mod 1024 + 1024) × 2^b, 2^b wide.
 */
const SAMPLE_COUNTS = new Map([
  [0, 2],
  [1, 1],
  [2047, 5],
  [2048, 3],
  [2049, 1],
  [3072, 9],
  [5000, 4],
]);
const SAMPLE: SparseHistogram = {
  lo: Float64Array.from([0, 1, 2047, 2048, 2050, 4096, 15424]),
  width: Float64Array.from([1, 1, 1, 2, 2, 4, 8]),
  count: Float64Array.from([2, 1, 5, 3, 1, 9, 4]),
  totalCount: 25,
};
const P3 = { significantDigits: 3, lowestDiscernibleValue: 1 };
/** Above 2^32, to exercise 64-bit header fields. */
const SAMPLE_HIGHEST = 3_600_000_000;

function denseWords(size: number, counts: Map<number, number>, length: number): number[] {
  const w = new Writer();
  for (let i = 0; i < length; i++) w.word(size, counts.get(i) ?? 0);
  return w.bytes;
}

function v0(wordSize: number, counts = SAMPLE_COUNTS, length = 5001): Uint8Array {
  return new Writer()
    .int32(0x1c849308 | (wordSize << 4))
    .int32(3)
    .int64(1)
    .int64(SAMPLE_HIGHEST)
    .int64(12345) // totalCount: ignored by readers
    .append(denseWords(wordSize, counts, length))
    .done();
}

function header(cookie: number, payloadLength: number, offset = 0, ratio = 0.5, highest: number | bigint = SAMPLE_HIGHEST): Writer {
  return new Writer().int32(cookie).int32(payloadLength).int32(offset).int32(3).int64(1).int64(highest).double(ratio);
}

function v1(wordSize: number, offset = 0): Uint8Array {
  const payload = denseWords(wordSize, SAMPLE_COUNTS, 5001);
  return header(0x1c849301 | (wordSize << 4), payload.length, offset).append(payload).done();
}

/** V2 payload of the sample: 2, 1, 2045 zeros, 5, 3, 1, 1022 zeros, 9, 1927 zeros, 4. */
function samplePayloadV2(): number[] {
  return new Writer().zigzag(2).zigzag(1).zigzag(-2045).zigzag(5).zigzag(3).zigzag(1).zigzag(-1022).zigzag(9).zigzag(-1927).zigzag(4)
    .bytes;
}

function v2(payload = samplePayloadV2(), options: { offset?: number; highest?: number | bigint; cookie?: number } = {}): Uint8Array {
  return header(options.cookie ?? 0x1c849313, payload.length, options.offset ?? 0, 0.5, options.highest ?? SAMPLE_HIGHEST)
    .append(payload)
    .done();
}

function compress(cookie: number, inner: Uint8Array): Uint8Array {
  const z = zlibSync(inner);
  return new Writer().int32(cookie).int32(z.length).append(z).done();
}

function expectSample(d: DecodedHistogram, ratio: number): void {
  expect(d.precision).toEqual(P3);
  expect(d.highestTrackableValue).toBe(SAMPLE_HIGHEST);
  expect(d.integerToDoubleConversionRatio).toBe(ratio);
  expect(d.histogram).toEqual(SAMPLE);
}

function expectError(run: () => unknown, reason: HdrDecodeError['reason'], message?: RegExp): void {
  let error: unknown;
  try {
    run();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(HdrDecodeError);
  expect((error as HdrDecodeError).reason).toBe(reason);
  if (message) expect((error as HdrDecodeError).message).toMatch(message);
}

/** Why a decoded histogram breaks the SparseHistogram contract, or null. */
function malformed(h: SparseHistogram): string | null {
  const { lo, width, count, totalCount } = h;
  if (width.length !== lo.length || count.length !== lo.length) return 'array lengths differ';
  let sum = 0;
  for (let i = 0; i < lo.length; i++) {
    if (!(count[i]! > 0) || !Number.isSafeInteger(count[i])) return `count ${count[i]} at ${i}`;
    if (!Number.isSafeInteger(lo[i]! + width[i]! - 1)) return `bucket ${i} beyond 2^53`;
    if (i > 0 && lo[i]! < lo[i - 1]! + width[i - 1]!) return `bucket ${i} out of order`;
    sum += count[i]!;
  }
  return sum === totalCount ? null : `totalCount ${totalCount} but counts sum to ${sum}`;
}

function sameArray(a: Float64Array, b: Float64Array): boolean {
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}

function sameDecoded(a: DecodedHistogram, b: DecodedHistogram): boolean {
  return (
    a.precision.significantDigits === b.precision.significantDigits &&
    a.precision.lowestDiscernibleValue === b.precision.lowestDiscernibleValue &&
    a.highestTrackableValue === b.highestTrackableValue &&
    Object.is(a.integerToDoubleConversionRatio, b.integerToDoubleConversionRatio) &&
    a.histogram.totalCount === b.histogram.totalCount &&
    sameArray(a.histogram.lo, b.histogram.lo) &&
    sameArray(a.histogram.width, b.histogram.width) &&
    sameArray(a.histogram.count, b.histogram.count)
  );
}

describe('decodeHistogram: every encoding', () => {
  for (const wordSize of [2, 4, 8]) {
    it(`V0, ${wordSize}-byte counts, plain and compressed`, () => {
      expectSample(decodeHistogram(b64(v0(wordSize))), 1);
      expectSample(decodeHistogram(b64(compress(0x1c849309 | (wordSize << 4), v0(wordSize)))), 1);
      // Old writers stop at the highest non-empty index or pad with zeros: both read the same.
      expectSample(decodeHistogram(b64(v0(wordSize, SAMPLE_COUNTS, 8000))), 1);
    });

    it(`V1, ${wordSize}-byte counts, plain and compressed`, () => {
      expectSample(decodeHistogram(b64(v1(wordSize))), 0.5);
      expectSample(decodeHistogram(b64(compress(0x1c849302 | (wordSize << 4), v1(wordSize)))), 0.5);
    });
  }

  it('V2, plain and compressed, with and without the 2.2.2 flag bit in the cookie', () => {
    expectSample(decodeHistogram(b64(v2())), 0.5);
    expectSample(decodeHistogram(b64(v2(undefined, { cookie: 0x1c849303 }))), 0.5);
    expectSample(decodeHistogram(b64(compress(0x1c849314, v2()))), 0.5);
    expectSample(decodeHistogram(b64(compress(0x1c849304, v2()))), 0.5);
    // Java reads a V2 body inside a V1 compressed wrapper (same header size) as well.
    expectSample(decodeHistogram(b64(compress(0x1c849382, v2()))), 0.5);
  });

  it('the normalizingIndexOffset does not change an integer histogram (Java applies it on both store and read)', () => {
    expectSample(decodeHistogram(b64(v1(8, 7))), 0.5);
    expectSample(decodeHistogram(b64(v2(undefined, { offset: -3 }))), 0.5);
  });

  it('uses the precision of the header (2 digits, lowest discernible value 20000, as jHiccup)', () => {
    // 2 digits -> 256 sub-buckets (128 per half); lowest 20000 -> unit 2^14.
    const payload = new Writer().zigzag(-3).zigzag(6).zigzag(-296).zigzag(2).bytes;
    const bytes = new Writer().int32(0x1c849313).int32(payload.length).int32(0).int32(2).int64(20000).int64(3.6e12).double(1).append(payload);
    const d = decodeHistogram(b64(bytes.done()));
    expect(d.precision).toEqual({ significantDigits: 2, lowestDiscernibleValue: 20000 });
    // index 3: 3 × 2^14; index 300: bucket 1, sub-bucket 44 + 128 = 172, 2^15 wide.
    expect(d.histogram).toEqual({
      lo: Float64Array.from([3 * 16384, 172 * 32768]),
      width: Float64Array.from([16384, 32768]),
      count: Float64Array.from([6, 2]),
      totalCount: 8,
    });
  });

  it('empty histograms', () => {
    const empty = { lo: new Float64Array(0), width: new Float64Array(0), count: new Float64Array(0), totalCount: 0 };
    expect(decodeHistogram(b64(v2(new Writer().zigzag(0).bytes))).histogram).toEqual(empty);
    expect(decodeHistogram(b64(v2([]))).histogram).toEqual(empty);
    expect(decodeHistogram(b64(v0(8, new Map(), 0))).histogram).toEqual(empty);
  });

  it('counts up to 2^53 - 1 exactly, from every word form', () => {
    const big = 2 ** 53 - 1;
    expect(decodeHistogram(b64(v2(new Writer().zigzag(big).bytes))).histogram.count).toEqual(Float64Array.from([big]));
    const mixed = v2(new Writer().zigzag(2 ** 52 + 1).zigzag(2 ** 35 + 3).zigzag(300).bytes);
    expect(decodeHistogram(b64(mixed)).histogram.count).toEqual(Float64Array.from([2 ** 52 + 1, 2 ** 35 + 3, 300]));
    const words = new Writer().word(8, big).bytes;
    const d = decodeHistogram(b64(header(0x1c849381, 8).append(words).done()));
    expect(d.histogram.count).toEqual(Float64Array.from([big]));
    expect(d.histogram.totalCount).toBe(big);
    const int32 = decodeHistogram(b64(header(0x1c849341, 4).append(new Writer().word(4, 2 ** 31 - 1).bytes).done()));
    expect(int32.histogram.count).toEqual(Float64Array.from([2 ** 31 - 1]));
    const int16 = decodeHistogram(b64(header(0x1c849321, 2).append(new Writer().word(2, 32767).bytes).done()));
    expect(int16.histogram.count).toEqual(Float64Array.from([32767]));
  });

  it('accepts data up to the top bucket below 2^53 and the declared range', () => {
    // 3 digits: the bucket holding 2^53 - 1 is index 43 × 1024 + 1023, values 2047 × 2^42 … 2^53 - 1.
    const top = decodeHistogram(b64(v2(new Writer().zigzag(-45055).zigzag(1).bytes, { highest: 2n ** 62n })));
    expect(top.histogram.lo).toEqual(Float64Array.from([2047 * 2 ** 42]));
    expect(top.histogram.width).toEqual(Float64Array.from([2 ** 42]));
    expect(top.highestTrackableValue).toBe(2 ** 62);
    // highestTrackableValue 2 (YCSB's auto-resizing recorder) still spans the 2048 first indices.
    const small = decodeHistogram(b64(v2(new Writer().zigzag(-2047).zigzag(1).bytes, { highest: 2 })));
    expect(small.histogram.lo).toEqual(Float64Array.from([2047]));
  });
});

describe('decodeHistogram: real logs', () => {
  it('decodes every histogram of the corpus (YCSB V1 compressed, 2.2.2 V2 compressed)', () => {
    const cookies = new Set<string>();
    const problems: string[] = [];
    for (const { file, blob } of corpusBlobs) {
      const d = decodeHistogram(blob);
      cookies.add(blob.slice(0, 6));
      if (d.precision.significantDigits !== 3 || d.precision.lowestDiscernibleValue !== 1) problems.push(`${file}: precision`);
      if (d.integerToDoubleConversionRatio !== 1) problems.push(`${file}: ratio`);
      const problem = malformed(d.histogram);
      if (problem) problems.push(`${file}: ${problem}`);
    }
    expect(problems).toEqual([]);
    expect([...cookies].sort()).toEqual(['HISTFA', 'HISTgg']);
    expect(corpusBlobs.length).toBeGreaterThan(3000);
  });

  it('re-encodes the YCSB histograms byte for byte as HdrHistogram 2.2.2 did in the tagged log', () => {
    const tagged = join(CORPUS, 'tagged-from-sweep', 'client1-tagged.hlog');
    for (const tag of ['READ', 'UPDATE']) {
      const original = blobsOf(join(CORPUS, 'sweep-uniform-a', 'target-1000', `client1-${tag}.hdr`));
      const java = blobsOf(tagged, tag);
      expect(java.length).toBe(original.length);
      original.forEach((blob, i) => {
        const javaBytes = Buffer.from(java[i]!, 'base64');
        expect(javaBytes.readUInt32BE(0)).toBe(0x1c849314);
        const javaV2 = unzlibSync(javaBytes.subarray(8, 8 + javaBytes.readInt32BE(4)));
        expect(b64(encodeHistogramV2(decodeHistogram(blob))), `${tag} #${i}`).toBe(b64(javaV2));
      });
    }
  });
});

describe('encodeHistogramV2', () => {
  it('writes the V2 layout: cookie 0x1c849313, zero runs of two or more as one negative word', () => {
    expect(b64(encodeHistogramV2({ precision: P3, highestTrackableValue: SAMPLE_HIGHEST, integerToDoubleConversionRatio: 0.5, histogram: SAMPLE }))).toBe(
      b64(v2()),
    );
    // A single zero between counts is written as a 0 count, not as a run.
    const gap = { lo: Float64Array.from([0, 2]), width: Float64Array.from([1, 1]), count: Float64Array.from([1, 1]), totalCount: 2 };
    const bytes = encodeHistogramV2({ precision: P3, highestTrackableValue: 2048, integerToDoubleConversionRatio: 1, histogram: gap });
    expect([...bytes.subarray(40)]).toEqual(new Writer().zigzag(1).zigzag(0).zigzag(1).bytes);
    // Empty: one zero count, as Java writes for index 0.
    const empty = { lo: new Float64Array(0), width: new Float64Array(0), count: new Float64Array(0), totalCount: 0 };
    expect([...encodeHistogramV2({ precision: P3, highestTrackableValue: 2, integerToDoubleConversionRatio: 1, histogram: empty }).subarray(4, 8)]).toEqual([0, 0, 0, 1]);
  });

  it('writes the widest words: counts near 2^53 and zero runs of millions', () => {
    const p5 = { significantDigits: 5, lowestDiscernibleValue: 1 };
    const layout = hdrLayout(p5);
    const far = layout.valueFromIndex(3_000_000);
    const h = {
      lo: Float64Array.from([0, far]),
      width: Float64Array.from([1, layout.sizeOfEquivalentValueRange(far)]),
      count: Float64Array.from([2 ** 52, 2 ** 52 - 1]),
      totalCount: 2 ** 53 - 1,
    };
    const d: DecodedHistogram = { precision: p5, highestTrackableValue: 2 ** 53, integerToDoubleConversionRatio: 1, histogram: h };
    const bytes = encodeHistogramV2(d);
    expect([...bytes.subarray(40)]).toEqual(new Writer().zigzag(2 ** 52).zigzag(-(3_000_000 - 1)).zigzag(2 ** 52 - 1).bytes);
    expect(decodeHistogramBytes(bytes)).toEqual(d);
  });

  it('raises highestTrackableValue when the data would not fit the declared one', () => {
    // 99968 = 1562 × 64: bucket 6 (values 65536…131071 in steps of 64).
    const h = { lo: Float64Array.from([99968]), width: Float64Array.from([64]), count: Float64Array.from([1]), totalCount: 1 };
    const d = decodeHistogram(encodeHistogramV2Compressed({ precision: P3, highestTrackableValue: 2, integerToDoubleConversionRatio: 1, histogram: h }));
    expect(d.highestTrackableValue).toBe(100031);
    expect(d.histogram).toEqual(h);
  });

  it('refuses what is not a histogram of its precision', () => {
    const make = (lo: number[], width: number[], count: number[], totalCount = count.reduce((a, b) => a + b, 0)): DecodedHistogram => ({
      precision: P3,
      highestTrackableValue: 1e6,
      integerToDoubleConversionRatio: 1,
      histogram: { lo: Float64Array.from(lo), width: Float64Array.from(width), count: Float64Array.from(count), totalCount },
    });
    expect(() => encodeHistogramV2(make([2049], [2], [1]))).toThrow(RangeError);
    expect(() => encodeHistogramV2(make([2048], [1], [1]))).toThrow(RangeError);
    expect(() => encodeHistogramV2(make([5, 3], [1, 1], [1, 1]))).toThrow(/order/);
    expect(() => encodeHistogramV2(make([5], [1], [0]))).toThrow(/count/);
    expect(() => encodeHistogramV2(make([5], [1], [1.5]))).toThrow(/count/);
    expect(() => encodeHistogramV2(make([5], [1], [1], 2))).toThrow(/totalCount/);
  });

  it('round-trips every corpus histogram through the V2 compressed encoding', () => {
    const problems: string[] = [];
    for (const { file, blob } of corpusBlobs) {
      const d = decodeHistogram(blob);
      const again = encodeHistogramV2Compressed(d);
      if (!again.startsWith('HISTF')) problems.push(`${file}: cookie`);
      if (!sameDecoded(decodeHistogram(again), d)) problems.push(`${file}: differs after the round trip`);
    }
    expect(problems).toEqual([]);
  });

  it('round-trips random histograms', () => {
    const precision = fc.record({
      significantDigits: fc.integer({ min: 0, max: 5 }),
      lowestDiscernibleValue: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 2 ** 30 })),
    });
    fc.assert(
      fc.property(
        precision,
        fc.uniqueArray(fc.integer({ min: 0, max: 2 ** 53 - 1 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        (p, values, countBase) => {
          const layout = hdrLayout(p);
          const byLo = new Map<number, number>();
          for (const v of values) {
            const lo = layout.lowestEquivalentValue(v);
            byLo.set(lo, (byLo.get(lo) ?? 0) + countBase + (v % 1000));
          }
          const los = [...byLo.keys()].sort((a, b) => a - b);
          const histogram = {
            lo: Float64Array.from(los),
            width: Float64Array.from(los, (lo) => layout.sizeOfEquivalentValueRange(lo)),
            count: Float64Array.from(los, (lo) => byLo.get(lo)!),
            totalCount: los.reduce((s, lo) => s + byLo.get(lo)!, 0),
          };
          const d: DecodedHistogram = { precision: p, highestTrackableValue: 2 ** 53, integerToDoubleConversionRatio: 0.001, histogram };
          expect(decodeHistogram(encodeHistogramV2Compressed(d))).toEqual(d);
          expect(decodeHistogramBytes(encodeHistogramV2(d))).toEqual(d);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('decodeHistogram: fixed-width counts of inflated data', () => {
  /** A decode's histogram, or its error's reason and message. */
  const outcome = (bytes: Uint8Array) => {
    try {
      return { decoded: decodeHistogramBytes(bytes) };
    } catch (e) {
      return e instanceof HdrDecodeError ? { reason: e.reason, message: e.message } : { thrown: String(e) };
    }
  };

  it('are read from the non-zero bytes alone as word by word: the same counts, or the same error', () => {
    // Any word at all (negative, past 2^53, past the declared range, several non-zero bytes): what
    // the compressed encoding decodes to, read from the inflater's non-zero bytes, must be what the
    // plain one decodes to, read word by word.
    const word = fc.oneof(fc.bigInt({ min: 1n, max: 300n }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.constantFrom(2n ** 53n - 1n, 2n ** 53n, 2n ** 32n, 255n << 56n));
    fc.assert(
      fc.property(
        fc.constantFrom(2, 4, 8),
        fc.constantFrom(false, true),
        fc.array(fc.tuple(fc.nat(3000), word), { maxLength: 40 }),
        fc.constantFrom(2, SAMPLE_HIGHEST),
        (wordSize, legacy, entries, highest) => {
          const counts = new Map(entries.map(([at, v]) => [at, v]));
          const length = Math.max(1, ...entries.map(([at]) => at + 1));
          const w = new Writer();
          for (let i = 0; i < length; i++) w.word(wordSize, counts.get(i) ?? 0n);
          const payload = w.bytes;
          // V0 (no payload length: the counts run to the end) or V1, as 2.0 and YCSB's 2.1.4 write them.
          const plain = legacy
            ? new Writer().int32(0x1c849308 | (wordSize << 4)).int32(3).int64(1).int64(highest).int64(0).append(payload).done()
            : header(0x1c849301 | (wordSize << 4), payload.length, 0, 1, highest).append(payload).done();
          const compressed = compressedEnvelope(plain, (legacy ? 0x1c849309 : 0x1c849302) | (wordSize << 4));
          expect(outcome(compressed)).toEqual(outcome(plain));
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('decodeHistogram: refuses damaged or foreign input', () => {
  const real = corpusBlobs[0]!.blob;

  it('bad cookies', () => {
    expectError(() => decodeHistogram(b64(new Writer().int32(0xdeadbeef).int32(0).done())), 'cookie', /cookie 0xdeadbeef/);
    expectError(() => decodeHistogram(b64(new Writer().int32(0x0c72124f).int32(0).done())), 'cookie', /DoubleHistogram/);
    // A compressed V0 wrapper must hold a V0 histogram.
    expectError(() => decodeHistogram(b64(compress(0x1c849389, v1(8)))), 'cookie');
    expectError(() => decodeHistogram(b64(compress(0x1c849314, v0(8)))), 'cookie');
  });

  it('invalid base64', () => {
    expectError(() => decodeHistogram('HIST!ggA'), 'base64', /"!"/);
    expectError(() => decodeHistogram('HISTgg\u00e9A'), 'base64');
    expectError(() => decodeHistogram('HISTg\u0100AA'), 'base64');
    expectError(() => decodeHistogram('HISTg'), 'base64', /truncated/);
    expectError(() => decodeHistogram('HISTgg='), 'base64', /padding/);
    expectError(() => decodeHistogram(`${real} `), 'base64');
  });

  it('every truncation of a real histogram', () => {
    for (let cut = 0; cut < real.length; cut++) {
      expect(() => decodeHistogram(real.slice(0, cut)), `cut at ${cut}`).toThrow(HdrDecodeError);
    }
    expectError(() => decodeHistogram(''), 'truncated');
    expectError(() => decodeHistogram(real.slice(0, 40)), 'truncated', /declares/);
  });

  it('truncated or inconsistent payloads', () => {
    const sample = v1(8);
    expectError(() => decodeHistogram(b64(sample.subarray(0, sample.length - 8))), 'truncated', /payload declares/);
    expectError(() => decodeHistogram(b64(sample.subarray(0, 30))), 'truncated', /header/);
    expectError(() => decodeHistogram(b64(v0(8).subarray(0, 20))), 'truncated', /header/);
    expectError(() => decodeHistogram(b64(v0(8).subarray(0, 35))), 'truncated', /whole number/);
    expectError(() => decodeHistogram(b64(header(0x1c849381, -8).done())), 'header', /negative payload/);
    expectError(() => decodeHistogram(b64(header(0x1c849381, 6).append([0, 0, 0, 0, 0, 0]).done())), 'truncated', /whole number/);
    expectError(() => decodeHistogram(b64(v2([0x81]))), 'truncated', /LEB128/);
    // Compressed: inflated data longer than the header's payload length.
    const longer = header(0x1c849381, 8).append(new Writer().word(8, 1).word(8, 1).bytes).done();
    expectError(() => decodeHistogram(b64(compress(0x1c849382, longer))), 'payload', /beyond its declared payload/);
    expectError(() => decodeHistogram(b64(compress(0x1c849382, new Uint8Array(0)))), 'cookie');
  });

  it('invalid header fields', () => {
    const withHeader = (digits: number, lowest: number, highest: number): Uint8Array =>
      new Writer().int32(0x1c849313).int32(1).int32(0).int32(digits).int64(lowest).int64(highest).double(1).zigzag(0).done();
    expectError(() => decodeHistogram(b64(withHeader(6, 1, 1000))), 'header', /between 0 and 5/);
    expectError(() => decodeHistogram(b64(withHeader(-1, 1, 1000))), 'header');
    expectError(() => decodeHistogram(b64(withHeader(3, 0, 1000))), 'header', /lowestDiscernibleValue/);
    expectError(() => decodeHistogram(b64(withHeader(3, -5, 1000))), 'header');
    expectError(() => decodeHistogram(b64(withHeader(3, 1, 1))), 'header', /highestTrackableValue/);
    expectError(() => decodeHistogram(b64(withHeader(3, 1000, -1))), 'header');
    expectError(() => decodeHistogram(b64(withHeader(5, 2 ** 50, 2 ** 52))), 'header', /Cannot represent/);
    // Word sizes other than 2, 4, 8 in a V1 cookie.
    expectError(() => decodeHistogram(b64(header(0x1c849361, 6).append([0, 0, 0, 0, 0, 0]).done())), 'header', /word size/);
    expectError(() => decodeHistogram(b64(header(0x1c849301, 0).done())), 'header', /word size/);
  });

  it('counts that are negative, too large, or outside the histogram', () => {
    expectError(() => decodeHistogram(b64(header(0x1c849381, 8).append(new Writer().word(8, -1).bytes).done())), 'payload', /negative/);
    expectError(() => decodeHistogram(b64(header(0x1c849341, 4).append(new Writer().word(4, -7).bytes).done())), 'payload', /negative/);
    expectError(() => decodeHistogram(b64(header(0x1c849321, 2).append(new Writer().word(2, -1).bytes).done())), 'payload', /negative/);
    expectError(() => decodeHistogram(b64(header(0x1c849381, 8).append(new Writer().word(8, 2 ** 53).bytes).done())), 'payload', /2\^53/);
    expectError(() => decodeHistogram(b64(v2(new Writer().zigzag(2 ** 53).bytes))), 'payload', /2\^53/);
    expectError(() => decodeHistogram(b64(v2(new Writer().zigzag(2n ** 62n).bytes))), 'payload', /2\^53/);
    expectError(() => decodeHistogram(b64(v2(new Writer().zigzag(2 ** 52).zigzag(2 ** 52).bytes))), 'payload', /total count/);
    const words = new Writer().word(8, 2 ** 52).word(8, 2 ** 52).bytes;
    expectError(() => decodeHistogram(b64(header(0x1c849381, 16).append(words).done())), 'payload', /total count/);
    expectError(() => decodeHistogram(b64(v2(new Writer().zigzag(-(2 ** 31)).zigzag(1).bytes))), 'payload', /zero counts/);
    // highestTrackableValue 2 with 3 digits spans indices 0..2047 only.
    expectError(() => decodeHistogram(b64(v2(new Writer().zigzag(-2048).zigzag(1).bytes, { highest: 2 }))), 'payload', /beyond the histogram's range/);
    const v1Words = denseWords(8, new Map([[2048, 1]]), 2049);
    expectError(() => decodeHistogram(b64(header(0x1c849381, v1Words.length, 0, 1, 2).append(v1Words).done())), 'payload', /beyond/);
    expectError(() => decodeHistogram(b64(v2(new Writer().zigzag(-45056).zigzag(1).bytes, { highest: 2n ** 62n }))), 'payload', /above 2\^53/);
  });

  it('finishes quickly on zero runs that cover a huge range', () => {
    const w = new Writer();
    for (let i = 0; i < 5000; i++) w.zigzag(-(2 ** 31 - 1));
    w.zigzag(1);
    expectError(() => decodeHistogram(b64(v2(w.bytes, { highest: 2n ** 62n }))), 'payload');
  });

  it('damaged zlib data', () => {
    const bytes = Buffer.from(real, 'base64');
    const garbage = new Writer().int32(0x1c849382).int32(16).append(new Array(16).fill(0xaa)).done();
    expectError(() => decodeHistogram(b64(garbage)), 'zlib');
    expectError(() => decodeHistogram(b64(new Writer().int32(0x1c849382).int32(3).append([0x78, 0x9c, 0]).done())), 'zlib');
    const flipped = Uint8Array.from(bytes);
    flipped[9] = flipped[9]! ^ 0x20; // zlib header check bits
    expectError(() => decodeHistogram(b64(flipped)), 'zlib');
  });

  it('random bytes and random damage to real histograms: a result or an HdrDecodeError, nothing else', () => {
    const attempt = (bytes: Uint8Array): void => {
      try {
        expect(malformed(decodeHistogramBytes(bytes).histogram)).toBeNull();
      } catch (e) {
        if (!(e instanceof HdrDecodeError)) throw e;
      }
    };
    const cookies = [0x1c849382, 0x1c849314, 0x1c849309, 0x1c849381, 0x1c849313, 0x1c849308, 0x1c849321];
    fc.assert(
      fc.property(fc.constantFrom(...cookies), fc.uint8Array({ maxLength: 300 }), (cookie, rest) => {
        attempt(new Writer().int32(cookie).append(rest).done());
      }),
      { numRuns: 1000 },
    );
    const sources = [Buffer.from(real, 'base64'), v1(8), v2(), v0(2), compress(0x1c849314, v2()), compress(0x1c849389, v0(8))];
    fc.assert(
      fc.property(
        fc.constantFrom(...sources),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
        (source, flips) => {
          const bytes = Uint8Array.from(source);
          for (const [at, mask] of flips) bytes[at % bytes.length] = bytes[at % bytes.length]! ^ mask;
          attempt(bytes);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

// ---- Layout: checked against a direct port of Java's long arithmetic, in BigInt ---------------

class JavaLayout {
  readonly unitMagnitude: bigint;
  readonly subBucketCountMagnitude: bigint;
  readonly subBucketHalfCountMagnitude: bigint;
  readonly subBucketCount: bigint;
  readonly subBucketHalfCount: bigint;
  readonly subBucketMask: bigint;
  readonly leadingZeroCountBase: bigint;
  constructor(digits: number, readonly lowest: bigint) {
    const largest = 2 * 10 ** digits;
    this.unitMagnitude = BigInt(Math.trunc(Math.log(Number(lowest)) / Math.log(2)));
    this.subBucketCountMagnitude = BigInt(Math.ceil(Math.log(largest) / Math.log(2)));
    this.subBucketHalfCountMagnitude = this.subBucketCountMagnitude - 1n;
    this.subBucketCount = 1n << this.subBucketCountMagnitude;
    this.subBucketHalfCount = this.subBucketCount / 2n;
    this.subBucketMask = (this.subBucketCount - 1n) << this.unitMagnitude;
    this.leadingZeroCountBase = 64n - this.unitMagnitude - this.subBucketCountMagnitude;
  }
  bucketIndex(v: bigint): bigint {
    const x = v | this.subBucketMask;
    return this.leadingZeroCountBase - (64n - BigInt(x.toString(2).length));
  }
  subBucketIndex(v: bigint, b: bigint): bigint {
    return v >> (b + this.unitMagnitude);
  }
  countsArrayIndex(v: bigint): bigint {
    const b = this.bucketIndex(v);
    return ((b + 1n) << this.subBucketHalfCountMagnitude) + (this.subBucketIndex(v, b) - this.subBucketHalfCount);
  }
  valueFromIndex(i: bigint): bigint {
    let b = (i >> this.subBucketHalfCountMagnitude) - 1n;
    let s = (i & (this.subBucketHalfCount - 1n)) + this.subBucketHalfCount;
    if (b < 0n) {
      s -= this.subBucketHalfCount;
      b = 0n;
    }
    return s << (b + this.unitMagnitude);
  }
  size(v: bigint): bigint {
    return 1n << (this.unitMagnitude + this.bucketIndex(v));
  }
  lowestEquivalent(v: bigint): bigint {
    const b = this.bucketIndex(v);
    return this.subBucketIndex(v, b) << (b + this.unitMagnitude);
  }
  countsArrayLength(highest: bigint): bigint {
    let smallestUntrackable = this.subBucketCount << this.unitMagnitude;
    let buckets = 1n;
    while (smallestUntrackable <= highest) {
      if (smallestUntrackable > (2n ** 63n - 1n) / 2n) {
        buckets++;
        break;
      }
      smallestUntrackable <<= 1n;
      buckets++;
    }
    return (buckets + 1n) * this.subBucketHalfCount;
  }
}

describe('HdrLayout', () => {
  it('sub-bucket counts per number of significant digits', () => {
    expect([0, 1, 2, 3, 4, 5].map((d) => new HdrLayout({ significantDigits: d, lowestDiscernibleValue: 1 }).subBucketCount)).toEqual([
      2, 32, 256, 2048, 32768, 262144,
    ]);
    const l = hdrLayout(P3);
    expect([l.unitMagnitude, l.subBucketHalfCountMagnitude, l.subBucketHalfCount, l.subBucketMask]).toEqual([0, 10, 1024, 2047]);
    expect([l.lowestEquivalentValue(2049), l.highestEquivalentValue(2048), l.medianEquivalentValue(2048)]).toEqual([2048, 2049, 2049]);
    expect([l.sizeOfEquivalentValueRange(2047), l.sizeOfEquivalentValueRange(2048), l.nextNonEquivalentValue(4097)]).toEqual([1, 2, 4100]);
  });

  it('gives the bounds of counts indices as valueFromIndex and sizeOfEquivalentValueRange do, up to the last exact index', () => {
    for (const precision of [P3, { significantDigits: 0, lowestDiscernibleValue: 1 }, { significantDigits: 2, lowestDiscernibleValue: 20000 }, { significantDigits: 5, lowestDiscernibleValue: 3 }]) {
      const l = hdrLayout(precision);
      const index = Int32Array.from({ length: Math.min(l.exactIndexLimit, 5000) }, (_, i) => i);
      // The highest indices too, where widths pass 2^32.
      const top = Math.min(100, index.length >> 1);
      index.set(Int32Array.from({ length: top }, (_, i) => l.exactIndexLimit - 1 - i), index.length - top);
      const lo = new Float64Array(index.length + 2);
      const width = new Float64Array(index.length + 2);
      l.bucketBounds(index, 1, index.length, lo, width, 2);
      expect(lo[1]).toBe(0);
      for (let i = 1; i < index.length; i++) {
        const want = l.valueFromIndex(index[i] as number);
        expect([lo[i + 1], width[i + 1]]).toEqual([want, l.sizeOfEquivalentValueRange(want)]);
      }
    }
  });

  it("keeps Java's floating-point unit magnitude: lowest 2^48 - 1 counts as 2^48", () => {
    expect(hdrLayout({ significantDigits: 2, lowestDiscernibleValue: 2 ** 48 - 1 }).unitMagnitude).toBe(48);
    expect(hdrLayout({ significantDigits: 2, lowestDiscernibleValue: 2 ** 47 - 1 }).unitMagnitude).toBe(46);
    expect(hdrLayout({ significantDigits: 2, lowestDiscernibleValue: 20000 }).unitMagnitude).toBe(14);
  });

  it('rejects precisions Java rejects, and values it cannot hold exactly', () => {
    expect(() => new HdrLayout({ significantDigits: 6, lowestDiscernibleValue: 1 })).toThrow(RangeError);
    expect(() => new HdrLayout({ significantDigits: 2.5, lowestDiscernibleValue: 1 })).toThrow(RangeError);
    expect(() => new HdrLayout({ significantDigits: 3, lowestDiscernibleValue: 0 })).toThrow(RangeError);
    expect(() => new HdrLayout({ significantDigits: 3, lowestDiscernibleValue: 2 ** 53 })).toThrow(RangeError);
    expect(() => new HdrLayout({ significantDigits: 5, lowestDiscernibleValue: 2 ** 45 })).toThrow(/Cannot represent/);
    const l = hdrLayout(P3);
    expect(() => l.countsArrayIndex(-1)).toThrow(RangeError);
    expect(() => l.countsArrayIndex(2 ** 53)).toThrow(RangeError);
    expect(() => l.countsArrayIndex(1.5)).toThrow(RangeError);
    expect(() => l.valueFromIndex(l.exactIndexLimit)).toThrow(RangeError);
    expect(() => l.countsArrayLength(1)).toThrow(RangeError);
    expect(() => l.countsArrayLength(NaN)).toThrow(RangeError);
    expect(l.valueFromIndex(l.exactIndexLimit - 1) + l.sizeOfEquivalentValueRange(2 ** 53 - 1) - 1).toBe(2 ** 53 - 1);
  });

  it('matches Java long arithmetic for random values of random precisions', () => {
    const lowest = fc.oneof(
      fc.constantFrom(1, 2, 3, 1000, 1023, 1024, 20000, 2 ** 20 + 5),
      fc.integer({ min: 1, max: 2 ** 40 }),
    );
    const value = fc.oneof(
      fc.integer({ min: 0, max: 2 ** 53 - 1 }),
      fc.integer({ min: 0, max: 4096 }),
      fc.integer({ min: 0, max: 52 }).chain((k) => fc.constantFrom(2 ** k - 1, 2 ** k, 2 ** k + 1)),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 }), lowest, value, (digits, low, v) => {
        const mine = new HdrLayout({ significantDigits: digits, lowestDiscernibleValue: low });
        let java: JavaLayout;
        try {
          java = new JavaLayout(digits, BigInt(low));
        } catch {
          return;
        }
        if (java.subBucketCountMagnitude + java.unitMagnitude > 62n) return;
        const bv = BigInt(v);
        const index = mine.countsArrayIndex(v);
        expect(index).toBe(Number(java.countsArrayIndex(bv)));
        expect(mine.lowestEquivalentValue(v)).toBe(Number(java.lowestEquivalent(bv)));
        expect(mine.sizeOfEquivalentValueRange(v)).toBe(Number(java.size(bv)));
        expect(mine.highestEquivalentValue(v)).toBe(Number(java.lowestEquivalent(bv) + java.size(bv) - 1n));
        expect(mine.medianEquivalentValue(v)).toBe(Number(java.lowestEquivalent(bv) + (java.size(bv) >> 1n)));
        expect(mine.valueFromIndex(index)).toBe(Number(java.valueFromIndex(BigInt(index))));
        const highest = Math.max(v, 2 * low);
        expect(mine.countsArrayLength(highest)).toBe(Number(java.countsArrayLength(BigInt(highest))));
      }),
      { numRuns: 3000 },
    );
  });

  it('matches Java for highestTrackableValue up to Long.MAX_VALUE', () => {
    for (const digits of [0, 3, 5]) {
      const mine = hdrLayout({ significantDigits: digits, lowestDiscernibleValue: 1 });
      const java = new JavaLayout(digits, 1n);
      for (let k = 1; k < 63; k++) {
        const h = 2n ** BigInt(k);
        expect(mine.countsArrayLength(Number(h)), `2^${k}`).toBe(Number(java.countsArrayLength(h)));
      }
      expect(mine.countsArrayLength(2 ** 63)).toBe(Number(java.countsArrayLength(2n ** 63n - 1n)));
    }
  });
});
