import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packOutcome, unpackOutcome } from '../../src/engine/outcome-transfer.ts';
import { isFailed, readFile, type FileOutcome } from '../../src/formats/read-file.ts';
import { encodeHistogramV2Compressed } from '../../src/model/hdr-codec.ts';

/**
 * A parsed file crosses from a parse worker to the engine worker packed, with its buffers
 * transferred (structuredClone with a transfer list is what postMessage does): it must arrive
 * identical, leave nothing behind in the sender, and leave the sender's decoder able to go on.
 */

const CORPUS = 'tests/fixtures/corpus';
const FILES = [
  `${CORPUS}/sweep-uniform-a/target-1000/client1-READ.hdr`,
  `${CORPUS}/tagged-from-sweep/client1-tagged.hlog`,
  `${CORPUS}/tagged-from-sweep/merged-READ.hgrm`,
  `${CORPUS}/raw-csv-b/target-unthrottled/client1-raw.csv`,
  `${CORPUS}/raw-csv-b/target-unthrottled/client1.stdout.txt`,
  `${CORPUS}/sweep-uniform-a/target-1000/client1.stderr.txt`,
];

async function parse(path: string, bytes: Uint8Array = readFileSync(path)): Promise<FileOutcome> {
  return readFile(path, (async function* () {
    yield bytes;
  })());
}

/** Everything an outcome holds, typed arrays as their type and values. */
function plain(outcome: FileOutcome): string {
  return JSON.stringify(outcome, (_key, value: unknown) =>
    value instanceof Float64Array ? { Float64Array: Array.from(value) } : value instanceof Int32Array ? { Int32Array: Array.from(value) } : value instanceof Uint32Array ? { Uint32Array: Array.from(value) } : value,
  );
}

function typedArraysOf(outcome: FileOutcome): (Float64Array | Int32Array | Uint32Array)[] {
  if (isFailed(outcome)) return [];
  return outcome.series.flatMap((s) => {
    if (s.kind === 'histogram') return s.intervals.flatMap(({ histogram: h }) => [h.index, h.count]);
    if (s.kind === 'raw') return [s.counts.secs, s.counts.starts, s.counts.value, s.counts.n];
    return [];
  });
}

function send(outcome: FileOutcome): FileOutcome {
  const { packed, transfer } = packOutcome(outcome);
  return unpackOutcome(structuredClone(packed, { transfer }));
}

describe('a parsed file sent between threads', () => {
  it.each(FILES)('arrives identical, every typed array moved rather than copied: %s', async (path) => {
    const outcome = await parse(path);
    expect(isFailed(outcome)).toBe(false);
    const before = plain(outcome);
    const arrays = typedArraysOf(outcome);
    const { packed, transfer } = packOutcome(outcome);
    expect(new Set(transfer).size).toBe(transfer.length);
    const received = unpackOutcome(structuredClone(packed, { transfer }));
    expect(plain(received)).toBe(before);
    // Detached: the sender kept no copy of anything.
    for (const a of arrays) expect(a.buffer.byteLength).toBe(0);
    expect(Object.keys(received)).toEqual(Object.keys(JSON.parse(before)));
  });

  it('moves the intervals of a log in a few buffers, not one per histogram', async () => {
    const outcome = await parse(FILES[0]!);
    const intervals = isFailed(outcome) ? 0 : outcome.series.reduce((n, s) => n + (s.kind === 'histogram' ? s.intervals.length : 0), 0);
    const { transfer } = packOutcome(outcome);
    expect(transfer.length).toBeLessThan(intervals / 10);
  });

  it('a failed file crosses as it is', async () => {
    const outcome = await parse('notes.md', new TextEncoder().encode('# not a result\n'));
    expect(isFailed(outcome)).toBe(true);
    expect(send(outcome)).toEqual(outcome);
  });

  it('the decoder goes on after its slabs were transferred, also with histograms that are all empty', async () => {
    const empty = encodeHistogramV2Compressed({
      precision: { significantDigits: 3, lowestDiscernibleValue: 1 },
      highestTrackableValue: 3_600_000_000,
      integerToDoubleConversionRatio: 1,
      histogram: { lo: new Float64Array(0), width: new Float64Array(0), count: new Float64Array(0), totalCount: 0 },
    });
    const emptyLog = new TextEncoder().encode(`0.000,1.000,0.000,${empty}\n1.000,1.000,0.000,${empty}\n`);
    // A slab holding nothing but empty histograms, transferred, is the case a byte count alone misses.
    const logs: [string, Uint8Array | undefined][] = [[FILES[0]!, undefined], ['client1-READ.hdr', emptyLog], ['client1-READ.hdr', emptyLog], [FILES[1]!, undefined]];
    const expected = [];
    for (const [path, bytes] of logs) expected.push(plain(await parse(path, bytes)));
    // Each file sent before the next is parsed, as a parse worker does.
    const got = [];
    for (const [path, bytes] of logs) got.push(plain(send(await parse(path, bytes))));
    expect(got).toEqual(expected);
    expect(expected[1]).toContain('"index":{"Int32Array":[]}');
  });

  it('keeps each histogram\'s count type: 32-bit counts, and doubles where a count needs more', async () => {
    const histogram = (count: number) =>
      encodeHistogramV2Compressed({
        precision: { significantDigits: 3, lowestDiscernibleValue: 1 },
        highestTrackableValue: 3_600_000_000,
        integerToDoubleConversionRatio: 1,
        histogram: { lo: Float64Array.of(100), width: Float64Array.of(1), count: Float64Array.of(count), totalCount: count },
      });
    const log = new TextEncoder().encode(`0.000,1.000,0.000,${histogram(7)}\n1.000,1.000,0.000,${histogram(2 ** 40 + 3)}\n`);
    const before = plain(await parse('client1-READ.hdr', log));
    expect(before).toContain('"count":{"Uint32Array":[7]}');
    expect(before).toContain(`"count":{"Float64Array":[${2 ** 40 + 3}]}`);
    expect(plain(send(await parse('client1-READ.hdr', log)))).toBe(before);
  });
});
