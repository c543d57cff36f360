import { readFileSync } from 'node:fs';
import { gunzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import { detectFormat } from '../../src/formats/registry.ts';
import { goDurationToNanos } from '../../src/formats/vegeta.ts';
import type { ParsedFile, RawSeries, PrintedSeries } from '../../src/model/types.ts';
import { latencies } from '../helpers/raw-samples.ts';

/**
 * vegeta's results and reports (src/formats/vegeta.ts) on real outputs of one vegeta v12.13.0
 * (tests/fixtures/vegeta/, SOURCES.md): figures against an independent reading of the results in
 * this test, and the report of the same run against them.
 */

const DIR = 'tests/fixtures/vegeta';
function fixture(name: string): string {
  const bytes = readFileSync(`${DIR}/${name}`);
  return new TextDecoder().decode(name.endsWith('.gz') ? gunzipSync(bytes) : bytes);
}

async function parse(name: string, text: string): Promise<ParsedFile> {
  const outcome = await readText(`run/${name}`, text);
  if (isFailed(outcome)) throw new Error(outcome.errors.map((e) => e.message).join('; '));
  return outcome;
}

interface Row {
  ns: number;
  code: number;
  error: string;
  target: string;
}

/** The results of a CSV with no quoted fields, read by position as vegeta writes them. */
function csvRows(text: string): Row[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const f = line.split(',');
      return { ns: Number(f[2]), code: Number(f[1]), error: f[5] ?? '', target: `${f[9]} ${f[10]}` };
    });
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
/** Nearest rank ⌈p/100 · n⌉ with p in hundredths of a percent, in integers. */
const nearestRank = (xs: number[], p100: number) => xs[Math.ceil((p100 * xs.length) / 10000) - 1] as number;
const PERCENTILES: [string, number][] = [
  ['p50', 5000],
  ['p90', 9000],
  ['p95', 9500],
  ['p99', 9900],
  ['p99.9', 9990],
  ['p99.99', 9999],
];

describe('vegeta results', () => {
  it('CSV: exact nearest rank over the raw ns latencies', async () => {
    const text = fixture('single.csv.gz');
    const expected = sorted(csvRows(text).map((r) => r.ns));
    const f = await parse('single.csv', text);
    expect(f.format).toBe('vegeta');
    const s = f.series[0] as RawSeries;
    expect(f.series.map((x) => x.op)).toEqual(['GET http://127.0.0.1:18080/index.html']);
    expect(s.unit).toBe('ns');
    expect(latencies(s)).toEqual(expected);
    const { analysis } = await loadFiles([`${DIR}/single.csv.gz`]);
    const op = analysis.runs[0]?.ops['GET http://127.0.0.1:18080/index.html'];
    expect(op?.exact).toBe(true);
    expect(op?.count).toBe(1000);
    // Figures leave the engine in µs.
    for (const [key, p100] of PERCENTILES) expect(op?.[key as 'p50'], key).toBe(nearestRank(expected, p100) / 1000);
    expect([op?.min, op?.max]).toEqual([(expected[0] as number) / 1000, (expected[999] as number) / 1000]);
  });

  it('JSON: the same samples as the CSV, timed by their RFC 3339 timestamps', async () => {
    const csv = await parse('single.csv', fixture('single.csv.gz'));
    const text = fixture('single.json.gz');
    const json = await parse('single.json', text);
    expect(latencies(json.series[0] as RawSeries)).toEqual(latencies(csv.series[0] as RawSeries));
    const firstNs = sorted(fixture('single.csv.gz').trim().split('\n').map((l) => Number((l.split(',')[0] ?? '').slice(0, 13))))[0];
    expect((json.series[0] as RawSeries).firstMs).toBe(firstNs);
    expect(Math.floor((csv.series[0] as RawSeries).firstMs as number)).toBe(firstNs);
  });

  it('operations are METHOD URL; a non-2xx/3xx code or an error is FAILED', async () => {
    const text = fixture('mixed.csv');
    const expected = new Map<string, number>();
    for (const r of csvRows(text)) {
      const op = r.code >= 200 && r.code < 400 && r.error === '' ? r.target : `${r.target}-FAILED`;
      expected.set(op, (expected.get(op) ?? 0) + 1);
    }
    for (const [name, body] of [
      ['mixed.csv', text],
      ['mixed.json', fixture('mixed.json')],
    ]) {
      const f = await parse(name as string, body as string);
      expect(new Map(f.series.map((s) => [s.op, (s as RawSeries).samples])), name).toEqual(expected);
      expect(f.producer).toEqual({ tool: 'vegeta', settings: { attack: 'mixed' } });
    }
    expect(expected.get('GET http://127.0.0.1:18083/refused-FAILED')).toBe(50);
  });

  it('results of several attacks in one file: the attack name prefixes the operation', async () => {
    const f = await parse('both.csv', fixture('mixed.csv') + fixture('single.csv.gz'));
    const ops = f.series.map((s) => s.op);
    expect(ops).toContain('mixed: GET http://127.0.0.1:18080/index.html');
    expect(ops).toContain('(unnamed): GET http://127.0.0.1:18080/index.html');
    expect((f.series.find((s) => s.op === '(unnamed): GET http://127.0.0.1:18080/index.html') as RawSeries).samples).toBe(1000);
  });
});

describe('vegeta reports', () => {
  it('JSON report against the results of the same run: counts, total, mean, min and max exact; percentiles t-digest estimates', async () => {
    for (const run of ['single', 'mixed']) {
      const rows = csvRows(fixture(run === 'single' ? 'single.csv.gz' : 'mixed.csv'));
      const ns = sorted(rows.map((r) => r.ns));
      const report = await parse(`${run}-report.json`, fixture(`${run}-report.json`));
      const ok = report.series.find((s) => s.op === 'requests') as PrintedSeries;
      const failed = report.series.find((s) => s.op === 'requests-FAILED') as PrintedSeries | undefined;
      // vegeta's success: codes 200–399.
      const okCount = rows.filter((r) => r.code >= 200 && r.code < 400).length;
      expect([ok.count, failed?.count ?? 0], run).toEqual([okCount, rows.length - okCount]);
      // vegeta's latencies are of all requests, failed ones included: never the successes' alone.
      const all = report.series.find((s) => s.op === 'requests (including failures)') as PrintedSeries | undefined;
      const figures = failed ? (all as PrintedSeries) : ok;
      expect(figures.count, run).toBe(rows.length);
      if (failed) expect([ok.mean, ok.min, ok.max, ok.percentiles, failed.mean], run).toEqual([null, null, null, {}, null]);
      expect([figures.min, figures.max], run).toEqual([ns[0], ns[ns.length - 1]]);
      const total = ns.reduce((a, b) => a + b, 0);
      // Exact: the report's latency total ÷ its requests (its own `mean` is that truncated to whole ns).
      expect(figures.mean, run).toBe(total / ns.length);
      expect(figures.unit).toBe('ns');
      // An estimate: within 1.5% of ranks of the exact nearest rank, not equal to it.
      for (const [key, p100] of PERCENTILES.slice(0, 4)) {
        const estimate = figures.percentiles[key] as number;
        const below = ns.filter((x) => x <= estimate).length;
        const rank = Math.ceil((p100 * ns.length) / 10000);
        expect(Math.abs(below - rank), `${run} ${key}`).toBeLessThanOrEqual(Math.ceil(0.015 * ns.length));
      }
    }
  });

  it('text report: the JSON report rounded as vegeta rounds (to the next smaller unit)', async () => {
    for (const run of ['single', 'mixed']) {
      const withLatencies = (f: ParsedFile) => f.series.find((s) => (s as PrintedSeries).mean !== null) as PrintedSeries;
      expect(withLatencies(await parse(`${run}-report.txt`, fixture(`${run}-report.txt`))).op).toBe(run === 'single' ? 'requests' : 'requests (including failures)');
      const json = withLatencies(await parse(`${run}-report.json`, fixture(`${run}-report.json`)));
      const text = withLatencies(await parse(`${run}-report.txt`, fixture(`${run}-report.txt`)));
      expect(text.count).toBe(json.count);
      const pairs: [number | null, number | null][] = [[text.min, json.min], [text.mean, json.mean], [text.max, json.max], ...(['p50', 'p90', 'p95', 'p99'] as const).map((k): [number, number] => [text.percentiles[k] as number, json.percentiles[k] as number])];
      for (const [t, j] of pairs) {
        // Rounded to µs below 1 s, to ms from 1 s: off by at most half of that.
        const half = (j as number) >= 1e9 ? 5e5 : (j as number) >= 1e6 ? 500 : 0.5;
        expect(Math.abs((t as number) - (j as number)), `${run}: ${t} vs ${j}`).toBeLessThanOrEqual(half);
      }
    }
  });

  it('a report where most requests failed: its latencies are of all of them, never the successes’ alone (JSON and text alike)', async () => {
    const json = JSON.parse(fixture('mostly-failed-report.json')) as { requests: number; status_codes: Record<string, number>; latencies: Record<string, number> };
    const ok = json.status_codes['200'] ?? 0;
    expect(ok * 2).toBeLessThan(json.requests);
    for (const name of ['mostly-failed-report.json', 'mostly-failed-report.txt']) {
      const f = await parse(name, fixture(name));
      expect(f.errors, name).toEqual([]);
      const byOp = new Map(f.series.map((s) => [s.op, s as PrintedSeries]));
      expect([...byOp.keys()], name).toEqual(['requests', 'requests-FAILED', 'requests (including failures)']);
      expect([byOp.get('requests')?.count, byOp.get('requests')?.mean, byOp.get('requests-FAILED')?.count], name).toEqual([ok, null, json.requests - ok]);
      const all = byOp.get('requests (including failures)') as PrintedSeries;
      expect(all.count, name).toBe(json.requests);
      // The text report rounds (to 1 µs from 1 ms on): within 500 ns of the JSON's ns here.
      const within = name.endsWith('.txt') ? 500 : 0;
      expect(Math.abs((all.max as number) - (json.latencies.max as number)), name).toBeLessThanOrEqual(within);
      expect(Math.abs((all.mean as number) - (json.latencies.total as number) / json.requests), name).toBeLessThanOrEqual(within);
    }
  });

  it('reads Go durations exactly, in ns', () => {
    expect(goDurationToNanos('214.519µs')).toBe(214_519);
    expect(goDurationToNanos('1.825ms')).toBe(1_825_000);
    expect(goDurationToNanos('1.053s')).toBe(1_053_000_000);
    expect(goDurationToNanos('10m0s')).toBe(600_000_000_000);
    expect(goDurationToNanos('1h2m3.5s')).toBe(3_723_500_000_000);
    expect(goDurationToNanos('0s')).toBe(0);
    expect(goDurationToNanos('123ns')).toBe(123);
    for (const bad of ['1.5', 'ms', '1.0000000001s', '-1ms', '1.2 ms', '']) expect(goDurationToNanos(bad), bad).toBeNull();
  });

  it('several text reports appended in one file are clients of their own', async () => {
    const f = await parse('reports.txt', `${fixture('single-report.txt')}\n${fixture('mixed-report.txt')}`);
    expect(f.series.map((s) => `${s.client}|${s.op}|${(s as PrintedSeries).count}`)).toEqual(['report 1|requests|1000', 'report 2|requests|139', 'report 2|requests-FAILED|61', 'report 2|requests (including failures)|200']);
    expect(f.errors).toEqual([]);
  });
});

describe('vegeta: binary and damaged input', () => {
  it('the binary results.bin is recognised and refused with the command that converts it', async () => {
    const loaded = await loadFiles(['tests/fixtures/vegeta-gob/results.bin']);
    expect(loaded.files.map((f) => f.format)).toEqual(['vegeta']);
    expect(loaded.files[0]?.series).toEqual([]);
    expect(loaded.errors[0]?.message).toMatch(/binary results file .*vegeta encode --to csv/);
  });

  it('a quoted error with a comma and a line break is one record; later line numbers stay exact', async () => {
    const lines = fixture('mixed.csv').trimEnd().split('\n');
    // Row 5 gets a quoted error spanning two lines (as Go's csv writer quotes it), row 10 a bad latency.
    const f5 = lines[4]!.split(',');
    f5[5] = '"read: connection reset, by peer\nretry"';
    lines[4] = f5.join(',');
    const f10 = lines[9]!.split(',');
    f10[2] = '12.5';
    lines[9] = f10.join(',');
    const text = lines.join('\n');
    const f = await parse('quoted.csv', text);
    // Line 10 of the original is line 11 of the text now.
    expect(f.errors).toEqual([expect.objectContaining({ line: 11, field: 'latency' })]);
    expect(f.series.reduce((a, s) => a + (s as RawSeries).samples, 0)).toBe(199);
    const target = `${f5[9]} ${f5[10]}-FAILED`;
    expect(f.series.map((s) => s.op)).toContain(target);
  });

  it('older, shorter rows (no method and URL columns) fall back to the attack name', async () => {
    const nine = fixture('mixed.csv')
      .trimEnd()
      .split('\n')
      .map((l) => l.split(',').slice(0, 9).join(','))
      .join('\n');
    const f = await parse('old.csv', nine);
    expect(new Set(f.series.map((s) => s.op))).toEqual(new Set(['mixed', 'mixed-FAILED']));
    const five = nine.replace(/^((?:[^,\n]*,){4}[^,\n]*),.*$/m, '$1');
    const g = await parse('short.csv', five);
    expect(g.errors).toEqual([expect.objectContaining({ line: 1, message: expect.stringMatching(/row has 5 fields/) })]);
  });

  it('a JSON line cut short is an error on its line; CRLF and a BOM change nothing', async () => {
    const text = fixture('mixed.json');
    const cut = text.slice(0, text.length - 40);
    const f = await parse('cut.json', cut);
    expect(f.errors).toEqual([expect.objectContaining({ line: 200, message: expect.stringMatching(/not a JSON result object/) })]);
    expect(f.skippedLines).toBe(1);
    const crlf = await parse('crlf.json', `\uFEFF${text.replace(/\n/g, '\r\n')}`);
    expect(crlf.series).toEqual((await parse('mixed.json', text)).series);
  });

  it('a JSON report cut short: one error for the file naming its first line, nothing kept', async () => {
    const pretty = JSON.stringify(JSON.parse(fixture('mixed-report.json')), null, 2);
    const cut = pretty.slice(0, pretty.indexOf('"status_codes"'));
    const f = await parse('cut-report.json', cut);
    expect(f.series).toEqual([]);
    expect(f.errors[0]).toEqual(expect.objectContaining({ line: 0, message: expect.stringMatching(/from line 1 on is not a complete vegeta JSON report/) }));
    expect(f.skippedLines).toBe(cut.split('\n').filter((l) => l.trim().length > 0).length);
    const whole = await parse('pretty-report.json', pretty);
    expect(whole.series).toEqual((await parse('mixed-report.json', fixture('mixed-report.json'))).series);
  });

  it('is recognised from content, never as the generic CSV', () => {
    for (const name of ['mixed.csv', 'mixed.json', 'mixed-report.json', 'mixed-report.txt']) expect(detectFormat(fixture(name), 'x.csv')?.id, name).toBe('vegeta');
  });
});
