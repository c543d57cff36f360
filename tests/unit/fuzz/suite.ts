import fc from 'fast-check';
import { gzipSync } from 'fflate';
import { describe, expect } from 'vitest';
import type { FormatId } from '../../../src/model/types.ts';
import type { FileOutcome } from '../../../src/formats/read-file.ts';
import { inCountOrder } from '../../helpers/raw-samples.ts';
import { FORMAT_ARBS, type FormatKey, type Generated } from './generators.ts';
import { checkOutcome, fuzz, isFailedOutcome, parsedOf, recordDifference, records, sandboxReader, utf8, type Reader, type Reading } from './harness.ts';
import { anyUnits, applyTransport, FOREIGN_LINES, mutate, mutationArb, splitLines, transportArb, WEIRD_NUMBERS, type Mutation } from './mutations.ts';

/**
 * The properties every format module must have, instantiated once per format by its
 * `<format>.fuzz.test.ts` (one file each, so the formats run in parallel).
 */

type Read = Reader;

function expectRoundTrip(g: Generated, outcome: FileOutcome): void {
  const f = parsedOf(outcome);
  expect(f.format).toBe(g.expected.format);
  expect(f.series.map(inCountOrder)).toEqual(g.expected.series.map(inCountOrder));
  expect(f.status).toEqual(g.expected.status);
  expect(f.overall).toEqual(g.expected.overall);
  expect(f.commandLine).toEqual(g.expected.commandLine);
  expect(f.clientHint).toEqual(g.expected.clientHint);
  expect(f.producer).toEqual(g.expected.producer);
  expect(f.errors.map((e) => e.line)).toEqual(g.notes.map(() => 0));
  g.notes.forEach((note, i) => expect(f.errors[i]?.message).toMatch(note));
  expect(f.skippedLines).toBe(0);
  expect(f.lines).toBe(splitLines(g.text).length);
}

/** Errors on lines 1..upTo, as comparable strings. */
const lineErrors = (o: FileOutcome, upTo = Infinity) => o.errors.filter((e) => e.line > 0 && e.line <= upTo).map((e) => `${e.line}: ${e.message}`);

type CutAt = { kind: 'lineEnd' | 'anywhere' | 'nearEnd' | 'inNumber'; n: number };
const cutArb: fc.Arbitrary<CutAt> = fc.record({ kind: fc.constantFrom('lineEnd', 'anywhere', 'nearEnd', 'inNumber'), n: fc.nat() });

function cutIndex(text: string, c: CutAt): number {
  switch (c.kind) {
    case 'lineEnd': {
      const ends = [...text.matchAll(/\n/g)].map((m) => m.index);
      const at = ends[c.n % Math.max(1, ends.length)] ?? 0;
      // Either just before or just after the line end.
      return c.n % 2 === 0 ? at : at + 1;
    }
    case 'anywhere':
      return c.n % (text.length + 1);
    case 'nearEnd':
      return Math.max(0, text.length - 1 - (c.n % 40));
    case 'inNumber': {
      const digits = [...text.matchAll(/\d{2,}/g)];
      const m = digits[c.n % Math.max(1, digits.length)];
      return m?.index !== undefined ? m.index + 1 + (c.n % (m[0].length - 1)) : c.n % (text.length + 1);
    }
  }
}

/**
 * A cut file against the file of its complete lines, read by the same module: every record of
 * the complete lines comes out the same, and the partial last line adds or changes at most a few,
 * or one series (a cut summary line still parses, with a shorter number: that much cannot be told).
 */
function expectPrefixConsistent(cut: Reading, complete: Reading, completeLines: number): void {
  if (isFailedOutcome(cut.outcome)) return;
  const { onlyA, onlyB } = recordDifference(records(complete.outcome), records(cut.outcome));
  // A tool's summary row holds a dozen figures of one series (Locust's stats.csv): the partial last
  // line may add or change that one series whole, or at most three records of any kind. A report's
  // outcome line (vegeta's status codes) decides how one operation's figures are split between
  // `op`, `op-FAILED` and `op (including failures)` (src/formats/outcomes.ts): one operation's series.
  const seriesOf = (record: string) =>
    record
      .split('|')
      .slice(1, 4)
      .join('|')
      .replace(/(?: \(including failures\)|-FAILED)(?=\|[a-z]+$)/, '');
  const touched = new Set([...onlyA, ...onlyB].map(seriesOf));
  const differing = touched.size <= 1 ? Math.min(3, onlyA.length + onlyB.length) : onlyA.length + onlyB.length;
  expect(differing, `records differ: ${JSON.stringify({ onlyA, onlyB }).slice(0, 2000)}`).toBeLessThanOrEqual(3);
  if (!isFailedOutcome(complete.outcome)) expect(lineErrors(cut.outcome, completeLines)).toEqual(lineErrors(complete.outcome, completeLines));
}

/** Tokens each module's patterns are built from: repeated, they probe for super-linear regular expressions. */
const PATHOLOGICAL_PIECES = ['1', '9', ' ', '  ', ',', ', ', '.', '-', '=', '[', ']', '[x', 'e', 'E+', '\t', '"', '""', '#', '#[', 'HIST', 'A', '/', ':', ' sec: ', '1 sec: ', ' operations;', 'Count=', ', Max=', '[READ: ', 'READ,', ' count: ', '\n', '\n\n', ' \n', '[\n', '1\n', ',\n', 'Value ', '\u00a0', '\uFEFF', 'µ', '-_.'];

/**
 * `key`'s properties on valid files from `arb` (the format's generator, or a producer's real
 * fixtures); `garbagePath` is the name garbage is read under.
 */
export function formatSuite(key: FormatId, read: Read = sandboxReader(), arb: fc.Arbitrary<Generated> = FORMAT_ARBS[key as FormatKey], garbagePath = FORMAT_PATHS[key as FormatKey]): void {
  const forced = { formatId: key } as const;

  describe(`${key}: valid input`, () => {
    fuzz(key, 'random valid files parse back exactly what was generated', arb, async (g) => {
      const { outcome } = await read({ path: g.path, bytes: utf8(g.text) });
      checkOutcome(g.path, outcome, { textChars: g.text.length });
      expectRoundTrip(g, outcome);
    });

    fuzz(key, 'CRLF/CR, BOMs, UTF-16, gzip (one or several members) and any chunking give the same parse', fc.tuple(arb, transportArb), async ([g, t]) => {
      const plain = await read({ path: g.path, bytes: utf8(g.text) });
      const moved = await read({ path: g.path, bytes: applyTransport(g.text, t), chunkSizes: t.chunkSizes });
      checkOutcome(g.path, moved.outcome, { textChars: g.text.length * 2 });
      expect(moved.outcome).toEqual(plain.outcome);
    });
  });

  describe(`${key}: damaged input`, () => {
    fuzz(key, 'cut at any point (line end, mid-line, mid-number, near the end): complete lines parse as before', fc.tuple(arb, cutArb), async ([g, c]) => {
      const text = g.text.slice(0, cutIndex(g.text, c));
      // Cut after the last line's content, only its line end is missing: that line is complete.
      const lineEndsOnly = g.text.slice(text.length).trim() === '';
      const complete = lineEndsOnly ? text : text.slice(0, text.lastIndexOf('\n') + 1);
      const cut = await read({ path: g.path, bytes: utf8(text) });
      checkOutcome(g.path, cut.outcome, { textChars: text.length });
      const options = isFailedOutcome(cut.outcome) ? forced : { formatId: cut.outcome.format };
      const whole = await read({ path: g.path, bytes: utf8(complete), options });
      expectPrefixConsistent(cut, whole, splitLines(complete).length);
    });

    fuzz(key, 'a gzip cut anywhere: an error saying so, and exactly the complete lines before the cut', fc.tuple(arb, fc.nat()), async ([g, n]) => {
      const gz = gzipSync(utf8(g.text));
      // From 2 bytes on: a lone 0x1f cannot be told from text (the gzip magic is two bytes).
      const at = 2 + (n % (gz.length - 2));
      const { outcome } = await read({ path: `${g.path}.gz`, bytes: gz.subarray(0, at) });
      checkOutcome(`${g.path}.gz`, outcome, { textChars: g.text.length });
      if (isFailedOutcome(outcome)) {
        expect(outcome.errors[0]?.message).toMatch(/cut short|empty|not a recognised/);
        return;
      }
      expect(outcome.errors.filter((e) => e.line === 0).map((e) => e.message)).toContainEqual(expect.stringMatching(/gzip data ends before its end marker/));
      const lines = splitLines(g.text).slice(0, outcome.lines);
      const complete = lines.length > 0 ? `${lines.join('\n')}\n` : '';
      const whole = await read({ path: `${g.path}.gz`, bytes: utf8(complete), options: { formatId: outcome.format } });
      expect(records(outcome)).toEqual(records(whole.outcome));
      expect(lineErrors(outcome)).toEqual(lineErrors(whole.outcome));
    });

    fuzz(
      key,
      'flipped bits, impossible numbers, cut/duplicated/reordered lines, garbage, long lines: a parse with per-line errors or a file error',
      fc.tuple(arb, fc.array(mutationArb, { minLength: 1, maxLength: 6 }), fc.option(transportArb, { nil: undefined })),
      async ([g, mutations, t]) => {
        const lines = mutations.reduce<string[]>((acc, m) => mutate(acc, m), splitLines(g.text));
        const text = lines.length > 0 ? `${lines.join('\n')}\n` : '';
        const bytes = t ? applyTransport(text, t) : utf8(text);
        const { outcome } = await read({ path: g.path, bytes, chunkSizes: t?.chunkSizes ?? [] });
        checkOutcome(g.path, outcome, { textChars: text.length });
      },
    );

    fuzz(
      key,
      'the same damage with the format forced (no detection to hide behind)',
      fc.tuple(arb, fc.array(mutationArb, { minLength: 1, maxLength: 6 })),
      async ([g, mutations]) => {
        const lines = mutations.reduce<string[]>((acc, m) => mutate(acc, m), splitLines(g.text));
        const text = lines.join('\n');
        const { outcome } = await read({ path: g.path, bytes: utf8(text), options: forced });
        checkOutcome(g.path, outcome, { textChars: text.length });
      },
    );

    fuzz(
      key,
      'repeated tokens in 100k-character lines or heads: parsing stays linear',
      fc.tuple(arb, fc.oneof(fc.constantFrom(...PATHOLOGICAL_PIECES), fc.string({ minLength: 1, maxLength: 8 })), fc.constantFrom('newLine', 'append', 'middle', 'head'), fc.nat(), fc.boolean()),
      async ([g, piece, where, n, force]) => {
        const lines = splitLines(g.text);
        const long = piece.repeat(Math.ceil(100_000 / piece.length));
        const i = n % (lines.length + 1);
        if (where === 'head') lines.unshift(long);
        else if (where === 'newLine' || i === lines.length) lines.splice(i, 0, long);
        else {
          const line = lines[i] as string;
          const p = where === 'append' ? line.length : n % (line.length + 1);
          lines[i] = line.slice(0, p) + long + line.slice(p);
        }
        const text = lines.join('\n');
        const { outcome, ms } = await read({ path: g.path, bytes: utf8(text), options: force ? forced : {}, timeoutMs: 20_000 });
        checkOutcome(g.path, outcome, { textChars: text.length });
        // Linear work on 100k characters is a few milliseconds; a quadratic pattern takes seconds.
        expect(ms, `${Math.round(ms)} ms for ${text.length} characters`).toBeLessThan(1500);
      },
      { weight: 0.5, max: 2000 },
    );

    fuzz(
      key,
      'binary garbage, random units and token soup, detected or forced: no exception, bounded output',
      fc.tuple(
        fc.oneof(
          fc.uint8Array({ maxLength: 4000 }),
          anyUnits.map(utf8),
          fc.array(fc.oneof(fc.constantFrom(...FOREIGN_LINES, ...WEIRD_NUMBERS, ...PATHOLOGICAL_PIECES), anyUnits), { maxLength: 200 }).map((parts) => utf8(parts.join(''))),
        ),
        fc.boolean(),
      ),
      async ([bytes, force]) => {
        const path = garbagePath;
        const { outcome } = await read({ path, bytes, options: force ? forced : {} });
        // UTF-16 decoding can yield more characters than bytes only by BOM sniffing tricks; bytes bound chars otherwise.
        checkOutcome(path, outcome, { textChars: bytes.length });
      },
    );
  });
}

const FORMAT_PATHS: Record<FormatKey, string> = {
  'hdr-log': 'run/client1-READ.hdr',
  hgrm: 'run/merged-READ.hgrm',
  'ycsb-raw': 'run/client1-raw.csv',
  'ycsb-text': 'run/client1.stdout.txt',
  'generic-csv': 'run/results.csv',
};

/** Single-line damage that keeps line numbers (no inserted or removed line ends). */
export const inPlaceMutationArb: fc.Arbitrary<Mutation> = mutationArb.filter((m) => ['bitflip', 'number', 'cut', 'base64', 'cookie', 'token'].includes(m.kind));

/**
 * Damage confined to some data lines: errors only on those lines, and every record the other
 * lines give (read with the damaged lines blank) is still there.
 */
export function localitySuite(key: FormatKey, isDataLine: (line: string, index: number, lines: string[]) => boolean, read: Read): void {
  const arb = FORMAT_ARBS[key];
  fuzz(
    key,
    'a damaged data line costs that line only: errors name only damaged lines, every other record is kept',
    fc.tuple(arb, fc.array(fc.tuple(fc.nat(), inPlaceMutationArb), { minLength: 1, maxLength: 4 })),
    async ([g, damage]) => {
      const lines = splitLines(g.text);
      const candidates = lines.map((_, i) => i).filter((i) => isDataLine(lines[i] as string, i, lines));
      fc.pre(candidates.length > 0);
      const damaged = new Set<number>();
      const mutated = [...lines];
      const blanked = [...lines];
      for (const [n, m] of damage) {
        const i = candidates[n % candidates.length] as number;
        damaged.add(i + 1);
        // Line ends inside a line would renumber the rest; they are another property's business.
        mutated[i] = (mutate([mutated[i] as string], { ...m, at: 0 })[0] ?? '').replace(/[\r\n\u2028\u2029]/g, 'x');
        blanked[i] = '';
      }
      const forced = { formatId: key } as const;
      const got = await read({ path: g.path, bytes: utf8(`${mutated.join('\n')}\n`), options: forced });
      const base = await read({ path: g.path, bytes: utf8(`${blanked.join('\n')}\n`), options: forced });
      checkOutcome(g.path, got.outcome, { textChars: mutated.join('\n').length + 1 });
      // Forced, the only whole-file failure left is a file the damage left blank.
      if (isFailedOutcome(got.outcome)) {
        expect(got.outcome.errors.map((e) => e.message)).toEqual(['the file is empty']);
        return;
      }
      const f = parsedOf(got.outcome);
      for (const e of f.errors) if (e.line > 0) expect(damaged.has(e.line), `error at undamaged line ${e.line}: ${e.message}`).toBe(true);
      const { onlyA } = recordDifference(records(base.outcome), records(f));
      expect(onlyA, 'records of undamaged lines lost').toEqual([]);
    },
  );
}
