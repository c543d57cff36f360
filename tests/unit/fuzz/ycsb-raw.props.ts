import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { genericCsvFormat } from '../../../src/formats/generic-csv.ts';
import type { FormatModule } from '../../../src/formats/format.ts';
import { ycsbRawFormat } from '../../../src/formats/ycsb-raw.ts';
import { ycsbRawArb } from './generators.ts';
import { checkOutcome, fuzz, parsedOf, recordDifference, records, utf8, type Reader } from './harness.ts';
import { splitLines } from './mutations.ts';
import { formatSuite, localitySuite } from './suite.ts';

/** The properties of the ycsb-raw module, on the reader of the test file that runs them. */
export function ycsbRawProperties(read: Reader): void {
  formatSuite('ycsb-raw', read);

  describe('ycsb-raw: locality and order', () => {
    localitySuite('ycsb-raw', () => true, read);

    fuzz('ycsb-raw', 'rows in any order (timestamps going backwards), headers anywhere: the same samples per op', fc.tuple(ycsbRawArb, fc.array(fc.nat())), async ([g, keys]) => {
      const lines = splitLines(g.text);
      const shuffled = lines.map((l, i) => ({ l, k: keys[i] ?? i })).sort((a, b) => a.k - b.k).map((x) => x.l);
      const text = `${shuffled.join('\n')}\n`;
      const a = await read({ path: g.path, bytes: utf8(g.text) });
      const b = await read({ path: g.path, bytes: utf8(text), options: { formatId: 'ycsb-raw' } });
      checkOutcome(g.path, b.outcome, { textChars: text.length });
      expect(parsedOf(b.outcome).errors.filter((e) => e.line > 0)).toEqual([]);
      expect(recordDifference(records(a.outcome), records(b.outcome))).toEqual({ onlyA: [], onlyB: [] });
    });
  });

  /** Live heap plus array buffers after a full collection (V8's gc, exposed for this test only). */
  function liveBytes(): number {
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  }

  /**
   * Memory a parser holds after reading `lines`, before finish(): what a worker keeps during a load.
   * The least of three readings: whatever else the test process allocates meanwhile (another
   * file's buffers freed late) only adds to a reading, and one reading was seen 25 % high.
   */
  function heldWhileParsing(format: FormatModule, lines: string[]): number {
    const readings: number[] = [];
    for (let k = 0; k < 3; k++) {
      const before = liveBytes();
      const parser = format.createParser('many.csv');
      lines.forEach((l, i) => parser.line(l, i + 1));
      readings.push(liveBytes() - before);
      expect(parser.finish().series.length).toBeGreaterThan(lines.length / 2);
    }
    return Math.min(...readings);
  }

  describe('ycsb-raw: times', () => {
    // Regression: a time past 2^53 µs (year 2255) made the engine's queries throw, failing the
    // whole analysis for one bad row.
    fuzz(
      'ycsb-raw',
      'a timestamp past the year 2255 is an error on its line',
      fc.tuple(fc.oneof(fc.integer({ min: 9_007_199_254_741, max: 99_999_999_999_999 }), fc.constant(2 ** 53 - 1)), fc.nat({ max: 4 })),
      async ([huge, row]) => {
        const rows = Array.from({ length: 5 }, (_, i) => `READ,${i === row ? huge : 1795255808123 + i},${i}`);
        const text = `READ latency raw data: op, timestamp(ms), latency(us)\n${rows.join('\n')}\n`;
        const { outcome } = await read({ path: 'run/c1-raw.csv', bytes: utf8(text) });
        checkOutcome('run/c1-raw.csv', outcome, { textChars: text.length });
        expect(parsedOf(outcome).errors.map((e) => [e.line, e.field])).toEqual([[row + 2, 'timestamp(ms)']]);
      },
      { weight: 0.5 },
    );
  });

  describe('memory proportional to the input', () => {
    // Regression: each new op name allocated two 1024-double columns (16 KiB) for a 25-byte row,
    // so 20,000 distinct names in 540 KB held 338 MB.
    it('a new op name on every line costs memory in proportion to the line, not 16 KiB', () => {
      const cases: [FormatModule, string[]][] = [
        [ycsbRawFormat, Array.from({ length: 20_000 }, (_, i) => `OP${i},1795255808123,${i}`)],
        [genericCsvFormat, ['op,latency_us', ...Array.from({ length: 20_000 }, (_, i) => `OP${i},${i}`)]],
      ];
      for (const [format, lines] of cases) {
        const input = lines.reduce((a, l) => a + l.length + 1, 0);
        // Measured after the fix: about 3× (raw) and 17× (CSV, whose rows are shorter); before it, 628×.
        expect(heldWhileParsing(format, lines), format.id).toBeLessThan(20 * input);
      }
    });
  });
}
