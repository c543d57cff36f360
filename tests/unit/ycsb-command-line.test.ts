import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseYcsbCommandLine, ycsbClientHint } from '../../src/formats/ycsb-command-line.ts';
import { ycsbTextFormat } from '../../src/formats/ycsb-text.ts';

const CORPUS = join(import.meta.dirname, '../fixtures/corpus');

interface ExpectedScenario {
  workload?: string;
  db?: string;
  properties?: Record<string, string | number>;
  maxExecutionTimeS?: number | null;
  operationCountPerClient?: number | null;
  runs?: { dir: string; target: number | null; threadsPerClient: number; clients: { client: string; stderr: string }[] }[];
}

const expected = JSON.parse(readFileSync(join(CORPUS, 'expected.json'), 'utf8')) as Record<string, ExpectedScenario>;
const cases = Object.values(expected).flatMap((scenario) =>
  (scenario.runs ?? []).flatMap((run) => run.clients.map((client) => [`${run.dir}/${client.stderr}`, scenario, run, client.client] as const)),
);

describe('parseYcsbCommandLine on the corpus', () => {
  it('has cases', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(cases)('%s', (file, scenario, run, client) => {
    const lines = readFileSync(join(CORPUS, file), 'utf8').split(/\r?\n/);
    const echo = lines.find((l) => l.startsWith('Command line:'));
    expect(echo).toBeDefined();
    const cmd = parseYcsbCommandLine(echo ?? '');

    expect(cmd.target).toBe(run.target);
    expect(cmd.threads).toBe(run.threadsPerClient);
    expect(cmd.db).toBe(scenario.db);
    expect(cmd.phase).toBe('run');
    expect(cmd.workloadFiles.map((f) => f.split('/').pop())).toEqual([scenario.workload]);
    for (const [name, value] of Object.entries(scenario.properties ?? {})) {
      if (typeof value === 'number') expect(Number(cmd.properties[name]), name).toBe(value);
      else expect(cmd.properties[name], name).toBe(value);
    }
    const maxTime = cmd.properties.maxexecutiontime;
    expect(maxTime === undefined ? null : Number(maxTime)).toBe(scenario.maxExecutionTimeS ?? null);
    if (scenario.operationCountPerClient != null) expect(Number(cmd.properties.operationcount)).toBe(scenario.operationCountPerClient);
    expect(ycsbClientHint(cmd)).toBe(client);
    expect(cmd.raw).toBe(echo?.slice('Command line:'.length).trim());

    // The text format module hands over the same command line.
    const parser = ycsbTextFormat.createParser(file);
    lines.forEach((l, i) => parser.line(l, i + 1));
    expect(parser.finish().commandLine).toEqual(cmd);
  });
});

describe('parseYcsbCommandLine: YCSB argument rules', () => {
  it('options and -p properties share one table, in order', () => {
    expect(parseYcsbCommandLine('Command line: -threads 4 -p threadcount=8').threads).toBe(8);
    expect(parseYcsbCommandLine('Command line: -p threadcount=8 -threads 4').threads).toBe(4);
    expect(parseYcsbCommandLine('-db a.B -p db=c.D').db).toBe('c.D');
    expect(parseYcsbCommandLine('-p target=50 -target 100').target).toBe(100);
    expect(parseYcsbCommandLine('-target 0').target).toBeNull();
    expect(parseYcsbCommandLine('-target abc').target).toBeNull();
  });

  it('phase from -load / -t / dotransactions, unknown when absent', () => {
    expect(parseYcsbCommandLine('-load -db x').phase).toBe('load');
    expect(parseYcsbCommandLine('-t').phase).toBe('run');
    expect(parseYcsbCommandLine('-t -p dotransactions=false').phase).toBe('load');
    expect(parseYcsbCommandLine('-p dotransactions=TRUE').phase).toBe('run');
    expect(parseYcsbCommandLine('-db x').phase).toBeNull();
  });

  it('fields the command line does not state are null or empty', () => {
    const cmd = parseYcsbCommandLine('Command line:');
    expect(cmd).toEqual({ raw: '', db: null, workloadFiles: [], threads: null, target: null, properties: {}, phase: null });
  });

  it('-s, -l and several -P files; later -p wins; values keep "=" signs', () => {
    const cmd = parseYcsbCommandLine('Command line: -s -l mylabel -P a/w1 -P w2 -p x=1 -p x=2 -p q=a=b');
    expect(cmd.workloadFiles).toEqual(['a/w1', 'w2']);
    expect(cmd.properties).toEqual({ x: '2', q: 'a=b' });
  });

  it('arguments that contained spaces are rebuilt from the unquoted echo', () => {
    const cmd = parseYcsbCommandLine('Command line: -P my dir/w1 -p table=user  table -threads 2');
    expect(cmd.workloadFiles).toEqual(['my dir/w1']);
    expect(cmd.properties.table).toBe('user  table');
    expect(cmd.threads).toBe(2);
  });

  it('an option missing its value at the end is dropped', () => {
    const cmd = parseYcsbCommandLine('-p a=1 -threads');
    expect(cmd.threads).toBeNull();
    expect(cmd.properties).toEqual({ a: '1' });
  });

  it('property names from the object prototype are plain properties', () => {
    const cmd = parseYcsbCommandLine('-p __proto__=x -p toString=y -toString z');
    expect(Object.keys(cmd.properties)).toEqual(['__proto__', 'toString']);
    expect(Object.getPrototypeOf(cmd.properties)).toBe(Object.prototype);
  });
});

describe('ycsbClientHint', () => {
  const hint = (p: string) => ycsbClientHint(parseYcsbCommandLine(p));

  it('hdrhistogram.output.path prefix', () => {
    expect(hint('-p hdrhistogram.output.path=run/target-1000/client1-')).toBe('client1');
    expect(hint('-p hdrhistogram.output.path=run/client_7_')).toBe('client_7');
    expect(hint('-p hdrhistogram.output.path=run/node3/')).toBe('node3');
    expect(hint('-p hdrhistogram.output.path=C:\\res\\c2.')).toBe('c2');
  });

  it('measurement.raw.output_file name', () => {
    expect(hint('-p measurement.raw.output_file=run/client1-raw.csv')).toBe('client1');
    expect(hint('-p measurement.raw.output_file=run/client2_raw.csv')).toBe('client2');
    expect(hint('-p measurement.raw.output_file=/tmp/host-b.txt')).toBe('host-b');
  });

  it('the HdrHistogram prefix wins; none without output paths', () => {
    expect(hint('-p measurement.raw.output_file=r/b-raw.csv -p hdrhistogram.output.path=h/a-')).toBe('a');
    expect(hint('-p hdrhistogram.output.path= -p measurement.raw.output_file=r/b-raw.csv')).toBe('b');
    expect(hint('-db x -threads 4')).toBeUndefined();
  });
});
