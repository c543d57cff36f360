import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compressedEnvelope, decodeHistogramBytes, HdrDecodeError } from '../../../src/model/hdr-codec.ts';
import { encodeBuckets, fixed, hdrLogArb } from './generators.ts';
import { bucketBudget, checkOutcome, fuzz, parsedOf, recordDifference, records, sizeOf, utf8, type Reader } from './harness.ts';
import { splitLines } from './mutations.ts';
import { formatSuite, localitySuite } from './suite.ts';

/** The properties of the hdr-log module, on the reader of the test file that runs them. */
export function hdrLogProperties(read: Reader): void {
  formatSuite('hdr-log', read);

  const isData = (l: string) => l.length > 0 && !l.startsWith('#') && !l.startsWith('"');
  const opKey = (l: string) => (l.startsWith('Tag=') ? l.slice(0, l.indexOf(',')) : '');

  describe('hdr-log: locality, order and time', () => {
    // The first interval decides the time origin, and the first of each op its precision: those
    // lines legitimately affect others, so the damage goes elsewhere.
    localitySuite(
      'hdr-log',
      (line, i, lines) => isData(line) && lines.findIndex(isData) !== i && lines.findIndex((l) => isData(l) && opKey(l) === opKey(line)) !== i,
      read,
    );

    fuzz('hdr-log', 'intervals in any order (timestamps going backwards), duplicated or overlapping: the same intervals', fc.tuple(hdrLogArb, fc.array(fc.nat()), fc.array(fc.nat(), { maxLength: 5 })), async ([g, keys, dups]) => {
      const lines = splitLines(g.text);
      const head = lines.filter((l) => !isData(l));
      const data = lines.filter(isData);
      const copies = dups.map((d) => data[d % data.length] as string);
      const shuffled = data.map((l, i) => ({ l, k: keys[i] ?? i })).sort((a, b) => a.k - b.k).map((x) => x.l);
      const inOrder = await read({ path: g.path, bytes: utf8([...head, ...data, ...copies, ''].join('\n')) });
      const moved = await read({ path: g.path, bytes: utf8([...head, ...copies, ...shuffled, ''].join('\n')) });
      checkOutcome(g.path, moved.outcome, { textChars: g.text.length * 2 });
      expect(parsedOf(moved.outcome).errors).toEqual([]);
      expect(recordDifference(records(inOrder.outcome), records(moved.outcome))).toEqual({ onlyA: [], onlyB: [] });
    });

    fuzz(
      'hdr-log',
      'base times and timestamps up to the year 2300 and beyond: every kept start is an exact integer µs, or the line is an error',
      fc.record({
        header: fc.constantFrom('BaseTime', 'StartTime'),
        baseMs: fc.oneof(fc.integer({ min: 0, max: 10_000_000_000_000 }), fc.integer({ min: 0, max: 2 ** 53 - 1 })),
        stampsMs: fc.array(fc.oneof(fc.integer({ min: 0, max: 10_000_000_000_000 }), fc.integer({ min: 0, max: 2 ** 53 - 1 })), { minLength: 1, maxLength: 5 }),
      }),
      async ({ header, baseMs, stampsMs }) => {
        const blob = encodeBuckets({ significantDigits: 2, lowestDiscernibleValue: 1 }, { lo: [5], width: [1], count: [1] });
        const lines = [`#[${header}: ${fixed(baseMs, 3)} (seconds since epoch)]`, ...stampsMs.map((ms) => `${fixed(ms, 3)},1.000,0.001,${blob}`)];
        const text = `${lines.join('\n')}\n`;
        const { outcome } = await read({ path: 'x/client1-READ.hdr', bytes: utf8(text) });
        checkOutcome('x/client1-READ.hdr', outcome, { textChars: text.length });
        const f = parsedOf(outcome);
        const kept = f.series.flatMap((s) => (s.kind === 'histogram' ? s.intervals : [])).length;
        expect(kept + f.skippedLines).toBe(stampsMs.length);
      },
    );
  });

  describe('hdr-log: numbers', () => {
    // Regression: secondsToMicros fell back to Number(), for which "" and " " are 0 and 0x10 is 16.
    fuzz(
      'hdr-log',
      'an empty, blank, hex or binary timestamp or length is an error on its line, never read as some number',
      fc.tuple(hdrLogArb, fc.nat(), fc.constantFrom(0, 1), fc.constantFrom('', ' ', '0x10', '0b1', '0o7', '1_0', 'NaN', '-', '.', 'e5', '1e', '٣')),
      async ([g, n, field, value]) => {
        const lines = splitLines(g.text);
        const data = lines.map((l, i) => (isData(l) ? i : -1)).filter((i) => i >= 0);
        const at = data[n % data.length] as number;
        const line = lines[at] as string;
        const tagged = line.startsWith('Tag=') ? line.indexOf(',') + 1 : 0;
        const fields = line.slice(tagged).split(',');
        fields[field] = value;
        lines[at] = line.slice(0, tagged) + fields.join(',');
        const text = `${lines.join('\n')}\n`;
        const { outcome } = await read({ path: g.path, bytes: utf8(text), options: { formatId: 'hdr-log' } });
        checkOutcome(g.path, outcome, { textChars: text.length });
        expect(parsedOf(outcome).errors.map((e) => e.line)).toContain(at + 1);
      },
    );
  });

  // ---- Hand-built encodings for the decoder's bounds -------------------------------------------

  function int64(view: DataView, at: number, v: number | bigint): void {
    view.setBigInt64(at, BigInt(v));
  }

  /** V2 (uncompressed) encoding with the given header fields and a raw payload. */
  function v2(digits: number, lowest: number, highest: number | bigint, payload: Uint8Array, declaredLength = payload.length): Uint8Array {
    const out = new Uint8Array(40 + payload.length);
    const view = new DataView(out.buffer);
    view.setInt32(0, 0x1c849313);
    view.setInt32(4, declaredLength);
    view.setInt32(8, 0);
    view.setInt32(12, digits);
    int64(view, 16, lowest);
    int64(view, 24, highest);
    view.setFloat64(32, 1);
    out.set(payload, 40);
    return out;
  }

  const compressed = (inner: Uint8Array): Uint8Array => compressedEnvelope(inner, 0x1c849314, 9);

  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  /** Java's Long.MAX_VALUE, the largest highestTrackableValue a header can claim. */
  const LONG_MAX = 2n ** 63n - 1n;

  describe('hdr-log: decompression bombs inside histograms', () => {
    fuzz(
      'hdr-log',
      'the decoder keeps at most one bucket per inflated payload byte, and inflates at most 1032× its input',
      fc.record({
        digits: fc.integer({ min: 0, max: 5 }),
        n: fc.integer({ min: 0, max: 200_000 }),
        pattern: fc.constantFrom([2], [2, 1], [4, 3, 2], [0xfe, 0xff, 0xff, 0xff, 0x0f], [0x80]),
        declared: fc.option(fc.constantFrom(0x7fffffff, -1, 0), { nil: undefined }),
        highest: fc.constantFrom(2 ** 40, 2 ** 53, LONG_MAX, 2),
      }),
      ({ digits, n, pattern, declared, highest }) => {
        const payload = new Uint8Array(n).map((_, i) => pattern[i % pattern.length] as number);
        const blob = compressed(v2(digits, 1, highest, payload, declared));
        const started = performance.now();
        try {
          const d = decodeHistogramBytes(blob);
          expect(d.histogram.lo.length).toBeLessThanOrEqual(payload.length);
          expect(d.histogram.lo.length).toBeLessThanOrEqual(1032 * (blob.length - 8));
        } catch (e) {
          if (!(e instanceof HdrDecodeError)) throw e;
        }
        expect(performance.now() - started).toBeLessThan(2000);
      },
      { weight: 0.5, max: 2000 },
    );

    it('a log of bomb lines keeps no more buckets than its budget and names every refused line', async () => {
      // One count in each of 400k consecutive buckets: ~1 KB of zlib data, ~10 MB once decoded.
      const bomb = b64(compressed(v2(5, 1, 2 ** 40, new Uint8Array(400_000).fill(2))));
      const normal = b64(compressed(v2(3, 1, 3_600_000_000, Uint8Array.of(0, 2, 4))));
      const lines = ['#[StartTime: 1795255808.760 (seconds since epoch)]', `0.000,1.000,0.001,${normal}`];
      for (let i = 1; i <= 5; i++) lines.push(`Tag=BOMB,${i}.000,1.000,0.001,${bomb}`);
      const text = `${lines.join('\n')}\n`;
      const { outcome, ms } = await read({ path: 'x/client1-READ.hdr', bytes: utf8(text) });
      checkOutcome('x/client1-READ.hdr', outcome, { textChars: text.length });
      const f = parsedOf(outcome);
      expect(sizeOf(f).buckets).toBeLessThanOrEqual(bucketBudget(text.length));
      expect(f.errors.map((e) => e.line)).toEqual([3, 4, 5, 6, 7]);
      expect(f.errors[0]?.message).toMatch(/400000 non-empty buckets.*decompression bomb/);
      expect(f.series.map((s) => s.op)).toEqual(['READ']);
      expect(ms).toBeLessThan(5000);
    });

    it('header fields claiming huge sizes cost nothing: the payload, not the header, bounds the work', () => {
      for (const [digits, lowest, highest, declared] of [
        [5, 1, LONG_MAX, 0x7fffffff],
        [5, 2 ** 40, LONG_MAX, 16],
        [0, 1, 2, 1],
        [6, 1, 1000, 1],
        [3, 0, 1000, 1],
        [3, 1, -5, 1],
      ] as const) {
        const started = performance.now();
        const blob = v2(digits, lowest, highest, Uint8Array.of(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2), declared);
        for (const bytes of [blob, compressed(blob)]) {
          try {
            const d = decodeHistogramBytes(bytes);
            expect(d.histogram.lo.length).toBeLessThanOrEqual(16);
          } catch (e) {
            expect(e).toBeInstanceOf(HdrDecodeError);
          }
        }
        expect(performance.now() - started).toBeLessThan(200);
      }
    });
  });
}
