import fc from 'fast-check';
import { describe, expect } from 'vitest';
import type { Generated } from './generators.ts';
import { checkOutcome, fuzz, parsedOf, recordDifference, records, utf8, type Reader } from './harness.ts';
import { FOREIGN_LINES, splitLines } from './mutations.ts';

/**
 * Line prefixes (src/formats/line-prefix.ts) on every producer's real text outputs: a harness's,
 * `ts`'s, a journal's or a CI runner's timestamp before each line is removed once, before the
 * format module reads the line, so the parse is the unprefixed file's, line numbers included.
 */

const two = fc.integer({ min: 0, max: 99 }).map((n) => String(n).padStart(2, '0'));
const date = fc.tuple(fc.integer({ min: 1990, max: 2099 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 })).map(([y, m, d]) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
const time = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 })).map((p) => p.map((n) => String(n).padStart(2, '0')).join(':'));
const fraction = fc.integer({ min: 1, max: 9 }).chain((n) => fc.stringMatching(new RegExp(`^\\d{${n}}$`)));
const month = fc.constantFrom('Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec');
const token = fc.stringMatching(/^[a-z][a-z0-9.-]{0,20}$/);

/** One prefix per line (timestamps move on from line to line); `id` is the shape the file entry must name. */
const PREFIXES = {
  'bracketed-timestamp': fc.tuple(date, time, fraction).map(([d, t, f]) => `[${d} ${t}.${f}] `),
  'rfc3339-timestamp': fc.tuple(date, time, fraction, fc.constantFrom('Z', '+02:00', '-0500')).map(([d, t, f, z]) => `${d}T${t}.${f}${z} `),
  'syslog-header': fc.tuple(month, two, time, token, token, fc.nat(99_999)).map(([m, d, t, host, unit, pid]) => `${m} ${d.replace(/^0/, ' ')} ${t} ${host} ${unit}[${pid}]: `),
  'syslog-timestamp': fc.tuple(month, two, time).map(([m, d, t]) => `${m} ${d.replace(/^0/, ' ')} ${t} `),
} as const;
type Shape = keyof typeof PREFIXES;

const shapeArb = fc.constantFrom(...(Object.keys(PREFIXES) as Shape[]));

/** The lines of `text`, each with a prefix of `shape`; blank lines too when `blanks` (ts), else as they are (scylla-cluster-tests). */
function prefixedArb(text: string, shape: Shape, blanks: boolean): fc.Arbitrary<{ text: string; prefixed: number }> {
  const lines = splitLines(text);
  return fc.array(PREFIXES[shape], { minLength: lines.length, maxLength: lines.length }).map((prefixes) => {
    let prefixed = 0;
    const out = lines.map((l, i) => {
      if (!blanks && l.trim().length === 0) return l;
      prefixed++;
      return `${prefixes[i]}${l}`;
    });
    return { text: `${out.join('\n')}\n`, prefixed };
  });
}

/** `caseArb`: valid text files of the formats (every producer's real fixtures, generated YCSB output). */
export function linePrefixProperties(read: Reader, caseArb: fc.Arbitrary<Generated>): void {

  describe('line prefixes on real text outputs', () => {
    fuzz(
      'input',
      'any prefix shape on every line: the unprefixed parse, and the file entry names the shape and counts the lines',
      fc.tuple(caseArb, shapeArb, fc.boolean()).chain(([g, shape, blanks]) => fc.tuple(fc.constant(g), fc.constant(shape), prefixedArb(g.text, shape, blanks))),
      async ([g, shape, p]) => {
        const plain = await read({ path: g.path, bytes: utf8(g.text) });
        const prefixed = await read({ path: g.path, bytes: utf8(p.text), chunkSizes: [7, 4096] });
        checkOutcome(g.path, prefixed.outcome, { textChars: p.text.length });
        expect(recordDifference(records(plain.outcome), records(prefixed.outcome))).toEqual({ onlyA: [], onlyB: [] });
        const a = parsedOf(plain.outcome);
        const b = parsedOf(prefixed.outcome);
        expect(b.format).toBe(a.format);
        expect(b.errors.map((e) => `${e.line}:${e.message}`)).toEqual(a.errors.map((e) => `${e.line}:${e.message}`));
        expect(b.linePrefix?.shape).toBe(shape);
        expect(b.linePrefix?.lines).toBe(p.prefixed);
      },
      { weight: 2 },
    );

    fuzz(
      'input',
      'prefixed foreign lines anywhere (a driver, a harness): a valid outcome with line numbers inside the file',
      fc.tuple(caseArb, shapeArb, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...FOREIGN_LINES)), { maxLength: 8 })).chain(([g, shape, foreign]) => {
        const lines = splitLines(g.text);
        for (const [at, line] of foreign) lines.splice(at % (lines.length + 1), 0, line);
        return fc.tuple(fc.constant(g), prefixedArb(lines.join('\n'), shape, false));
      }),
      async ([g, p]) => {
        const { outcome } = await read({ path: g.path, bytes: utf8(p.text) });
        checkOutcome(g.path, outcome, { textChars: p.text.length });
      },
    );
  });
}
