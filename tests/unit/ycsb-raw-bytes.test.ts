import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ycsbRawFormat } from '../../src/formats/ycsb-raw.ts';
import type { ParsedFile } from '../../src/model/types.ts';
import { parseByBytes, parseByLines } from './line-paths.ts';

/**
 * The raw parser reads plain rows straight from bytes, many in one loop (lineRun); every other
 * line goes through the full rules of `line`. Whatever the bytes and however they are chunked,
 * both ways must give the same samples, series and errors.
 */

const byLines = (text: string): ParsedFile => parseByLines(ycsbRawFormat, 'c1-raw.csv', text);
const byBytes = (text: string, cuts: number[]): ParsedFile => parseByBytes(ycsbRawFormat, 'c1-raw.csv', text, cuts);

const shape = (f: ParsedFile) => ({
  series: f.series.map((s) => (s.kind === 'raw' ? { op: s.op, samples: s.samples, firstMs: s.firstMs, lastMs: s.lastMs, secs: [...s.counts.secs], starts: [...s.counts.starts], value: [...s.counts.value], n: [...s.counts.n] } : s)),
  errors: f.errors,
  skippedLines: f.skippedLines,
  lines: f.lines,
});

const HEADER = 'READ latency raw data: op, timestamp(ms), latency(us)';
/** Lines a raw file holds, and lines that look nearly like its rows. */
const line = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom('READ', 'UPDATE', 'READ-MODIFY-WRITE', 'x_1'), fc.integer({ min: 1795000000000, max: 1795000009999 }), fc.nat({ max: 5000 })).map(([op, t, v]) => `${op},${t},${v}`) },
  fc.constantFrom(HEADER, '', '  ', 'READ,1795000000000,-5', 'READ,17950000000001,5', 'DELETE,abc,5', 'SCAN,1795000000000,', 'INSERT,1795000000000,1234567890123456', 'READ,1795000000000,5 ', 'Ünïcode,1795000000000,5', '9READ,1795000000000,5', 'READ,,5', 'READ,1795000000000'),
);

describe('ycsb-raw: rows read from bytes', () => {
  it('give what the same lines give read one by one, however chunked and whatever the line ends', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), fc.constantFrom('\n', '\r\n', '\r'), fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), (lines, eol, cuts, finalEol) => {
        const text = lines.join(eol) + (finalEol ? eol : '');
        expect(shape(byBytes(text, cuts))).toEqual(shape(byLines(text)));
      }),
      { numRuns: 400 },
    );
  });

  it('names no series after a broken row of an op never seen in a plain one', () => {
    const f = byBytes(`${HEADER}\nREAD,1795000000000,5\nDELETE,abc,5\nSCAN,1795000000001,-1\nREAD,1795000000001,6\n`, [7, 30]);
    expect(f.series.map((s) => s.op)).toEqual(['READ']);
    expect(f.errors.map((e) => e.line)).toEqual([3, 4]);
  });
});
