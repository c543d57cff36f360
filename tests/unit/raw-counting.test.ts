import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inChunks, readFile } from '../../src/formats/read-file.ts';
import { mergeCounted, SampleCounter } from '../../src/formats/sample-counter.ts';
import { cellSeconds, inCountOrder, rawSeries } from '../helpers/raw-samples.ts';
import { encodeText } from './fuzz/mutations.ts';

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('SampleCounter', () => {
  const sample = fc.record({
    // The first 256 series are counted as they come, later ones buffered (both kinds in one file).
    series: fc.oneof(fc.nat({ max: 5 }), fc.integer({ min: 254, max: 260 })),
    // Few distinct seconds and values, so counts repeat; NaN = a sample without a time.
    timeMs: fc.oneof(fc.integer({ min: 1_700_000_000_000, max: 1_700_000_009_999 }), fc.constant(Number.NaN), fc.double({ min: -5000, max: 5000, noNaN: true })),
    value: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 2 ** 40 }), fc.double({ min: 0, max: 1e6, noNaN: true })),
  });

  it('counts exactly what a string-keyed count gives, through table growth', () => {
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 12_000 }), (samples) => {
        const counter = new SampleCounter();
        for (const s of samples) counter.add(s.series, s.timeMs, s.value);
        const seriesCount = samples.reduce((n, s) => Math.max(n, s.series + 1), 0);
        const counted = counter.finish(seriesCount);
        for (let k = 0; k < seriesCount; k++) {
          const mine = samples.filter((s) => s.series === k);
          const expected = rawSeries('OP', 'us', mine.map((s) => s.timeMs), mine.map((s) => s.value));
          const got = { kind: 'raw' as const, op: 'OP', unit: 'us' as const, ...counted[k]! };
          expect(inCountOrder(got)).toEqual(inCountOrder(expected));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('merges two counts as counting all their samples at once would (a file read in parts)', () => {
    const counted = (samples: readonly { timeMs: number; value: number }[]) => {
      const counter = new SampleCounter();
      for (const s of samples) counter.add(0, s.timeMs, s.value);
      return { kind: 'raw' as const, op: 'OP', unit: 'us' as const, ...counter.finish(1)[0]! };
    };
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 3_000 }), fc.array(sample, { maxLength: 3_000 }), (xs, ys) => {
        const merged = { kind: 'raw' as const, op: 'OP', unit: 'us' as const, ...mergeCounted(counted(xs), counted(ys)) };
        const { secs, starts, value } = merged.counts;
        // Each second once, ascending, untimed (NaN) last, each with cells.
        secs.forEach((sec, k) => expect(k === 0 || sec > secs[k - 1]! || (Number.isNaN(sec) && k === secs.length - 1)).toBe(true));
        expect(starts.length).toBe(secs.length + 1);
        expect(starts.every((at, k) => k === 0 || at > starts[k - 1]!)).toBe(true);
        expect(starts[secs.length]).toBe(value.length);
        expect(inCountOrder(merged)).toEqual(inCountOrder(counted([...xs, ...ys])));
      }),
      { numRuns: 80 },
    );
  });

  it('counts long inputs in second order, each (second, value) once, however late samples arrive', () => {
    // Beyond a series' buffer, so samples are counted in batches: in time order, with threads' jitter
    // across batch boundaries, in reverse, and scattered over years — each against a string-keyed count.
    // Series 0 is counted as its samples come, series 300 (past the first 256) buffered.
    const ids = [0, 300];
    const layouts: Record<string, (i: number, rand: () => number) => number> = {
      ordered: (i) => 1.8e12 + i * 7,
      jittered: (i, rand) => 1.8e12 + i * 7 + Math.floor(rand() * 5000),
      reversed: (i) => 1.8e12 - i * 11,
      scattered: (_, rand) => 1.8e12 + Math.floor(rand() * 1e11),
      untimedMixed: (i, rand) => (rand() < 0.1 ? Number.NaN : 1.8e12 + i * 3),
    };
    for (const [name, timeOf] of Object.entries(layouts)) {
      const rand = mulberry32(name.length);
      const counter = new SampleCounter();
      const times: number[][] = [[], []];
      const values: number[][] = [[], []];
      for (let i = 0; i < 250_000; i++) {
        const series = i % 3 === 0 ? 1 : 0;
        const t = timeOf(i, rand);
        const v = Math.floor(rand() * 3000);
        counter.add(ids[series]!, t, v);
        times[series]!.push(t);
        values[series]!.push(v);
      }
      const all = counter.finish(ids[1]! + 1);
      ids.forEach((id, k) => {
        const counted = all[id]!;
        const { secs, starts } = counted.counts;
        const timed = secs.findIndex((s) => Number.isNaN(s));
        const end = timed < 0 ? secs.length : timed;
        const backwards = secs.subarray(0, end).findIndex((s, i) => i > 0 && s <= secs[i - 1]!);
        expect(backwards, `${name}: a second not after the one ahead of it`).toBe(-1);
        expect(end >= secs.length - 1, `${name}: untimed once, last`).toBe(true);
        expect(starts.findIndex((s, k) => k > 0 && s <= starts[k - 1]!), `${name}: a second without cells`).toBe(-1);
        const sec = cellSeconds(counted.counts);
        // Compared cell by cell with plain loops: a deep equality of 10⁵-cell columns takes seconds.
        const expected = rawSeries('OP', 'us', times[k]!, values[k]!);
        const want = new Map<string, number>();
        const expectedSec = cellSeconds(expected.counts);
        expected.counts.value.forEach((v, i) => want.set(`${expectedSec[i]}|${v}`, expected.counts.n[i]!));
        const wrong: string[] = [];
        counted.counts.value.forEach((v, i) => {
          const key = `${sec[i]}|${v}`;
          if (want.get(key) !== counted.counts.n[i]) wrong.push(`${key}: ${counted.counts.n[i]} (want ${want.get(key)})`);
          want.delete(key);
        });
        expect(wrong.slice(0, 5), `${name}: cells counted wrong or twice`).toEqual([]);
        expect([...want.keys()].slice(0, 5), `${name}: cells missing`).toEqual([]);
        expect([counted.samples, counted.firstMs, counted.lastMs]).toEqual([expected.samples, expected.firstMs, expected.lastMs]);
      });
    }
  });

  it('keeps -0 and 0 as one value and NaN seconds as one second', () => {
    const counter = new SampleCounter();
    counter.add(0, Number.NaN, 0);
    counter.add(0, Number.NaN, -0);
    counter.add(0, 1500, 7);
    const [counted] = counter.finish(1);
    expect(counted?.samples).toBe(3);
    expect([counted?.firstMs, counted?.lastMs]).toEqual([1500, 1500]);
    expect(Array.from(counted!.counts.n).sort()).toEqual([1, 2]);
  });
});

describe('YCSB raw rows read from bytes', () => {
  // Lines on both sides of every rule of the byte reader: what it must take, and what it must hand
  // to the full rules (which then keep or reject the line with the same message as text input).
  const line = fc.oneof(
    fc.tuple(fc.constantFrom('READ', 'UPDATE', 'READ-FAILED', 'Intended-READ', 'op_2', 'r'), fc.integer({ min: 0, max: 9_999_999_999_999 }), fc.integer({ min: 0, max: 10 ** 15 - 1 })).map(([op, t, l]) => `${op},${t},${l}`),
    fc.constantFrom(
      'READ latency raw data: op, timestamp(ms), latency(us)',
      'READ,1795255946488,4181 ',
      'READ,1795255946488,-4181',
      'READ,99999999999999,1',
      'READ,9999999999999,1',
      'READ,1795255946488,1234567890123456',
      'READ,1795255946488,',
      'READ,,5',
      '1READ,1795255946488,5',
      'RÉAD,1795255946488,5',
      'READ,1795255946488,5,6',
      ' READ,1795255946488,5',
      'READ;1795255946488;5',
      '',
      '   ',
      '\u00a0',
      'READ,1795255946488,4181\u2028',
      '[OVERALL], RunTime(ms), 10',
    ),
  );

  it('give exactly the parse of the same file read as text (UTF-16), errors included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 60 }), fc.constantFrom('\n', '\r\n', '\r'), fc.integer({ min: 1, max: 64 }), async (lines, eol, chunk) => {
        const text = `READ latency raw data: op, timestamp(ms), latency(us)${eol}${lines.join(eol)}${eol}`;
        const fromBytes = await readFile('c.csv', inChunks(encodeText(text, 'utf-8', chunk % 2 === 0), chunk), { formatId: 'ycsb-raw' });
        const fromText = await readFile('c.csv', inChunks(encodeText(text, 'utf-16le', true), chunk), { formatId: 'ycsb-raw' });
        if ('failed' in fromBytes || 'failed' in fromText) throw new Error('a raw file with a header must not fail');
        expect({ ...fromBytes, series: fromBytes.series.map(inCountOrder) }).toEqual({ ...fromText, series: fromText.series.map(inCountOrder) });
      }),
      { numRuns: 300 },
    );
  });
});
