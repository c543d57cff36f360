import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tableFromArrays } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { RunAnalysis } from '../../src/engine/analyse.ts';
import { nodeInputs, openNodeEngine } from '../../src/engine/node-inputs.ts';
import { countsPerSecond, runExtents, type Selection } from '../../src/engine/group-merge.ts';
import { timelineSeries } from '../../src/engine/timeline-series.ts';
import { snapshotToFile } from '../../src/state/snapshot.ts';
import { opKind } from '../../src/model/naming.ts';

/**
 * One Engine.load for the app, the CLI and the tests (a snapshot file on disk replaces the runs,
 * as a dropped one does in the app); its summary never waits for DuckDB: the
 * figures are computed from the store's cells before DuckDB is attached, and equal those computed
 * after. The extents behind durations and throughput, kept by the store as it adds series, equal
 * what DuckDB's own tables give.
 */

const CORPUS = 'tests/fixtures/corpus';
const withoutTimeline = ({ throughputPerSecond: _t, steps: _s, ...rest }: RunAnalysis) => rest;

describe('Engine.load without DuckDB', () => {
  it('sends the summary, then the timelines, without starting DuckDB; the same figures once it has started', async () => {
    const engine = openNodeEngine(undefined, () => Promise.reject(new Error('DuckDB was started')));
    let first: RunAnalysis[] = [];
    const { analysis } = await engine.load(
      { files: await nodeInputs([`${CORPUS}/split-for-heat`, `${CORPUS}/raw-csv-b`, `${CORPUS}/tagged-from-sweep`]) },
      { onSummary: (a) => (first = a.runs) },
    );
    // Neither the summary nor the timelines asked for DuckDB (were it started, the load would fail).
    expect(engine.dbStarted).toBe(false);
    expect(first.length).toBeGreaterThan(2);
    expect(analysis.runs.map(withoutTimeline)).toEqual(first.map(withoutTimeline));
    expect(analysis.runs.every((r) => r.throughputPerSecond !== null)).toBe(true);
  });
});

describe('Engine.load from disk, as the app loads', () => {
  it('a snapshot file replaces the loaded runs with its own, with the same figures', async () => {
    const source = openNodeEngine();
    const { analysis: original } = await source.load({ files: await nodeInputs([`${CORPUS}/split-for-heat`]) });
    const { snapshot } = await source.snapshot();
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'benchlens-engine-')), 'shared.json');
    writeFileSync(file, snapshotToFile(snapshot));
    const engine = openNodeEngine();
    await engine.load({ files: await nodeInputs([`${CORPUS}/raw-csv-b`]) });
    const { analysis, loadedFiles } = await engine.load({ files: await nodeInputs([file]), replace: false });
    expect(loadedFiles).toEqual([]);
    expect(analysis.runs.map((r) => r.label)).toEqual(original.runs.map((r) => r.label));
    expect(analysis.runs.map((r) => r.comparison)).toEqual(original.runs.map(() => 'histograms'));
    const count = (a: typeof analysis) => a.runs.map((r) => Object.fromEntries(Object.entries(r.ops).map(([op, o]) => [op, [o.count, o.p50, o.p99, o['p99.9']]])));
    expect(count(analysis)).toEqual(count(original));
  });
});

describe('the store’s extents', () => {
  it('equal those of DuckDB’s intervals and raw_extents, run by run', async () => {
    const engine = openNodeEngine();
    await engine.load({ files: await nodeInputs([CORPUS]) });
    const store = await engine.queryStore();
    const series = timelineSeries(store.series);
    const ids = new Set(series.map((s) => s.id));
    const rows = store.db.query(
      `SELECT s.run_id AS g, min(a)::BIGINT AS start_us, max(b)::BIGINT AS end_us FROM (
         SELECT series_id, start_us AS a, start_us + length_us AS b FROM intervals
         UNION ALL SELECT series_id, start_us, end_us FROM raw_extents
       ) x JOIN series s USING (series_id) WHERE list_contains(?::INTEGER[], s.series_id) GROUP BY s.run_id ORDER BY g`,
      [JSON.stringify([...ids])],
    );
    expect(rows.length).toBeGreaterThan(5);
    expect(runExtents(store, series)).toEqual(rows.map((r) => ({ g: r.g, startUs: r.start_us, endUs: r.end_us })));
  });
});

describe('the store’s counts by second', () => {
  // What countsPerSecond asked DuckDB before the store kept its own counts: the reference here.
  const SQL = `WITH x AS (
       SELECT sel.g, i.start_us // 1000000 // $1::BIGINT * $1::BIGINT AS sec, s.op_kind, sum(i.n) AS n
       FROM sel JOIN series s ON s.series_id = sel.series_id JOIN intervals i ON i.series_id = sel.series_id
       WHERE s.op_kind IN ('op', 'failed')
         AND (sel.from_s IS NULL OR i.start_us // 1000000 >= sel.from_s) AND (sel.to_s IS NULL OR i.start_us // 1000000 < sel.to_s)
       GROUP BY ALL
       UNION ALL
       SELECT sel.g, r.sec // $1::BIGINT * $1::BIGINT AS sec, s.op_kind, sum(r.n) AS n
       FROM sel JOIN series s ON s.series_id = sel.series_id JOIN raw_seconds r ON r.series_id = sel.series_id
       WHERE s.op_kind IN ('op', 'failed')
         AND (sel.from_s IS NULL OR r.sec >= sel.from_s) AND (sel.to_s IS NULL OR r.sec < sel.to_s)
       GROUP BY ALL
     )
     SELECT g, sec::BIGINT AS sec,
            coalesce(sum(n) FILTER (WHERE op_kind = 'op'), 0)::BIGINT AS ok,
            coalesce(sum(n) FILTER (WHERE op_kind = 'failed'), 0)::BIGINT AS failed
     FROM x GROUP BY g, sec ORDER BY g, sec`;

  it('give the throughput DuckDB’s intervals and raw_seconds give, per group, bucket and window', async () => {
    const engine = openNodeEngine();
    await engine.load({ files: await nodeInputs([CORPUS]) });
    const store = await engine.queryStore();
    const all = store.series.map((s) => s.id);
    // One group per run, one per series, and every series in two groups at once (each counted in both).
    const selections: Selection[] = [
      { seriesIds: all, groups: store.series.map((s) => s.runId) },
      { seriesIds: all, groups: all },
      { seriesIds: [...all, ...all], groups: [...all.map(() => 0), ...all.map((id) => 1 + (id % 3))] },
    ];
    // Windows from each series' own extent: its middle third, open-ended on either side, and none at all.
    const windowed = (pick: (startS: number, endS: number) => [number | null, number | null]): Selection => {
      const bounds = store.series.map((s) => {
        const e = store.extentOf(s.id);
        return e ? pick(e.startUs / 1e6, e.endUs / 1e6) : [null, null];
      });
      return { seriesIds: all, groups: store.series.map((s) => s.runId), fromS: bounds.map((b) => b[0]), toS: bounds.map((b) => b[1]) };
    };
    selections.push(
      windowed((a, z) => [a + (z - a) / 3, z - (z - a) / 3]),
      windowed((a, z) => [a + (z - a) / 2, null]),
      windowed((a, z) => [null, a + (z - a) / 4]),
    );
    let rows = 0;
    for (const sel of selections) {
      for (const bucketS of [1, 7, 60]) {
        const got = countsPerSecond(store, sel, bucketS);
        // The selection table the reference joins, as the engine filled it before.
        store.db.insert(
          'sel_input',
          tableFromArrays({
            series_id: Int32Array.from(sel.seriesIds),
            g: Int32Array.from(sel.groups),
            from_s: Float64Array.from(sel.seriesIds, (_, i) => (sel.fromS?.[i] == null ? Number.NaN : Math.ceil(sel.fromS[i] as number))),
            to_s: Float64Array.from(sel.seriesIds, (_, i) => (sel.toS?.[i] == null ? Number.NaN : Math.ceil(sel.toS[i] as number))),
          }),
          true,
        );
        store.db.exec(`CREATE OR REPLACE TEMP TABLE sel AS
          SELECT series_id, g, CASE WHEN isnan(from_s) THEN NULL ELSE from_s::BIGINT END AS from_s, CASE WHEN isnan(to_s) THEN NULL ELSE to_s::BIGINT END AS to_s
          FROM sel_input; DROP TABLE sel_input`);
        const want = store.db.query(SQL, [bucketS]).map((r) => ({ g: r.g, sec: r.sec, ok: r.ok, failed: r.failed }));
        expect(got).toEqual(want);
        rows += want.length;
      }
    }
    expect(rows).toBeGreaterThan(5_000);
  });
});

describe('throughput over time, several runs in buckets of several seconds', () => {
  it("buckets each run from its own start: every run's times on one grid, every request counted once", async () => {
    const engine = openNodeEngine();
    const { analysis } = await engine.load({ files: await nodeInputs([`${CORPUS}/sweep-uniform-a`, `${CORPUS}/split-for-heat`]) });
    const runIds = analysis.runs.map((r) => r.id);
    const result = engine.chart({ kind: 'throughput-over-time', runIds, maxPoints: 7 });
    if (result.kind !== 'throughput-over-time') throw new Error(result.kind);
    // The longest run (180 s) in at most 7 buckets.
    expect(result.bucketS).toBeGreaterThan(1);
    for (const s of [...result.ok, ...result.failed]) for (const t of s.t) expect(t % result.bucketS).toBe(0);
    for (const run of analysis.runs) {
      const drawn = result.ok.filter((s) => s.runId === run.id).reduce((n, s) => n + s.values.reduce((m: number, v) => m + (v ?? 0) * result.bucketS, 0), 0);
      const counted = Object.entries(run.ops).filter(([op]) => opKind(op) === 'op').reduce((n, [, o]) => n + o.count, 0);
      expect(Math.round(drawn), run.label).toBe(counted);
    }
  });
});
