import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it, vi } from 'vitest';
import { writeRequestCsv } from '../../scripts/generate-data.ts';
import { loadOnDisk } from '../../src/engine/node-inputs.ts';
import { main as query } from '../../src/cli/query.ts';
import { CancelledQueryError } from '../../src/engine/db.ts';
import { openNodeDb } from '../../src/engine/node-db.ts';
import type { OpSummary } from '../../src/model/figures.ts';
import { opKind } from '../../src/model/naming.ts';

/**
 * SQL over the loaded results (src/engine/query-tables.ts), through the code the `query` command
 * runs: on the corpus and every producer's fixtures, the documented tables give the summary's own
 * figures — counts per operation from `seconds`, and p50/p99/p99.9 from `latency_buckets` through
 * `bl_percentile` — exactly; and `requests`/`file_<n>` read a JTL's own rows.
 */

const ROOT = 'tests/fixtures';
/** Every fixture folder: the corpus, each producer's, the broken files (what loads of them). */
const inputs = readdirSync(ROOT, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => path.join(ROOT, e.name));

describe('query tables over every fixture', () => {
  const cases = [...inputs.map((dir) => [dir, null] as const), [path.join(ROOT, 'corpus', 'zipfian-a'), { fromS: 5, toS: 20 }] as const];
  it.each(cases)('%s (window %j): seconds and requests count as the summary, bl_percentile gives its percentiles', async (dir, window) => {
    const q = await loadOnDisk([dir], { window });
    const key = (run: unknown, op: unknown) => `${String(run)}\u0000${String(op)}`;
    const summary = new Map(q.analysis.runs.flatMap((r) => Object.entries(r.ops).map(([op, o]) => [key(r.label, op), o] as const)));

    // Every request the summary counts is in `seconds`: those of clients with no time (a whole-run
    // summary, a percentile table) in a row whose second is NULL; an operation with no request in
    // the window has no row.
    const counts = (await q.engine.query('SELECT run, op, sum(count) AS n, count(*) FILTER (WHERE second IS NULL) AS untimed FROM seconds GROUP BY run, op', { window })).rows;
    expect(new Map(counts.map(([run, op, n]) => [key(run, op), n]))).toEqual(new Map([...summary].filter(([, o]) => o.count > 0).map(([k, o]) => [k, o.count])));
    const timeless = (o: OpSummary) => o.perClient.some((c) => c.source === 'summary' || c.source === 'distribution');
    for (const [run, op, , untimed] of counts) expect(untimed, `${dir} ${String(run)} ${String(op)}`).toBe(timeless(summary.get(key(run, op)) as OpSummary) ? 1 : 0);

    // Every request of a file with per-request rows is a row of `requests`, failed where the summary
    // counts it failed; none of a tool's report, summary or periodic counts is.
    const perRequest = new Set(q.engine.files.filter((f) => f.series.some((x) => x.kind === 'raw')).map((f) => f.path));
    const requests = (await q.engine.query(`SELECT run, op || CASE WHEN ok THEN '' ELSE '-FAILED' END AS op, count(*) AS n FROM requests GROUP BY ALL`, { window })).rows;
    const fromFiles = q.analysis.runs
      .flatMap((r) => {
        // A run's clients name their files by base name.
        const files = new Set(r.paths.filter((p) => perRequest.has(p)).map((p) => path.basename(p)));
        return Object.entries(r.ops)
          .filter(([op]) => ['op', 'failed'].includes(opKind(op)))
          .map(([op, o]) => [key(r.label, op), o.perClient.filter((c) => files.has(c.file)).reduce((n, c) => n + c.count, 0)] as const);
      })
      .filter(([, n]) => n > 0);
    expect(new Map(requests.map(([run, op, n]) => [key(run, op), n])), `${dir}: requests`).toEqual(new Map(fromFiles));
    if (window === null) {
      // The files `requests` reads: those with per-request rows whose clients the summary counts
      // (of a test saved as CSV and as JSON, one file).
      const counted = new Set(q.analysis.runs.flatMap((r) => Object.values(r.ops).flatMap((o) => o.perClient.map((c) => key(r.label, c.file)))));
      const runOf = (p: string) => q.analysis.runs.find((r) => r.paths.includes(p))?.label;
      const from = (await q.engine.query('SELECT path, requests_from FROM files', { window })).rows;
      expect(
        from.filter(([, f]) => f !== null).map(([p]) => p),
        `${dir}: requests_from`,
      ).toEqual(q.engine.files.map((f) => f.path).filter((p) => perRequest.has(p) && counted.has(key(runOf(p), path.basename(p)))));
    }

    const percentiles = (
      await q.engine.query(`SELECT run, op, bl_percentile(hi_us, count, raw, 0.5) AS p50, bl_percentile(hi_us, count, raw, 0.99) AS p99,
                    bl_percentile(hi_us, count, raw, 0.999) AS p999, sum(count) AS n FROM latency_buckets GROUP BY run, op`, { window })
    ).rows;
    const exact = [...summary].filter(([, o]) => o.exact && o.count > 0);
    expect(percentiles.length, dir).toBe(exact.length);
    for (const [run, op, p50, p99, p999, n] of percentiles) {
      const o = summary.get(key(run, op));
      expect([p50, p99, p999, n], `${dir} ${String(run)} ${String(op)}`).toEqual([o?.p50, o?.p99, o?.['p99.9'], o?.count]);
    }
  });
});

describe('query tables against the corpus oracle (HdrHistogram 2.2.2 in Java)', () => {
  type Figures = Record<string, number>;
  type Oracle = Record<string, { runs?: { run: string; dir: string; ops: Record<string, { merged: Figures }> }[]; taggedLog?: { file: string; perTag: Record<string, Figures> } }>;
  const oracle = JSON.parse(readFileSync(path.join(ROOT, 'corpus', 'expected.json'), 'utf8')) as Oracle;
  const query = `SELECT run, op, bl_percentile(hi_us, count, raw, 0.5) AS p50, bl_percentile(hi_us, count, raw, 0.99) AS p99,
      bl_percentile(hi_us, count, raw, 0.999) AS p999, sum(count) AS n FROM latency_buckets GROUP BY run, op`;

  it('the tagged interval log: bl_percentile per tag gives expected.json', async () => {
    const tagged = oracle['tagged-from-sweep']?.taggedLog;
    expect(tagged).toBeDefined();
    const q = await loadOnDisk([path.join(ROOT, 'corpus', tagged?.file ?? '')]);
    const rows = (await q.engine.query(query)).rows;
    expect(rows.map(([, op, ...v]) => [op, v])).toEqual(Object.entries(tagged?.perTag ?? {}).map(([op, m]) => [op, [m.p50, m.p99, m['p99.9'], m.count]]));
  });

  it.each(Object.keys(oracle).filter((k) => oracle[k]?.runs))('%s: bl_percentile gives expected.json', async (experiment) => {
    const q = await loadOnDisk([path.join(ROOT, 'corpus', experiment)]);
    const p = (await q.engine.query(query)).rows;
    const byKey = new Map(p.map(([run, op, ...v]) => [`${String(run)}/${String(op)}`, v]));
    let compared = 0;
    for (const r of oracle[experiment]?.runs ?? []) {
      const label = q.analysis.runs.find((x) => x.dir.endsWith(r.dir))?.label;
      for (const [op, o] of Object.entries(r.ops)) {
        const m = o.merged;
        if (m.p50 === undefined || m.p99 === undefined || m['p99.9'] === undefined) continue;
        expect(byKey.get(`${String(label)}/${op}`), `${r.dir} ${op}`).toEqual([m.p50, m.p99, m['p99.9'], m.count]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(0);
  });
});

describe('requests and file_<n> over a JTL', () => {
  const jtl = path.join(ROOT, 'jmeter', 'HTMLReportTestFile.csv');

  it('counts failed requests by status as the file has them', async () => {
    // Independently: the file's own rows, read with papaparse.
    const rows = Papa.parse<Record<string, string>>(readFileSync(jtl, 'utf8'), { header: true, skipEmptyLines: true }).data;
    const expected = new Map<string, number>();
    for (const r of rows) if (r.success === 'false') expected.set(r.responseCode ?? '', (expected.get(r.responseCode ?? '') ?? 0) + 1);
    expect(expected.size).toBeGreaterThan(0);

    const q = await loadOnDisk([jtl]);
    const result = await q.engine.query('SELECT status, count(*) AS n FROM requests WHERE NOT ok GROUP BY status ORDER BY status');
    expect(result.columns.map((c) => c.name)).toEqual(['status', 'n']);
    expect(new Map(result.rows.map(([s, n]) => [s, n]))).toEqual(expected);
    const all = (await q.engine.query('SELECT count(*) AS n, count(*) FILTER (WHERE ok) AS ok FROM requests')).rows[0];
    expect(all).toEqual([rows.length, rows.filter((r) => r.success === 'true').length]);
  });

  it('file_<n> has every column of the file, threadName and URL among them', async () => {
    const q = await loadOnDisk([jtl]);
    const header = readFileSync(jtl, 'utf8').split('\n')[0]?.trim().split(',');
    const result = await q.engine.query('SELECT * FROM file_1');
    expect(result.columns.map((c) => c.name)).toEqual(header);
    const threads = (await q.engine.query('SELECT threadName, URL FROM file_1 LIMIT 1'));
    expect(threads.rows[0]?.[0]).toBe('Thread Group 1-1');
  });
});

describe('requests of a generated per-operation CSV', () => {
  it('requests per operation and outcome are the summary counts', async () => {
    // A per-operation CSV (op, timestamp_ms, latency_us, status) as the bench writes it, failures among its rows.
    const input = path.join(mkdtempSync(path.join(tmpdir(), 'benchlens-query-')), 'requests.csv');
    expect(Object.keys(await writeRequestCsv(20_000, input))).toContain('READ-FAILED');
    const q = await loadOnDisk([input]);
    const { rows } = (await q.engine.query(`SELECT op || CASE WHEN ok THEN '' ELSE '-FAILED' END AS op, count(*) AS n FROM requests GROUP BY 1 ORDER BY 1`));
    const ops = q.analysis.runs.flatMap((r) => Object.entries(r.ops).filter(([op]) => ['op', 'failed'].includes(opKind(op))).map(([op, o]) => [op, o.count]));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows).toEqual(ops.sort(([a], [b]) => (String(a) < String(b) ? -1 : 1)));
  });
});

describe('query --json over every fixture folder', () => {
  // The questions in one query: counts per second, exact percentiles, failures by status.
  const sql = `SELECT 'seconds' AS q, op, sum(count)::DOUBLE AS v, NULL AS status FROM seconds GROUP BY op
    UNION ALL SELECT 'p99', op, bl_percentile(hi_us, count, raw, 0.99), NULL FROM latency_buckets GROUP BY op
    UNION ALL SELECT 'failed', op, count(*), status FROM requests WHERE NOT ok GROUP BY op, status`;
  it.each(inputs)('%s: prints the rows as JSON, or DuckDB its error', async (dir) => {
    const out: string[] = [];
    const err: string[] = [];
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0);
    try {
      // 1: some input of the folder could not be read (the broken files), said on standard error.
      expect([0, 1]).toContain(await query(['--json', '--sql', sql, dir]));
      const printed = JSON.parse(out.join('')) as { columns: string[]; rows: unknown[][] };
      expect(printed.columns).toEqual(['q', 'op', 'v', 'status']);
      const q = await loadOnDisk([dir]);
      expect(printed.rows.filter(([kind]) => kind === 'seconds').length).toBe(new Set(q.analysis.runs.flatMap((r) => Object.keys(r.ops))).size);
      out.length = 0;
      expect(await query(['--json', '--sql', 'SELECT nope FROM requests', dir])).toBe(2);
      expect(out).toEqual([]);
      expect(err.join('')).toMatch(/Binder Error: Referenced column "nope" not found/);
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
  });
});

describe('query safety', () => {
  it('reads nothing outside the loaded files and changes no table', async () => {
    const q = await loadOnDisk([path.join(ROOT, 'jmeter', 'HTMLReportTestFile.csv')]);
    await expect(q.engine.query("SELECT * FROM read_csv('https://example.com/x.csv')")).rejects.toThrow(/Permission Error|disabled/);
    await expect(q.engine.query("SELECT * FROM read_csv('/etc/passwd')")).rejects.toThrow(/disabled by configuration/);
    await expect(q.engine.query('SET enable_external_access = true')).rejects.toThrow();
    await expect(q.engine.query('DROP TABLE ops')).rejects.toThrow();
    await expect(q.engine.query('SELECT 1; DROP TABLE ops')).rejects.toThrow();
    await expect(q.engine.query("INSTALL httpfs")).rejects.toThrow();
    expect((await q.engine.query('SELECT count(*) AS n FROM ops')).rows[0]?.[0]).toBeGreaterThan(0);
  });

  it('gives the error as DuckDB words it, with the position', async () => {
    const q = await loadOnDisk([path.join(ROOT, 'jmeter', 'HTMLReportTestFile.csv')]);
    await expect(q.engine.query('SELECT nope FROM ops')).rejects.toThrow(/Binder Error: Referenced column "nope" not found[\s\S]*LINE 1:[\s\S]*\^/);
  });
});

describe('cancelling a query', () => {
  it('stops DuckDB mid-query when the signal is aborted', async () => {
    const db = await openNodeDb();
    const controller = new AbortController();
    const t0 = performance.now();
    setTimeout(() => controller.abort(), 200);
    await expect(db.queryCancellable('SELECT count(*) FROM range(100000000000) t(a) WHERE a % 7 = 3', controller.signal)).rejects.toThrow(CancelledQueryError);
    expect(performance.now() - t0).toBeLessThan(5000);
    // The connection answers again afterwards.
    expect(db.query('SELECT 42 AS x')).toEqual([{ x: 42 }]);
  });
});
