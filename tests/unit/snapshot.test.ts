import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeHdrLogs } from '../../scripts/generate-data.ts';
import { loadPaths } from '../../src/cli/load-paths.ts';
import { analyseLoaded, analyseStore, type Analysis } from '../../src/engine/analyse.ts';
import { openNodeDb } from '../../src/engine/node-db.ts';
import { buildSnapshot } from '../../src/engine/snapshot-build.ts';
import { Store } from '../../src/engine/store.ts';
import { groupIntoRuns } from '../../src/model/grouping.ts';
import {
  comparisonFileToSnapshot,
  linkDataToSnapshot,
  MAX_LINK_BYTES,
  snapshotToComparisonFile,
  snapshotToLinkData,
  SnapshotError,
  type Snapshot,
} from '../../src/state/snapshot.ts';

/**
 * A comparison carried by a link or a file must reproduce the original's numbers exactly: the
 * merged histograms travel, and the same SQL recomputes every figure from them.
 */

const CORPUS = 'tests/fixtures/corpus';
let original: Analysis;
let snapshot: Snapshot;
let omitted: string[];

async function reopen(s: Snapshot): Promise<Analysis> {
  const store = new Store(await openNodeDb());
  store.addSnapshot(s);
  return analyseStore(store, [], []);
}

function expectSameFigures(actual: Analysis, expected: Analysis, omittedOps: readonly string[]): number {
  let compared = 0;
  for (const run of expected.runs) {
    const mine = actual.runs.find((r) => r.dir === run.dir);
    const carried = Object.entries(run.ops).filter(([op]) => !omittedOps.includes(`${run.label} ${op}`));
    if (carried.length === 0) continue;
    if (!mine) throw new Error(`run ${run.dir} missing`);
    for (const f of ['label', 'target', 'threadsPerClient', 'startEpochMs', 'endEpochMs', 'durationS', 'throughput', 'totalOps', 'clients', 'throughputPerSecond', 'steps'] as const) {
      expect(mine[f], `${run.dir} ${f}`).toEqual(run[f]);
    }
    for (const [op, o] of carried) {
      const m = mine.ops[op];
      for (const k of ['count', 'mean', 'min', 'max', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'p99.99', 'exact', 'naive'] as const) {
        expect(m?.[k], `${run.dir} ${op} ${k}`).toEqual(o[k]);
      }
      compared++;
    }
  }
  return compared;
}

beforeAll(async () => {
  original = analyseLoaded(await openNodeDb(), await loadPaths([CORPUS]));
  const store = new Store(await openNodeDb());
  store.addRuns(groupIntoRuns((await loadPaths([CORPUS])).files));
  ({ snapshot, omitted } = buildSnapshot(store, analyseStore(store, [], [])));
});

describe('comparison snapshots', () => {
  it('carry every exact operation; only bounded ones are left out, and named', () => {
    // The tagged folder's READ mixes a tagged log with a .hgrm: bounds only.
    expect(omitted).toEqual(['tagged-from-sweep READ']);
    expect(snapshot.runs).toHaveLength(original.runs.length);
  });

  it('a self-contained link reproduces every figure exactly', async () => {
    const link = snapshotToLinkData(snapshot);
    expect(link.length).toBeLessThanOrEqual(MAX_LINK_BYTES * 4); // the whole corpus, raw run included
    const compared = expectSameFigures(await reopen(linkDataToSnapshot(link)), original, omitted);
    expect(compared).toBeGreaterThan(30);
  });

  it('a comparison file (JSON, HdrHistogram base64) reproduces every figure exactly', async () => {
    const file = snapshotToComparisonFile(snapshot);
    expect(JSON.parse(file)).toMatchObject({ format: 'benchlens-comparison', version: 1 });
    expect(file).toMatch(/"histogram": "HISTF/);
    expectSameFigures(await reopen(comparisonFileToSnapshot(file)), original, omitted);
  });

  it('refuses corrupt, truncated or future-version data with a clear error', () => {
    const link = snapshotToLinkData(snapshot);
    expect(() => linkDataToSnapshot(link.slice(0, link.length / 2))).toThrow(SnapshotError);
    expect(() => linkDataToSnapshot('not*base64')).toThrow(SnapshotError);
    expect(() => comparisonFileToSnapshot('{"format":"benchlens-comparison","version":99,"runs":[]}')).toThrow(/version 99/);
    expect(() => comparisonFileToSnapshot('{"format":"other"}')).toThrow(SnapshotError);
    const file = JSON.parse(snapshotToComparisonFile(snapshot));
    file.runs[0].ops.READ.histogram = 'HISTFAAAAbogus';
    expect(() => comparisonFileToSnapshot(JSON.stringify(file))).toThrow(SnapshotError);
  });

  it('12 runs × 4 operations fit in a 32 KB link', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'benchlens-12x4-'));
    for (let r = 0; r < 12; r++) writeHdrLogs(3, ['READ', 'UPDATE', 'INSERT', 'SCAN'], 60, path.join(root, `run-${r}`), 300);
    const store = new Store(await openNodeDb());
    store.addRuns(groupIntoRuns((await loadPaths([root])).files));
    const built = buildSnapshot(store, analyseStore(store, [], []));
    expect(built.snapshot.runs).toHaveLength(12);
    expect(built.snapshot.runs.every((r) => Object.keys(r.ops).length === 4)).toBe(true);
    const link = snapshotToLinkData(built.snapshot);
    expect(link.length).toBeLessThanOrEqual(MAX_LINK_BYTES);
  });
});
