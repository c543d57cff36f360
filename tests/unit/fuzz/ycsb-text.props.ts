import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ycsbTextArb } from './generators.ts';
import { checkOutcome, fuzz, parsedOf, recordDifference, records, utf8, type Reader } from './harness.ts';
import { splitLines } from './mutations.ts';
import { formatSuite } from './suite.ts';

/** The properties of the ycsb-text module, on the reader of the test file that runs them. */
export function ycsbTextProperties(read: Reader): void {
  formatSuite('ycsb-text', read);

  const STATUS = / sec: \d+ operations;/;
  /** Every spelling of NaN and ∞ that DecimalFormat / String.format produce across JDKs, locales and charsets. */
  const NOT_NUMBERS = ['NaN', '\uFFFD', '∞', '-∞', 'Infinity', '?', 'âˆž'];

  describe('ycsb-text: order and NaN', () => {
    fuzz('ycsb-text', 'status lines in any order (elapsed going backwards): the same points', fc.tuple(ycsbTextArb, fc.array(fc.nat())), async ([g, keys]) => {
      const lines = splitLines(g.text);
      const slots = lines.map((l, i) => (STATUS.test(l) ? i : -1)).filter((i) => i >= 0);
      const moved = [...lines];
      const order = slots.map((s, i) => ({ s, k: keys[i] ?? i })).sort((a, b) => a.k - b.k);
      slots.forEach((slot, i) => (moved[slot] = lines[order[i]?.s ?? slot] as string));
      const text = `${moved.join('\n')}\n`;
      const a = await read({ path: g.path, bytes: utf8(g.text) });
      const b = await read({ path: g.path, bytes: utf8(text) });
      checkOutcome(g.path, b.outcome, { textChars: text.length });
      expect(recordDifference(records(a.outcome), records(b.outcome))).toEqual({ onlyA: [], onlyB: [] });
    });

    fuzz('ycsb-text', 'NaN and ∞ in every spelling where YCSB prints doubles: no figure, no error', fc.tuple(ycsbTextArb, fc.constantFrom(...NOT_NUMBERS)), async ([g, nan]) => {
      const text = g.text.replace(/(Avg=|average latency\(us\): )[\d.]+/g, `$1${nan}`).replace(/ [\d.]+ current ops\/sec;/g, ` ${nan} current ops/sec;`);
      const { outcome } = await read({ path: g.path, bytes: utf8(text) });
      checkOutcome(g.path, outcome, { textChars: text.length });
      const f = parsedOf(outcome);
      expect(f.errors).toEqual([]);
      for (const p of f.status ?? []) {
        if (text.includes('current ops/sec')) expect(p.currentOpsPerS).toBeNull();
        for (const figures of Object.values(p.ops)) expect(figures.avg).toBeNull();
      }
    });
  });

  describe('ycsb-text: super-linear traps found by the fuzz suite', () => {
    it('thousands of continuation lines after one status line stay linear', async () => {
      // Regression: each continuation line rebuilt the point's whole `ops` object (quadratic).
      const lines = ['2026-11-21 10:10:09:337 1 sec: 614 operations; 609.13 current ops/sec;'];
      for (let i = 0; i < 25_000; i++) lines.push(`[OP${i}: Count=1, Max=1, Min=1, Avg=1, 90=1]`);
      const text = `${lines.join('\n')}\n`;
      const { outcome, ms } = await read({ path: 'c1.stderr.txt', bytes: utf8(text) });
      const f = parsedOf(outcome);
      expect(Object.keys(f.status?.[0]?.ops ?? {})).toHaveLength(25_000);
      // ~150 ms; the quadratic version took 3 s for these 25,000 lines.
      expect(ms).toBeLessThan(1000);
    });

    it('a line of 200,000 digits before " sec:" and a command-line path of 200,000 spaces stay linear', async () => {
      // Regressions: /^(.*?)(-?\d+) sec: …/ retried every start inside the digits; trimSeparators'
      // /[-_.\s]+$/ retried every start inside the spaces.
      const text = [
        `Command line: -db x -p hdrhistogram.output.path=run/a${' '.repeat(200_000)}b-`,
        `${'1'.repeat(200_000)} sec: 5 operations;`,
        `2026-11-21 10:10:09:337 ${'9'.repeat(200_000)} sec: 5 operations;`,
        '',
      ].join('\n');
      const { outcome, ms } = await read({ path: 'c1.stderr.txt', bytes: utf8(text) });
      checkOutcome('c1.stderr.txt', outcome, { textChars: text.length });
      const f = parsedOf(outcome);
      expect(f.clientHint).toBe(`a${' '.repeat(200_000)}b`);
      expect(f.status ?? []).toEqual([]);
      expect(f.errors.map((e) => e.line)).toEqual([2, 3]);
      expect(ms).toBeLessThan(1500);
    });
  });
}
