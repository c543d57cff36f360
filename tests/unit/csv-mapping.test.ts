import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { csvPreview, formatMapSpec, headerKey, mappingProblem, parseMapSpec } from '../../src/formats/csv-mapping.ts';
import { isFailed, isUnrecognised, readText } from '../../src/formats/read-file.ts';
import type { ParsedFile, RawSeries } from '../../src/model/types.ts';
import { latencies } from '../helpers/raw-samples.ts';

/**
 * A CSV whose columns are not recognised is offered for mapping; a mapping (from the UI's URL state,
 * by header, or the CLI's --map for any CSV) reads it as the user says, and one that makes no sense
 * is refused with the reason, never read into numbers.
 */

/** A load tool's own CSV with names nothing recognises: seconds, duration in µs, kind, verdict, host. */
function customCsv(rows: number): { text: string; values: Map<string, number[]> } {
  const values = new Map<string, number[]>();
  const lines = ['when;dur;kind;verdict;host'];
  for (let i = 0; i < rows; i++) {
    const kind = i % 3 === 0 ? 'PUT' : 'GET';
    const ok = i % 7 !== 0;
    const dur = ((i * 7919) % 5000) + 100;
    const op = ok ? kind : `${kind}-FAILED`;
    values.set(op, [...(values.get(op) ?? []), dur]);
    lines.push(`${1795255808 + Math.floor(i / 10)};${dur};${kind};${ok ? 'pass' : 'KO'};h${i % 2}`);
  }
  return { text: `${lines.join('\n')}\n`, values };
}

function parsed(o: Awaited<ReturnType<typeof readText>>): ParsedFile {
  if (isFailed(o)) throw new Error(o.errors.map((e) => e.message).join('; '));
  return o;
}

describe('map specs', () => {
  it('read back what they write, and say what is wrong with a bad one', () => {
    const m = parseMapSpec('time=when,latency=dur:us,op=kind,ok=verdict,client=host');
    expect(m).toEqual({ time: 'when', latency: 'dur', unit: 'us', op: 'kind', ok: 'verdict', client: 'host' });
    expect(parseMapSpec(formatMapSpec(m))).toEqual(m);
    expect(parseMapSpec('latency=a:b:µs').latency).toBe('a:b');
    expect(() => parseMapSpec('latency=dur')).toThrow(/needs a unit/);
    expect(() => parseMapSpec('time=when')).toThrow(/needs latency/);
    expect(() => parseMapSpec('latency=dur:ms,speed=x')).toThrow(/unknown role "speed"/);
    expect(() => parseMapSpec('latency=dur:ms,op=a,op=b')).toThrow(/twice/);
    expect(() => parseMapSpec('latency=dur:hours')).toThrow(/needs a unit/);
  });

  it('key a header by its column names only', () => {
    expect(headerKey(['a', 'b'])).toBe(headerKey([' a', 'b ']));
    expect(headerKey(['a', 'b'])).not.toBe(headerKey(['b', 'a']));
    expect(headerKey(['ab', 'c'])).not.toBe(headerKey(['a', 'bc']));
  });
});

describe('a CSV nothing recognises', () => {
  const { text, values } = customCsv(500);

  it('is offered for mapping with its header and first rows, not read as something else', async () => {
    const o = await readText('run/custom.csv', text);
    if (!isFailed(o)) throw new Error(`read as ${o.format}`);
    expect(isUnrecognised(o)).toBe(true);
    expect(o.csv?.header).toEqual(['when', 'dur', 'kind', 'verdict', 'host']);
    expect(o.csv?.delimiter).toBe(';');
    expect(o.csv?.rows[0]).toEqual(text.split('\n')[1]?.split(';'));
    expect(o.csv?.key).toBe(headerKey(['when', 'dur', 'kind', 'verdict', 'host']));
  });

  it('is read exactly as mapped (by its header), failures and clients included', async () => {
    const key = headerKey(['when', 'dur', 'kind', 'verdict', 'host']);
    const f = parsed(await readText('run/custom.csv', text, { csvMappings: { byHeader: { [key]: 'time=when,latency=dur:us,op=kind,ok=verdict,client=host' } } }));
    expect(f.format).toBe('generic-csv');
    const byOp = new Map<string, number[]>();
    for (const s of f.series as RawSeries[]) byOp.set(s.op, [...(byOp.get(s.op) ?? []), ...latencies(s)]);
    for (const [op, list] of values) expect(byOp.get(op)?.sort((a, b) => a - b)).toEqual([...list].sort((a, b) => a - b));
    expect(new Set(f.series.map((s) => s.client))).toEqual(new Set(['h0', 'h1']));
    expect((f.series[0] as RawSeries).firstMs).toBe(1795255808000);
  });

  it('a mapping for another header does not apply; --map applies to any CSV with its latency column', async () => {
    expect(isFailed(await readText('run/custom.csv', text, { csvMappings: { byHeader: { '00000000': 'latency=dur:us' } } }))).toBe(true);
    const f = parsed(await readText('run/custom.csv', text, { csvMappings: { any: 'latency=dur:ms' } }));
    expect(f.series.map((s) => s.op)).toEqual(['OP']);
    expect(Math.max(...latencies(f.series[0] as RawSeries))).toBe(Math.max(...[...values.values()].flat()) * 1000);
    expect(isFailed(await readText('run/custom.csv', text, { csvMappings: { any: 'latency=elapsed:ms' } }))).toBe(true);
  });

  it('refuses a mapping that makes no sense, with the reason, and reads no row', async () => {
    const refused = async (spec: string) => {
      const f = parsed(await readText('run/custom.csv', text, { csvMappings: { any: spec } }));
      expect(f.series).toEqual([]);
      expect(f.skippedLines).toBe(500);
      return f.errors.map((e) => `${e.line}: ${e.message}`);
    };
    expect(await refused('latency=kind:ms')).toEqual(['0: column mapping refused: column "kind" is not latencies in ms: "PUT" (200 of 200 rows)']);
    expect((await refused('latency=dur:ms,time=kind'))[0]).toMatch(/"kind" is not epoch/);
    // A row counter is a number but not a time: it runs back and forth in a shuffled file.
    const shuffled = ['n,dur', ...Array.from({ length: 300 }, (_, i) => `${1795255808 + ((i * 7919) % 300) * 120},${i}`)].join('\n');
    const f = parsed(await readText('run/s.csv', shuffled, { csvMappings: { any: 'time=n,latency=dur:ms' } }));
    expect(f.errors[0]?.message).toMatch(/not monotone enough to be time/);
    expect(f.series).toEqual([]);
  });

  it('a short file is checked at its end, and a good mapping keeps every row', async () => {
    const { text: short, values: shortValues } = customCsv(20);
    const f = parsed(await readText('run/short.csv', short, { csvMappings: { any: 'latency=dur:us,op=kind,ok=verdict' } }));
    expect(f.series.reduce((n, s) => n + (s as RawSeries).samples, 0)).toBe([...shortValues.values()].flat().length);
    expect(f.errors).toEqual([]);
  });

  it('mappingProblem names a column the header lacks', () => {
    expect(mappingProblem({ latency: 'x', unit: 'ms' }, ['a', 'b'], [])).toBe('the header has no column "x" (for latency)');
    expect(mappingProblem({ latency: 'a', unit: 'ms', client: 'c' }, ['a', 'b'], [])).toBe('the header has no column "c" (for client)');
  });

  it('prose and a key-value list are not offered as tables', () => {
    expect(csvPreview('x.txt', 'Hello, world.\nThis is prose, not a table.\n')).toBeNull();
    expect(csvPreview('x.csv', 'a,b\n')).toBeNull();
  });
});

describe('summarize --map', () => {
  const run = promisify(execFile);
  it('reads a custom CSV with the mapping and refuses a bad spec with exit 2', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-map-'));
    const file = path.join(dir, 'custom.csv');
    const { text, values } = customCsv(50);
    writeFileSync(file, text);
    const { stdout } = await run('npx', ['tsx', 'src/cli/benchlens.ts', 'summarize', '--json', '--map', 'time=when,latency=dur:us,op=kind,ok=verdict', file]);
    const out = JSON.parse(stdout) as { runs: { ops: Record<string, { count: number; max: number }> }[]; files: { format: string }[] };
    expect(out.files.map((f) => f.format)).toEqual(['generic-csv']);
    for (const [op, list] of values) {
      expect(out.runs[0]?.ops[op]?.count).toBe(list.length);
      expect(out.runs[0]?.ops[op]?.max).toBe(Math.max(...list));
    }
    const bad = await run('npx', ['tsx', 'src/cli/benchlens.ts', 'summarize', '--map', 'latency=dur', file]).catch((e: { code: number; stderr: string }) => e);
    expect('code' in bad ? bad.code : 0).toBe(2);
    expect('stderr' in bad ? bad.stderr : '').toMatch(/needs a unit/);
  });
});
