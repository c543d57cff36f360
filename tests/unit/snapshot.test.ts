import fc from 'fast-check';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { analyseStore, type Analysis } from '../../src/engine/analyse.ts';
import { runChartQuery } from '../../src/engine/chart-queries.ts';
import { openNodeDb } from '../../src/engine/node-db.ts';
import { buildSnapshot } from '../../src/engine/snapshot-build.ts';
import { Store } from '../../src/engine/store.ts';
import { groupIntoRuns } from '../../src/model/grouping.ts';
import { decodeIntegers, encodeIntegers } from '../../src/state/link-codec.ts';
import { DISTRIBUTION_PERCENTILES, PERCENTILE_KEYS } from '../../src/model/percentiles.ts';
import {
  bestLink,
  snapshotFromFile,
  linkDataToSnapshot,
  MAX_LINK_BYTES,
  SHOWN_PERCENTILES,
  snapshotLevel,
  snapshotToFile,
  snapshotToLinkData,
  SnapshotError,
  type SharedLink,
  type Snapshot,
  type SnapshotOp,
} from '../../src/state/snapshot.ts';

/**
 * A comparison carried by a link or a file must reproduce the original's numbers exactly: the
 * merged histograms travel, and the same SQL recomputes every figure from them; or, when they do
 * not fit, the figures shown travel and a stand-in histogram makes the same SQL give them back.
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
      for (const k of ['count', 'mean', 'stddev', 'min', 'max', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'p99.99', 'exact', 'source', 'naive'] as const) {
        expect(m?.[k], `${run.dir} ${op} ${k}`).toEqual(o[k]);
      }
      compared++;
    }
  }
  return compared;
}

beforeAll(async () => {
  original = (await loadFiles([CORPUS])).analysis;
  const store = new Store(await openNodeDb());
  store.addRuns(groupIntoRuns((await loadFiles([CORPUS])).files));
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

  it('a time window leaves a comparison\'s runs at their whole-run figures (they carry no per-second latency), and says so', async () => {
    const store = new Store(await openNodeDb());
    store.addSnapshot(snapshot);
    const windowed = analyseStore(store, [], [], { window: { fromS: 5, toS: 15 } });
    expect(windowed.runs.every((r) => r.comparison === 'histograms')).toBe(true);
    expectSameFigures(windowed, original, omitted);
  });

  it('a snapshot file (JSON, HdrHistogram base64) reproduces every figure exactly', async () => {
    const file = snapshotToFile(snapshot);
    expect(JSON.parse(file)).toMatchObject({ format: 'benchlens-comparison', version: 1 });
    expect(file).toMatch(/"histogram": "HISTF/);
    expectSameFigures(await reopen(snapshotFromFile(file)), original, omitted);
  });

  it('refuses corrupt, truncated or future-version data with a clear error', () => {
    const link = snapshotToLinkData(snapshot);
    expect(() => linkDataToSnapshot(link.slice(0, link.length / 2))).toThrow(SnapshotError);
    expect(() => linkDataToSnapshot('not*base64')).toThrow(SnapshotError);
    expect(() => snapshotFromFile('{"format":"benchlens-comparison","version":99,"runs":[]}')).toThrow(/version 99/);
    expect(() => snapshotFromFile('{"format":"other"}')).toThrow(SnapshotError);
    const file = JSON.parse(snapshotToFile(snapshot));
    file.runs[0].ops.READ.histogram = 'HISTFAAAAbogus';
    expect(() => snapshotFromFile(JSON.stringify(file))).toThrow(SnapshotError);
  });
});

// ---- Figures-only links ----------------------------------------------------------------------------

function distribution(store: Store): Record<string, { percentiles: number[]; values: number[] }> {
  const ops = [...new Set(store.series.map((s) => s.op))];
  const result = runChartQuery(store, { kind: 'percentile-distribution', runIds: store.runs.map((r) => r.id), ops });
  if (result.kind !== 'percentile-distribution') throw new Error('not a distribution');
  return Object.fromEntries(result.series.map((s) => [`${store.runs[s.runId]?.key} ${s.op}`, { percentiles: s.percentiles, values: s.values }]));
}

function expectSameDistribution(actual: Store, expected: Store, omittedOps: readonly string[] = []): number {
  const mine = distribution(actual);
  const theirs = Object.entries(distribution(expected)).filter(([key]) => {
    const run = expected.runs.find((r) => key.startsWith(`${r.key} `));
    return run && !omittedOps.includes(`${run.label} ${key.slice(run.key.length + 1)}`);
  });
  for (const [key, curve] of theirs) {
    expect(curve.percentiles, key).toEqual(DISTRIBUTION_PERCENTILES);
    expect(mine[key], key).toEqual(curve);
  }
  return theirs.length;
}

/** Opened from figures only, the one "client" of each operation must show the merged figures, not the stand-in's. */
function expectClientRowsAsMerged(a: Analysis): void {
  for (const run of a.runs) {
    for (const [op, o] of Object.entries(run.ops)) {
      const [client] = o.perClient;
      for (const k of ['count', 'mean', 'stddev', 'min', 'max', ...PERCENTILE_KEYS] as const) expect(client?.[k], `${run.dir} ${op} client ${k}`).toEqual(o[k]);
    }
  }
}

/**
 * Twelve runs of four operations, every histogram a real one from the corpus and each distinct:
 * the sweep and zipfian runs give READ and UPDATE of two clients, and the third client's READ and
 * UPDATE relabelled SCAN and INSERT; intended-a and split-for-heat their own four operations
 * (Intended-* and *-FAILED), without CLEANUP. Run 10–12 take the other clients of the largest runs.
 */
function twelveRunsByFourOps(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'benchlens-12x4-'));
  const relabelled = (src: string, name: string, pair: readonly string[], single: string) => {
    const dir = path.join(root, name);
    mkdirSync(dir);
    for (const f of readdirSync(path.join(CORPUS, src))) {
      const m = /^(client\d+)-(READ|UPDATE)\.hdr$/.exec(f);
      if (f.endsWith('.stderr.txt')) copyFileSync(path.join(CORPUS, src, f), path.join(dir, f));
      if (!m) continue;
      const [, client = '', op = ''] = m;
      if (pair.includes(client)) copyFileSync(path.join(CORPUS, src, f), path.join(dir, f));
      else if (client === single) {
        const as = op === 'READ' ? 'SCAN' : 'INSERT';
        const text = readFileSync(path.join(CORPUS, src, f), 'utf8');
        expect(text).toContain(`#[Logging for: ${op}]`);
        writeFileSync(path.join(dir, `${client}-${as}.hdr`), text.replace(`#[Logging for: ${op}]`, `#[Logging for: ${as}]`));
      }
    }
  };
  const native = (src: string, name: string) => {
    const dir = path.join(root, name);
    mkdirSync(dir);
    for (const f of readdirSync(path.join(CORPUS, src))) {
      if ((f.endsWith('.hdr') && !f.includes('CLEANUP')) || f.endsWith('.stderr.txt')) copyFileSync(path.join(CORPUS, src, f), path.join(dir, f));
    }
  };
  for (const t of ['250', '500', '1000', '2000', 'unthrottled']) relabelled(`sweep-uniform-a/target-${t}`, `uniform-${t}`, ['client1', 'client2'], 'client3');
  for (const t of ['1000', '3000']) relabelled(`zipfian-a/target-${t}`, `zipfian-${t}`, ['client1', 'client2'], 'client3');
  native('intended-a/target-5000', 'intended-5000');
  native('split-for-heat/target-800', 'split-800');
  relabelled('zipfian-a/target-3000', 'zipfian-3000-b', ['client2', 'client3'], 'client1');
  relabelled('sweep-uniform-a/target-unthrottled', 'uniform-unthrottled-b', ['client2', 'client3'], 'client1');
  relabelled('sweep-uniform-a/target-2000', 'uniform-2000-b', ['client2', 'client3'], 'client1');
  return root;
}

describe('figures-only links', () => {
  let store12: Store;
  let original12: Analysis;
  let snapshot12: Snapshot;
  let link12: SharedLink;
  let reopened12: Store;

  beforeAll(async () => {
    const loaded = await loadFiles([twelveRunsByFourOps()]);
    expect(loaded.errors).toEqual([]);
    store12 = new Store(await openNodeDb());
    store12.addRuns(groupIntoRuns(loaded.files));
    original12 = analyseStore(store12, [], []);
    const built = buildSnapshot(store12, original12);
    expect(built.omitted).toEqual([]);
    snapshot12 = built.snapshot;
    link12 = bestLink(snapshot12);
    reopened12 = new Store(await openNodeDb());
    if (link12.level !== null) reopened12.addSnapshot(linkDataToSnapshot(link12.data));
  });

  it('a real comparison of 12 runs × 4 operations fits in a 32 KB link, and reopens with every figure and curve identical', () => {
    expect(snapshot12.runs).toHaveLength(12);
    expect(snapshot12.runs.every((r) => Object.keys(r.ops).length === 4)).toBe(true);
    const buckets = snapshot12.runs.reduce((a, r) => a + Object.values(r.ops).reduce((b, o) => b + (o.histogram?.histogram.lo.length ?? 0), 0), 0);
    const full = snapshotToLinkData(snapshot12, 'histograms');
    const link = link12;
    console.info(`12 runs × 4 operations, ${buckets} non-empty buckets: histograms link ${full.length} characters, figures-only link ${link.level === 'figures' ? link.data.length : 'none'} (limit ${MAX_LINK_BYTES})`);
    expect(full.length).toBeGreaterThan(MAX_LINK_BYTES);
    expect(link.level).toBe('figures');
    if (link.level !== 'figures') return;
    expect(link.data.length).toBeLessThanOrEqual(MAX_LINK_BYTES);

    expect(snapshotLevel(linkDataToSnapshot(link.data))).toBe('figures');
    const reopened = analyseStore(reopened12, [], []);
    // Every run says what it carries, for the banner of a dropped snapshot file.
    expect(reopened.runs.map((r) => r.comparison)).toEqual(reopened.runs.map(() => 'figures'));
    expect(original12.runs.map((r) => r.comparison)).toEqual(original12.runs.map(() => null));
    expect(expectSameFigures(reopened, original12, [])).toBe(48);
    expectClientRowsAsMerged(reopened);
    expect(expectSameDistribution(reopened12, store12)).toBe(48);
  });

  it('shared again, a figures-only snapshot keeps its figures, as a link or as a snapshot file', async () => {
    const again = buildSnapshot(reopened12, analyseStore(reopened12, [], [])).snapshot;
    expect(snapshotLevel(again)).toBe('figures');
    expect(again.runs.flatMap((r) => Object.values(r.ops)).some((o) => o.histogram || o.exact)).toBe(false);
    const link = bestLink(again);
    expect(link.level).toBe('figures');
    const file = snapshotToFile(again);
    expect(JSON.parse(file)).toMatchObject({ format: 'benchlens-comparison', version: 2, percentiles: SHOWN_PERCENTILES });
    for (const s of [snapshotFromFile(file), ...(link.level === 'figures' ? [linkDataToSnapshot(link.data)] : [])]) {
      const store = new Store(await openNodeDb());
      store.addSnapshot(s);
      expect(expectSameFigures(analyseStore(store, [], []), original12, [])).toBe(48);
      expect(expectSameDistribution(store, store12)).toBe(48);
    }
  });

  it('the whole corpus at the figures level, raw samples included, reopens identical', async () => {
    const link = snapshotToLinkData(snapshot, 'figures');
    expect(link.length).toBeLessThanOrEqual(MAX_LINK_BYTES);
    const store = new Store(await openNodeDb());
    store.addSnapshot(linkDataToSnapshot(link));
    const reopened = analyseStore(store, [], []);
    expect(expectSameFigures(reopened, original, omitted)).toBeGreaterThan(30);
    const files = new Store(await openNodeDb());
    files.addRuns(groupIntoRuns((await loadFiles([CORPUS])).files));
    expect(expectSameDistribution(store, files, omitted)).toBeGreaterThan(30);
  });

  it('refuses figures that lack a shown percentile or contradict each other', () => {
    const file = () => JSON.parse(snapshotToFile({ runs: snapshot12.runs.map((r) => ({ ...r, ops: Object.fromEntries(Object.entries(r.ops).map(([op, o]) => [op, { ...o, histogram: undefined }])) })) }));
    expect(() => snapshotFromFile(JSON.stringify(file()))).not.toThrow();

    const missing = file();
    const at = missing.percentiles.indexOf(99.99);
    missing.percentiles.splice(at, 1);
    for (const r of missing.runs) for (const o of Object.values(r.ops) as { figures: { values: number[] } }[]) o.figures.values.splice(at, 1);
    expect(() => snapshotFromFile(JSON.stringify(missing))).toThrow(/no figures for p99.99/);

    const decreasing = file();
    decreasing.runs[0].ops.READ.figures.values[5] = decreasing.runs[0].ops.READ.figures.values[4] - 1;
    expect(() => snapshotFromFile(JSON.stringify(decreasing))).toThrow(SnapshotError);

    // Too few values for that many distinct percentiles: no histogram has these figures.
    const fewer = file();
    fewer.runs[0].ops.READ.figures.count = 3;
    expect(() => snapshotFromFile(JSON.stringify(fewer))).toThrow(/contradict/);

    const beyondMax = file();
    beyondMax.runs[0].ops.READ.figures.max = 1;
    expect(() => snapshotFromFile(JSON.stringify(beyondMax))).toThrow(/contradict/);
  });

  it('says so when even the figures do not fit', () => {
    // Many runs of figures that deflate cannot fold into each other.
    let seed = 1;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const runs = Array.from({ length: 60 }, (_, i) => {
      const ops: Record<string, SnapshotOp> = {};
      for (const op of ['READ', 'UPDATE', 'INSERT', 'SCAN']) {
        let v = 10;
        const values = SHOWN_PERCENTILES.map(() => (v += Math.floor(random() * 200)));
        ops[op] = {
          unit: 'us',
          naive: { maxClientP95: null, maxClientP99: null, meanClientP99: null },
          figures: { raw: false, count: 1_000_000, min: 1, max: v, mean: 1000 * random(), stddev: 1000 * random(), percentiles: SHOWN_PERCENTILES, values },
        };
      }
      return { ...snapshot12.runs[0], key: `run-${i}`, label: `run-${i}`, ops } as Snapshot['runs'][number];
    });
    const link = bestLink({ runs });
    expect(link.level).toBeNull();
    if (link.level === null) expect(link.figuresBytes).toBeGreaterThan(MAX_LINK_BYTES);
  });

  it('stand-in histograms reproduce every shown figure of any histogram, through the same SQL', async () => {
    const bucket = fc.record({ gap: fc.integer({ min: 1, max: 60 }), width: fc.constantFrom(1, 2, 8, 64), n: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 1e9 })) });
    const op = fc.record({ raw: fc.boolean(), buckets: fc.array(bucket, { minLength: 1, maxLength: 40 }) });
    const first = new Store(await openNodeDb());
    const second = new Store(await openNodeDb());
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const snapshotOps: Record<string, SnapshotOp> = {};
        ops.forEach((o, i) => {
          let hi = 0;
          const rows = o.buckets.map((b) => {
            const width = o.raw ? 1 : b.width;
            const lo = hi + b.gap;
            hi = lo + width - 1;
            return { lo, width, n: b.n };
          });
          const naive = { maxClientP95: null, maxClientP99: null, meanClientP99: null };
          snapshotOps[`OP${i}`] = o.raw
            ? { unit: 'us', naive, exact: rows.map((r) => [r.lo, r.n]) }
            : {
                unit: 'us',
                naive,
                histogram: {
                  precision: { significantDigits: 3, lowestDiscernibleValue: 1 },
                  highestTrackableValue: hi,
                  integerToDoubleConversionRatio: 1,
                  histogram: { lo: Float64Array.from(rows, (r) => r.lo), width: Float64Array.from(rows, (r) => r.width), count: Float64Array.from(rows, (r) => r.n), totalCount: rows.reduce((a, r) => a + r.n, 0) },
                },
              };
        });
        const run = { ...snapshot12.runs[0], key: 'random', label: 'random', throughputPerSecond: null, ops: snapshotOps } as Snapshot['runs'][number];
        first.clear();
        first.addSnapshot({ runs: [run] });
        const a = analyseStore(first, [], []);
        second.clear();
        second.addSnapshot(linkDataToSnapshot(snapshotToLinkData(buildSnapshot(first, a).snapshot, 'figures')));
        expect(expectSameFigures(analyseStore(second, [], []), a, [])).toBe(ops.length);
        expect(expectSameDistribution(second, first)).toBe(ops.length);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 6), ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
    );
  }, 180_000);
});

describe('link formats', () => {
  it('version-1 links (before figures-only links) keep loading, with every figure', async () => {
    const dir = `${CORPUS}/sweep-uniform-a/target-250`;
    const v1 = readFileSync('tests/fixtures/links/v1-sweep-uniform-a-target-250.txt', 'utf8').trim();
    const s = linkDataToSnapshot(v1);
    expect(snapshotLevel(s)).toBe('histograms');
    expect(expectSameFigures(await reopen(s), (await loadFiles([dir])).analysis, [])).toBe(3);
  });

  it('integer lists round-trip through delta varints', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 0, max: 2 ** 50 }))), (values) => {
        expect(decodeIntegers(encodeIntegers(values))).toEqual(values);
      }),
    );
    expect(encodeIntegers([1000, 1001, 1001, 1003]).length).toBe(5);
    expect(() => decodeIntegers(Uint8Array.of(0x80))).toThrow(/truncated/);
    expect(() => encodeIntegers([0.5])).toThrow();
  });
});
