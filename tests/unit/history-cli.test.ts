import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeHdrHistory, writeRawHistory } from './helpers/history-folders.ts';

/**
 * The history and check commands end to end on histories made of real corpus data (HdrHistogram
 * logs and YCSB raw rows, tests/unit/helpers/history-folders.ts): with a step at a known run, the
 * change is found there and the newest run of a step that starts last fails `check`; without one,
 * none is found and `check` passes. JUnit XML is parsed back.
 */

const work = mkdtempSync(path.join(tmpdir(), 'benchlens-history-cli-'));

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(command: 'history' | 'check', args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile('npx', ['tsx', 'src/cli/benchlens.ts', command, ...args], { maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr });
    });
  });
}

interface HistoryJson {
  series: { op: string; stat: string; points: { run: string; value: number | null; ciLow: number | null; ciHigh: number | null }[]; changes: { run: string; index: number; before: number; after: number; ratio: number; pValue: number }[] }[];
  order: { by: string; runs: string[] };
  problems: string[];
  errors: unknown[];
}

/** A JUnit document read back with regular expressions: suites with their counts and cases with their failures. */
function readJunit(xml: string) {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).toBe(true);
  const suites = [...xml.matchAll(/<testsuite name="([^"]*)" tests="(\d+)" failures="(\d+)"[^>]*>([\s\S]*?)<\/testsuite>/g)].map((m) => ({
    name: m[1],
    tests: Number(m[2]),
    failures: Number(m[3]),
    cases: [...(m[4] as string).matchAll(/<testcase classname="[^"]*" name="([^"]*)">(<failure message="([^"]*)")?/g)].map((c) => ({ name: c[1], failure: c[3] ?? null })),
  }));
  for (const s of suites) {
    expect(s.cases.length).toBe(s.tests);
    expect(s.cases.filter((c) => c.failure !== null).length).toBe(s.failures);
  }
  return suites;
}

const STEP = 12;

describe.each([
  ['HdrHistogram logs', 'hdr', (dir: string, o: { runs: number; stepAt?: number; factor?: number; seed?: number }) => writeHdrHistory(dir, o), 2],
  ['YCSB raw rows', 'raw', (dir: string, o: { runs: number; stepAt?: number; factor?: number; seed?: number }) => writeRawHistory(dir, o), 1.3],
] as const)('history and check on %s', (_name, kind, write, factor) => {
  const stepped = path.join(work, `${kind}-step`);
  const steady = path.join(work, `${kind}-steady`);
  const last = path.join(work, `${kind}-last`);
  let history: Outcome;
  let steadyHistory: Outcome;
  let checkLast: Outcome;
  let checkSteady: Outcome;
  beforeAll(async () => {
    write(stepped, { runs: 20, stepAt: STEP, factor, seed: 3 });
    write(steady, { runs: 20, seed: 4 });
    write(last, { runs: 12, stepAt: 11, factor, seed: 5 });
    [history, steadyHistory, checkLast, checkSteady] = await Promise.all([
      cli('history', ['--json', '--order', 'name', '--stat', 'p50,p99,throughput', stepped]),
      cli('history', ['--json', '--order', 'name', '--stat', 'p50,p99', steady]),
      cli('check', ['--history', '--order', 'name', '--junit', path.join(work, `${kind}-last.xml`), '--markdown', path.join(work, `${kind}-last.md`), last]),
      cli('check', ['--history', '--order', 'name', '--junit', path.join(work, `${kind}-steady.xml`), steady]),
    ]);
  }, 240_000);

  it('history --json: the change in p50 and p99 of each operation at the step\'s run, its ratio the step\'s', () => {
    expect(history.code, history.stderr).toBe(0);
    const out = JSON.parse(history.stdout) as HistoryJson;
    expect(out.order).toEqual({ by: 'name', runs: Array.from({ length: 20 }, (_, i) => `build-${i + 1}`) });
    const latency = out.series.filter((s) => s.stat === 'p50' || (s.stat === 'p99' && kind === 'raw'));
    expect(latency.map((s) => `${s.op} ${s.stat}`).sort()).toEqual(kind === 'raw' ? ['READ p50', 'READ p99', 'UPDATE p50', 'UPDATE p99'] : ['READ p50', 'UPDATE p50']);
    for (const s of latency) {
      expect(s.points).toHaveLength(20);
      expect(s.changes.map((c) => [c.run, c.index]), `${s.op} ${s.stat}`).toEqual([[`build-${STEP + 1}`, STEP]]);
      expect(s.changes[0]!.ratio).toBeGreaterThan(factor * 0.85);
      expect(s.changes[0]!.ratio).toBeLessThan(factor * 1.15);
      expect(s.changes[0]!.pValue).toBeLessThanOrEqual(0.02);
      for (const p of s.points) if (p.ciLow !== null) expect(p.ciLow <= (p.value as number) && (p.value as number) <= (p.ciHigh as number)).toBe(true);
    }
    // Latency scaled, the load not: throughput has no change.
    for (const s of out.series.filter((x) => x.stat === 'throughput')) expect(s.changes, s.op).toEqual([]);
  });

  it('history --json: no change in a history without a step', () => {
    expect(steadyHistory.code, steadyHistory.stderr).toBe(0);
    const out = JSON.parse(steadyHistory.stdout) as HistoryJson;
    expect(out.series.length).toBe(4);
    for (const s of out.series) expect(s.changes, `${s.op} ${s.stat}`).toEqual([]);
  });

  it('check --history fails when the step starts at the newest run, with JUnit failures on p50', () => {
    expect(checkLast.code, checkLast.stderr).toBe(1);
    const suites = readJunit(readFileSync(path.join(work, `${kind}-last.xml`), 'utf8'));
    expect(suites.map((s) => s.name)).toEqual(['history: newest run build-12']);
    const failed = suites[0]!.cases.filter((c) => c.failure !== null).map((c) => c.name);
    expect(failed).toEqual(expect.arrayContaining(['READ p50', 'UPDATE p50']));
    expect(failed.every((n) => !/throughput|errors/.test(n as string))).toBe(true);
    expect(suites[0]!.cases.find((c) => c.name === 'READ p50')!.failure).toMatch(/^newest run worse: build-12: /);
    expect(readFileSync(path.join(work, `${kind}-last.md`), 'utf8')).toMatch(/^\*\*benchlens check: \d+ of 10 checks failed\*\*/);
  });

  it('check --history passes on a history without a step', () => {
    expect(checkSteady.code, checkSteady.stdout + checkSteady.stderr).toBe(0);
    const suites = readJunit(readFileSync(path.join(work, `${kind}-steady.xml`), 'utf8'));
    expect(suites[0]!.failures).toBe(0);
    expect(suites[0]!.tests).toBe(10);
  });
});

describe('check: SLA rules and a baseline', () => {
  const dir = path.join(work, 'sla');
  let outcome: Outcome;
  let usage: Outcome;
  let byLabel: Outcome;
  beforeAll(async () => {
    // benchlens.json numbers the builds backwards: ordered by that label, build-3 comes first.
    writeHdrHistory(dir, { runs: 3, stepAt: 2, factor: 2, seed: 9 }).forEach((folder, i) => writeFileSync(path.join(folder, 'benchlens.json'), JSON.stringify({ labels: { build: String(10 - i) } })));
    [outcome, usage, byLabel] = await Promise.all([
      cli('check', ['--json', '--junit', path.join(work, 'sla.xml'), '--sla', 'p50 of READ <= 80 us', '--baseline', `${dir}/build-1`, '--candidate', `${dir}/build-3`, '--max-regression', '10', dir]),
      cli('check', [dir]),
      cli('history', ['--json', '--order', 'label:build', '--stat', 'p50', dir]),
    ]);
  }, 240_000);

  it('fails the run whose p50 breaks the rule and the doubled latency against the baseline, and says the figures', () => {
    expect(outcome.code, outcome.stderr).toBe(1);
    const out = JSON.parse(outcome.stdout) as { passed: boolean; suites: { name: string; cases: { name: string; passed: boolean; message: string }[] }[] };
    expect(out.passed).toBe(false);
    const sla = out.suites.filter((s) => s.name.startsWith('SLA: '));
    expect(sla.map((s) => [s.name, s.cases.map((c) => c.passed)])).toEqual([
      ['SLA: build-1', [true]],
      ['SLA: build-2', [true]],
      ['SLA: build-3', [false]],
    ]);
    expect(sla[2]!.cases[0]!.message).toMatch(/^p50 of READ is \d+ µs, > 80 µs$/);
    const comparison = out.suites.find((s) => s.name === 'build-3 against build-1')!;
    const readP50 = comparison.cases.find((c) => c.name === 'READ p50')!;
    expect(readP50.passed).toBe(false);
    expect(readP50.message).toMatch(/^worse beyond 10%: /);
    expect(comparison.cases.find((c) => c.name === 'all operations throughput')!.passed).toBe(true);
    const junit = readJunit(readFileSync(path.join(work, 'sla.xml'), 'utf8'));
    expect(junit.map((s) => [s.name, s.failures])).toEqual([
      ['SLA: build-1', 0],
      ['SLA: build-2', 0],
      ['SLA: build-3', 1],
      ['build-3 against build-1', comparison.cases.filter((c) => !c.passed).length],
    ]);
  });

  it('history orders runs by a label of their benchlens.json', () => {
    const out = JSON.parse(byLabel.stdout) as HistoryJson;
    expect(out.order).toEqual({ by: 'label:build', runs: ['build-3', 'build-2', 'build-1'] });
    expect(out.series.map((s) => s.points.map((p) => p.run))).toEqual([['build-3', 'build-2', 'build-1'], ['build-3', 'build-2', 'build-1']]);
  });

  it('exits 2 with nothing to check', () => {
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/nothing to check/);
  });
});

describe('XML escaping', () => {
  it('escapes markup and drops characters XML cannot hold', async () => {
    const { junitXml } = await import('../../src/analysis/check.ts');
    const xml = junitXml([{ name: 'a<b>&"c"', cases: [{ name: "it's", passed: false, message: 'x\u0001<y>' }] }]);
    expect(xml).toContain('<testsuite name="a&lt;b&gt;&amp;&quot;c&quot;"');
    expect(xml).toContain('name="it&apos;s"');
    expect(xml).toContain('<failure message="x&lt;y&gt;" type="benchlens">x&lt;y&gt;</failure>');
    writeFileSync(path.join(work, 'escape.xml'), xml);
  });
});
