import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hdrLogFormat } from '../../src/formats/hdr-log.ts';
import { encodeHistogramV2Compressed } from '../../src/model/hdr-codec.ts';
import { secondsToMicros } from '../../src/model/numbers.ts';
import type { ParsedFile } from '../../src/model/types.ts';

// The log parser reads the start and length fields from the line's characters in place; whatever
// the text, it must take the same value (or refuse the same line) as secondsToMicros does.

const BLOB = encodeHistogramV2Compressed({
  precision: { significantDigits: 3, lowestDiscernibleValue: 1 },
  highestTrackableValue: 3600000000,
  integerToDoubleConversionRatio: 1,
  histogram: { lo: Float64Array.of(100), width: Float64Array.of(1), count: Float64Array.of(3), totalCount: 3 },
});

function parse(lines: string[]): ParsedFile {
  const parser = hdrLogFormat.createParser('client1-READ.hdr');
  lines.forEach((line, i) => parser.line(line, i + 1));
  return parser.finish();
}

const digits = (max: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: max });
/** Mostly plain decimals of every width, with the odd sign, exponent, space or stray character. */
const seconds = fc.oneof(
  fc.tuple(digits(18), fc.boolean(), digits(9)).map(([w, dot, f]) => (dot ? `${w}.${f}` : w)),
  fc.tuple(fc.constantFrom('', '+', '-', ' '), digits(12), fc.constantFrom('', '.', '.5', '.000', '.1234567', '.1230000'), fc.constantFrom('', 'e3', 'E-2', ' ', 'x', '.')).map(
    (parts) => parts.join(''),
  ),
  fc.constantFrom('9007199254.740991', '9007199254.740992', '9007199254740991', '0.000001', '0.0000001', '1e400', '.', ''),
);

describe('hdr-log interval fields', () => {
  it('reads start and length as secondsToMicros does', () => {
    fc.assert(
      fc.property(seconds, seconds, (start, length) => {
        const f = parse(['#[BaseTime: 0.000 (seconds since epoch)]', `${start},${length},0.001,${BLOB}`]);
        const startUs = secondsToMicros(start);
        const lengthUs = secondsToMicros(length);
        const series = f.series[0];
        if (startUs === null || startUs < 0 || lengthUs === null || lengthUs < 0) {
          expect(series).toBeUndefined();
          expect(f.errors).toHaveLength(1);
          return;
        }
        expect(series?.kind === 'histogram' ? series.intervals.map((i) => [i.startUs, i.lengthUs]) : null).toEqual([[startUs + 0, lengthUs]]); // + 0: the base time is added (so -0 becomes 0)
      }),
      { numRuns: 5000 },
    );
  });

  it('counts fields and checks the histogram prefix as before', () => {
    const f = parse(['1.000,1.000,0.001', `1.000,1.000,0.001,${BLOB},x`, '1.000,1.000,0.001,HIST', '1.000,1.000,0.001,HIST-', `Tag=A,1.000,1.000,0.001,${BLOB}`]);
    expect(f.errors.map((e) => e.message)).toEqual([
      'expected 4 comma-separated fields (start, length, max, histogram), found 3',
      'expected 4 comma-separated fields (start, length, max, histogram), found 5',
      'the histogram field is not a base64 HdrHistogram encoding (HIST…)',
      'the histogram field is not a base64 HdrHistogram encoding (HIST…)',
    ]);
    expect(f.series.map((s) => s.op)).toEqual(['A']);
  });
});
