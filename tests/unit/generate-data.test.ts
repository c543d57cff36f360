import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeHistogramV1Compressed, writeHdrLogs, writeRawCsv } from '../../scripts/generate-data.ts';
import { decodeHistogram } from '../../src/model/hdr-codec.ts';
import { hdrLayout } from '../../src/model/hdr-layout.ts';

const work = mkdtempSync(join(tmpdir(), 'benchlens-gen-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const blobsOf = (file: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => /^\d/.test(l))
    .map((l) => l.slice(l.lastIndexOf(',') + 1));

const inflated = (blob: string): Buffer => {
  const bytes = Buffer.from(blob, 'base64');
  return inflateSync(bytes.subarray(8, 8 + bytes.readInt32BE(4)));
};

describe('generate-data', () => {
  it("encodes V1 byte for byte as YCSB 0.17's HdrHistogram 2.1.4 did (corpus)", () => {
    const file = join(import.meta.dirname, '..', 'fixtures', 'corpus', 'sweep-uniform-a', 'target-1000', 'client1-READ.hdr');
    for (const blob of blobsOf(file)) {
      expect(blob.startsWith('HISTgg')).toBe(true);
      const decoded = decodeHistogram(blob);
      const mine = encodeHistogramV1Compressed(decoded, hdrLayout(decoded.precision));
      expect(mine.slice(0, 6)).toBe('HISTgg');
      expect(inflated(mine).equals(inflated(blob))).toBe(true);
    }
  });

  it('writes the same histograms in V1 (HISTgg) and V2 (HISTF) logs', () => {
    const n1 = writeHdrLogs(2, ['READ', 'UPDATE'], 5, join(work, 'v1'), 300, 'v1');
    const n2 = writeHdrLogs(2, ['READ', 'UPDATE'], 5, join(work, 'v2'), 300, 'v2');
    expect([n1, n2]).toEqual([20, 20]);
    expect(readdirSync(join(work, 'v1')).sort()).toEqual(['client1-READ.hdr', 'client1-UPDATE.hdr', 'client2-READ.hdr', 'client2-UPDATE.hdr']);
    for (const name of readdirSync(join(work, 'v1'))) {
      const v1 = blobsOf(join(work, 'v1', name));
      const v2 = blobsOf(join(work, 'v2', name));
      expect(v1.every((b) => b.startsWith('HISTgg'))).toBe(true);
      expect(v2.every((b) => b.startsWith('HISTF'))).toBe(true);
      v1.forEach((blob, i) => {
        const a = decodeHistogram(blob).histogram;
        const b = decodeHistogram(v2[i]!).histogram;
        expect(a.totalCount).toBe(300);
        expect([...a.lo]).toEqual([...b.lo]);
        expect([...a.count]).toEqual([...b.count]);
      });
    }
  });

  it('writes YCSB raw CSV blocks with the row count asked for', async () => {
    const file = join(work, 'raw.csv');
    const bytes = await writeRawCsv(1001, file);
    const text = readFileSync(file, 'utf8');
    expect(text.length).toBe(bytes);
    const lines = text.trimEnd().split('\n');
    expect(lines.filter((l) => l.includes('latency raw data'))).toEqual(['READ latency raw data: op, timestamp(ms), latency(us)', 'UPDATE latency raw data: op, timestamp(ms), latency(us)']);
    expect(lines.filter((l) => /^(READ|UPDATE),\d{13},\d+$/.test(l))).toHaveLength(1001);
  });
});
