import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clip, firstLine, MAX_MESSAGE_CHARS } from '../../src/formats/format.ts';
import { precisionFromSubBuckets } from '../../src/model/hdr-layout.ts';
import { msToMicros, parseScaledDecimal } from '../../src/model/numbers.ts';

/** The helpers every parser shares (one of each, where each parser had its own). */

describe('msToMicros', () => {
  it('is exact where the double is not, keeps the sign and refuses what is finer than 1 µs', () => {
    expect(msToMicros('0.001')).toBe(1);
    expect(msToMicros('1.005')).toBe(1005);
    expect(msToMicros('4181')).toBe(4_181_000);
    expect(msToMicros('007')).toBe(7000);
    expect(msToMicros('-0.5')).toBe(-500);
    expect(msToMicros('1.0005')).toBeNull();
    expect(msToMicros('1.2000')).toBe(1200);
    expect(msToMicros('nan')).toBeNull();
    expect(msToMicros('')).toBeNull();
    expect(msToMicros('1e3')).toBeNull();
  });

  it('reads whole ms the short way with the result of the general rule', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{1,12}$/), (text) => {
        expect(msToMicros(text)).toBe(parseScaledDecimal(text, 3));
      }),
    );
  });
});

describe('firstLine', () => {
  it('is the first line holding more than white space, as written, cut past `max` characters of it', () => {
    expect(firstLine('\n  \n   Value   Percentile\nnext')).toBe('   Value   Percentile');
    expect(firstLine(' \n\t\n')).toBe('');
    expect(firstLine('{"a":1}')).toBe('{"a":1}');
    expect(firstLine(`\n  ${'x'.repeat(20)}\n`, 5)).toBe('  xxxxx');
  });
});

describe('clip', () => {
  it('cuts to `max` characters, the last an ellipsis, and leaves shorter text alone', () => {
    expect(clip('a'.repeat(MAX_MESSAGE_CHARS))).toBe('a'.repeat(MAX_MESSAGE_CHARS));
    expect(clip('a'.repeat(MAX_MESSAGE_CHARS + 1))).toBe(`${'a'.repeat(MAX_MESSAGE_CHARS - 1)}…`);
    expect(clip('abcdef', 4)).toBe('abc…');
  });
});

describe('precisionFromSubBuckets', () => {
  it("inverts HdrHistogram's sub-bucket sizing for 0 to 5 significant digits, and nothing else", () => {
    expect([1, 2, 4, 8, 16, 32, 64, 128, 256, 2048, 32768, 262144].map((n) => precisionFromSubBuckets(n)?.significantDigits ?? null)).toEqual([null, 0, null, null, null, 1, null, null, 2, 3, 4, 5]);
  });
});
