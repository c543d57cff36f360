import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { FailureTally, requestsOf, runFailures } from '../../src/model/failures.ts';
import type { FailureCount } from '../../src/model/types.ts';

/**
 * Failed requests by cause, from real outputs of each producer: the counts `summarize --json`
 * gives per run equal counts taken from the files here by a plain scan of their own (CSV rows,
 * JSON lines, report lines), not by the parsers.
 */


async function failuresOf(paths: string[]): Promise<{ failures: FailureCount[]; from: string }[]> {
  const { analysis } = await loadFiles(paths);
  return analysis.runs.map((r) => ({ failures: r.failures, from: r.failuresFrom }));
}

/** Counts keyed as the test's own scan keys them, order-free. */
function byCause(list: readonly FailureCount[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of list) out[JSON.stringify([f.op, f.status, f.message])] = (out[JSON.stringify([f.op, f.status, f.message])] ?? 0) + f.count;
  return out;
}

function count(into: Record<string, number>, op: string, status: string | null, message: string | null, n = 1): void {
  const key = JSON.stringify([op, status === '' ? null : status, message === '' ? null : message]);
  into[key] = (into[key] ?? 0) + n;
}

const text = (path: string) => (path.endsWith('.gz') ? gunzipSync(readFileSync(path)).toString('utf8') : readFileSync(path, 'utf8'));

/** vegeta's mixed.csv results that failed (a code outside 200–399, or an error), by METHOD URL, code and error. */
function vegetaCsvFailures(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of Papa.parse<string[]>(text('tests/fixtures/vegeta/mixed.csv'), { skipEmptyLines: true }).data) {
    const code = Number(f[1]);
    if (code < 200 || code >= 400 || (f[5] ?? '') !== '') count(out, `${f[9]} ${f[10]}`, f[1] ?? null, f[5] ?? null);
  }
  return out;
}

describe('failures by cause equal the files’ own counts', () => {
  it('JMeter CSV: failed samples by label, responseCode and failureMessage (else responseMessage)', async () => {
    for (const file of ['tests/fixtures/jmeter/HTMLReportTestFile.csv', 'tests/fixtures/jmeter/HTMLReportFalseTestFile.csv']) {
      const rows = Papa.parse<Record<string, string>>(text(file), { header: true, skipEmptyLines: true }).data;
      const expected: Record<string, number> = {};
      for (const r of rows) if (r.success === 'false') count(expected, r.label ?? '', r.responseCode ?? null, r.failureMessage || (r.responseMessage ?? null));
      expect(Object.keys(expected).length).toBeGreaterThan(0);
      const [run] = await failuresOf([file]);
      expect(byCause(run!.failures)).toEqual(expected);
      expect(run!.from).toBe('requests');
    }
  });

  it('vegeta results (CSV and JSON): by code and error, per METHOD URL', async () => {
    const expected = vegetaCsvFailures();
    const json: Record<string, number> = {};
    for (const line of text('tests/fixtures/vegeta/mixed.json').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line) as { code: number; error: string; method: string; url: string };
      if (r.code < 200 || r.code >= 400 || r.error !== '') count(json, `${r.method} ${r.url}`, String(r.code), r.error);
    }
    expect(json).toEqual(expected);
    expect(Object.values(expected).reduce((a, b) => a + b, 0)).toBe(61);
    for (const file of ['tests/fixtures/vegeta/mixed.json', 'tests/fixtures/vegeta/mixed.csv']) {
      const [run] = await failuresOf([file]);
      expect(byCause(run!.failures)).toEqual(expected);
    }
  });

  it('vegeta reports (JSON and text): the failing status_codes, said to be the report’s', async () => {
    const report = JSON.parse(text('tests/fixtures/vegeta/mixed-report.json')) as { status_codes: Record<string, number> };
    const expected: Record<string, number> = {};
    for (const [code, n] of Object.entries(report.status_codes)) if (Number(code) < 200 || Number(code) >= 400) count(expected, 'requests', code, null, n);
    const line = /^Status Codes\s+\[code:count\]\s+(.*)$/m.exec(text('tests/fixtures/vegeta/mixed-report.txt'))?.[1] ?? '';
    const fromText: Record<string, number> = {};
    for (const pair of line.trim().split(/\s+/)) {
      const [code = '', n = ''] = pair.split(':');
      if (Number(code) < 200 || Number(code) >= 400) count(fromText, 'requests', code, null, Number(n));
    }
    expect(fromText).toEqual(expected);
    for (const file of ['tests/fixtures/vegeta/mixed-report.json', 'tests/fixtures/vegeta/mixed-report.txt']) {
      const [run] = await failuresOf([file]);
      expect(byCause(run!.failures)).toEqual(expected);
      expect(run!.from).toBe('report');
    }
  });

  it('vegeta results beside their report: counted once, from the results', async () => {
    const [alone] = await failuresOf(['tests/fixtures/vegeta/mixed.csv']);
    const [both] = await failuresOf(['tests/fixtures/vegeta/mixed.csv', 'tests/fixtures/vegeta/mixed-report.json']);
    expect(byCause(both!.failures)).toEqual(byCause(alone!.failures));
    expect(both!.from).toBe('requests');
  });

  it('Locust: the failures file by Error, and the failures stats.csv counts that no failures file explains', async () => {
    const dir = 'tests/fixtures/locust';
    const expected: Record<string, number> = {};
    const explained: Record<string, number> = {};
    for (const failures of readdirSync(dir).filter((f) => f.endsWith('_failures.csv'))) {
      for (const r of Papa.parse<Record<string, string>>(text(`${dir}/${failures}`), { header: true, skipEmptyLines: true }).data) {
        const op = `${r.Method} ${r.Name}`;
        count(expected, op, null, r.Error ?? null, Number(r.Occurrences));
        explained[op] = (explained[op] ?? 0) + Number(r.Occurrences);
      }
    }
    // Each prefix is one client; every stats.csv's failure counts, less what the failures files explain.
    const failed: Record<string, number> = {};
    for (const stats of readdirSync(dir).filter((f) => f.endsWith('_stats.csv'))) {
      for (const r of Papa.parse<Record<string, string>>(text(`${dir}/${stats}`), { header: true, skipEmptyLines: true }).data) {
        if (r.Name === 'Aggregated' || Number(r['Failure Count']) === 0) continue;
        const op = `${r.Type} ${r.Name}`;
        failed[op] = (failed[op] ?? 0) + Number(r['Failure Count']);
      }
    }
    for (const [op, n] of Object.entries(failed)) if (n > (explained[op] ?? 0)) count(expected, op, null, null, n - (explained[op] ?? 0));
    const runs = await failuresOf([dir]);
    expect(runs).toHaveLength(1);
    expect(byCause(runs[0]!.failures)).toEqual(expected);
    expect(runs[0]!.from).toBe('report');
  });

  it('wrk: non-2xx/3xx responses and socket errors as printed', async () => {
    for (const file of readdirSync('tests/fixtures/wrk').filter((f) => f.startsWith('wrk-'))) {
      const out = text(`tests/fixtures/wrk/${file}`);
      const url = /Running .* test @ (\S+)/.exec(out)?.[1] ?? '';
      const expected: Record<string, number> = {};
      const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
      if (non2xx) count(expected, url, null, 'Non-2xx or 3xx responses', Number(non2xx[1]));
      const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      ['connect', 'read', 'write', 'timeout'].forEach((kind, i) => {
        if (socket && Number(socket[i + 1]) > 0) count(expected, url, null, `Socket errors: ${kind}`, Number(socket[i + 1]));
      });
      const [run] = await failuresOf([`tests/fixtures/wrk/${file}`]);
      expect(byCause(run!.failures), file).toEqual(expected);
    }
  });

  it('pgbench per-transaction log: failed and skipped transactions by the word the log writes', async () => {
    const dir = 'tests/fixtures/pgbench/pg15-failures';
    const expected: Record<string, number> = {};
    for (const line of text(`${dir}/pgbench_log.24207`).split('\n')) {
      const f = line.trim().split(/\s+/);
      if (f.length >= 6 && !/^\d+$/.test(f[2] ?? '')) count(expected, `script${f[3]}`, f[2] ?? null, null);
    }
    expect(Object.values(expected).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    const [run] = await failuresOf([dir]);
    expect(byCause(run!.failures)).toEqual(expected);
    expect(run!.from).toBe('requests');
    // The report beside the log says the same number of failed transactions.
    const reported = Number(/number of failed transactions: (\d+)/.exec(text(`${dir}/stdout.txt`))?.[1]);
    expect(run!.failures.reduce((a, f) => a + f.count, 0)).toBe(reported);
  });

  it('YCSB (corpus): the summaries’ Return= lines other than OK, every client summed', async () => {
    const dir = 'tests/fixtures/corpus/split-for-heat/target-800';
    const expected: Record<string, number> = {};
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.stdout.txt'))) {
      for (const m of text(`${dir}/${file}`).matchAll(/^\[([A-Z]+)\], Return=([A-Z_]+), (\d+)$/gm)) if (m[2] !== 'OK') count(expected, m[1]!, m[2]!, null, Number(m[3]));
    }
    expect(Object.keys(expected).length).toBeGreaterThan(0);
    const [run] = await failuresOf([dir]);
    expect(byCause(run!.failures)).toEqual(expected);
  });

  it('Gatling: KO requests by name and message, status KO', async () => {
    const file = 'tests/fixtures/gatling/errors-3.11.5.log';
    const expected: Record<string, number> = {};
    for (const line of text(file).split('\n')) {
      const f = line.split('\t');
      // 3.4–3.12: REQUEST, groups, name, start, end, status, message.
      if (f[0] === 'REQUEST' && f[5] === 'KO') count(expected, f[2] ?? '', 'KO', f[6] ?? null);
    }
    expect(Object.values(expected).reduce((a, b) => a + b, 0)).toBe(243);
    const [run] = await failuresOf([file]);
    expect(byCause(run!.failures)).toEqual(expected);
    expect(run!.from).toBe('requests');
  });

  it('k6 (CSV and JSON): failed requests by status and error_code tags, per METHOD URL', async () => {
    const expected: Record<string, number> = {};
    for (const r of Papa.parse<Record<string, string>>(text('tests/fixtures/k6/errors-0.54.0.csv.gz'), { header: true, skipEmptyLines: true }).data) {
      if (r.metric_name === 'http_req_duration' && r.expected_response === 'false') count(expected, `${r.method} ${r.url}`, r.status ?? null, r.error_code ?? null);
    }
    const json: Record<string, number> = {};
    for (const line of text('tests/fixtures/k6/errors-0.54.0.json.gz').split('\n')) {
      if (!line.includes('"metric":"http_req_duration"') || !line.includes('"type":"Point"')) continue;
      const tags = (JSON.parse(line) as { data: { tags: Record<string, string> } }).data.tags;
      if (tags.expected_response === 'false') count(json, `${tags.method} ${tags.url}`, tags.status ?? null, tags.error_code ?? null);
    }
    expect(json).toEqual(expected);
    expect(Object.values(expected).reduce((a, b) => a + b, 0)).toBe(159);
    for (const file of ['tests/fixtures/k6/errors-0.54.0.csv.gz', 'tests/fixtures/k6/errors-0.54.0.json.gz']) {
      const [run] = await failuresOf([file]);
      expect(byCause(run!.failures), file).toEqual(expected);
    }
  });

  it('a k6 summary export alone: its failed requests with no cause, said to be the report’s', async () => {
    const file = 'tests/fixtures/k6/mixed-summary-export.json';
    // A rate counts its non-zero samples as passes: http_req_failed's passes are the failed requests.
    const failed = (JSON.parse(text(file)) as { metrics: { http_req_failed: { passes: number } } }).metrics.http_req_failed.passes;
    const [run] = await failuresOf([file]);
    expect(run!.failures).toEqual([{ op: 'http_req_duration', status: null, message: null, count: failed }]);
    expect(run!.from).toBe('report');
  });

  it('JMeter XML, k6 and Gatling fixtures without failed requests: none', async () => {
    expect(text('tests/fixtures/jmeter/sample_log1.jtl.gz')).not.toContain('s="false"');
    expect(text('tests/fixtures/gatling/simulation-3.9.5.log')).not.toMatch(/\tKO\t/);
    expect(text('tests/fixtures/k6/create-user-data.csv.gz')).not.toMatch(/,false,/);
    const runs = await failuresOf(['tests/fixtures/jmeter/sample_log1.jtl.gz', 'tests/fixtures/gatling/simulation-3.9.5.log', 'tests/fixtures/k6/create-user-data.csv.gz']);
    expect(runs.flatMap((r) => r.failures)).toEqual([]);
  });

  it('summarize --json gives each run its failures', async () => {
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'src/cli/benchlens.ts', 'summarize', '--json', 'tests/fixtures/jmeter/HTMLReportTestFile.csv'], { maxBuffer: 16 << 20 });
    const rows = Papa.parse<Record<string, string>>(text('tests/fixtures/jmeter/HTMLReportTestFile.csv'), { header: true, skipEmptyLines: true }).data.filter((r) => r.success === 'false');
    const out = JSON.parse(stdout) as { runs: { failures: FailureCount[] }[] };
    expect(out.runs[0]!.failures).toEqual([{ op: rows[0]!.label, status: rows[0]!.responseCode, message: rows[0]!.responseMessage, count: rows.length }]);
  });
});

describe('the report file', () => {
  it('carries the Errors table, every cause a row with its data attributes', async () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'benchlens-errors-report-')), 'report.html');
    await promisify(execFile)('npx', ['tsx', 'src/cli/benchlens.ts', 'report', '--out', out, 'tests/fixtures/vegeta/mixed.csv'], { maxBuffer: 16 << 20 });
    const html = readFileSync(out, 'utf8');
    const decode = (v: string) => v.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#x27;|&#39;/g, "'").replace(/&amp;/g, '&');
    const rows: Record<string, number> = {};
    for (const m of html.matchAll(/<tr data-run="[^"]*" data-op="([^"]*)" data-status="([^"]*)" data-message="([^"]*)" data-count="(\d+)"/g)) {
      count(rows, decode(m[1]!), decode(m[2]!), decode(m[3]!), Number(m[4]));
    }
    expect(rows).toEqual(vegetaCsvFailures());
  });
});

describe('the tally', () => {
  it('keys by operation, status and message; empty text is none', () => {
    const t = new FailureTally();
    t.add('GET /a', '500', 'boom');
    t.add('GET /a', '500', 'boom', 2);
    t.add('GET /a', '', '');
    t.add('GET /a', null, null, 0);
    expect(t.list()).toEqual([
      { op: 'GET /a', status: '500', message: 'boom', count: 3 },
      { op: 'GET /a', status: null, message: null, count: 1 },
    ]);
  });

  it('lists what the failed series count beyond the tallies with no status or message', () => {
    const tallied = [{ op: 'READ', status: 'ERROR', message: null, count: 3 }];
    expect(runFailures(tallied, new Map([['READ', 5], ['UPDATE', 2]]))).toEqual([
      { op: 'READ', status: 'ERROR', message: null, count: 3 },
      { op: 'READ', status: null, message: null, count: 2 },
      { op: 'UPDATE', status: null, message: null, count: 2 },
    ]);
    // A tally above the series' count (a report counting more) is kept as the report says.
    expect(runFailures(tallied, new Map([['READ', 1]]))).toEqual(tallied);
  });

  it('shares are of the operation’s requests, failed ones included', () => {
    const ops = { READ: { count: 90 }, 'READ-FAILED': { count: 10 }, 'UPDATE-FAILED': { count: 4 } };
    expect(requestsOf(ops, 'READ')).toBe(100);
    expect(requestsOf(ops, 'UPDATE')).toBe(4);
    expect(requestsOf(ops, 'INSERT')).toBeNull();
    expect(requestsOf(ops, 'constructor')).toBeNull();
  });
});
