import { constants, deflateSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InflateError, inflateZlib, lastNonZero } from '../../src/model/inflate.ts';

/** Whether the list of non-zero bytes is exactly the output's non-zero bytes, ascending: the codec reads only those. */
function listsEveryNonZero(output: Uint8Array): boolean {
  const listed = [...lastNonZero()];
  const actual: number[] = [];
  for (let p = 0; p < output.length; p++) if (output[p] !== 0) actual.push(p);
  return listed.length === actual.length && listed.every((p, i) => p === actual[i]);
}

/** node:zlib's answer, or null if it rejects the stream for anything but its checksum. */
function zlibAnswer(data: Uint8Array): Uint8Array | null | 'checksum' {
  try {
    return inflateSync(data);
  } catch (e) {
    return /incorrect data check/.test((e as Error).message) ? 'checksum' : null;
  }
}

function expectSameAsZlib(data: Uint8Array): void {
  const expected = zlibAnswer(data);
  let actual: Uint8Array | null;
  try {
    actual = Uint8Array.from(inflateZlib(data));
    expect(listsEveryNonZero(inflateZlib(data))).toBe(true);
  } catch (e) {
    if (!(e instanceof InflateError)) throw e;
    actual = null;
  }
  // The Adler-32 checksum is not verified (as with fflate before): structure only.
  if (expected === 'checksum') return;
  if (expected === null) expect(actual).toBeNull();
  else expect(actual && Buffer.from(actual).equals(expected)).toBe(true);
}

/** Mostly zeros with sparse small big-endian words: the shape of an inflated V1 histogram. */
const sparseWords = fc.tuple(fc.integer({ min: 1, max: 6000 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 70000 })), { maxLength: 300 })).map(([words, counts]) => {
  const out = new Uint8Array(40 + 8 * words);
  out.set([0x1c, 0x84, 0x93, 0x81], 0);
  const view = new DataView(out.buffer);
  for (const [at, c] of counts) view.setUint32(40 + 8 * (at % words) + 4, c);
  return out;
});

const anyBytes = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }),
  fc.array(fc.constantFrom(0, 0, 0, 1, 2, 255), { maxLength: 5000 }).map((a) => Uint8Array.from(a)),
  sparseWords,
);
const options = fc.record({
  level: fc.integer({ min: 0, max: 9 }),
  strategy: fc.constantFrom(constants.Z_DEFAULT_STRATEGY, constants.Z_FILTERED, constants.Z_HUFFMAN_ONLY, constants.Z_RLE, constants.Z_FIXED),
  memLevel: fc.integer({ min: 1, max: 9 }),
  windowBits: fc.integer({ min: 9, max: 15 }),
});

describe('inflateZlib', () => {
  it('inflates what node:zlib deflates, at every level and strategy', () => {
    fc.assert(
      fc.property(anyBytes, options, (bytes, opts) => {
        const out = inflateZlib(deflateSync(bytes, opts));
        expect(Buffer.from(out).equals(Buffer.from(bytes))).toBe(true);
        expect(listsEveryNonZero(out)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('lists every non-zero byte it writes, in order, on sparse and dense data', () => {
    fc.assert(
      fc.property(fc.oneof(sparseWords, anyBytes), options, (bytes, opts) => {
        const out = inflateZlib(deflateSync(bytes, opts));
        expect(listsEveryNonZero(out)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('agrees with node:zlib on damaged and truncated streams', () => {
    const damaged = fc.tuple(anyBytes, options, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 3 }), fc.nat()).map(([bytes, opts, flips, cut]) => {
      const data = Uint8Array.from(deflateSync(bytes, opts));
      for (const [at, mask] of flips) data[at % data.length] = data[at % data.length]! ^ mask;
      return cut % 4 === 0 ? data.subarray(0, cut % data.length) : data;
    });
    fc.assert(fc.property(damaged, expectSameAsZlib), { numRuns: 3000 });
  });

  it('agrees with node:zlib on random bytes behind a valid header', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (rest) => expectSameAsZlib(Uint8Array.from([0x78, 0x9c, ...rest]))),
      { numRuns: 3000 },
    );
  });

  it('grows beyond its kept buffer and starts clean afterwards', () => {
    const big = new Uint8Array(20 * 1024 * 1024);
    big[big.length - 1] = 7;
    big[12345] = 3;
    const out = inflateZlib(deflateSync(big));
    expect(out.length).toBe(big.length);
    expect([out[12345], out[big.length - 1]]).toEqual([3, 7]);
    const small = inflateZlib(deflateSync(new Uint8Array(100)));
    expect(small.every((b) => b === 0)).toBe(true);
  });

  it('rejects bad headers, preset dictionaries and truncation', () => {
    expect(() => inflateZlib(Uint8Array.from([0x78]))).toThrow(InflateError);
    expect(() => inflateZlib(Uint8Array.from([0x79, 0x9c, 3, 0]))).toThrow(/header/);
    expect(() => inflateZlib(Uint8Array.from([0x78, 0xbb, 3, 0]))).toThrow(/dictionary/);
    const data = deflateSync(Buffer.from('hello hello hello hello'));
    expect(() => inflateZlib(data.subarray(0, data.length - 6))).toThrow(/end of compressed data/);
  });
});
