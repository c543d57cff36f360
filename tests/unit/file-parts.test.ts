import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHttpToolRun } from '../../scripts/generate-data.ts';
import { describe, expect, it } from 'vitest';
import { partBytes, partRanges, readInParts } from '../../src/engine/file-parts.ts';
import { readPart } from '../../src/engine/parse-pool.ts';
import { isFailed, readFile, type FileOutcome } from '../../src/formats/read-file.ts';
import type { ParsedFile } from '../../src/model/types.ts';
import { inCountOrder } from '../helpers/raw-samples.ts';
import { packOutcome, unpackOutcome } from '../../src/engine/outcome-transfer.ts';
import { buildLevels, takePrebuiltLevels } from '../../src/engine/prebuilt-levels.ts';
import { BLOCK_SIZES, SecondCells, TimeLevels, type LevelColumns } from '../../src/engine/second-cells.ts';
import { BucketSum } from '../../src/engine/bucket-sum.ts';

/**
 * A large file read in parts on several parse workers must give exactly the parse of the file read
 * whole: every line owned by one part, samples of a second two parts share counted once, errors at
 * the file's own line numbers.
 */

const utf8 = new TextEncoder();

async function bytesOf(stream: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const b of stream) parts.push(b.slice());
  return new TextDecoder().decode(Buffer.concat(parts));
}

async function* whole(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  // Small chunks, as a File's stream gives them.
  for (let i = 0; i < bytes.length; i += 977) yield bytes.subarray(i, i + 977);
}

function comparable(f: FileOutcome): unknown {
  if (isFailed(f)) return f;
  return { ...f, series: f.series.map(inCountOrder) };
}

async function readBoth(name: string, text: string, parts: number, minBytes: number): Promise<{ whole: FileOutcome; parted: FileOutcome | null }> {
  const bytes = utf8.encode(text);
  const input = { path: name, file: new File([bytes], name) };
  const parted = await readInParts(input, parts, () => {}, (part) => readPart(input, part, {}), minBytes);
  return { whole: await readFile(name, whole(bytes)), parted };
}

describe('a file read in parts', () => {
  it('every line belongs to exactly one part, wherever the ranges fall (long lines, blank lines, no final line end)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: fc.constantFrom('a', 'b', 'é', '\n'), maxLength: 40 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 9 }), async (pieces, count) => {
        const text = pieces.join('');
        const file = new Blob([utf8.encode(text)]);
        const size = file.size;
        const cuts = partRanges(size, count, 2);
        expect(cuts[0]?.[0]).toBe(0);
        expect(cuts[cuts.length - 1]?.[1]).toBe(size);
        let joined = '';
        for (const [start, end] of cuts) joined += await bytesOf(partBytes(file, start, end, new Uint8Array(0)));
        expect(joined).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('puts the preamble before each part', async () => {
    const file = new Blob([utf8.encode('h\nr1\nr2\nr3\n')]);
    expect(await bytesOf(partBytes(file, 5, 11, utf8.encode('h\n')))).toBe('h\nr2\nr3\n');
  });

  // YCSB raw rows with a damaged line here and there, an op block that starts in the middle, and
  // seconds that straddle the part boundaries.
  /** YCSB raw rows over 90 seconds; latencies of 5,000 values, or (`distinct`) every one different. */
  function ycsbRaw(rows: number, distinct = false): string {
    const lines = ['READ latency raw data: op, timestamp(ms), latency(us)'];
    for (let i = 0; i < rows; i++) {
      if (i === Math.floor(rows / 2)) lines.push('UPDATE latency raw data: op, timestamp(ms), latency(us)');
      const op = i < rows / 2 ? 'READ' : 'UPDATE';
      lines.push(i % 499 === 13 ? `${op},17952559,bad` : `${op},${1795255800000 + ((i * 37) % 90_000)},${distinct ? 100 + i : 100 + ((i * 7919) % 5000)}`);
    }
    return `${lines.join('\n')}\n`;
  }

  it('gives exactly the parse of the whole file: YCSB raw, split into 2, 3 and 7 parts, errors beyond the listed ones too', async () => {
    const text = ycsbRaw(60_000);
    for (const parts of [2, 3, 7]) {
      const { whole: w, parted } = await readBoth('run/client1-raw.csv', text, parts, 1000);
      expect(parted, `${parts} parts`).not.toBeNull();
      expect((w as ParsedFile).errors.at(-1)?.message).toBe('further errors in this file are not listed');
      expect(comparable(parted as FileOutcome), `${parts} parts`).toEqual(comparable(w));
    }
  });

  it('gives exactly the parse of the whole file: a CSV with a header every part is read after', async () => {
    const rows = Array.from({ length: 30_000 }, (_, i) => (i % 1111 === 5 ? `${1795255800 + i / 100},x,GET,ok` : `${(1795255800 + i / 100).toFixed(2)},${i % 700},${i % 3 ? 'GET' : 'PUT'},${i % 50 ? 'ok' : 'error'}`));
    const text = `time,latency_ms,op,status\n${rows.join('\n')}\n`;
    const { whole: w, parted } = await readBoth('run/loader.csv', text, 4, 1000);
    expect(parted).not.toBeNull();
    expect((w as ParsedFile).format).toBe('generic-csv');
    expect(comparable(parted as FileOutcome)).toEqual(comparable(w));
  });

  it("gives exactly the parse of the whole file: the HTTP load tools' per-request files", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'benchlens-parts-'));
    try {
      for (const tool of ['jmeter', 'k6', 'gatling', 'vegeta'] as const) {
        const file = join(dir, `${tool}.log`);
        await writeHttpToolRun(tool, 4000, 600, file);
        for (const parts of [2, 3]) {
          const { whole: w, parted } = await readBoth(`run/${tool}-results`, readFileSync(file, 'utf8'), parts, 1000);
          expect((w as ParsedFile).format, tool).toBe(tool);
          expect(parted, `${tool}, ${parts} parts`).not.toBeNull();
          expect(comparable(parted as FileOutcome), `${tool}, ${parts} parts`).toEqual(comparable(w));
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads whole a file whose parts show they cannot read it as the whole: a quoted line end, a second run', async () => {
    const row = (i: number, message: string) => `${1795255800000 + i},${i % 300},GET /,200,OK,Thread Group 1-1,text,${message ? 'false' : 'true'},${message},10,10,1,1,http://h/,${i % 200},0,0`;
    const jtl = `timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n${Array.from({ length: 3000 }, (_, i) => row(i, i === 1500 ? '"Test failed: code expected to equal /\n\n****** received  : [[[500]]]\n/"' : '')).join('\n')}\n`;
    const request = (i: number) => `REQUEST\t\tGET /\t${1795255800000 + i}\t${1795255800000 + 2 * i}\tOK\t `;
    const run = 'RUN\tx.Sim\tsim\t1795255800000\t \t3.9.5';
    const gatling = `${run}\n${Array.from({ length: 3000 }, (_, i) => (i === 2000 ? run : request(i))).join('\n')}\n`;
    for (const [name, text] of [['run/results.jtl', jtl], ['run/simulation.log', gatling]]) {
      const { whole: w, parted } = await readBoth(name as string, text as string, 3, 1000);
      expect((w as ParsedFile).errors, name).toEqual(name === 'run/results.jtl' ? [] : [expect.objectContaining({ message: expect.stringContaining('a second RUN record') })]);
      expect(parted, name).toBeNull();
    }
  });

  it('reads whole what cannot be split: small, gzipped, quoted CSV, formats of several lines a record', async () => {
    const cases: [string, Uint8Array<ArrayBuffer>][] = [
      ['run/small.csv', utf8.encode(ycsbRaw(10))],
      ['run/q.csv', utf8.encode(`time,latency_ms,op\n${Array.from({ length: 5000 }, (_, i) => `${1795255800 + i},${i},"GET"`).join('\n')}\n`)],
      ['run/c1.stdout.txt', utf8.encode(`[OVERALL], RunTime(ms), 10\n${'[READ], Operations, 1\n'.repeat(5000)}`)],
      ['run/z.csv.gz', new Uint8Array(Buffer.concat([Uint8Array.of(0x1f, 0x8b), utf8.encode(ycsbRaw(5000))]))],
    ];
    for (const [name, bytes] of cases) {
      const input = { path: name, file: new File([bytes], name) };
      const minBytes = name === 'run/small.csv' ? 1e9 : 1000;
      expect(await readInParts(input, 2, () => {}, (part) => readPart(input, part, {}), minBytes), name).toBeNull();
    }
  });

  it('hands on levels of blocks merged from its parts equal to those built from the whole', async () => {
    const cells = (levels: readonly (LevelColumns | null)[]) =>
      levels.map((level) => {
        if (level === null) return null;
        const out = new Map<string, number>();
        level.secs.forEach((sec, k) => {
          for (let i = level.starts[k]!; i < level.starts[k + 1]!; i++) out.set(`${sec}:${level.keys[i]}`, (out.get(`${sec}:${level.keys[i]}`) ?? 0) + level.n[i]!);
        });
        return out;
      });
    /** The buckets of seconds [a, z) as the levels sum them, in order. */
    const windowSum = (levels: TimeLevels, a: number, z: number) => {
      const sum = new BucketSum();
      levels.addRange(sum, a, z);
      return sum.drainInOrder();
    };
    // Latencies that repeat are summed per block; every one different, blocks are ranges of the seconds (null).
    for (const distinct of [false, true]) {
      const text = ycsbRaw(40_000, distinct);
      const bytes = utf8.encode(text);
      const input = { path: 'run/client1-raw.csv', file: new File([bytes], 'client1-raw.csv') };
      // As a parse worker does: each part's levels built where it was parsed, and sent with it.
      const asFromWorker = async (part: Parameters<typeof readPart>[1]) => {
        const outcome = await readPart(input, part, {});
        return unpackOutcome(packOutcome(outcome, isFailed(outcome) ? undefined : buildLevels(outcome)).packed);
      };
      for (const parts of [2, 5]) {
        const parted = (await readInParts(input, parts, () => {}, asFromWorker, 1000)) as ParsedFile;
        expect(parted.series.map((s) => s.op)).toEqual(['READ', 'UPDATE']);
        for (const s of parted.series) {
          if (s.kind !== 'raw') throw new Error('raw series expected');
          const prebuilt = takePrebuiltLevels(s, BLOCK_SIZES);
          expect(prebuilt, `${parts} parts, ${s.op}`).not.toBeNull();
          const sum = new BucketSum();
          const built = TimeLevels.build(SecondCells.ofRaw(s), BLOCK_SIZES, sum);
          // Every value different: no level summed. Repeating: the 60-second blocks are (the 600-second
          // one, of two 60-second blocks of much the same values, need not be).
          if (distinct) expect(built.blockColumns.every((level) => level === null)).toBe(true);
          else expect(built.blockColumns[0]).not.toBeNull();
          // A level summed both ways holds the same cells (small parts may not sum one the whole does).
          const [fromParts, fromWhole] = [cells(prebuilt!.levels), cells(built.blockColumns)];
          fromParts.forEach((level, k) => {
            if (level && fromWhole[k]) expect(level).toEqual(fromWhole[k]);
          });
          // Blocks in second order, each once.
          for (const level of prebuilt!.levels) if (level) expect([...level.secs]).toEqual([...new Set(level.secs)].sort((a, b) => a - b));
          // The parts' sums over all time merged: the sum of the whole series, in the same order.
          expect(prebuilt!.whole).toEqual(built.wholeSum(sum));
          expect(prebuilt!.whole.totalCount).toBe(s.samples);
          // Windows summed from the parts' levels as from the whole's, ranges of seconds or not.
          const handed = TimeLevels.ofColumns(SecondCells.ofRaw(s), BLOCK_SIZES, prebuilt!.levels, prebuilt!.whole);
          const start = Math.floor(s.firstMs! / 1000);
          for (const [a, z] of [[start, start + 90], [start + 7, start + 71], [start - 600, start + 1200], [start + 60, start + 61]] as const) {
            expect(windowSum(handed, a, z), `[${a - start}, ${z - start})`).toEqual(windowSum(built, a, z));
          }
        }
      }
    }
  });

  it('cuts between parts where an operation\'s block starts, when one is near, so that a part holds whole series', async () => {
    const text = ycsbRaw(40_000);
    const bytes = utf8.encode(text);
    const header = text.indexOf('UPDATE latency raw data');
    const input = { path: 'run/client1-raw.csv', file: new File([bytes], 'client1-raw.csv') };
    const cuts: number[] = [];
    const parted = await readInParts(input, 2, () => {}, (part) => {
      cuts.push(part.start);
      return readPart(input, part, {});
    }, 1000);
    expect(cuts.sort((a, b) => a - b)).toEqual([0, header]);
    expect(comparable(parted as FileOutcome)).toEqual(comparable(await readFile('run/client1-raw.csv', whole(bytes))));
    // With no block start near a cut (three parts: cuts at a third and two thirds), it stays.
    const thirds: number[] = [];
    await readInParts(input, 3, () => {}, (part) => {
      thirds.push(part.start);
      return readPart(input, part, {});
    }, 1000);
    expect(thirds.sort((a, b) => a - b)).toEqual(partRanges(bytes.length, 3, 1000).map(([start]) => start));
  });
});
