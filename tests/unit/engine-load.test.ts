import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunAnalysis } from '../../src/engine/analyse.ts';
import { openNodeDb } from '../../src/engine/node-db.ts';
import { nodeInputs, openNodeEngine } from '../../src/engine/node-inputs.ts';
import { runExtents } from '../../src/engine/group-merge.ts';
import { timelineSeries } from '../../src/engine/timeline-series.ts';
import { snapshotToFile } from '../../src/state/snapshot.ts';

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
  it('sends the summary before DuckDB has started, with the figures of the full analysis', async () => {
    let start: () => void = () => {};
    const started = new Promise<void>((resolve) => (start = resolve));
    const engine = openNodeEngine(undefined, started.then(openNodeDb));
    let summarised: (value: { runs: RunAnalysis[]; attached: boolean }) => void = () => {};
    const summary = new Promise<{ runs: RunAnalysis[]; attached: boolean }>((resolve) => (summarised = resolve));
    const loading = engine.load(
      { files: await nodeInputs([`${CORPUS}/split-for-heat`, `${CORPUS}/raw-csv-b`, `${CORPUS}/tagged-from-sweep`]) },
      { onSummary: (a) => summarised({ runs: a.runs, attached: engine.store.attached }) },
    );
    // The summary arrives while DuckDB has not even been asked to start (were it waited for, this would time out).
    const first = await summary;
    expect(first.attached).toBe(false);
    expect(first.runs.length).toBeGreaterThan(2);
    start();
    const { analysis } = await loading;
    expect(engine.store.attached).toBe(true);
    expect(analysis.runs.map(withoutTimeline)).toEqual(first.runs.map(withoutTimeline));
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
