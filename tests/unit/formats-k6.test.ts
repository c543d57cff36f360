import { readFileSync } from 'node:fs';
import { gunzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import { detectFormat } from '../../src/formats/registry.ts';
import type { ParsedFile, RawSeries, PrintedSeries } from '../../src/model/types.ts';
import { latencies } from '../helpers/raw-samples.ts';

/**
 * k6's CSV, JSON and summary outputs (src/formats/k6.ts) on three real outputs of one run
 * (tests/fixtures/k6/, SOURCES.md): figures against an independent reading of the samples in this
 * test, the summary against the samples of the same run, and damaged or re-saved copies made here
 * from the real files.
 */

const DIR = 'tests/fixtures/k6';
function fixture(name: string): string {
  const bytes = readFileSync(`${DIR}/${name}`);
  return new TextDecoder().decode(name.endsWith('.gz') ? gunzipSync(bytes) : bytes);
}
const CSV = fixture('create-user-data.csv.gz');
const NDJSON = fixture('create-user-data.json.gz');
const OP = 'POST http://localhost:8080/users';

async function parse(name: string, text: string): Promise<ParsedFile> {
  const outcome = await readText(`run/${name}`, text);
  if (isFailed(outcome)) throw new Error(outcome.errors.map((e) => e.message).join('; '));
  return outcome;
}

/** "220.336425" ms → 220336425 ns, by moving the decimal point in the text. */
function msTextToNs(text: string): number {
  const [int = '0', frac = ''] = text.split('.');
  return Number(int) * 1_000_000 + Number(frac.padEnd(6, '0'));
}

/** The values of one metric in the CSV, read by column position from its header. */
function csvDurations(text: string, name = 'http_req_duration'): number[] {
  const [header = '', ...rows] = text.trim().split('\n');
  const columns = header.split(',');
  const metric = columns.indexOf('metric_name');
  const value = columns.indexOf('metric_value');
  return rows
    .map((r) => r.split(','))
    .filter((f) => f[metric] === name)
    .map((f) => msTextToNs(f[value] as string))
    .sort((a, b) => a - b);
}

const nearestRank = (xs: number[], p100: number) => xs[Math.ceil((p100 * xs.length) / 10000) - 1] as number;

describe('k6 --out csv / --out json', () => {
  it('CSV: http_req_duration samples are the operation, exact in ns; nearest rank matches an independent reading', async () => {
    const expected = csvDurations(CSV);
    expect(expected).toHaveLength(1000);
    const f = await parse('data.csv', CSV);
    expect(f.format).toBe('k6');
    expect(f.errors).toEqual([]);
    expect(f.series.map((s) => s.op)).toEqual([OP, `${OP} (first byte)`]);
    // http_req_waiting, the time to first byte, is a view of the same requests.
    expect(latencies(f.series[1] as RawSeries)).toEqual(csvDurations(CSV, 'http_req_waiting'));
    const s = f.series[0] as RawSeries;
    expect(s.unit).toBe('ns');
    expect(latencies(s)).toEqual(expected);
    // Unix-second timestamps: the first row's second.
    expect(s.firstMs).toBe(1749852276000);
    const { analysis } = await loadFiles([`${DIR}/create-user-data.csv.gz`]);
    const op = analysis.runs[0]?.ops[OP];
    expect(op?.exact).toBe(true);
    for (const [key, p100] of [['p50', 5000], ['p90', 9000], ['p95', 9500], ['p99', 9900], ['p99.9', 9990]] as const) {
      expect(op?.[key], key).toBe(nearestRank(expected, p100) / 1000);
    }
  });

  it('JSON lines: the same samples, timed by their RFC 3339 times with ns and an offset', async () => {
    const points = NDJSON.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; metric: string; data: { time: string; value: number } })
      .filter((p) => p.type === 'Point' && p.metric === 'http_req_duration');
    const f = await parse('data.json', NDJSON);
    expect(f.series.map((s) => s.op)).toEqual([OP, `${OP} (first byte)`]);
    const s = f.series[0] as RawSeries;
    expect(latencies(s)).toEqual(csvDurations(CSV));
    expect(s.samples).toBe(points.length);
    // "2025-06-13T23:04:36.422903807+01:00"
    expect(s.firstMs).toBe(Date.UTC(2025, 5, 13, 22, 4, 36, 422));
    expect(s.lastMs).toBe(Math.max(...points.map((p) => Date.parse(p.data.time))));
  });

  it('expected_response=false, or without that column an error status, is FAILED', async () => {
    const lines = CSV.trim().split('\n');
    const header = lines[0]!.split(',');
    const expectedAt = header.indexOf('expected_response');
    const statusAt = header.indexOf('status');
    // Every 10th request marked unexpected on all its http_req* rows, as k6 tags a response outside expectedStatuses.
    let n = 0;
    let mark = false;
    const marked = lines.map((l, i) => {
      if (i === 0 || !l.startsWith('http_req')) return l;
      if (l.startsWith('http_reqs,')) mark = n++ % 10 === 0;
      const f = l.split(',');
      if (mark) f[expectedAt] = 'false';
      return f.join(',');
    });
    const f = await parse('marked.csv', marked.join('\n'));
    expect(new Map(f.series.map((s) => [s.op, (s as RawSeries).samples]))).toEqual(
      new Map([
        [OP, 900],
        [`${OP} (first byte)`, 900],
        [`${OP}-FAILED`, 100],
      ]),
    );
    // k6 before 0.31 has no expected_response column: the status decides.
    const old = lines.map((l, i) => {
      const f = l.split(',');
      if (i > 0 && l.startsWith('http_req_duration,') && i % 3 === 0) f[statusAt] = '503';
      f.splice(expectedAt, 1);
      return f.join(',');
    });
    const g = await parse('old.csv', old.join('\n'));
    const failed = old.filter((l) => l.startsWith('http_req_duration,') && l.split(',')[statusAt - 1] === '503').length;
    expect(failed).toBeGreaterThan(0);
    expect((g.series.find((s) => s.op === `${OP}-FAILED`) as RawSeries).samples).toBe(failed);
    expect(g.errors).toEqual([]);
  });

  it('without request samples, custom time trends are the operations (JSON), else iteration_duration', async () => {
    const noRequests = NDJSON.split('\n').filter((l) => !l.includes('"metric":"http_req_'));
    // The script's custom Trend, declared as a time trend (new Trend('response_time', true)).
    const timed = noRequests.map((l) => l.replace('"name":"response_time","type":"trend","contains":"default"', '"name":"response_time","type":"trend","contains":"time"'));
    expect(timed.join('\n')).toContain('"contains":"time"');
    const f = await parse('custom.json', timed.join('\n'));
    expect(f.series.map((s) => [s.op, (s as RawSeries).samples])).toEqual([['response_time', 1000]]);
    const g = await parse('iterations.json', noRequests.join('\n'));
    expect(g.series.map((s) => [s.op, (s as RawSeries).samples])).toEqual([['iteration_duration', 1000]]);
  });
});

describe('k6 summary', () => {
  it('against the samples of the same run: count, min and max equal; k6 interpolated percentiles lie between neighbouring samples', async () => {
    const samples = csvDurations(CSV).map((ns) => ns / 1e6);
    const f = await parse('summary.json', fixture('create-user-summary.json'));
    expect(f.errors).toEqual([]);
    const s = f.series[0] as PrintedSeries;
    expect(f.series.map((x) => x.op)).toEqual(['http_req_duration']);
    expect(s.unit).toBe('ms');
    expect([s.count, s.min, s.max]).toEqual([samples.length, samples[0], samples[samples.length - 1]]);
    expect(s.mean).toBeCloseTo(samples.reduce((a, b) => a + b, 0) / samples.length, 9);
    for (const [key, q] of [['p50', 0.5], ['p90', 0.9], ['p95', 0.95], ['p99', 0.99], ['p99.99', 0.9999]] as const) {
      const at = q * (samples.length - 1);
      const v = s.percentiles[key] as number;
      expect(v, key).toBeGreaterThanOrEqual((samples[Math.floor(at)] as number) - 1e-9);
      expect(v, key).toBeLessThanOrEqual((samples[Math.ceil(at)] as number) + 1e-9);
    }
    expect(f.producer?.settings?.summaryTrendStats).toContain('p(99.99)');
  });

  it('the legacy --summary-export layout (flat stats, no count): counts from http_reqs, failures from http_req_failed passes', async () => {
    const handle = JSON.parse(fixture('create-user-summary.json')) as { metrics: Record<string, { values: Record<string, number> }> };
    // The same figures laid out as --summary-export writes them; 7 requests made to fail.
    const flat = (name: string, drop: string[] = []) => Object.fromEntries(Object.entries(handle.metrics[name]!.values).filter(([k]) => !drop.includes(k)));
    const exported = {
      metrics: {
        http_req_duration: flat('http_req_duration', ['count']),
        http_reqs: flat('http_reqs'),
        http_req_failed: { passes: 7, fails: 993, value: 0.007 },
      },
      root_group: { name: '', path: '', id: 'd41d8cd98f00b204e9800998ecf8427e', groups: {}, checks: {} },
    };
    const f = await parse('export.json', JSON.stringify(exported, null, 4));
    // Without the {expected_response:true} sub-metric the stats are of all 1000 requests: never the 993 successes' own.
    expect(f.series.map((s) => [s.op, (s as PrintedSeries).count, (s as PrintedSeries).percentiles.p95 ?? null])).toEqual([
      ['http_req_duration', 993, null],
      ['http_req_duration-FAILED', 7, null],
      ['http_req_duration (including failures)', 1000, handle.metrics.http_req_duration!.values['p(95)']],
    ]);
  });

  it('a real run where a third of the requests failed: the sub-metric’s stats are the successes’, the metric’s go to all requests (both layouts)', async () => {
    for (const name of ['mixed-handle-summary.json', 'mixed-summary-export.json']) {
      const doc = JSON.parse(fixture(name)) as { metrics: Record<string, { values?: Record<string, number> } & Record<string, unknown>> };
      const stats = (metric: string) => (doc.metrics[metric]?.values ?? doc.metrics[metric]) as Record<string, number>;
      const f = await parse(name, fixture(name));
      expect(f.errors, name).toEqual([]);
      const byOp = new Map(f.series.map((s) => [s.op, s as PrintedSeries]));
      expect([...byOp.keys()], name).toEqual(['http_req_duration', 'http_req_duration-FAILED', 'http_req_duration (including failures)']);
      const ok = stats('http_req_duration{expected_response:true}');
      const all = stats('http_req_duration');
      const failed = stats('http_req_failed').passes as number;
      expect(failed).toBeGreaterThan(0);
      expect([byOp.get('http_req_duration')?.count, byOp.get('http_req_duration')?.mean, byOp.get('http_req_duration')?.percentiles.p95], name).toEqual([ok.count, ok.avg, ok['p(95)']]);
      expect([byOp.get('http_req_duration-FAILED')?.count, byOp.get('http_req_duration-FAILED')?.mean], name).toEqual([failed, null]);
      const every = byOp.get('http_req_duration (including failures)');
      expect([every?.count, every?.mean, every?.min, every?.max, every?.percentiles.p99], name).toEqual([all.count, all.avg, all.min, all.max, all['p(99)']]);
    }
  });

  it('a summary cut short: one error for the file naming its first line, every line skipped, nothing kept', async () => {
    const text = fixture('create-user-summary.json');
    const cut = text.slice(0, 3000);
    const f = await parse('cut.json', cut);
    expect(f.series).toEqual([]);
    expect(f.errors).toEqual([expect.objectContaining({ line: 0, message: expect.stringMatching(/from line 1 on is not a complete k6 summary/) })]);
    expect(f.skippedLines).toBe(cut.split('\n').filter((l) => l.trim().length > 0).length);
  });
});

describe('k6: damaged and re-saved input', () => {
  it('a JSON line cut short is an error on its line; the rest is read', async () => {
    const lines = NDJSON.trim().split('\n');
    const at = lines.findIndex((l) => l.includes('"metric":"http_req_duration","type":"Point"'));
    lines[at] = lines[at]!.slice(0, 60);
    const f = await parse('cut.json', lines.join('\n'));
    expect(f.errors).toEqual([expect.objectContaining({ line: at + 1 })]);
    expect((f.series.find((s) => s.op === OP) as RawSeries).samples).toBe(999);
  });

  it('quoted fields with delimiters and line breaks span lines; later errors keep their line numbers', async () => {
    const lines = CSV.trim().split('\n');
    const checkAt = lines.findIndex((l) => l.startsWith('checks,'));
    // A check name with a comma and a line break, quoted as Go's csv writer quotes it.
    lines[checkAt] = lines[checkAt]!.replace('is status 200', '"is status 200,\nand body ok"');
    const badAt = lines.findIndex((l, i) => i > checkAt && l.startsWith('http_req_duration,'));
    lines[badAt] = lines[badAt]!.replace(/^http_req_duration,(\d+),[^,]+,/, 'http_req_duration,$1,12.5e3,');
    const short = lines.findIndex((l, i) => i > badAt && l.startsWith('http_req_duration,'));
    lines[short] = lines[short]!.split(',').slice(0, 10).join(',');
    const f = await parse('quoted.csv', lines.join('\n'));
    // Both rows come after the two-line record: one line later than their index + 1.
    expect(f.errors.map((e) => [e.line, e.field ?? null])).toEqual([
      [badAt + 2, 'metric_value'],
      [short + 2, null],
    ]);
    expect(f.errors[1]?.message).toMatch(/row has 10 fields, the header 19/);
    expect((f.series[0] as RawSeries).samples).toBe(998);
  });

  it('re-saved with a BOM, CRLF, semicolons and decimal commas: the same samples', async () => {
    const resaved = `\uFEFF${CSV.trim()
      .split('\n')
      .map((l) => l.split(',').map((cell) => cell.replace(/^(\d+)\.(\d+)$/, '$1,$2')).join(';'))
      .join('\r\n')}\r\n`;
    expect(detectFormat(resaved.slice(1), 'data.csv')?.id).toBe('k6');
    const f = await parse('resaved.csv', resaved);
    expect(f.errors).toEqual([]);
    expect(latencies(f.series[0] as RawSeries)).toEqual(csvDurations(CSV));
  });

  it('K6_CSV_TIME_FORMAT: unix_milli and rfc3339_nano timestamps give the same samples at their own times', async () => {
    const lines = CSV.trim().split('\n');
    const milli = lines.map((l, i) => (i === 0 ? l : l.replace(/^([^,]+),(\d+),/, (_m, m: string, s: string) => `${m},${s}${String(i % 1000).padStart(3, '0')},`)));
    const f = await parse('milli.csv', milli.join('\n'));
    expect(latencies(f.series[0] as RawSeries)).toEqual(csvDurations(CSV));
    const times = milli.filter((l) => l.startsWith('http_req_duration,')).map((l) => Number(l.split(',')[1]));
    expect((f.series[0] as RawSeries).firstMs).toBe(Math.min(...times));
    const nano = lines.map((l, i) => (i === 0 ? l : l.replace(/^([^,]+),(\d+),/, (_m, m: string, s: string) => `${m},${new Date(Number(s) * 1000).toISOString().replace('.000Z', '.123456789Z')},`)));
    const g = await parse('nano.csv', nano.join('\n'));
    expect((g.series[0] as RawSeries).firstMs).toBe(1749852276123);
  });

  it('two outputs appended: the second header is said, and both runs are read', async () => {
    const text = `${CSV.trim()}\n${CSV.trim()}\n`;
    const f = await parse('twice.csv', text);
    const secondHeader = CSV.trim().split('\n').length + 1;
    expect(f.errors).toEqual([expect.objectContaining({ line: secondHeader, message: expect.stringMatching(/a second k6 CSV header/) })]);
    expect((f.series[0] as RawSeries).samples).toBe(2000);
  });

  it('is recognised from its content as k6, not as the generic CSV', () => {
    expect(detectFormat(CSV.slice(0, 65536), 'data.csv')?.id).toBe('k6');
    expect(detectFormat(NDJSON.slice(0, 65536), 'data.json')?.id).toBe('k6');
    expect(detectFormat(fixture('create-user-summary.json'), 'summary.json')?.id).toBe('k6');
  });
});
