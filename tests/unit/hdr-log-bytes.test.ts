import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hdrLogFormat } from '../../src/formats/hdr-log.ts';
import type { ParsedFile } from '../../src/model/types.ts';
import { parseByBytes, parseByLines } from './line-paths.ts';

/**
 * The HdrHistogram log parser reads plain interval lines straight from their bytes; every other
 * line goes through the full rules of `line`. Whatever the lines and however the bytes are
 * chunked, both ways must give the same intervals, histograms, errors and counts.
 */

const PATH = 'client1-UPDATE.hdr';

const byLines = (text: string): ParsedFile => parseByLines(hdrLogFormat, PATH, text);
const byBytes = (text: string, cuts: number[]): ParsedFile => parseByBytes(hdrLogFormat, PATH, text, cuts);

const shape = (f: ParsedFile) => ({
  series: f.series.map((s) =>
    s.kind === 'histogram'
      ? {
          op: s.op,
          unit: s.unit,
          timeBase: s.timeBase,
          precision: s.precision,
          intervals: s.intervals.map((i) => ({ ...i, histogram: { index: [...i.histogram.index], count: [...i.histogram.count], totalCount: i.histogram.totalCount } })),
        }
      : s,
  ),
  errors: f.errors,
  skippedLines: f.skippedLines,
  lines: f.lines,
});

// Real YCSB 0.17 interval lines (the corpus), and their fields to build variants from.
const realLines = readFileSync(`tests/fixtures/corpus/split-for-heat/target-800/${PATH}`, 'utf8')
  .split('\n')
  .filter((l) => /^\d/.test(l));
const fields = realLines.map((l) => l.split(','));
const blobs = fields.map((f) => f[3]!);

const interval = fc.tuple(fc.nat({ max: 5000 }), fc.integer({ min: 0, max: blobs.length - 1 })).map(([t, k]) => `${(t / 1000).toFixed(3)},1.000,0.021,${blobs[k]}`);
/** Lines a log holds, and lines that look nearly like its interval lines. */
const line = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...realLines) },
  { weight: 3, arbitrary: interval },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('READ', 'UPDATE', ' ', '', 'Ünï', 'a b'), interval).map(([tag, l]) => `Tag=${tag},${l}`) },
  {
    weight: 3,
    arbitrary: fc.tuple(interval, fc.constantFrom('x', ' ', ',', '=', 'é', '\t', 'A', '+')).chain(([l, c]) =>
      fc.nat({ max: l.length }).map((at) => l.slice(0, at) + c + l.slice(at)),
    ),
  },
  {
    weight: 2,
    arbitrary: interval.chain((l) => fc.nat({ max: l.length - 1 }).map((at) => l.slice(0, at) + l.slice(at + 1))),
  },
  fc.constantFrom(
    '#[StartTime: 1795256165.604 (seconds since epoch), Sat Nov 21 10:16:05 UTC 2026]',
    '#[BaseTime: 0.000 (seconds since epoch)]',
    '#[Logging for: UPDATE]',
    '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"',
    '',
    '   ',
    `  ${realLines[0]}  `,
    `1.0000001,1.000,0.021,${blobs[0]}`,
    `1e3,1.000,0.021,${blobs[0]}`,
    `99999999999999999,1.000,0.021,${blobs[0]}`,
    `1.000,1.000,0.0é21,${blobs[0]}`,
    `1.000,1.000,0.021,${blobs[0]},extra`,
    `1.000,1.000,0.021,HIST`,
    `1.000,1.000,0.021,HISTggAAAB142pNpmdzIwMDAwQABzFCaEUoz2X9gQAEAYqkC8g`,
    `Tag,1.000,1.000,0.021,${blobs[0]}`,
    `T`,
  ),
);

describe('hdr-log: interval lines read from bytes', () => {
  it('give what the same lines give read one by one, however chunked and whatever the line ends', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.constantFrom('\n', '\r\n', '\r'), fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), (lines, eol, cuts, finalEol) => {
        const text = lines.join(eol) + (finalEol ? eol : '');
        expect(shape(byBytes(text, cuts))).toEqual(shape(byLines(text)));
      }),
      { numRuns: 300 },
    );
  });

  it('reads a real log whole from its bytes, every interval line plain', () => {
    const text = readFileSync(`tests/fixtures/corpus/split-for-heat/target-800/${PATH}`, 'utf8');
    const f = byBytes(text, [1000, 5000]);
    expect(f.errors).toEqual([]);
    const series = f.series[0];
    expect(series?.kind === 'histogram' ? series.intervals.length : 0).toBe(realLines.length);
    expect(shape(f)).toEqual(shape(byLines(text)));
  });
});
