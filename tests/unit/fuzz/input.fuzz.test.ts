import fc from 'fast-check';
import { createGzip, constants as zlibConstants } from 'node:zlib';
import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { CancelledError, inChunks, isFailed, readFile, type FileOutcome } from '../../../src/formats/read-file.ts';
import { GZIP_RATIO_FLOOR_BYTES, MAX_GZIP_RATIO, InputPipeline } from '../../../src/formats/decompress.ts';
import { MAX_LINE_CHARS } from '../../../src/formats/text-input.ts';
import { latencies } from '../../helpers/raw-samples.ts';
import { FORMAT_ARBS, FORMAT_KEYS } from './generators.ts';
import { checkOutcome, fuzz, isFailedOutcome, parsedOf, records, sandboxReader, utf8 } from './harness.ts';
import { encodeText, splitLines } from './mutations.ts';

/**
 * The byte layer under every format: empty and odd encodings, gzip bombs and cut gzip, lines of
 * tens of megabytes, cancellation and failing sources.
 */

const read = sandboxReader();

const ONE_MIB = 1 << 20;

/** A gzip stream produced on the fly: `member` compressed once and repeated, never held expanded. */
async function* repeatedMembers(member: Uint8Array, times: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < times; i++) yield member;
}

/** `mib` MiB of zeros as a single gzip member, compressed as a stream (zlib's RLE mode: fast). */
async function gzipOfZeros(mib: number): Promise<Uint8Array> {
  const gz = createGzip({ level: 1, strategy: zlibConstants.Z_RLE });
  const parts: Buffer[] = [];
  gz.on('data', (b: Buffer) => parts.push(b));
  const done = new Promise((resolve) => gz.on('end', resolve));
  const zeros = Buffer.alloc(ONE_MIB);
  for (let i = 0; i < mib; i++) gz.write(zeros);
  gz.end();
  await done;
  return new Uint8Array(Buffer.concat(parts));
}

let zeros: Promise<Uint8Array> | null = null;
/** 100 MiB of zeros in one gzip member (~100 KB), made once. */
const zerosBomb = () => (zeros ??= gzipOfZeros(100));

function repeatToMiB(text: string): Uint8Array {
  return utf8(text.repeat(Math.ceil(ONE_MIB / text.length)).slice(0, ONE_MIB));
}

const messageOf = (o: FileOutcome) => o.errors.map((e) => e.message).join('; ');

describe('decompression bombs', () => {
  it('200 MB of result lines in a 200 KB gzip: stopped with a message naming the file, before 100 MB are expanded', async () => {
    // Concatenated members (as `cat a.gz b.gz` makes) of 1 MiB of raw-CSV rows each, ~1000:1.
    const header = utf8('READ latency raw data: op, timestamp(ms), latency(us)\n');
    // Rows padded to 1 KiB (trailing blanks are allowed) keep the parsing work small.
    const member = gzipSync(repeatToMiB(`${'READ,1795255946488,4181'.padEnd(1023)}\n`), { level: 9 });
    async function* bomb(): AsyncIterable<Uint8Array> {
      yield gzipSync(header);
      yield* repeatedMembers(member, 200);
    }
    const outcome = await readFile('uploads/bomb-raw.csv.gz', bomb());
    expect(isFailed(outcome)).toBe(true);
    expect(outcome.errors).toHaveLength(1);
    expect(outcome.errors[0]).toMatchObject({ file: 'uploads/bomb-raw.csv.gz', line: 0 });
    expect(messageOf(outcome)).toMatch(/^uploads\/bomb-raw\.csv\.gz: stopped decompressing .*decompression bomb/);
  });

  it('100 MB of zeros as one gzip member in one 100 KB chunk: stopped within the floor + one 16 KiB step at 1032:1', async () => {
    // Regression: fflate inflated the whole chunk (all 100 MB) before the guard could look at it.
    const bomb = await zerosBomb();
    const pipeline = new InputPipeline(() => undefined, 'zeros.gz');
    expect(() => pipeline.push(bomb, true)).toThrow(/^zeros\.gz: stopped decompressing — the file expands more than 200×/);
    expect(pipeline.expandedBytes).toBeLessThanOrEqual(GZIP_RATIO_FLOOR_BYTES + 16 * 1024 * 1032);
    expect(pipeline.expandedBytes).toBeGreaterThan(MAX_GZIP_RATIO * pipeline.compressedBytesSeen);
  });

  it('the same zeros through readFile in 64 KiB chunks: dropped as soon as the head shows no result file', async () => {
    const outcome = await readFile('zeros.hdr.gz', inChunks(await zerosBomb(), 64 * 1024));
    expect(isFailed(outcome)).toBe(true);
    expect(outcome.errors).toEqual([{ file: 'zeros.hdr.gz', line: 0, message: expect.stringMatching(/^not a recognised/) }]);
  });

  it('a legitimately repetitive small file (below the floor) is read whole', async () => {
    const text = `READ latency raw data: op, timestamp(ms), latency(us)\n${'READ,1795255946488,4181\n'.repeat(100_000)}`;
    const outcome = await readFile('small.csv.gz', repeatedMembers(gzipSync(utf8(text), { level: 9 }), 1));
    const f = parsedOf(outcome);
    expect(f.errors).toEqual([]);
    expect(f.series[0]?.kind === 'raw' && f.series[0].samples).toBe(100_000);
  });
});

describe('lines of many megabytes', () => {
  const junkLines: Record<string, string> = {
    'hdr-log': `0.100,1.000,0.001,HIST${'A'.repeat(10 * ONE_MIB)}`,
    hgrm: `${'1'.repeat(10 * ONE_MIB)} 0.5 10`,
    'ycsb-raw': `READ,1795255946488,${'4'.repeat(10 * ONE_MIB)}`,
    'ycsb-text': `[READ], Operations, ${'1'.repeat(10 * ONE_MIB)}`,
    // One field: whatever column the latency is in, this row has no valid one.
    'generic-csv': '9'.repeat(10 * ONE_MIB),
  };

  for (const key of FORMAT_KEYS) {
    fuzz(
      key,
      'a 10 MB line in the middle of a valid file: that line is an error, every other line reads as before',
      fc.tuple(FORMAT_ARBS[key], fc.nat()),
      async ([g, n]) => {
        const lines = splitLines(g.text);
        // After the first line, which carries the CSV header or the hgrm column names.
        const at = 1 + (n % lines.length);
        const damaged = [...lines.slice(0, at), junkLines[key] as string, ...lines.slice(at)];
        const text = `${damaged.join('\n')}\n`;
        const before = await read({ path: g.path, bytes: utf8(g.text), options: { formatId: key } });
        const { outcome, ms } = await read({ path: g.path, bytes: utf8(text), options: { formatId: key }, timeoutMs: 30_000 });
        checkOutcome(g.path, outcome, { textChars: text.length });
        const f = parsedOf(outcome);
        expect(f.errors.filter((e) => e.line > 0).map((e) => e.line)).toEqual([at + 1]);
        expect(f.errors.every((e) => e.message.length <= 400)).toBe(true);
        if (key !== 'hgrm') expect(records(f)).toEqual(records(before.outcome));
        expect(ms).toBeLessThan(3000);
      },
      { weight: 1 / 12, max: 25 },
    );
  }

  it(`a "line" over ${MAX_LINE_CHARS / ONE_MIB} Mi characters (no line ends, e.g. binary) fails the file with a message naming it`, async () => {
    const chunk = new Uint8Array(ONE_MIB).fill(0x41);
    async function* noLineEnds(): AsyncIterable<Uint8Array> {
      yield utf8('READ latency raw data: op, timestamp(ms), latency(us)\n');
      for (let i = 0; i < 80; i++) yield chunk;
    }
    const outcome = await readFile('huge.csv', noLineEnds());
    expect(isFailed(outcome)).toBe(true);
    expect(messageOf(outcome)).toMatch(/^huge\.csv: line 2 is longer than 67108864 characters/);
  }, 60_000);
});

describe('encodings, empty files, cancellation, failing sources', () => {
  for (const key of FORMAT_KEYS) {
    fuzz(
      key,
      'UTF-16 without a BOM (guessed from the zero bytes of ASCII text) gives the same parse',
      fc.tuple(FORMAT_ARBS[key], fc.constantFrom('utf-16le', 'utf-16be') as fc.Arbitrary<'utf-16le' | 'utf-16be'>),
      async ([g, encoding]) => {
        // The guess needs ASCII at the start; the rest may be anything.
        fc.pre(/^[\x20-\x7e]{4}/.test(g.text));
        const bytes = encodeText(g.text, encoding, true).subarray(2);
        const a = await read({ path: g.path, bytes: utf8(g.text) });
        const b = await read({ path: g.path, bytes });
        expect(b.outcome).toEqual(a.outcome);
      },
      { weight: 0.5 },
    );
  }

  it('empty in every way (nothing, blank lines, BOMs only, an empty gzip, UTF-16 blanks): "the file is empty"', async () => {
    const empties: [string, Uint8Array][] = [
      ['nothing', new Uint8Array(0)],
      ['line ends', utf8('\n\r\n\r\n')],
      ['spaces and tabs', utf8('  \t \n \t\n')],
      ['UTF-8 BOM', Uint8Array.of(0xef, 0xbb, 0xbf)],
      ['UTF-16LE BOM', Uint8Array.of(0xff, 0xfe)],
      ['UTF-16BE BOM and a line end', Uint8Array.of(0xfe, 0xff, 0, 10)],
      ['gzip of nothing', gzipSync(new Uint8Array(0))],
      ['gzip of blank lines', gzipSync(utf8('\n\n\n'))],
    ];
    for (const [name, bytes] of empties) {
      const { outcome } = await read({ path: 'e.hdr', bytes, chunkSizes: [1] });
      expect(isFailedOutcome(outcome) && outcome.errors.map((e) => e.message), name).toEqual(['the file is empty']);
    }
  });

  it('a cut gzip keeps the complete lines, drops the partial one and says so (regression: it read as a shorter valid file)', async () => {
    const text = `READ latency raw data: op, timestamp(ms), latency(us)\n${Array.from({ length: 3000 }, (_, i) => `READ,1795255946488,${1000 + i}`).join('\n')}\n`;
    const gz = gzipSync(utf8(text));
    const early = (await read({ path: 'c.csv.gz', bytes: gz.subarray(0, 12) })).outcome;
    expect(isFailedOutcome(early) && early.errors.map((e) => e.message)).toEqual(['c.csv.gz: the gzip data ends before its end marker — the file was cut short']);
    for (const cut of [gz.length - 4, gz.length - 8, Math.floor(gz.length / 2), 200]) {
      const f = parsedOf((await read({ path: 'c.csv.gz', bytes: gz.subarray(0, cut) })).outcome);
      const zero = f.errors.filter((e) => e.line === 0);
      expect(zero.map((e) => e.message).join(), String(cut)).toMatch(/^c\.csv\.gz: the gzip data ends before its end marker — the file was cut short/);
      // Every latency kept is one that was written: no cut "4181" read as "41".
      const kept = f.series[0]?.kind === 'raw' ? latencies(f.series[0]) : [];
      expect(kept).toEqual(kept.map((_, i) => 1000 + i));
    }
  });

  it('cancellation is the one exception that escapes readFile', async () => {
    const controller = new AbortController();
    async function* slow(): AsyncIterable<Uint8Array> {
      yield utf8('READ latency raw data: op, timestamp(ms), latency(us)\n');
      controller.abort();
      yield utf8('READ,1795255946488,4181\n');
    }
    await expect(readFile('c.csv', slow(), { signal: controller.signal })).rejects.toBeInstanceOf(CancelledError);
  });

  it('a source that fails mid-file (disk or network error): a file-level failure naming the file', async () => {
    async function* failing(): AsyncIterable<Uint8Array> {
      yield utf8('READ latency raw data: op, timestamp(ms), latency(us)\nREAD,1795255946488,4181\n');
      throw new Error('EIO: i/o error, read');
    }
    const outcome = await readFile('d.csv', failing());
    expect(isFailed(outcome)).toBe(true);
    expect(outcome.errors).toEqual([{ file: 'd.csv', line: 0, message: 'd.csv: reading failed (EIO: i/o error, read)' }]);
  });
});
