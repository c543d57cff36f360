import { readFileSync } from 'node:fs';
import { gunzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import type { ParsedFile, RawSeries } from '../../src/model/types.ts';
import { inCountOrder, latencies, rawSeries } from '../helpers/raw-samples.ts';

/**
 * JMeter JTLs (real files: tests/fixtures/jmeter/SOURCES.md). Every figure is checked against the
 * file's own values, parsed here by a few lines of test code, or against JMeter's own report of
 * the same run.
 */

const DIR = 'tests/fixtures/jmeter';
const text = (name: string) => {
  const bytes = readFileSync(`${DIR}/${name}`);
  return new TextDecoder().decode(name.endsWith('.gz') ? gunzipSync(bytes) : bytes);
};

async function parse(path: string, content: string): Promise<ParsedFile> {
  const outcome = await readText(path, content);
  if (isFailed(outcome)) throw new Error(JSON.stringify(outcome.errors));
  return outcome;
}

const byOp = (f: ParsedFile, op: string) => f.series.find((s) => s.op === op) as RawSeries | undefined;

/** Test-side reading of a plain CSV JTL (no quoted fields): samples of each op, as the docs define them. */
function expectedFromCsv(content: string): Map<string, { t: number[]; v: number[] }> {
  const [head = '', ...rows] = content.trim().split('\n');
  const h = head.split(',');
  const col = (n: string) => h.indexOf(n);
  const out = new Map<string, { t: number[]; v: number[] }>();
  const push = (op: string, t: number, v: number) => {
    const e = out.get(op) ?? { t: [], v: [] };
    e.t.push(t);
    e.v.push(v);
    out.set(op, e);
  };
  for (const row of rows) {
    const f = row.split(',');
    const ok = f[col('success')] === 'true';
    const label = f[col('label')] ?? '';
    const t = Number(f[col('timeStamp')]);
    push(ok ? label : `${label}-FAILED`, t, Number(f[col('elapsed')]) * 1000);
    const lt = Number(f[col('Latency')]);
    if (ok && col('Latency') >= 0) push(`${label} (first byte)`, t, lt * 1000);
  }
  return out;
}

describe('JMeter CSV', () => {
  it('reads every row of the default 17-column JTL as an exact sample of its label', async () => {
    const content = text('HTMLReportTestFile.csv');
    const f = await parse('run/results.jtl', content);
    expect(f.format).toBe('jmeter');
    expect(f.errors).toEqual([]);
    const expected = expectedFromCsv(content);
    // Every Latency of this file is 0 (a Java Request sampler): no first-byte series.
    expect(f.series.map((s) => s.op).sort()).toEqual(['JR-KO-FAILED', 'JR-OK']);
    for (const op of ['JR-OK', 'JR-KO-FAILED']) {
      const e = expected.get(op)!;
      expect(inCountOrder(byOp(f, op)!)).toEqual(inCountOrder(rawSeries(op, 'us', e.t, e.v)));
    }
  });

  it('reads another saved column set, with non-ASCII labels, all failed', async () => {
    const content = text('HTMLReportFalseTestFile.csv');
    const f = await parse('run/false.csv', content);
    expect(f.errors).toEqual([]);
    expect(f.series.map((s) => s.op)).toEqual(['Requête HTTP-FAILED']);
    expect((f.series[0] as RawSeries).samples).toBe(content.trim().split('\n').length - 1);
  });

  it('matches the count, mean, min and max of JMeter’s own report of the same file (quoted fields, sub-results, a transaction row)', async () => {
    const f = await parse('run/cinema-results.jtl', text('cinema-results.jtl'));
    expect(f.errors).toEqual([]);
    // report/statistics.json of the same run (cedric-ko/loadqa-homeworks-load_web @5cd510a): Total 29 samples, 0 errors.
    const samples = f.series.filter((s) => !s.op.endsWith(' (first byte)')).reduce((a, s) => a + (s as RawSeries).samples, 0);
    expect(samples).toBe(29);
    // "Выбор зала-4": a URL quoted because it holds commas; its elapsed is 39 ms in JMeter's report.
    expect(latencies(byOp(f, 'Выбор зала-4')!)).toEqual([39_000]);
    // The Transaction Controller row (its message quoted, with a comma) is read: 1259 ms.
    expect(latencies(byOp(f, 'Test')!)).toEqual([1_259_000]);
    // Its first byte (Latency 276) is a derived view of the same sample.
    expect(latencies(byOp(f, 'Test (first byte)')!)).toEqual([276_000]);
  });

  it('merges p50…p99 by nearest rank over the raw samples, as computed here from the file', async () => {
    const content = text('HTMLReportTestFile.csv');
    const { analysis } = await loadFiles([`${DIR}/HTMLReportTestFile.csv`]);
    const ok = expectedFromCsv(content).get('JR-OK')!.v.slice().sort((a, b) => a - b);
    const rank = (p: number) => ok[Math.ceil((p / 100) * ok.length) - 1];
    const op = analysis.runs[0]!.ops['JR-OK']!;
    expect(op.exact).toBe(true);
    expect(op.count).toBe(ok.length);
    expect([op.p50, op.p90, op.p95, op.p99]).toEqual([rank(50), rank(90), rank(95), rank(99)]);
    // Failed samples count as throughput; nothing else does twice.
    expect(analysis.runs[0]!.totalOps).toBe(255);
  });

  it('reads a header-less JTL only when its rows are JMeter’s default columns, with any delimiter', async () => {
    const rows = text('HTMLReportTestFile.csv').trim().split('\n').slice(1);
    const headerless = await parse('run/headerless.jtl', `${rows.join('\n')}\n`);
    expect(headerless.format).toBe('jmeter');
    expect(headerless.errors).toEqual([]);
    expect(byOp(headerless, 'JR-OK')!.samples).toBe(252);
    const semicolons = await parse('run/semi.jtl', `${rows.map((r) => r.replaceAll(',', ';')).join('\n')}\n`);
    expect(byOp(semicolons, 'JR-OK')!.samples).toBe(252);
    // Rows of some other table are not taken for JMeter's.
    const other = await readText('run/other.csv', '1,2,3\n4,5,6\n');
    expect(!isFailed(other) && other.format === 'jmeter').toBe(false);
  });

  it('reads quoted fields with delimiters, quotes and line ends inside, a BOM, CRLF and a Hostname column', async () => {
    const content =
      '\uFEFFtimeStamp;elapsed;label;responseCode;success;Latency;Hostname\r\n' +
      '1700000000000;12;"a;b";200;true;5;gen-1\r\n' +
      '1700000000500;30;"multi\r\nline ""label""";500;false;7;gen-2\r\n' +
      '1700000001000;8;"a;b";200;true;0;gen-1\r\n';
    const f = await parse('run/q.jtl', content);
    expect(f.errors).toEqual([]);
    expect(f.series.map((s) => `${s.client}|${s.op}|${(s as RawSeries).samples}`).sort()).toEqual(['gen-1|a;b (first byte)|2', 'gen-1|a;b|2', 'gen-2|multi\nline "label"-FAILED|1']);
    expect(latencies(f.series.find((s) => s.op === 'a;b') as RawSeries)).toEqual([8000, 12000]);
  });

  it('reads formatted timestamps (jmeter.save.saveservice.timestamp_format) as UTC', async () => {
    const f = await parse('run/dates.jtl', 'timeStamp,elapsed,label,success\n2024/01/02 03:04:05.678,10,x,true\n2024-01-02 03:04:06,11,x,true\n');
    expect(f.errors).toEqual([]);
    const s = byOp(f, 'x')!;
    expect([s.firstMs, s.lastMs]).toEqual([Date.UTC(2024, 0, 2, 3, 4, 5, 678), Date.UTC(2024, 0, 2, 3, 4, 6)]);
  });

  it('names bad rows by line and keeps the others: missing columns, bad numbers, statistical rows, an unclosed quote', async () => {
    const content =
      'timeStamp,elapsed,label,success,SampleCount\n' +
      '1700000000000,10,x,true,1\n' +
      '1700000000001,11,x\n' +
      '1700000000002,abc,x,true,1\n' +
      '1700000000003,12,x,maybe,1\n' +
      '1700000000004,120,x,true,10\n' +
      '1700000000005,13,x,true,1\n' +
      '1700000000006,14,"never closed,true,1\n';
    const f = await parse('run/bad.jtl', content);
    expect(f.errors.map((e) => e.line)).toEqual([3, 4, 5, 6, 8]);
    expect(f.errors[0]!.message).toMatch(/3 fields, the header has 5/);
    expect(f.errors[3]!.message).toMatch(/SampleCount 10/);
    expect(f.errors[4]!.message).toMatch(/ends inside a quoted field opened on line 8/);
    expect(f.skippedLines).toBe(5);
    expect(latencies(byOp(f, 'x')!)).toEqual([10_000, 13_000]);
  });
});

describe('JMeter XML', () => {
  it('reads every <httpSample> of a real JMeter 2.1 XML JTL exactly', async () => {
    const content = text('sample_log1.jtl.gz');
    const f = await parse('run/sample_log1.jtl', content);
    expect(f.errors).toEqual([]);
    const t: Record<string, number[]> = {};
    const v: Record<string, number[]> = {};
    const lt: Record<string, number[]> = {};
    for (const m of content.matchAll(/<httpSample t="(\d+)" lt="(\d+)" ts="(\d+)" s="true" lb="([^"]+)"/g)) {
      const [, e = '', l = '', ts = '', lb = ''] = m;
      (t[lb] ??= []).push(Number(ts));
      (v[lb] ??= []).push(Number(e) * 1000);
      (lt[lb] ??= []).push(Number(l) * 1000);
    }
    expect(Object.keys(v).sort()).toEqual(['jakarta_home', 'jmeter_home']);
    for (const lb of Object.keys(v)) {
      expect(inCountOrder(byOp(f, lb)!)).toEqual(inCountOrder(rawSeries(lb, 'us', t[lb]!, v[lb]!)));
      expect(inCountOrder(byOp(f, `${lb} (first byte)`)!)).toEqual(inCountOrder(rawSeries(`${lb} (first byte)`, 'us', t[lb]!, lt[lb]!)));
    }
  });

  it('counts top-level samples only (sub-results are inside their parent), decodes entities, and says when </testResults> is missing', async () => {
    const content = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<testResults version="1.2">',
      '<httpSample t="120" it="0" lt="40" ct="10" ts="1700000000000" s="true" lb="home &amp; away" rc="200" rm="OK" tn="TG 1-1" dt="text" by="10" sby="5" ng="1" na="1" hn="loader-a">',
      '  <httpSample t="50" lt="40" ts="1700000000000" s="true" lb="home &amp; away-0" rc="302" rm="Found" tn="TG 1-1" dt="text"/>',
      '  <responseData class="java.lang.String">&lt;html&gt;',
      'text over lines</responseData>',
      '</httpSample>',
      '<sample t="7" ts="1700000001000" s="false" lb="jdbc" rc="500" rm="Error" tn="TG 1-1"/>',
      '<httpSample t="9" lt="3" ts="1700000002000" s="true" lb="home &amp; away" hn="loader-a"/>',
    ].join('\n');
    const f = await parse('run/cut.jtl', `${content}\n`);
    expect(f.errors.map((e) => [e.line, e.message])).toEqual([[0, expect.stringMatching(/ends before <\/testResults>: it was cut short/)]]);
    expect(f.series.map((s) => `${s.client ?? ''}|${s.op}|${latencies(s as RawSeries).join(' ')}`).sort()).toEqual([
      'loader-a|home & away (first byte)|3000 40000',
      'loader-a|home & away|9000 120000',
      '|jdbc-FAILED|7000',
    ]);
    const whole = await parse('run/whole.jtl', `${content}\n</testResults>\n`);
    expect(whole.errors).toEqual([]);
  });

  it('reports a broken tag and text between samples by line, and reads on', async () => {
    const content = ['<testResults version="1.2">', '<sample t="x1" ts="1700000000000" s="true" lb="a"/>', 'garbage', '<sample t="5" ts="1700000000000" s="true" lb="a"/>', '</testResults>'].join('\n');
    const f = await parse('run/bad.xml', content);
    expect(f.errors.map((e) => e.line)).toEqual([2, 3]);
    expect(latencies(byOp(f, 'a')!)).toEqual([5000]);
  });
});
