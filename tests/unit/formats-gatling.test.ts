import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { isFailed, readFile, readText, oneChunk } from '../../src/formats/read-file.ts';
import { detectFormat } from '../../src/formats/registry.ts';
import type { ParsedFile, RawSeries } from '../../src/model/types.ts';
import { inCountOrder, latencies, rawSeries } from '../helpers/raw-samples.ts';

/**
 * Gatling simulation.log (real files: tests/fixtures/gatling/SOURCES.md): exact samples of every
 * text layout (2.0–3.12), checked against the records parsed here and Gatling's own report of the
 * same run; the binary log of 3.13+ refused with its version.
 */

const DIR = 'tests/fixtures/gatling';
const read = (name: string) => readFileSync(`${DIR}/${name}`, 'utf8');

async function parse(path: string, content: string): Promise<ParsedFile> {
  const outcome = await readText(path, content);
  if (isFailed(outcome)) throw new Error(JSON.stringify(outcome.errors));
  return outcome;
}

describe('Gatling simulation.log', () => {
  it('3.9.5: every REQUEST is an exact sample (end − start ms), counted in the second of its end', async () => {
    const content = read('simulation-3.9.5.log');
    const f = await parse('run/simulation.log', content);
    expect(f.format).toBe('gatling');
    expect(f.errors).toEqual([]);
    expect(f.producer).toEqual({ tool: 'Gatling', version: '3.9.5', settings: { simulation: 'simulations.ComputerDatabaseSimulation', 'run id': 'computerdatabasesimulation', 'start (epoch ms)': '1767826090117' } });
    const ends: Record<string, number[]> = {};
    const values: Record<string, number[]> = {};
    for (const line of content.split('\n')) {
      const [type, , name = '', start = '', end = ''] = line.split('\t');
      if (type !== 'REQUEST') continue;
      (ends[name] ??= []).push(Number(end));
      (values[name] ??= []).push((Number(end) - Number(start)) * 1000);
    }
    for (const name of Object.keys(values)) {
      const s = f.series.find((x) => x.op === name) as RawSeries;
      expect(inCountOrder(s)).toEqual(inCountOrder(rawSeries(name, 'us', ends[name]!, values[name]!)));
    }
  });

  it('3.9.5: counts, min and max are Gatling’s own report of the run (js/stats.json: 20 requests each, all 13–40 ms)', async () => {
    const { analysis } = await loadFiles([`${DIR}/simulation-3.9.5.log`]);
    const ops = analysis.runs[0]!.ops;
    expect(Object.fromEntries(Object.entries(ops).map(([op, o]) => [op, o.count]))).toEqual({ '01_Get_Specific_Post': 20, '02_Get_Comments_For_Post': 20, '03_Create_Post': 20 });
    expect(Math.min(...Object.values(ops).map((o) => o.min!))).toBe(13_000);
    expect(Math.max(...Object.values(ops).map((o) => o.max!))).toBe(40_000);
    expect(Object.values(ops).every((o) => o.exact)).toBe(true);
  });

  it('reads the 2.0/2.1, 2.2 and 3.0 layouts of Gatling’s own test log alike', async () => {
    for (const name of ['known-stats-2.0.log', 'known-stats-2.2.log', 'known-stats-3.0.log']) {
      const f = await parse(`run/${name}`, read(name));
      expect(f.errors, name).toEqual([]);
      expect(f.series.map((s) => s.op)).toEqual(['Test Request']);
      expect(f.producer?.settings?.['log format']).toBe('2.0');
    }
    // 2.0/2.1: request start … response end (fields 5 and 8): 1000 → 3000 etc., written here from the file.
    const old = await parse('run/a.log', read('known-stats-2.0.log'));
    const expected = read('known-stats-2.0.log')
      .split('\n')
      .filter((l) => l.split('\t')[2] === 'REQUEST')
      .map((l) => (Number(l.split('\t')[8]) - Number(l.split('\t')[5])) * 1000)
      .sort((a, b) => a - b);
    expect(latencies(old.series[0] as RawSeries)).toEqual(expected);
    // 2.2 and 3.0 hold the same requests as start and end.
    const l22 = latencies((await parse('run/b.log', read('known-stats-2.2.log'))).series[0] as RawSeries);
    const l30 = latencies((await parse('run/c.log', read('known-stats-3.0.log'))).series[0] as RawSeries);
    expect(l30).toEqual(l22);
  });

  it('KO → <name>-FAILED, groups as a path; ERROR records counted, bad lines named', async () => {
    const content = [
      'RUN\tsim.Basic\tbasic\t1700000000000\t \t3.10.5',
      'USER\tScenario\tSTART\t1700000000001',
      'REQUEST\tcheckout,pay\tPOST /pay\t1700000000010\t1700000000110\tKO\tstatus.find.in(200), but actually found 500',
      'REQUEST\t\tGET /\t1700000000200\t1700000000205\tOK\t ',
      'GROUP\tcheckout,pay\t1700000000005\t1700000000120\t100\tKO',
      'ERROR\tFailed to build request: No attribute named \'id\' is defined\t1700000000300',
      'REQUEST\t\tGET /\t1700000000400\t1700000000390\tOK\t ',
      'REQUEST\t\tGET /\tnot-a-time\t1700000000500\tOK\t ',
      'something else',
      'REQUEST\t\tGET /\t1700000000600\t1700000000601\tOK\t ',
    ].join('\n');
    const f = await parse('run/simulation.log', content);
    expect(f.errors.map((e) => e.line)).toEqual([7, 8, 9]);
    expect(f.skippedLines).toBe(3);
    expect(f.series.map((s) => `${s.op}|${latencies(s as RawSeries).join(' ')}`)).toEqual(['checkout / pay / POST /pay-FAILED|100000', 'GET /|1000 5000']);
    expect(f.producer).toEqual({ tool: 'Gatling', version: '3.10.5', settings: { simulation: 'sim.Basic', 'run id': 'basic', 'start (epoch ms)': '1700000000000', 'ERROR records': '1' } });
  });

  it('two logs concatenated: both runs’ requests, and a note at the second RUN', async () => {
    const one = read('simulation-3.9.5.log');
    const f = await parse('run/simulation.log', one + one);
    const lines = one.split('\n').length - 1;
    expect(f.errors.map((e) => e.line)).toEqual([lines + 1 + 3]);
    expect(f.series.reduce((a, s) => a + (s as RawSeries).samples, 0)).toBe(120);
  });

  it('the binary simulation.log of Gatling 3.13+ is recognised and refused with its version', async () => {
    const file = 'tests/fixtures/gatling-binary/simulation-3.14.3.log';
    const bytes = readFileSync(file);
    expect(detectFormat(new TextDecoder().decode(bytes), 'x')?.id).toBe('gatling');
    const outcome = await readFile('run/simulation.log', oneChunk(bytes));
    if (isFailed(outcome)) throw new Error('expected a parse');
    expect(outcome.series).toEqual([]);
    expect(outcome.errors).toEqual([{ file: 'run/simulation.log', line: 0, message: expect.stringMatching(/^a binary Gatling simulation\.log written by Gatling 3\.14\.3: .*Gatling 2\.x–3\.12/) }]);
    expect(outcome.skippedLines).toBe(outcome.lines);
    const loaded = await loadFiles([file]);
    expect(loaded.errors.map((e) => e.message)).toEqual([expect.stringMatching(/Gatling 3\.14\.3/)]);
  });
});
