import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { fileRandomAccess } from '../../src/engine/node-files.ts';
import { type Analysis } from '../../src/engine/analyse.ts';
import { readParquet, type RandomAccessInput } from '../../src/formats/parquet.ts';
import { PERCENTILE_KEYS } from '../../src/model/percentiles.ts';
import type { RawSeries } from '../../src/model/types.ts';

/**
 * Parquet result files: written by real Parquet writers — native DuckDB here, in the test, and
 * pyarrow for the committed files in tests/fixtures/parquet-pyarrow/ (SOURCES.md) — read as a
 * per-operation CSV would be, exactly; the oracle is native DuckDB's own Parquet reader.
 */

interface NativeConnection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<{ getRowObjects(): Record<string, unknown>[] }>;
}

const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-parquet-'));
let native: NativeConnection;

beforeAll(async () => {
  // The native DuckDB CI installs beside the project (.ci/run), as the benchmark's reference.
  const { DuckDBInstance } = createRequire(import.meta.url)('@duckdb/node-api') as { DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<NativeConnection> }> } };
  native = await (await DuckDBInstance.create(':memory:')).connect();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `select` to a Parquet file with native DuckDB; the path is the test's own. */
async function writeParquet(name: string, select: string, options = ''): Promise<string> {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  await native.run(`COPY (${select}) TO '${file}' (FORMAT parquet${options ? `, ${options}` : ''})`);
  return file;
}

/** Latencies in µs per series key, from native DuckDB: `query` returns columns k and v. */
async function oracle(query: string): Promise<Map<string, number[]>> {
  const rows = (await native.runAndReadAll(query)).getRowObjects();
  const out = new Map<string, number[]>();
  for (const r of rows) {
    const key = String(r.k);
    const list = out.get(key) ?? [];
    list.push(Number(r.v));
    out.set(key, list);
  }
  for (const list of out.values()) list.sort((a, b) => a - b);
  return out;
}

function nearestRank(sorted: readonly number[], p: number): number {
  return sorted[Math.max(1, Math.ceil((Math.round(p * 100) * sorted.length) / 10000)) - 1]!;
}

/** Every operation's merged count and percentiles are the oracle's nearest ranks. */
function expectFigures(analysis: Analysis, expected: Map<string, number[]>): void {
  const ops = analysis.runs.flatMap((r) => Object.entries(r.ops));
  expect(ops.map(([op]) => op).sort()).toEqual([...expected.keys()].sort());
  for (const [op, o] of ops) {
    const sorted = expected.get(op)!;
    expect(o.count, op).toBe(sorted.length);
    expect(o.source).toBe('raw');
    for (const key of PERCENTILE_KEYS) expect(o[key], `${op} ${key}`).toBe(nearestRank(sorted, Number(key.slice(1))));
    expect(o.max).toBe(sorted[sorted.length - 1]);
  }
}

const SELECT_ROWS = (n: number) => `
  SELECT 1795255808000 + i * 3 AS timestamp_ms,
         CAST(20 + (i * 7919) % 90000 AS INTEGER) AS latency_us,
         CASE WHEN i % 3 = 0 THEN 'UPDATE' ELSE 'READ' END AS op,
         i % 41 <> 0 AS success,
         'loader-' || (i % 2) AS client
  FROM range(${n}) t(i)`;

const ORACLE_ROWS = (file: string) => `
  SELECT op || CASE WHEN success THEN '' ELSE '-FAILED' END AS k, latency_us AS v FROM read_parquet('${file}')`;

describe('Parquet input', () => {
  it('reads DuckDB’s files, any codec, row group by row group, exactly', async () => {
    for (const codec of ['snappy', 'zstd', 'gzip', 'uncompressed']) {
      const file = await writeParquet(`codec-${codec}/results.parquet`, SELECT_ROWS(60_000), `COMPRESSION ${codec}, ROW_GROUP_SIZE 8192`);
      const loaded = await loadFiles([file]);
      expect(loaded.errors, codec).toEqual([]);
      expect(loaded.files.map((f) => f.format)).toEqual(['parquet']);
      const series = loaded.files[0]!.series as RawSeries[];
      expect(series.map((s) => `${s.client}/${s.op}`).sort()).toEqual(['loader-0/READ', 'loader-0/READ-FAILED', 'loader-0/UPDATE', 'loader-0/UPDATE-FAILED', 'loader-1/READ', 'loader-1/READ-FAILED', 'loader-1/UPDATE', 'loader-1/UPDATE-FAILED']);
      expect(series.every((s) => s.unit === 'us' && s.firstMs !== null)).toBe(true);
      expectFigures(loaded.analysis, await oracle(ORACLE_ROWS(file)));
    }
  });

  it('streams: the footer, then one row group’s columns at a time, never the file whole', async () => {
    const file = await writeParquet('streamed/results.parquet', `${SELECT_ROWS(200_000)}`, 'ROW_GROUP_SIZE 20000');
    const size = statSync(file).size;
    const opened = await fileRandomAccess(file, size)();
    const reads: number[] = [];
    const recording: RandomAccessInput = { size, read: (start, end) => (reads.push(end - start), opened.read(start, end)) };
    const groups: number[] = [];
    const parsed = await readParquet('results.parquet', recording, { mappingFor: () => null, onRowGroup: (_, rows) => groups.push(rows) });
    expect(parsed.series.reduce((n, s) => n + (s as RawSeries).samples, 0)).toBe(200_000);
    const rowGroups = Number((await native.runAndReadAll(`SELECT count(DISTINCT row_group_id) AS n FROM parquet_metadata('${file}')`)).getRowObjects()[0]!.n);
    expect(rowGroups).toBeGreaterThan(5);
    expect(groups).toHaveLength(rowGroups + 1);
    expect(groups[groups.length - 1]).toBe(200_000);
    // The first read is hyparquet's footer prefetch (the file's last 512 KiB); after it, one column
    // chunk of one row group at a time.
    expect(reads.slice(1).every((n) => n < size / 8)).toBe(true);
    expect(reads.reduce((a, b) => a + b, 0)).toBeLessThan(1.5 * size);
  });

  it('keeps the CSV’s exactness: DOUBLE ms, DECIMAL s and TIMESTAMP times; a row that is not exact is skipped with its row number', async () => {
    const file = await writeParquet(
      'types/double.parquet',
      `SELECT TIMESTAMP '2026-11-21 10:00:00' + to_microseconds(i * 1500) AS ts,
              CASE WHEN i = 7 THEN 1.2345 WHEN i = 11 THEN NULL ELSE round(0.05 + (i * 37 % 5000) / 1000.0, 3) END::DOUBLE AS latency_ms,
              CASE WHEN i % 2 = 0 THEN 'GET' ELSE 'SET' END AS method,
              CASE WHEN i % 17 = 0 THEN 503 ELSE 200 END AS status
       FROM range(5000) t(i)`,
    );
    const loaded = await loadFiles([file]);
    expect(loaded.errors.map((e) => [e.line, e.field])).toEqual([
      [8, 'latency_ms'],
      [12, 'latency_ms'],
    ]);
    expect(loaded.errors[0]!.message).toContain('1.2345');
    expectFigures(
      loaded.analysis,
      await oracle(`SELECT method || CASE WHEN status >= 400 THEN '-FAILED' ELSE '' END AS k, CAST(round(latency_ms * 1000) AS BIGINT) AS v
                    FROM read_parquet('${file}')
                    -- DuckDB prints a DOUBLE as its shortest round-trip decimal, as a CSV writer would
                    WHERE latency_ms IS NOT NULL AND length(split_part(CAST(latency_ms AS VARCHAR), '.', 2)) <= 3`),
    );
    const times = (loaded.files[0]!.series as RawSeries[]).map((s) => s.firstMs);
    expect(Math.min(...times.map(Number))).toBe(Date.UTC(2026, 10, 21, 10, 0, 0));

    const decimal = await writeParquet(
      'types/decimal.parquet',
      `SELECT CAST(1795255808 + i / 1000 AS DOUBLE) AS epoch, CAST((i * 13 % 900000) / 1000000.0 AS DECIMAL(12, 6)) AS latency_s, 'Q' || (i % 3) AS query FROM range(3000) t(i)`,
    );
    const fromDecimal = await loadFiles([decimal]);
    expect(fromDecimal.errors).toEqual([]);
    expectFigures(fromDecimal.analysis, await oracle(`SELECT query AS k, CAST(latency_s * 1000000 AS BIGINT) AS v FROM read_parquet('${decimal}')`));
  });

  it('names columns by a mapping (--map), and refuses a file with no usable latency column, saying why', async () => {
    const file = await writeParquet('mapped/odd.parquet', `SELECT 1795255808 + i AS t, i * 11 % 777 AS dur, CASE WHEN i % 2 = 0 THEN 'put' ELSE 'get' END AS kind, i % 9 <> 0 AS good FROM range(2000) t(i)`);
    const refused = await loadFiles([file]);
    expect(refused.files).toEqual([]);
    expect(refused.errors[0]!.message).toContain('no latency column recognised (its columns: t, dur, kind, good)');
    const mapped = await loadFiles([file], { csvMappings: { any: 'time=t,latency=dur:ms,op=kind,ok=good' } });
    expect(mapped.errors).toEqual([]);
    expectFigures(mapped.analysis, await oracle(`SELECT kind || CASE WHEN good THEN '' ELSE '-FAILED' END AS k, dur * 1000 AS v FROM read_parquet('${file}')`));
    const wrongUnit = await loadFiles([file], { csvMappings: { any: 'latency=kind:ms' } });
    expect(wrongUnit.errors[0]!.message).toMatch(/column mapping refused: column "kind" is not latencies in ms/);

    const noNumber = await writeParquet('mapped/no-number.parquet', `SELECT TIMESTAMP '2026-11-21 10:00:00' AS latency, 'x' AS op FROM range(3)`);
    const noNumberRead = await loadFiles([noNumber]);
    expect(noNumberRead.errors[0]!.message).toContain('the latency column "latency" is a TIMESTAMP/DATE, not a number of ms');
  });

  it('reads pyarrow’s files: TIMESTAMP and INT96 times, DOUBLE and FLOAT ms, dictionary-encoded strings, ZSTD and GZIP', async () => {
    const dictionary = 'tests/fixtures/parquet-pyarrow/timestamp-double-ms-dictionary.parquet';
    const int96 = 'tests/fixtures/parquet-pyarrow/int96-float-ms-gzip.parquet';
    const first = await loadFiles([dictionary]);
    expect(first.errors).toEqual([]);
    expectFigures(
      first.analysis,
      await oracle(`SELECT op || CASE WHEN status >= 400 THEN '-FAILED' ELSE '' END AS k, CAST(round(latency_ms * 1000) AS BIGINT) AS v FROM read_parquet('${dictionary}')`),
    );
    expect(new Set((first.files[0]!.series as RawSeries[]).map((s) => s.client))).toEqual(new Set(['loader-a', 'loader-b']));
    const second = await loadFiles([int96]);
    expect(second.errors).toEqual([]);
    expectFigures(
      second.analysis,
      await oracle(`SELECT operation || CASE WHEN success THEN '' ELSE '-FAILED' END AS k, CAST(round(CAST(latency_ms AS DOUBLE) * 1000) AS BIGINT) AS v FROM read_parquet('${int96}')`),
    );
    const firstMs = Math.min(...(second.files[0]!.series as RawSeries[]).map((s) => s.firstMs as number));
    expect(firstMs).toBe(Date.UTC(2026, 10, 21, 10, 0, 0));
  });

  it('is found by its magic bytes whatever its name, and reduce reads it too', async () => {
    const file = await writeParquet('named/client7.csv', SELECT_ROWS(30_000));
    const loaded = await loadFiles([file]);
    expect(loaded.files.map((f) => f.format)).toEqual(['parquet']);
    const out = path.join(dir, 'named-out');
    const code = await new Promise<number>((resolve) => execFile(process.execPath, ['--import', 'tsx', 'src/cli/benchlens.ts', 'reduce', '--out', out, file], (e) => resolve(e ? 1 : 0)));
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(path.join(out, 'reduce.json'), 'utf8'));
    expect(report.files[0]).toMatchObject({ format: 'parquet', streamed: true });
    const reduced = (await loadFiles([out])).analysis;
    const expected = loaded.analysis;
    for (const [op, o] of Object.entries(expected.runs[0]!.ops)) expect(reduced.runs[0]!.ops[op]!.count, op).toBe(o.count);
    expect(reduced.runs[0]!.clients.map((c) => c.client)).toEqual(['loader-0', 'loader-1']);
  });
});
