import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { writeHdrLogs } from '../../scripts/generate-data.ts';
import { cellsOf, ENGINE_BYTES_PER_CELL, ENGINE_FIXED_BYTES, checkMemory, memorySettingBytes, STORAGE_SHARE, tooLargeMessage } from '../../src/engine/memory-check.ts';
import { openNodeDb } from '../../src/engine/node-db.ts';
import { Store } from '../../src/engine/store.ts';
import { groupIntoRuns } from '../../src/model/grouping.ts';

const CORPUS = join(import.meta.dirname, '..', 'fixtures', 'corpus');

describe('the engine memory check', () => {
  it('reads DuckDB memory settings as bytes', () => {
    expect(memorySettingBytes('3.1 GiB')).toBe(Math.floor(3.1 * 2 ** 30));
    expect(memorySettingBytes('512.0 MiB')).toBe(512 * 2 ** 20);
    expect(memorySettingBytes('2GB')).toBe(2e9);
    expect(memorySettingBytes('100 B')).toBe(100);
    expect(memorySettingBytes('unlimited')).toBeNull();
    expect(memorySettingBytes('-1 GiB')).toBeNull();
  });

  it('fits up to the storage share of the limit, and not one cell more', () => {
    const limit = 1e9;
    const cellsThatFit = Math.floor((limit * STORAGE_SHARE - ENGINE_FIXED_BYTES) / ENGINE_BYTES_PER_CELL);
    expect(checkMemory(cellsThatFit, limit).fits).toBe(true);
    expect(checkMemory(cellsThatFit + 1, limit).fits).toBe(false);
  });

  it('says how much input of this kind fits, scaled from what was read', () => {
    // 20 M cells need 16 MB + 20 M × 56 B = 1.136 GB where 750 MB is available, room for
    // (750 − 16) MB / 56 B = 13.1 M cells: of 3 GB of input, 3 × 13.1 / 20 ≈ 2.0 GB fit.
    const check = checkMemory(20e6, 1e9);
    const message = tooLargeMessage(check, 3e9);
    expect(message).toContain('20.0 M latency buckets');
    expect(message).toContain('about 1.1 GB in the in-browser query engine');
    expect(message).toContain('which has 750 MB for them');
    expect(message).toContain('about 2.0 GB of input like this fits');
  });

  it.each<[string, () => string, boolean]>([
    ['the test corpus', () => CORPUS, false],
    ['generated YCSB HdrHistogram logs', () => {
      const dir = join(mkdtempSync(join(tmpdir(), 'memory-check-')), 'run');
      writeHdrLogs(12, ['READ', 'UPDATE', 'INSERT', 'SCAN'], 20, dir, 1000, 'v1');
      return dir;
    }, false],
    // The most rows cells can take: no value in two seconds, so summing over time merges none.
    ['raw samples of values never repeated', () => {
      const dir = join(mkdtempSync(join(tmpdir(), 'memory-check-')), 'run');
      mkdirSync(dir);
      const rows = Array.from({ length: 120_000 }, (_, i) => `${i % 2 ? 'READ' : 'UPDATE'},${1795255800000 + Math.floor(i / 20)},${100 + i}`);
      writeFileSync(join(dir, 'client1-raw.csv'), `READ latency raw data: op, timestamp(ms), latency(us)\n${rows.join('\n')}\n`);
      return dir;
    }, true],
  ])('holds at most the estimate in DuckDB: %s', async (_, dir, everyCellARow) => {
    const loaded = await loadFiles([dir()]);
    const cells = loaded.files.reduce((n, f) => n + cellsOf(f), 0);
    const db = await openNodeDb();
    const store = new Store(db);
    const before = Number(db.query('SELECT sum(memory_usage_bytes)::DOUBLE AS b FROM duckdb_memory()')[0]?.b);
    store.addRuns(groupIntoRuns(loaded.files));
    // Through the store: the rows go into DuckDB when it is next asked something.
    const rows = Number(store.db.query('SELECT count(*)::DOUBLE AS n FROM series_buckets')[0]?.n);
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThanOrEqual(cells);
    const after = Number(db.query('SELECT sum(memory_usage_bytes)::DOUBLE AS b FROM duckdb_memory()')[0]?.b);
    expect(cells).toBeGreaterThan(100_000);
    if (everyCellARow) expect(rows).toBe(cells);
    expect(after - before).toBeLessThanOrEqual(checkMemory(cells, 1).neededBytes);
    db.close();
  });
});
