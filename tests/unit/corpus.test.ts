import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { type Analysis, type RunAnalysis } from '../../src/engine/analyse.ts';
import { PERCENTILE_KEYS } from '../../src/model/percentiles.ts';
import type { Figures } from '../../src/model/figures.ts';

/**
 * The whole library against the oracle: every run of the real YCSB corpus, read from its files,
 * grouped, loaded into DuckDB-WASM and summarised, must reproduce expected.json (computed with
 * HdrHistogram 2.2.2's Java reference and exact quantiles). Exact values, except means (1e-9).
 */

const CORPUS = 'tests/fixtures/corpus';
type Json = Record<string, unknown>;
const expected = JSON.parse(readFileSync(`${CORPUS}/expected.json`, 'utf8')) as Record<string, Json>;

interface ExpectedFigures {
  count: number;
  mean: number;
  min: number;
  max: number;
  [k: string]: unknown;
}
interface ExpectedOp {
  merged: ExpectedFigures;
  perClient: (ExpectedFigures & { client: string; file: string })[];
  maxClientP95: number;
  maxClientP99: number;
}
interface ExpectedRun {
  run: string;
  dir: string;
  target: number | null;
  threadsPerClient: number;
  measurement: 'hdr' | 'raw';
  clients: { client: string }[];
  ops: Record<string, ExpectedOp>;
  throughputStartEpochS: number;
  throughputPerSecond: number[];
  throughputPerSecondOk?: number[];
  throughputPerSecondFailed?: number[];
  totalOps: number;
  durationS: number;
  startEpochMs: number;
  endEpochMs: number;
  achievedThroughputOpsPerS: number;
}

const scenarios = Object.entries(expected).filter(([, s]) => Array.isArray(s.runs));
const expectedRuns: ExpectedRun[] = scenarios.flatMap(([, s]) => s.runs as ExpectedRun[]);

let analysis: Analysis;
beforeAll(async () => {
  const loaded = await loadFiles([CORPUS]);
  analysis = loaded.analysis;
});

function runFor(dir: string): RunAnalysis {
  const run = analysis.runs.find((r) => r.dir.endsWith(`/${dir}`));
  if (!run) throw new Error(`no run found for ${dir}; runs: ${analysis.runs.map((r) => r.dir).join(', ')}`);
  return run;
}

function expectFigures(actual: Figures, oracle: ExpectedFigures, where: string): void {
  expect(actual.count, `${where} count`).toBe(oracle.count);
  expect(actual.min, `${where} min`).toBe(oracle.min);
  expect(actual.max, `${where} max`).toBe(oracle.max);
  for (const k of PERCENTILE_KEYS) expect(actual[k], `${where} ${k}`).toBe(oracle[k]);
  expect(Math.abs((actual.mean as number) - oracle.mean) / oracle.mean, `${where} mean ${actual.mean} vs ${oracle.mean}`).toBeLessThanOrEqual(1e-9);
}

describe('corpus: every run reproduces the oracle', () => {
  it('reads every corpus file without errors and finds every run', () => {
    expect(analysis.errors).toEqual([]);
    for (const r of expectedRuns) expect(() => runFor(r.dir)).not.toThrow();
  });

  for (const r of expectedRuns) {
    describe(r.dir, () => {
      it('merged figures per operation equal the oracle exactly', () => {
        const run = runFor(r.dir);
        expect(Object.keys(run.ops).sort()).toEqual(Object.keys(r.ops).sort());
        for (const [op, o] of Object.entries(r.ops)) {
          const actual = run.ops[op];
          if (!actual) throw new Error(`missing op ${op}`);
          expect(actual.exact).toBe(true);
          expect(actual.source).toBe(r.measurement === 'hdr' ? 'histogram' : 'raw');
          expectFigures(actual, o.merged, `${op} merged`);
        }
      });

      it('per-client figures and the naive max-of-clients equal the oracle', () => {
        const run = runFor(r.dir);
        for (const [op, o] of Object.entries(r.ops)) {
          const actual = run.ops[op];
          if (!actual) throw new Error(`missing op ${op}`);
          expect(actual.perClient.map((c) => c.client)).toEqual(o.perClient.map((c) => c.client));
          for (const pc of o.perClient) {
            const mine = actual.perClient.find((c) => c.client === pc.client);
            if (!mine) throw new Error(`missing client ${pc.client}`);
            expect(mine.file).toBe(pc.file);
            expectFigures(mine, pc, `${op} ${pc.client}`);
          }
          expect(actual.naive.maxClientP95).toBe(o.maxClientP95);
          expect(actual.naive.maxClientP99).toBe(o.maxClientP99);
        }
      });

      it('run extent, throughput and per-second series equal the oracle', () => {
        const run = runFor(r.dir);
        expect(run.clients.map((c) => c.client)).toEqual(r.clients.map((c) => c.client));
        expect(run.target).toBe(r.target);
        expect(run.threadsPerClient).toBe(r.threadsPerClient);
        expect(run.startEpochMs).toBe(r.startEpochMs);
        expect(run.endEpochMs).toBe(r.endEpochMs);
        expect(run.totalOps).toBe(r.totalOps);
        expect(run.durationS).toBeCloseTo(r.durationS, 9);
        expect(Math.abs((run.throughput as number) / r.achievedThroughputOpsPerS - 1)).toBeLessThan(1e-9);
        const t = run.throughputPerSecond;
        if (!t) throw new Error('no per-second series');
        expect(t.startEpochS).toBe(r.throughputStartEpochS);
        expect(t.ok.map((ok, i) => ok + (t.failed[i] ?? 0))).toEqual(r.throughputPerSecond);
        if (r.throughputPerSecondOk) expect(t.ok).toEqual(r.throughputPerSecondOk);
        if (r.throughputPerSecondFailed) expect(t.failed).toEqual(r.throughputPerSecondFailed);
      });
    });
  }
});

describe('corpus: tagged log and .hgrm', () => {
  const v6 = expected['tagged-from-sweep'] as {
    taggedLog: { perTag: Record<string, ExpectedFigures> };
    hgrm: ExpectedFigures & { op: string };
  };

  it('each tag of the tagged log equals the oracle per tag', () => {
    const run = runFor('tagged-from-sweep');
    for (const [tag, figures] of Object.entries(v6.taggedLog.perTag)) {
      const client = run.ops[tag]?.perClient.find((c) => c.file === 'client1-tagged.hlog');
      if (!client) throw new Error(`tag ${tag} not read`);
      expectFigures(client, figures, `tag ${tag}`);
    }
  });

  it('the .hgrm gives exact count, min, max and exact-or-bounded percentiles', () => {
    const run = runFor('tagged-from-sweep');
    const h = run.ops[v6.hgrm.op]?.perClient.find((c) => c.file === 'merged-READ.hgrm');
    if (!h) throw new Error('hgrm not read');
    expect(h.source).toBe('distribution');
    expect(h.count).toBe(v6.hgrm.count);
    expect(h.min).toBe(v6.hgrm.min);
    expect(h.max).toBe(v6.hgrm.max);
    expect(h.mean).toBeCloseTo(v6.hgrm.mean, 3);
    let exactCount = 0;
    for (const k of PERCENTILE_KEYS) {
      const truth = v6.hgrm[k] as number;
      const bound = h.bounds?.[k];
      if (h[k] !== null) {
        exactCount++;
        expect(h[k], k).toBe(truth);
      } else {
        if (!bound) throw new Error(`${k}: neither a value nor a bound`);
        expect(truth).toBeGreaterThan(bound.min);
        expect(truth).toBeLessThanOrEqual(bound.max);
      }
    }
    // p50, p90 and p95 fall on printed ticks; the tail ones do not.
    expect(exactCount).toBeGreaterThanOrEqual(3);
  });
});
