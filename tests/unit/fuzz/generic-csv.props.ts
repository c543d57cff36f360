import fc from 'fast-check';
import { latencies } from '../../helpers/raw-samples.ts';
import { describe, expect } from 'vitest';
import { genericCsvArb } from './generators.ts';
import { checkOutcome, fuzz, parsedOf, recordDifference, records, utf8, type Reader } from './harness.ts';
import { splitLines } from './mutations.ts';
import { formatSuite, localitySuite } from './suite.ts';

/** The properties of the generic-csv module, on the reader of the test file that runs them. */
export function genericCsvProperties(read: Reader): void {
  formatSuite('generic-csv', read);

  describe('generic-csv: locality, order and units', () => {
    localitySuite('generic-csv', (_, i) => i > 0, read);

    fuzz('generic-csv', 'rows in any order: the same samples per series', fc.tuple(genericCsvArb, fc.array(fc.nat())), async ([g, keys]) => {
      const [header = '', ...rows] = splitLines(g.text);
      const shuffled = rows.map((l, i) => ({ l, k: keys[i] ?? i })).sort((a, b) => a.k - b.k).map((x) => x.l);
      const text = `${[header, ...shuffled].join('\n')}\n`;
      const a = await read({ path: g.path, bytes: utf8(g.text) });
      const b = await read({ path: g.path, bytes: utf8(text) });
      checkOutcome(g.path, b.outcome, { textChars: text.length });
      expect(recordDifference(records(a.outcome), records(b.outcome))).toEqual({ onlyA: [], onlyB: [] });
    });

    // Regressions: 400 digits made Infinity, and any time past 2^53 µs (year 2255) made the
    // engine's queries throw, failing the whole analysis for one bad row.
    fuzz(
      'generic-csv',
      'a timestamp past the year 2255 (huge s/ms/µs/ns, 400 digits, ISO) is an error on its line',
      fc.tuple(
        fc.oneof(
          fc.integer({ min: 9_007_199_254_741, max: 99_999_999_999_999 }).map(String),
          fc.integer({ min: 9_007_199_254_741, max: 99_999_999_999_999 }).map((ms) => `${ms}000`),
          fc.integer({ min: 18, max: 2000 }).map((n) => `9${'9'.repeat(n + 6)}`),
          fc.integer({ min: 309, max: 2000 }).map((n) => `${'9'.repeat(n)}.5`),
          fc.integer({ min: 2256, max: 9999 }).map((y) => `${y}-01-01T00:00:00Z`),
        ),
        fc.nat({ max: 4 }),
      ),
      async ([huge, row]) => {
        const rows = Array.from({ length: 5 }, (_, i) => `READ,${i === row ? huge : 1795255808123 + i},${i}`);
        const text = `op,timestamp,latency_us\n${rows.join('\n')}\n`;
        const { outcome } = await read({ path: 'run/results.csv', bytes: utf8(text) });
        checkOutcome('run/results.csv', outcome, { textChars: text.length });
        expect(parsedOf(outcome).errors.map((e) => [e.line, e.field])).toEqual([[row + 2, 'timestamp']]);
      },
      { weight: 0.5 },
    );

    // Regression: "op,timestamp,latency_ms" rows look like YCSB raw rows (OP,epoch ms,integer), and
    // with four rows the raw module claimed the file and read milliseconds as microseconds.
    fuzz(
      'generic-csv',
      'a CSV whose rows look like YCSB raw rows is still read by its header (unit included)',
      fc.record({
        unit: fc.constantFrom<[string, number]>(['latency_ms', 1000], ['latency_us', 1], ['latency', 1000], ['elapsed', 1000], ['duration_s', 1_000_000]),
        rows: fc.array(fc.tuple(fc.constantFrom('READ', 'UPDATE'), fc.integer({ min: 1_500_000_000_000, max: 1_900_000_000_000 }), fc.integer({ min: 0, max: 100_000 })), { minLength: 4, maxLength: 30 }),
      }),
      async ({ unit: [header, scale], rows }) => {
        const text = `op,timestamp,${header}\n${rows.map(([op, t, l]) => `${op},${t},${l}`).join('\n')}\n`;
        const { outcome } = await read({ path: 'run/results.csv', bytes: utf8(text) });
        checkOutcome('run/results.csv', outcome, { textChars: text.length });
        const f = parsedOf(outcome);
        expect(f.format).toBe('generic-csv');
        expect(f.series.flatMap((s) => (s.kind === 'raw' ? latencies(s) : [])).sort((a, b) => a - b)).toEqual(rows.map(([, , l]) => l * scale).sort((a, b) => a - b));
      },
    );
  });
}
