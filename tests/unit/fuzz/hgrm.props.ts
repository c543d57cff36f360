import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { hgrmArb } from './generators.ts';
import { checkOutcome, fuzz, parsedOf, utf8, type Reader } from './harness.ts';
import { WEIRD_NUMBERS } from './mutations.ts';
import { formatSuite } from './suite.ts';

/** The properties of the .hgrm module (its rows depend on each other, so no locality property). */
export function hgrmProperties(read: Reader): void {
  formatSuite('hgrm', read);

  describe('hgrm: footer', () => {
    fuzz(
      'hgrm',
      'footer figures that are not non-negative numbers (∞, NaN, negative, garbage) are dropped, never kept',
      fc.tuple(hgrmArb, fc.array(fc.constantFrom(...WEIRD_NUMBERS, '1e999', '-5', '-0.5'), { minLength: 4, maxLength: 4 })),
      async ([g, [mean = '', stddev = '', max = '', count = '']]) => {
        const text = `${g.text.trimEnd().split('\n').filter((l) => !l.startsWith('#[')).join('\n')}\n#[Mean    = ${mean}, StdDeviation   = ${stddev}]\n#[Max     = ${max}, Total count    = ${count}]\n`;
        const { outcome } = await read({ path: g.path, bytes: utf8(text) });
        checkOutcome(g.path, outcome, { textChars: text.length });
        const d = parsedOf(outcome).series[0];
        if (d?.kind !== 'distribution') throw new Error('no distribution');
        for (const v of [d.mean, d.stddev, d.max]) expect(v === null || (Number.isFinite(v) && v >= 0), String(v)).toBe(true);
      },
    );
  });
}
