import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The chart CLI end to end: the exit codes of its contract, an SVG document that stands alone (well
 * formed, no stylesheet variables, no script, input text escaped) with the app chart's series and
 * legend, and the data behind the chart as JSON.
 */

const CORPUS = 'tests/fixtures/corpus';
const expected = JSON.parse(readFileSync(`${CORPUS}/expected.json`, 'utf8'));
const work = mkdtempSync(path.join(tmpdir(), 'benchlens-chart-'));

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile('npx', ['tsx', 'src/cli/benchlens.ts', 'chart', ...args], { maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr });
    });
  });
}

/** Runs the CLI once for a describe block, before its tests; one at a time, so that each is quick. */
function cliOnce(args: string[] | (() => string[])): () => Outcome {
  let outcome: Outcome | undefined;
  beforeAll(async () => {
    outcome = await cli(typeof args === 'function' ? args() : args);
  }, 120_000);
  return () => {
    if (!outcome) throw new Error('the CLI has not run');
    return outcome;
  };
}

/**
 * Throws unless `xml` is one well-formed element (with an optional XML declaration): tags nest and
 * close, attributes are quoted and unique, every `&` starts an entity and no `<` stands in text.
 */
function assertWellFormed(xml: string): void {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '').trim();
  const entity = /^&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/i;
  const badAmpersand = (text: string) => [...text.matchAll(/&/g)].some((m) => !entity.test(text.slice(m.index)));
  const stack: string[] = [];
  let roots = 0;
  let at = 0;
  for (const m of body.matchAll(/<(\/?)([A-Za-z][\w:.-]*)((?:\s+[A-Za-z_:][\w:.-]*="[^"<]*")*)\s*(\/?)>/g)) {
    const text = body.slice(at, m.index);
    if (text.includes('<') || text.includes('>') || badAmpersand(text)) throw new Error(`bad text before offset ${m.index}: ${text.slice(0, 80)}`);
    if (stack.length === 0 && text.trim() !== '') throw new Error(`text outside the root element: ${text.slice(0, 80)}`);
    at = m.index + m[0].length;
    const [, closing, name, attributes = '', selfClosing] = m;
    if (closing) {
      const open = stack.pop();
      if (open !== name) throw new Error(`</${name}> closes <${open}>`);
      continue;
    }
    const names = [...attributes.matchAll(/([\w:.-]+)="([^"]*)"/g)].map((a) => {
      if (badAmpersand(a[2] ?? '')) throw new Error(`bad & in attribute ${a[1]} of <${name}>`);
      return a[1];
    });
    if (new Set(names).size !== names.length) throw new Error(`repeated attribute in <${name}>`);
    if (stack.length === 0) roots++;
    if (!selfClosing) stack.push(name as string);
  }
  if (body.slice(at).trim() !== '') throw new Error('text after the root element');
  if (stack.length > 0) throw new Error(`unclosed <${stack.join('>, <')}>`);
  if (roots !== 1) throw new Error(`${roots} root elements`);
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** What every exported document must be, whatever the chart. */
function assertStandalone(svg: string): void {
  assertWellFormed(svg);
  expect(svg).toMatch(/^<\?xml[^>]*>\s*<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="\d+"/);
  expect(svg).not.toContain('var(--');
  expect(svg).not.toContain('color-mix');
  expect(svg.toLowerCase()).not.toContain('<script');
  expect(svg).not.toMatch(/\son\w+=/i);
}

/** Text of the exported legend's entries, in order. */
function legendNames(svg: string): string[] {
  return [...svg.matchAll(/<g class="legend-item">.*?<text[^>]*>([^<]*)<\/text><\/g>/g)].map((m) => m[1] ?? '');
}

describe('chart CLI usage', () => {
  it('exits 2 with the usage on an unknown chart, no input, an unknown flag or a percentile it lacks', async () => {
    const outcomes = await Promise.all([
      cli(['--chart', 'pie', `${CORPUS}/sweep-uniform-a`]),
      cli(['--chart', 'throughput']),
      cli(['--chart', 'throughput', '--colour', 'red', `${CORPUS}/sweep-uniform-a`]),
      cli(['--chart', 'latency-vs-load', '--percentile', '97', `${CORPUS}/sweep-uniform-a`]),
    ]);
    for (const o of outcomes) {
      expect(o.code, o.stderr).toBe(2);
      expect(o.stderr).toContain('usage: benchlens chart');
      expect(o.stdout).toBe('');
    }
    expect(outcomes[0]?.stderr).toContain("got 'pie'");
  }, 120_000);

  it('exits 2 on an operation the runs do not have', async () => {
    const o = await cli(['--chart', 'latency-over-time', '--op', 'SCAN', '--json', `${CORPUS}/sweep-uniform-a/target-250`]);
    expect(o.code).toBe(2);
    expect(o.stderr).toContain('no operation SCAN');
  }, 120_000);
});

describe('throughput over time of the split-for-heat run', () => {
  const out = path.join(work, 'throughput.svg');
  const run = cliOnce(['--chart', 'throughput', '--out', out, '--json', `${CORPUS}/split-for-heat`]);

  it('draws the four stacked series and the error rate with their legend, and the detected steps', () => {
    const o = run();
    expect(o.code, o.stderr).toBe(0);
    const svg = readFileSync(out, 'utf8');
    assertStandalone(svg);
    expect(svg).toContain('<title>Throughput over time</title>');
    expect(count(svg, 'recharts-area-area')).toBe(4);
    // The run has failed requests: their share of all requests is the dashed line on the right axis.
    expect(legendNames(svg)).toEqual(['READ', 'UPDATE', 'READ failed', 'UPDATE failed', 'error rate']);
    expect(svg).toContain('>100%</tspan>');
    // The steps are labelled along the top of the plot, as in the app.
    expect(count(svg, 'recharts-reference-line-line')).toBe(4);
  });

  it('prints the per-second series as JSON', () => {
    const { data } = JSON.parse(run().stdout);
    expect(data.kind).toBe('throughput-over-time');
    expect(data.bucketS).toBe(1);
    expect(data.ok.map((s: { op: string }) => s.op).sort()).toEqual(['READ', 'UPDATE']);
    expect(data.failed.map((s: { op: string }) => s.op).sort()).toEqual(['READ', 'UPDATE']);
    // Successful plus failed operations per second: the oracle's total, second by second.
    const oracle = expected['split-for-heat'].runs[0];
    const total = (i: number) => [...data.ok, ...data.failed].reduce((sum: number, s: { t: number[]; values: number[] }) => sum + (s.values[s.t.indexOf(i)] ?? 0), 0);
    expect(oracle.throughputPerSecond.map((_: number, i: number) => total(i))).toEqual(oracle.throughputPerSecond);
  });
});

describe('latency vs load of the uniform sweep', () => {
  const out = path.join(work, 'latency-vs-load.svg');
  const run = cliOnce(['--chart', 'latency-vs-load', '--out', out, '--json', `${CORPUS}/sweep-uniform-a`]);

  it('gives each run a p99 point equal to the oracle merged p99', () => {
    const o = run();
    expect(o.code, o.stderr).toBe(0);
    const { data, runs } = JSON.parse(o.stdout);
    expect(data.percentile).toBe(99);
    expect(data.ops).toEqual(['READ', 'UPDATE']);
    expect(data.series.map((s: { op: string }) => s.op)).toEqual(['READ', 'UPDATE']);
    const oracleRuns = expected['sweep-uniform-a'].runs;
    expect(runs).toHaveLength(oracleRuns.length);
    for (const s of data.series) {
      expect(s.points).toHaveLength(oracleRuns.length);
      for (const p of s.points) {
        const oracle = oracleRuns.find((r: { run: string }) => r.run === p.run);
        expect(p.y, `${p.run} ${s.op}`).toBe(oracle.ops[s.op].merged.p99);
      }
    }
  });

  it('draws one line per operation with a legend naming them', () => {
    expect(run().code).toBe(0);
    const svg = readFileSync(out, 'utf8');
    assertStandalone(svg);
    expect(svg).toContain('p99 latency vs throughput');
    expect(count(svg, 'recharts-line-curve')).toBe(2);
    expect(legendNames(svg)).toEqual(['RedisDB · workloada · uniform · READ', 'RedisDB · workloada · uniform · UPDATE']);
  });
});

describe('a percentile chart of a run whose folder name looks like markup', () => {
  const run = cliOnce(() => {
    const dir = path.join(work, 'run <script>alert(1)<script> & co');
    mkdirSync(dir);
    cpSync(`${CORPUS}/sweep-uniform-a/target-250`, dir, { recursive: true });
    return ['--chart', 'percentiles', '--op', 'READ', '--theme', 'dark', '--width', '800', '--height', '400', dir, path.join(work, 'missing')];
  });

  it('still draws the chart, to standard output, but exits 1 for the path it could not read', () => {
    const o = run();
    expect(o.code).toBe(1);
    expect(o.stderr).toContain('no such file or folder');
    expect(o.stdout).toMatch(/^<\?xml/);
  });

  it('escapes the name, draws at the requested size in the dark theme', () => {
    const svg = run().stdout;
    assertStandalone(svg);
    expect(svg).toMatch(/<svg xmlns="[^"]*" width="800" height="400"/);
    expect(svg).toContain('run &lt;script&gt;alert(1)&lt;script&gt; &amp; co');
    expect(count(svg, 'recharts-line-curve')).toBe(1);
    // The dark theme's panel colour (src/display/theme.ts), not the light one.
    expect(svg).toContain('fill="#111827"');
    expect(svg).not.toContain('fill="#ffffff"');
  });
});

describe('latency over time of one run of a sweep, with an SLA', () => {
  const out = path.join(work, 'latency-over-time.svg');
  const args = ['--percentile', '99.9', '--sla', 'p99.9 of READ <= 10 ms', '--focus', 'target-1000', '--json', '--out', out];
  const run = cliOnce(['--chart', 'latency-over-time', ...args, `${CORPUS}/sweep-uniform-a`]);

  it('queries only the run in focus', () => {
    const o = run();
    expect(o.code, o.stderr).toBe(0);
    const { data, runs } = JSON.parse(o.stdout);
    const focus = runs.find((r: { label: string }) => r.label === 'target-1000');
    expect(data.percentile).toBe(99.9);
    expect(data.series.map((s: { runId: number; op: string }) => [s.runId, s.op])).toEqual([
      [focus.id, 'READ'],
      [focus.id, 'UPDATE'],
    ]);
  });

  it('draws one line per operation and the SLA line', () => {
    expect(run().code).toBe(0);
    const svg = readFileSync(out, 'utf8');
    assertStandalone(svg);
    expect(svg).toContain('p99.9 latency over time');
    expect(count(svg, 'recharts-line-curve')).toBe(2);
    expect(svg).toContain('SLA p99.9 of READ ≤ 10 ms');
  });
});

describe('cost', () => {
  const out = path.join(work, 'cost.svg');
  const run = cliOnce(['--chart', 'cost', '--cluster-monthly', '500', '--json', '--out', out, `${CORPUS}/sweep-uniform-a`]);

  it('prices every run against the cluster price given', () => {
    const o = run();
    expect(o.code, o.stderr).toBe(0);
    const { data } = JSON.parse(o.stdout);
    expect(data.params).toEqual({ clusterMonthly: 500 });
    expect(data.rows).toHaveLength(expected['sweep-uniform-a'].runs.length);
    for (const r of data.rows) {
      expect(r.cluster.total).toBe(500);
      expect(r.factor.onDemand).toBeCloseTo(r.onDemand.total / 500, 9);
    }
  });

  it('draws three bars per run with the options as legend', () => {
    expect(run().code).toBe(0);
    const svg = readFileSync(out, 'utf8');
    assertStandalone(svg);
    expect(count(svg, 'class="recharts-rectangle')).toBe(3 * expected['sweep-uniform-a'].runs.length);
    expect(legendNames(svg)).toEqual(['cluster', 'DynamoDB provisioned', 'DynamoDB on-demand']);
  });
});
