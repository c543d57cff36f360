import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { type Analysis } from '../../src/engine/analyse.ts';
import type { Db } from '../../src/engine/db.ts';
import { runChartQuery } from '../../src/engine/chart-queries.ts';
import { openNodeDb } from '../../src/engine/node-db.ts';
import { Store } from '../../src/engine/store.ts';
import { groupIntoRuns } from '../../src/model/grouping.ts';
import { boundsOf } from '../../src/model/hdr-codec.ts';
import { hdrLayout } from '../../src/model/hdr-layout.ts';
import { addHistograms, valueAtPercentile } from '../../src/model/hdr-stats.ts';
import { describeKept } from '../../src/model/file-tally.ts';
import type { HistogramSeries } from '../../src/model/types.ts';
import { DISTRIBUTION_PERCENTILES } from '../../src/model/percentiles.ts';

/**
 * What can and cannot be merged: summaries only give bounds (never a fake number), a broken file
 * fails alone, and the CLI's output and exit codes follow the documented contract.
 */

const RUN = 'tests/fixtures/corpus/sweep-uniform-a/target-1000';
const expected = JSON.parse(readFileSync('tests/fixtures/corpus/expected.json', 'utf8'));
const oracle = expected['sweep-uniform-a'].runs.find((r: { run: string }) => r.run === 'target-1000');

let db: Db;
beforeAll(async () => {
  db = await openNodeDb();
});

function workDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'benchlens-test-'));
}

describe('summaries only (YCSB stdout without histograms)', () => {
  let analysis: Analysis;
  beforeAll(async () => {
    const dir = path.join(workDir(), 'stdout-only');
    mkdirSync(dir);
    for (const c of ['client1', 'client2', 'client3']) copyFileSync(`${RUN}/${c}.stdout.txt`, `${dir}/${c}.stdout.txt`);
    analysis = (await loadFiles([dir])).analysis;
  });

  it('gives bounds, not a merged percentile, with the naive figures beside them', () => {
    const read = analysis.runs[0]?.ops.READ;
    if (!read) throw new Error('no READ');
    const printed = oracle.ops.READ.perClient.map((c: { ycsb: Record<string, number> }) => c.ycsb);
    const p95s = printed.map((y: Record<string, number>) => y['95thPercentileLatency(us)']);
    const p99s = printed.map((y: Record<string, number>) => y['99thPercentileLatency(us)']);
    expect(read.source).toBe('summary');
    expect(read.exact).toBe(false);
    expect(read.p95).toBeNull();
    expect(read.p99).toBeNull();
    expect(read.bounds?.p95).toEqual({ min: Math.min(...p95s), max: Math.max(...p95s) });
    expect(read.bounds?.p99).toEqual({ min: Math.min(...p99s), max: Math.max(...p99s) });
    expect(read.naive.maxClientP99).toBe(Math.max(...p99s));
    // The true merged p99 (from the histograms) lies inside the bound.
    expect(oracle.ops.READ.merged.p99).toBeGreaterThanOrEqual(read.bounds?.p99?.min ?? Infinity);
    expect(oracle.ops.READ.merged.p99).toBeLessThanOrEqual(read.bounds?.p99?.max ?? -Infinity);
  });

  it('sums counts and throughput and weights means by count, exactly', () => {
    const run = analysis.runs[0];
    const read = run?.ops.READ;
    expect(read?.count).toBe(oracle.ops.READ.merged.count);
    expect(Math.abs((read?.mean ?? 0) / oracle.ops.READ.merged.mean - 1)).toBeLessThan(1e-9);
    expect(read?.min).toBe(oracle.ops.READ.merged.min);
    expect(read?.max).toBe(oracle.ops.READ.merged.max);
    expect(run?.throughput).toBeCloseTo(oracle.ycsbSumOfClientThroughput, 9);
  });
});

describe('a time window relative to each run', () => {
  it('merges only the intervals starting in seconds 10–19 after the run\'s first second, exactly (and a clean run is not partial)', async () => {
    const loaded = await loadFiles([RUN]);
    const whole = loaded.analysis;
    const windowed = loaded.engine.analyse({ fromS: 10, toS: 20 });
    const firstS = Math.floor((whole.runs[0]?.startEpochMs ?? 0) / 1000);
    const inWindow = (startUs: number) => Math.floor(startUs / 1e6) >= firstS + 10 && Math.floor(startUs / 1e6) < firstS + 20;
    const intervals = loaded.files
      .flatMap((f) => f.series)
      .filter((s): s is HistogramSeries => s.kind === 'histogram' && s.op === 'READ')
      .flatMap((s) => s.intervals.filter((i) => inWindow(i.startUs)).map((i) => ({ precision: s.precision, histogram: boundsOf(hdrLayout(s.precision), i.histogram) })));
    const reference = addHistograms(intervals);
    const read = windowed.runs[0]?.ops.READ;
    expect(intervals.length).toBeGreaterThan(20);
    expect(read?.count).toBe(reference.totalCount);
    expect(read?.p99).toBe(valueAtPercentile(reference, 99));
    expect(read?.['p99.9']).toBe(valueAtPercentile(reference, 99.9));
    expect(read?.count).toBeLessThan(whole.runs[0]?.ops.READ?.count ?? 0);
    // The run starts mid-second: the window's duration is whole seconds, within the run.
    expect(windowed.runs[0]?.durationS).toBe(10);
    expect(whole.runs[0]?.partial).toBe(false);

    // The percentile-distribution chart draws the same samples as the table, window included.
    const store = new Store(db);
    store.addRuns(groupIntoRuns(loaded.files));
    const chart = runChartQuery(store, { kind: 'percentile-distribution', runIds: [0], ops: ['READ'], window: { fromS: 10, toS: 20 } });
    if (chart.kind !== 'percentile-distribution') throw new Error('not a distribution');
    const [line] = chart.series;
    expect(line?.percentiles).toEqual([...DISTRIBUTION_PERCENTILES]);
    expect(line?.values).toEqual(DISTRIBUTION_PERCENTILES.map((p) => valueAtPercentile(reference, p)));
  });
});

describe('a broken file fails alone', () => {
  it('keeps every other file of the run and lists the problem with file and line', async () => {
    const dir = path.join(workDir(), 'run');
    mkdirSync(dir);
    for (const f of ['client1-READ.hdr', 'client2-READ.hdr', 'client3-READ.hdr']) copyFileSync(`${RUN}/${f}`, `${dir}/${f}`);
    const lines = readFileSync(`${RUN}/client3-READ.hdr`, 'utf8').split('\n');
    lines[6] = `${lines[6]?.slice(0, 30)}`;
    writeFileSync(`${dir}/client3-READ.hdr`, lines.join('\n'));
    writeFileSync(`${dir}/client4-READ.hdr`, '#[StartTime: nonsense]\n0.1,1.0,0.1,HISTgarbage\n');
    const analysis = (await loadFiles([dir])).analysis;
    expect(analysis.errors.map((e) => [path.basename(e.file), e.line])).toEqual([
      ['client3-READ.hdr', 7],
      ['client4-READ.hdr', 2],
    ]);
    // The run is labelled partial, and the file says what was kept of it.
    expect(analysis.runs[0]?.partial).toBe(true);
    const report = analysis.files.find((f) => f.path.endsWith('client3-READ.hdr'));
    expect(report).toMatchObject({ unit: 'intervals', skipped: 1, problems: 1 });
    expect(describeKept(report!)).toBe(`${report!.kept} of ${report!.kept + 1} intervals loaded`);
    expect(analysis.files.find((f) => f.path.endsWith('client1-READ.hdr'))?.skipped).toBe(0);
    const read = analysis.runs[0]?.ops.READ;
    const client = (name: string) => oracle.ops.READ.perClient.find((c: { client: string }) => c.client === name);
    expect(read?.perClient.find((c) => c.client === 'client1')?.p99).toBe(client('client1').p99);
    expect(read?.count).toBeLessThan(oracle.ops.READ.merged.count);
    expect(read?.count).toBeGreaterThan(client('client1').count + client('client2').count);
  });
});

const run = promisify(execFile);
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['tsx', 'src/cli/benchlens.ts', 'summarize', ...args], { maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('summarize CLI', () => {
  it('prints the documented JSON and exits 0 when everything was read', async () => {
    const { code, stdout } = await cli(['--json', RUN]);
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    const r = doc.runs[0];
    expect(r.label).toBe('target-1000');
    expect(r.clients.map((c: { client: string }) => c.client)).toEqual(['client1', 'client2', 'client3']);
    expect(r.target).toBe(1000);
    expect(r.ops.READ.p99).toBe(oracle.ops.READ.merged.p99);
    expect(r.ops.READ.naive.maxClientP99).toBe(oracle.ops.READ.maxClientP99);
    expect(r.ops.READ.perClient[0].client).toBe('client1');
    expect(r.throughputPerSecond.startEpochS).toBe(oracle.throughputStartEpochS);
    expect(r.steps).toEqual([]);
    expect(doc.errors).toEqual([]);
  });

  it('writes the whole JSON through a pipe, however long (no exit before stdout drains)', async () => {
    const { code, stdout } = await cli(['--json', 'tests/fixtures/corpus']);
    expect(code).toBe(0);
    expect(stdout.length).toBeGreaterThan(65536);
    expect(JSON.parse(stdout).runs).toHaveLength(11);
  });

  it('exits 1 and lists the skipped line when something could not be read', async () => {
    const dir = path.join(workDir(), 'bad');
    mkdirSync(dir);
    writeFileSync(`${dir}/client1-READ.hdr`, `${readFileSync(`${RUN}/client1-READ.hdr`, 'utf8')}0.5,1.0,0.1,HISTnot-base64!\n`);
    const { code, stdout } = await cli(['--json', dir]);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).errors[0]).toMatchObject({ line: 32 });
  });

  it('exits 2 on bad usage and prints a readable table without --json', async () => {
    expect((await cli([])).code).toBe(2);
    expect((await cli(['--nope', RUN])).code).toBe(2);
    const table = await cli([RUN]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/READ\s+histogram\s+36,897/);
    // Its clients started together: nothing ran at separate times.
    expect(table.stdout).not.toContain('separate times');
  });

  it('says which files of a run ran at separate times, as the page offers to split them', async () => {
    const { code, stdout } = await cli(['tests/fixtures/jmeter']);
    expect(code).toBe(0);
    // Four real JTLs of four tests (tests/fixtures/jmeter/SOURCES.md), the first from 2005.
    expect(stdout).toMatch(/Ran at separate times[^\n]*\n {2}jmeter: 1 file\(s\) from 2005-11-15 02:24:45 UTC(; 1 file\(s\) from [-\d: ]+ UTC){3}\n/);
  });
});

describe('a run timed from its own start', () => {
  it('says so instead of dating it to 1970; a run in epoch time keeps its date', async () => {
    const loaded = await loadFiles(['tests/fixtures/cassandra-stress/write-throttle1500-3min.log', RUN]);
    const a = loaded.analysis;
    const relative = a.runs.find((r) => r.dir === 'tests/fixtures/cassandra-stress');
    const absolute = a.runs.find((r) => r.dir === RUN);
    expect(relative?.relativeTime).toBe(true);
    expect(relative?.durationS).toBeGreaterThan(170);
    expect(absolute?.relativeTime).toBeUndefined();
    expect(absolute?.startEpochMs).toBeGreaterThan(Date.UTC(2026, 0, 1));
  });
});

describe('a run with series timed from their own start beside series in epoch time', () => {
  it('keeps the epoch clock: a tool’s progress report (elapsed seconds) does not stretch the run to 1970', async () => {
    // pgbench's -l logs are in epoch seconds; its --progress lines count from the run's start.
    const a = (await loadFiles(['tests/fixtures/pgbench/pg13-rate-limit'])).analysis;
    const run = a.runs[0];
    expect(run?.relativeTime).toBeUndefined();
    expect(run?.durationS).toBeGreaterThan(1);
    expect(run?.durationS).toBeLessThan(60);
    expect(run?.throughputPerSecond?.ok.length).toBeLessThan(60);
    expect(run?.startEpochMs).toBeGreaterThan(Date.UTC(2026, 0, 1));
  });
});
