import { openAsBlob, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileChunks } from '../../src/engine/input-stream.ts';
import { isFailed, readFile } from '../../src/formats/read-file.ts';
import { groupIntoRuns } from '../../src/model/grouping.ts';
import { absoluteSpan, splitOverrides, timeSplits, type TimeSpan } from '../../src/model/time-splits.ts';
import type { HistogramSeries, ParsedFile } from '../../src/model/types.ts';

const span = (startMs: number, endMs: number): TimeSpan => ({ startMs, endMs });

async function readFolder(dir: string): Promise<ParsedFile[]> {
  const out: ParsedFile[] = [];
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    const outcome = await readFile(file, fileChunks(await openAsBlob(file), 0));
    if (!isFailed(outcome)) out.push(outcome);
  }
  return out;
}

describe('files of one run that ran at separate times', () => {
  it('overlapping files are one time; one starting at or after the end of all before it begins the next', () => {
    const spans = new Map([
      ['r/rate-200.jtl', span(2_000, 3_000)],
      ['r/rate-100.jtl', span(0, 1_000)],
      // Overlaps rate-200 by a millisecond: one time with it.
      ['r/rate-200-b.jtl', span(2_999, 3_500)],
      // Starts exactly where the last ended: a time of its own.
      ['r/rate-300.jtl', span(3_500, 4_000)],
    ]);
    const [split, ...more] = timeSplits([{ key: 'r', paths: ['r/rate-200.jtl', 'r/notes.txt', 'r/rate-100.jtl', 'r/rate-200-b.jtl', 'r/rate-300.jtl'] }], spans);
    expect(more).toEqual([]);
    expect(split?.runKey).toBe('r');
    expect(split?.parts.map((p) => [p.key, p.paths])).toEqual([
      // A file without absolute times goes with the first.
      ['r/rate-100', ['r/rate-100.jtl', 'r/notes.txt']],
      ['r/rate-200', ['r/rate-200.jtl', 'r/rate-200-b.jtl']],
      ['r/rate-300', ['r/rate-300.jtl']],
    ]);
    expect(split?.parts[1]?.span).toEqual(span(2_000, 3_500));
    expect(splitOverrides(split ? [split] : [])).toEqual({
      'r/rate-100.jtl': 'r/rate-100',
      'r/notes.txt': 'r/rate-100',
      'r/rate-200.jtl': 'r/rate-200',
      'r/rate-200-b.jtl': 'r/rate-200',
      'r/rate-300.jtl': 'r/rate-300',
    });
  });

  it('offers nothing for one time, or for files with no absolute times', () => {
    const spans = new Map([
      ['a/c1.csv', span(0, 10_000)],
      ['a/c2.csv', span(5_000, 12_000)],
    ]);
    expect(timeSplits([{ key: 'a', paths: ['a/c1.csv', 'a/c2.csv', 'a/c3.txt'] }], spans)).toEqual([]);
    expect(timeSplits([{ key: 'b', paths: ['b/x.txt', 'b/y.txt'] }], spans)).toEqual([]);
  });

  it("never names a part after a run there is already, nor two parts alike; loose files' parts are named by file alone", () => {
    const spans = new Map([
      ['a/x.jtl', span(0, 1)],
      ['a/x.csv', span(5, 6)],
      ['y.jtl', span(0, 1)],
      ['z.jtl', span(5, 6)],
    ]);
    const splits = timeSplits(
      [
        { key: 'a', paths: ['a/x.jtl', 'a/x.csv'] },
        { key: 'a/x', paths: ['a/x/other.hdr'] },
        { key: '', paths: ['y.jtl', 'z.jtl'] },
      ],
      spans,
    );
    expect(splits.map((s) => s.parts.map((p) => p.key))).toEqual([['a/x (2)', 'a/x (3)'], ['y', 'z']]);
  });

  it('counts only absolute times: an interval log timed from its own start places nothing', () => {
    const relative: HistogramSeries = {
      kind: 'histogram',
      op: 'READ',
      unit: 'us',
      precision: { significantDigits: 3, lowestDiscernibleValue: 1 },
      timeBase: 'relative',
      intervals: [{ startUs: 0, lengthUs: 1_000_000, histogram: { index: new Int32Array(0), count: new Float64Array(0), totalCount: 0 }, line: 1 }],
    };
    const file = { path: 'r/rel.hdr', format: 'hdr-log', series: [relative] } as unknown as ParsedFile;
    expect(absoluteSpan(file)).toBeNull();
    expect(absoluteSpan({ ...file, series: [{ ...relative, timeBase: 'absolute' as const }] } as ParsedFile)).toEqual(span(0, 1_000));
  });

  it("real runs: the corpus's clients (started together) are one time each; four JTLs of four tests are four", async () => {
    for (const dir of ['tests/fixtures/corpus/sweep-uniform-a/target-1000', 'tests/fixtures/corpus/split-for-heat/target-800']) {
      const files = await readFolder(dir);
      const spans = new Map(files.flatMap((f) => (absoluteSpan(f) ? [[f.path, absoluteSpan(f) as TimeSpan] as const] : [])));
      expect(spans.size, dir).toBeGreaterThan(3);
      expect(timeSplits(groupIntoRuns(files), spans), dir).toEqual([]);
    }
    const jtls = await readFolder('tests/fixtures/jmeter');
    const spans = new Map(jtls.flatMap((f) => (absoluteSpan(f) ? [[f.path, absoluteSpan(f) as TimeSpan] as const] : [])));
    const [split] = timeSplits(groupIntoRuns(jtls), spans);
    expect(split?.parts.map((p) => p.paths.length)).toEqual([1, 1, 1, 1]);
    // In time order, none overlapping the next.
    for (let k = 1; k < 4; k++) expect(split?.parts[k]?.span.startMs).toBeGreaterThanOrEqual(split?.parts[k - 1]?.span.endMs ?? Infinity);
  });
});
