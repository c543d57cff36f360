import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The compare CLI end to end: the JSON of its contract (comparisons and capacity), the same
 * numbers the app's code gives for the same data (a run against itself, two levels of one sweep, a
 * capacity worked out from the corpus's oracle), its messages on bad input and its exit codes.
 */

const SWEEP = 'tests/fixtures/corpus/sweep-uniform-a';
const oracle = JSON.parse(readFileSync('tests/fixtures/corpus/expected.json', 'utf8'))['sweep-uniform-a'].runs as { run: string; achievedThroughputOpsPerS: number; ops: Record<string, { merged: Record<string, number> }> }[];
const level = (run: string) => oracle.find((r) => r.run === run) as (typeof oracle)[number];
const work = mkdtempSync(path.join(tmpdir(), 'benchlens-compare-'));

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile('npx', ['tsx', 'src/cli/benchlens.ts', 'compare', ...args], { maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr });
    });
  });
}

function cliOnce(args: string[]): () => Outcome {
  let outcome: Outcome | undefined;
  beforeAll(async () => {
    outcome = await cli(args);
  }, 120_000);
  return () => {
    if (!outcome) throw new Error('the CLI has not run');
    return outcome;
  };
}

interface Row {
  op: string;
  stat: string;
  baseline: number;
  candidate: number;
  ratio: number;
  ciLow: number | null;
  ciHigh: number | null;
  verdict: string | null;
  method: string;
}

describe('a run against itself', () => {
  const out = cliOnce(['--json', '--baseline', `${SWEEP}/target-1000`, '--candidate', `${SWEEP}/target-1000`, SWEEP]);
  it('is the same for every operation and statistic, with the run’s own figures', () => {
    expect(out().code).toBe(0);
    const json = JSON.parse(out().stdout);
    const rows = json.comparisons as Row[];
    expect(rows.map((r) => `${r.op} ${r.stat}`)).toEqual([
      'READ p50',
      'READ p99',
      'READ p99.9',
      'READ throughput',
      'UPDATE p50',
      'UPDATE p99',
      'UPDATE p99.9',
      'UPDATE throughput',
      'all operations throughput',
    ]);
    for (const r of rows) {
      expect(r.verdict, `${r.op} ${r.stat}`).toBe('same');
      expect(r.ratio).toBe(1);
      expect(r.ciLow).toBeLessThanOrEqual(1);
      expect(r.ciHigh).toBeGreaterThanOrEqual(1);
      expect(r.method).toBe('block-bootstrap');
    }
    const merged = level('target-1000').ops;
    expect(rows.find((r) => r.op === 'READ' && r.stat === 'p99')?.baseline).toBe(merged.READ?.merged.p99);
    expect(rows.find((r) => r.op === 'UPDATE' && r.stat === 'p99.9')?.baseline).toBe(merged.UPDATE?.merged['p99.9']);
    expect(rows.find((r) => r.op === 'all operations')?.baseline).toBeCloseTo(level('target-1000').achievedThroughputOpsPerS, 9);
    expect(json.baseline.blockLengthS).toHaveLength(1);
    expect(json.methodText).toMatch(/^moving-block bootstrap over each run's seconds: 2,000 resamples/);
  });
});

describe('two levels of one sweep, and capacity at an SLA', () => {
  const out = cliOnce(['--json', '--baseline', `${SWEEP}/target-250`, '--candidate', `${SWEEP}/target-2000`, '--sla', 'p95 of READ <= 300 us', '--price', 'RedisDB=monthly:1000', SWEEP]);
  it('finds the doubling of throughput, and its ratio is the oracle’s', () => {
    expect(out().code).toBe(0);
    const rows = JSON.parse(out().stdout).comparisons as Row[];
    const all = rows.find((r) => r.op === 'all operations') as Row;
    expect(all.ratio).toBeCloseTo(level('target-2000').achievedThroughputOpsPerS / level('target-250').achievedThroughputOpsPerS, 9);
    expect(all.verdict).toBe('better');
    expect(rows.find((r) => r.op === 'READ' && r.stat === 'throughput')?.verdict).toBe('better');
  });

  it('gives the capacity worked out from the oracle, priced', () => {
    const [row] = JSON.parse(out().stdout).capacity;
    const x1 = level('target-2000').achievedThroughputOpsPerS;
    const x2 = level('target-unthrottled').achievedThroughputOpsPerS;
    const y1 = level('target-2000').ops.READ?.merged.p95 as number;
    const y2 = level('target-unthrottled').ops.READ?.merged.p95 as number;
    expect(row).toMatchObject({ system: 'RedisDB', sla: 'p95 of READ <= 300 us', monthlyCost: 1000 });
    expect(row.maxOpsPerS).toBeCloseTo(x1, 9);
    expect(row.failsAtOpsPerS).toBeCloseTo(x2, 9);
    expect(row.estimateOpsPerS).toBeCloseTo(x1 + ((300 - y1) / (y2 - y1)) * (x2 - x1), 6);
    expect(row.costPerKops).toBeCloseTo(1000 / (x1 / 1000), 9);
  });
});

describe('groups by label', () => {
  const labels = path.join(work, 'labels.json');
  writeFileSync(
    labels,
    JSON.stringify({ 'target-250': { repeat: '1' }, 'target-500': { repeat: '1' }, 'target-1000': { repeat: '2' }, 'target-2000': { repeat: '2' }, 'target-unthrottled': { repeat: '3' } }),
  );
  const out = cliOnce(['--json', '--labels', labels, '--baseline', 'repeat=1', '--candidate', 'repeat=2', SWEEP]);
  it('uses the spread between runs when both sides hold two or more, and says it mixes load levels', () => {
    expect(out().code).toBe(0);
    const json = JSON.parse(out().stdout);
    expect(json.method).toBe('between-runs');
    expect(json.baseline.runs).toEqual(['target-250', 'target-500']);
    const p99 = (json.comparisons as Row[]).find((r) => r.op === 'READ' && r.stat === 'p99') as Row;
    const geo = (a: number, b: number) => Math.sqrt(a * b);
    expect(p99.baseline).toBeCloseTo(geo(level('target-250').ops.READ?.merged.p99 as number, level('target-500').ops.READ?.merged.p99 as number), 9);
    expect(p99.method).toBe('between-runs');
    expect(json.notes.join(' ')).toMatch(/the runs of repeat = 1 differ in load level \(750 ops\/s, 1,500 ops\/s\): they are taken as repeats of one configuration/);
  });
});

describe('folders of runs', () => {
  const out = cliOnce(['--json', '--baseline', `./${SWEEP}/`, '--candidate', path.resolve('tests/fixtures/corpus/zipfian-a'), SWEEP, 'tests/fixtures/corpus/zipfian-a']);
  it('are groups, however the folder is written, compared by the spread between their runs', () => {
    expect(out().code).toBe(0);
    const json = JSON.parse(out().stdout);
    expect(json.method).toBe('between-runs');
    expect(json.baseline.runs).toHaveLength(5);
    expect(json.candidate.runs).toEqual(['zipfian-a/target-1000', 'zipfian-a/target-3000']);
    expect(json.notes.join(' ')).toMatch(/the runs of folder tests\/fixtures\/corpus\/sweep-uniform-a differ in load level/);
  });
});

describe('bad input', () => {
  it('a side that matches no run is bad usage (exit 2), naming the runs there are', async () => {
    const out = await cli(['--json', '--baseline', 'system=Cassandra', '--candidate', `${SWEEP}/target-250`, SWEEP]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--baseline: no run has system "Cassandra" \(there are: RedisDB\)/);
  });

  it('an SLA it cannot read is bad usage', async () => {
    const out = await cli(['--sla', 'p95 READ < 10', SWEEP]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--sla: cannot read SLA rule 'p95 READ < 10'/);
  });

  it('runs whose latencies differ in precision: exit 1, said, nothing compared', async () => {
    const out = await cli(['--json', '--baseline', 'tests/fixtures/corpus/raw-csv-b/target-unthrottled', '--candidate', `${SWEEP}/target-250`, 'tests/fixtures/corpus/raw-csv-b', SWEEP]);
    expect(out.code).toBe(1);
    const json = JSON.parse(out.stdout);
    expect(json.comparisons).toEqual([]);
    expect(json.problems.join(' ')).toMatch(/READ: the runs' latencies have different precision \(exact values vs 3 significant digits, lowest 1\)/);
  });
});
