import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { redisBenchmarkFormat } from '../../src/formats/redis-benchmark.ts';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import { detectFormat } from '../../src/formats/registry.ts';
import { percentileFromDistribution } from '../../src/model/distribution.ts';
import type { DistributionSeries, ParsedFile, PrintedSeries } from '../../src/model/types.ts';

const DIR = join(import.meta.dirname, '../fixtures/redis-benchmark');
const fixture = (name: string) => readFileSync(join(DIR, name), 'utf8');

async function parse(name: string, text: string): Promise<ParsedFile> {
  const outcome = await readText(`run/${name}`, text);
  if (isFailed(outcome)) throw new Error(outcome.errors.map((e) => e.message).join('; '));
  expect(outcome.format).toBe('redis-benchmark');
  return outcome;
}

/** ms printed with 3 decimals → µs, by string arithmetic. */
const micros = (ms: string) => Number(ms.replace('.', ''));

/** Each test's block of the default text output, read by the test itself (progress pieces end in CR). */
function blocks(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = text.replace(/\r/g, '\n').split(/^====== (.+) ======$/m);
  for (let i = 1; i < parts.length; i += 2) out.set(parts[i]!, parts[i + 1]!);
  return out;
}

const summaryLine = (block: string) => /latency summary \(msec\):\n\s+avg\s+min\s+p50\s+p95\s+p99\s+max\n\s+(.+)/.exec(block)![1]!.trim().split(/\s+/).map(micros);
const tickRows = (block: string) => [...block.split('Cumulative distribution')[0]!.matchAll(/^(\S+)% <= (\S+) milliseconds \(cumulative count (\d+)\)$/gm)].map((m) => ({ percent: Number(m[1]), value: micros(m[2]!), count: Number(m[3]) }));

describe('redis-benchmark 7: default text output', () => {
  for (const name of ['redis-7.0.15-set-get.txt', 'redis-7.0.15-suite.txt']) {
    it(`${name}: each test's distribution holds its requests; printed figures are the exact ones or inside the bounds`, async () => {
      const text = fixture(name);
      const file = await parse(name, text);
      expect(file.errors).toEqual([]);
      const tests = blocks(text);
      expect(file.series.map((s) => s.op)).toEqual([...tests.keys()]);
      for (const [test, block] of tests) {
        const d = file.series.find((s) => s.op === test) as DistributionSeries;
        const requests = Number(/(\d+) requests completed in/.exec(block)![1]);
        const [avg, min, p50, p95, p99, max] = summaryLine(block);
        expect(d.kind).toBe('distribution');
        expect(d.totalCount, test).toBe(requests);
        expect([d.mean, d.max], test).toEqual([avg, max]);
        // redis-benchmark printed hdr_value_at_percentile(p) of this histogram: exact, or inside the bounds.
        for (const [p, v] of [[50, p50], [95, p95], [99, p99]] as const) {
          const got = percentileFromDistribution(d, p)!;
          if (got.exact) expect(got.value, `${test} p${p}`).toBe(v);
          else expect(v! > got.low && v! <= got.high, `${test} p${p} ${v} in (${got.low}, ${got.high}]`).toBe(true);
        }
        // A percentile whose rank falls on a tick row's bucket is that row's value.
        for (const row of tickRows(block).filter((r) => r.percent > 0 && r.percent < 100)) {
          const got = percentileFromDistribution(d, row.percent)!;
          if (Math.ceil((row.percent / 100) * requests) <= row.count) expect(got, `${test} ${row.percent}%`).toEqual({ exact: true, value: row.value });
        }
        expect(min).toBeLessThanOrEqual(d.rows[0]!.value);
      }
    });
  }

  it('the engine reports p50 exact and p95/p99 as bounds, in µs, with the printed minimum', async () => {
    const { analysis, ...loaded } = await loadFiles([join(DIR, 'redis-7.0.15-set-get.txt')]);
    expect(loaded.errors).toEqual([]);
    const block = blocks(fixture('redis-7.0.15-set-get.txt')).get('SET')!;
    const [avg, min, p50, p95, p99, max] = summaryLine(block);
    const set = analysis.runs[0]!.ops.SET!;
    expect([set.count, set.mean, set.min, set.max]).toEqual([20000, avg, min, max]);
    expect(set.exact).toBe(false);
    expect(set.p50).toBe(p50);
    expect(set.bounds?.p95?.min).toBeLessThan(p95!);
    expect(set.bounds?.p95?.max).toBeGreaterThanOrEqual(p95!);
    expect(set.bounds?.p99?.max).toBeGreaterThanOrEqual(p99!);
  });
});

describe('redis-benchmark: --csv, -q and Redis 6 output', () => {
  it('Redis 7 --csv: one summary per test, ms as exact µs; no request count in the file (0)', async () => {
    const text = fixture('redis-7.0.15.csv');
    const file = await parse('a.csv', text);
    expect(file.errors).toEqual([]);
    const rows = text
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.slice(1, -1).split('","'));
    expect(file.series.map((s) => s.op)).toEqual(rows.map((r) => r[0]));
    rows.forEach((r, i) => {
      const s = file.series[i] as PrintedSeries;
      const [avg, min, p50, p95, p99, max] = r.slice(2).map(micros);
      expect(s).toMatchObject({ kind: 'printed', unit: 'us', count: 0, mean: avg, min, max, percentiles: { p50, p95, p99 } });
      expect(file.producer?.settings?.[`${r[0]} requests/s`]).toBe(r[1]);
    });
  });

  it('--csv (6.2+ layout) through the engine: every printed figure reaches the summary — the mean, min and max, the percentiles as bounds; two clients bound the mean', async () => {
    const rowsOf = (name: string) => new Map(fixture(name).trim().split('\n').slice(1).map((l) => l.slice(1, -1).split('","')).map((r) => [r[0] ?? '', r.slice(2).map(micros)]));
    const one = await loadFiles([join(DIR, 'redis-7.0.15.csv')]);
    for (const [test, [avg, min, p50, p95, p99, max]] of rowsOf('redis-7.0.15.csv')) {
      const op = one.analysis.runs[0]?.ops[test];
      expect([op?.mean, op?.min, op?.max, op?.bounds?.p50, op?.bounds?.p95, op?.bounds?.p99], test).toEqual([avg, min, max, { min: p50, max: p50 }, { min: p95, max: p95 }, { min: p99, max: p99 }]);
    }
    // Two clients of one run, with no request counts to weigh their means by: the mean is bounded by theirs.
    const both = await loadFiles([join(DIR, 'redis-7.0.15.csv'), join(DIR, 'redis-7.0.15-suite.csv')]);
    const a = rowsOf('redis-7.0.15.csv').get('SET') ?? [];
    const b = rowsOf('redis-7.0.15-suite.csv').get('SET') ?? [];
    const set = both.analysis.runs[0]?.ops.SET;
    expect(set?.perClient).toHaveLength(2);
    expect([set?.mean, set?.bounds?.mean]).toEqual([null, { min: Math.min(a[0] as number, b[0] as number), max: Math.max(a[0] as number, b[0] as number) }]);
  });

  it('Redis 6: counts from the text, no latency from its rounded "<= N milliseconds" lines; its CSV and -q hold rates only', async () => {
    const text = fixture('redis-6.0.16-set-get-lpush.txt');
    const file = await parse('a.txt', text);
    expect(file.errors).toEqual([]);
    expect(file.series.map((s) => [s.op, (s as PrintedSeries).count, (s as PrintedSeries).mean, (s as PrintedSeries).percentiles])).toEqual(
      [...blocks(text)].map(([test, block]) => [test, Number(/(\d+) requests completed/.exec(block)![1]), null, {}]),
    );
    const csv = await parse('a.csv', fixture('redis-6.0.16.csv'));
    expect(csv.series).toEqual([]);
    expect(csv.producer?.settings).toEqual({ 'SET requests/s': '56179.77', 'GET requests/s': '56022.41', 'INCR requests/s': '55865.92' });
    const quiet7 = await parse('q.txt', fixture('redis-7.0.15-quiet.txt'));
    expect(quiet7.series.map((s) => [s.op, (s as PrintedSeries).percentiles])).toEqual([
      ['SET', { p50: 671 }],
      ['GET', { p50: 615 }],
      ['MSET (10 keys)', { p50: 687 }],
    ]);
  });

  it('is recognised from its content; a header-less Redis 6 CSV beats the generic CSV reader', () => {
    for (const name of ['redis-6.0.16.csv', 'redis-7.0.15.csv', 'redis-6.0.16-quiet.txt', 'redis-7.0.15-set-get.txt']) {
      expect(detectFormat(fixture(name).replace(/\r/g, '\n'), 'unknown')?.id, name).toBe('redis-benchmark');
    }
    expect(redisBenchmarkFormat.detect('"a","b"\n"1","2"\n', 'x')).toBe(0);
  });
});

describe('redis-benchmark: bad input', () => {
  it('a cut output: the tests before the cut are kept, the cut one is reported', async () => {
    const text = fixture('redis-7.0.15-set-get.txt');
    const cut = text.slice(0, text.indexOf('Summary:', text.indexOf('====== GET')));
    const file = await parse('a.txt', cut);
    expect(file.errors.map((e) => [e.line, e.message])).toEqual([[0, expect.stringMatching(/test GET \(line \d+\) has no Summary block/)]]);
    expect(file.series.map((s) => [s.op, (s as DistributionSeries).mean])).toEqual([
      ['SET', 677],
      ['GET', null],
    ]);
    const early = text.slice(0, text.indexOf('75.000%', text.indexOf('====== GET')));
    const shortFile = await parse('a.txt', early);
    expect(shortFile.errors.map((e) => e.message)).toContainEqual(expect.stringMatching(/GET .*ends at \d+ requests, not the 20000 completed/));
  });

  it('two runs in one file: the repeated test is reported where it starts and not read', async () => {
    const text = fixture('redis-6.0.16-set-get-lpush.txt');
    const file = await parse('a.txt', text + text);
    const firstLines = text.split(/\r\n|\r|\n/).length - 1;
    const repeat = (text + text).split(/\r\n|\r|\n/).findIndex((l, i) => i >= firstLines && l.includes('====== SET ======'));
    expect(file.errors.map((e) => e.line)).toEqual([repeat + 1]);
    expect(file.series).toHaveLength(3);
    const csv = fixture('redis-7.0.15.csv');
    const twice = await parse('a.csv', csv + csv);
    expect(twice.errors.map((e) => e.line)).toEqual([8]);
    expect(twice.series).toHaveLength(6);
  });

  it('CRLF reads the same; a damaged row is reported with its line', async () => {
    for (const name of ['redis-7.0.15-set-get.txt', 'redis-7.0.15.csv']) {
      expect(await parse(name, fixture(name).replace(/\n/g, '\r\n'))).toEqual(await parse(name, fixture(name)));
    }
    const lines = fixture('redis-7.0.15.csv').split('\n');
    lines[2] = lines[2]!.replace(/"([\d.]+)"$/, '"1.2345x"');
    const file = await parse('a.csv', lines.join('\n'));
    expect(file.errors.map((e) => e.line)).toEqual([3]);
    expect(file.series).toHaveLength(5);
  });
});
