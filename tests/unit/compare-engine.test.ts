import { beforeAll, describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { analyseStore, type Analysis } from '../../src/engine/analyse.ts';
import { runCompare, type CompareRequest } from '../../src/engine/compare-queries.ts';
import { buildSnapshot } from '../../src/engine/snapshot-build.ts';
import { openNodeDb } from '../../src/engine/node-db.ts';
import { Store } from '../../src/engine/store.ts';
import { PERCENTILES } from '../../src/model/percentiles.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { linkDataToSnapshot } from '../../src/state/snapshot.ts';
import { DEFAULT_STATE } from '../../src/state/view-state.ts';

/**
 * The engine's side of a comparison on the corpus: each run's seconds, resampled every one once,
 * give exactly the summary's figures (the same buckets, the same rank rule), in a window too; and
 * a comparison opened from a shared one shows the comparison it carried.
 */

const CORPUS = 'tests/fixtures/corpus';
let store: Store;
let analysis: Analysis;
beforeAll(async () => {
  ({ store, analysis } = await loadFiles([`${CORPUS}/sweep-uniform-a`, `${CORPUS}/raw-csv-b`, `${CORPUS}/intended-a`, `${CORPUS}/split-for-heat`]));
});

const self = (key: string, percentiles: number[], window: CompareRequest['window'] = null): CompareRequest => ({
  baseline: { label: key, runKeys: [key] },
  candidate: { label: key, runKeys: [key] },
  percentiles,
  window,
  resamples: 200,
});

describe('a resample of every second is the merged figure', () => {
  it('for every run, operation and percentile the summary shows, histograms and raw samples alike', () => {
    for (const run of analysis.runs) {
      const result = runCompare(store, analysis, self(run.dir, [...PERCENTILES]));
      expect(result.problems, run.label).toEqual([]);
      // Every compared operation, whatever the verdict (short runs may get no interval).
      for (const row of result.rows) {
        const figure = row.op === 'all operations' ? run.throughput : row.stat === 'throughput' ? (run.ops[row.op]?.count as number) / (run.durationS as number) : run.ops[row.op]?.[row.stat as 'p99'];
        expect(row.baseline, `${run.label} ${row.op} ${row.stat}`).toBe(figure);
      }
      const ops = new Set(result.rows.map((r) => r.op));
      for (const op of Object.keys(run.ops)) if (!/-FAILED$|^CLEANUP$|^Intended-CLEANUP$/.test(op)) expect(ops.has(op), `${run.label} ${op}`).toBe(true);
    }
  });

  it('in a time window, the window the summary shows', () => {
    const window = { fromS: 5, toS: 20 };
    const windowed = analyseStore(store, [], [], { window });
    const run = windowed.runs.find((r) => r.label === 'sweep-uniform-a/target-1000');
    if (!run) throw new Error('no run');
    const result = runCompare(store, windowed, self(run.dir, [50, 99], window));
    expect(result.baseline.seconds).toEqual([15]);
    expect(result.rows.find((r) => r.op === 'READ' && r.stat === 'p99')?.baseline).toBe(run.ops.READ?.p99);
    expect(result.rows.find((r) => r.op === 'UPDATE' && r.stat === 'p50')?.baseline).toBe(run.ops.UPDATE?.p50);
    expect(result.rows.find((r) => r.op === 'all operations')?.baseline).toBe(run.throughput);
  });

  it('block lengths on the corpus runs', () => {
    const lengths = analysis.runs.map((run) => {
      const result = runCompare(store, analysis, self(run.dir, [50, 99, 99.9]));
      return `${run.label}: ${result.method === 'block-bootstrap' ? `${result.baseline.seconds[0]} s, blocks of ${result.baseline.blockLengthS[0]} s` : result.methodText}`;
    });
    console.log(`block lengths chosen on the corpus runs:\n  ${lengths.join('\n  ')}`);
    expect(lengths).toHaveLength(analysis.runs.length);
  });
});

describe('a comparison opened from a shared one', () => {
  it('shows the comparison it carried, and says no new interval can be given without the result files', async () => {
    const keys = ['sweep-uniform-a/target-250', 'sweep-uniform-a/target-2000'].map((label) => analysis.runs.find((r) => r.label === label)?.dir as string);
    const request: CompareRequest = { baseline: { label: 'target-250', runKeys: [keys[0] as string] }, candidate: { label: 'target-2000', runKeys: [keys[1] as string] }, percentiles: [50, 99], window: null };
    const computed = runCompare(store, analysis, request);
    const { snapshot } = buildSnapshot(store, analysis, new Set(keys));
    snapshot.comparison = computed;

    const reopened = new Store(await openNodeDb());
    reopened.addSnapshot(snapshot);
    const shared = analyseStore(reopened, [], []);
    expect(shared.carriedComparison).toEqual(computed);
    expect(runCompare(reopened, shared, request)).toEqual({ ...computed, carried: true });
    // Other percentiles: figures and ratios from the carried histograms, but no interval.
    const other = runCompare(reopened, shared, { ...request, percentiles: [90] });
    expect(other.method).toBe('none');
    expect(other.methodText).toMatch(/was opened from a shared comparison, whose latency data has no time/);
    const p90 = other.rows.find((r) => r.op === 'READ' && r.stat === 'p90');
    expect(p90?.baseline).toBe(analysis.runs.find((r) => r.dir === keys[0])?.ops.READ?.p90);
    expect(p90?.ciLow).toBeNull();
  });
});

describe('the report file', () => {
  it('holds the comparison, capacity at the SLA and the sizing table of the view, and its link carries the comparison', async () => {
    const state = {
      ...structuredClone(DEFAULT_STATE),
      compare: { baseline: 'sweep-uniform-a/target-250', candidate: 'sweep-uniform-a/target-2000' },
      sla: 'p95 of READ <= 300 us',
      pricing: { RedisDB: { monthly: 1000 } },
      runs: Object.fromEntries(analysis.runs.filter((r) => r.label.startsWith('sweep')).map((r) => [r.dir, { nodes: 3 }])),
    };
    const html = await buildReport(store, analysis, {
      state,
      files: [],
      parsed: [],
      appUrl: './index.html',
      generatedAt: '2026-11-25T00:00:00Z',
      version: 'test',
    });
    const computed = runCompare(store, analysis, {
      baseline: { label: 'sweep-uniform-a/target-250', runKeys: [analysis.runs.find((r) => r.label === 'sweep-uniform-a/target-250')?.dir as string] },
      candidate: { label: 'sweep-uniform-a/target-2000', runKeys: [analysis.runs.find((r) => r.label === 'sweep-uniform-a/target-2000')?.dir as string] },
      percentiles: [50, 99, 99.9],
      window: null,
    });
    expect(html).toContain('data-testid="comparison-table"');
    for (const row of computed.rows) expect(html).toContain(`data-op="${row.op}" data-stat="${row.stat}" data-verdict="${row.verdict ?? 'none'}"`);
    expect(html).toMatch(/<tr data-system="RedisDB"[ >]/);
    expect(html).toContain('data-testid="sizing-table"');
    const data = /#[^"]*data=([A-Za-z0-9_-]+)/.exec(html)?.[1];
    expect(data).toBeDefined();
    expect(linkDataToSnapshot(data as string).comparison?.rows).toEqual(computed.rows);
  });
});
