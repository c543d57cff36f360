import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import { detectFormat } from '../../src/formats/registry.ts';
import { wrkTimeToMicros } from '../../src/formats/wrk.ts';
import type { DistributionSeries, ParsedFile, PrintedSeries } from '../../src/model/types.ts';

/**
 * wrk and wrk2 stdout (src/formats/wrk.ts) on real outputs (tests/fixtures/wrk/, SOURCES.md):
 * figures against what the same output prints, read here by a few lines of test code.
 */

const DIR = 'tests/fixtures/wrk';
const fixture = (name: string) => readFileSync(`${DIR}/${name}`, 'utf8');

async function parse(name: string, text = fixture(name)): Promise<ParsedFile> {
  const outcome = await readText(`run/${name}`, text);
  if (isFailed(outcome)) throw new Error(outcome.errors.map((e) => e.message).join('; '));
  return outcome;
}

const byOp = (f: ParsedFile, op: string) => f.series.find((s) => s.op === op);
const summaryOf = (f: ParsedFile, op: string) => byOp(f, op) as PrintedSeries;
const distributionOf = (f: ParsedFile, op: string) => byOp(f, op) as DistributionSeries;

/** `N requests in …`, `Non-2xx or 3xx responses: N` and the socket errors, as printed. */
function printedCounts(text: string) {
  const n = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    requests: n(/(\d+) requests in /),
    non2xx: n(/Non-2xx or 3xx responses: (\d+)/),
    socket: socket ? socket.slice(1).reduce((a, c) => a + Number(c), 0) : 0,
  };
}

/** wrk2's printed list under a `Latency Distribution (HdrHistogram - <kind> Latency…)` heading, in ms. */
function printedList(text: string, kind: 'Recorded' | 'Uncorrected'): [number, number][] {
  const at = text.indexOf(`HdrHistogram - ${kind} Latency`);
  const out: [number, number][] = [];
  for (const line of text.slice(at).split('\n').slice(1)) {
    const m = /^\s*([\d.]+)%\s+([\d.]+)(us|ms|s)\s*$/.exec(line);
    if (!m) break;
    const scale = { us: 0.001, ms: 1, s: 1000 }[m[3] as 'us' | 'ms' | 's'];
    out.push([Number(m[1]), Number(m[2]) * scale]);
  }
  return out;
}

/**
 * Each printed percentile against the spectrum, by the rule of the HdrHistogram_c that wrk2 bundles
 * (`hdr_value_at_percentile`: rank = round(p/100 · count), not benchlens's ⌈p/100 · count⌉): the
 * value at that rank lies between the tick rows around it, and is the upper one when the rank reaches
 * that row's tick; printed with `%.2f`, so up to half a hundredth of a ms off.
 */
function expectPrintedWithin(d: DistributionSeries, printed: [number, number][]): void {
  const HALF_HUNDREDTH = 0.005 + 1e-9;
  let onTick = 0;
  for (const [p, ms] of printed) {
    const rank = Math.max(1, Math.floor((p / 100) * d.totalCount + 0.5));
    const i = d.rows.findIndex((r) => r.totalCount >= rank);
    const high = (d.rows[i]?.value ?? NaN) / 1000;
    const low = i > 0 ? (d.rows[i - 1]?.value ?? NaN) / 1000 : 0;
    // Row i is the first bucket whose cumulative count reached its tick: a rank at or past the tick is in it.
    if (i === 0 || rank >= (d.rows[i]?.percentile ?? 1) * d.totalCount - 1e-6) {
      onTick++;
      expect(Math.abs(high - ms), `p${p}: ${high} ms vs printed ${ms} ms`).toBeLessThanOrEqual(HALF_HUNDREDTH);
    } else {
      expect(ms, `p${p} in (${low}, ${high}] ms`).toBeGreaterThanOrEqual(low - HALF_HUNDREDTH);
      expect(ms, `p${p} in (${low}, ${high}] ms`).toBeLessThanOrEqual(high + HALF_HUNDREDTH);
    }
  }
  expect(onTick).toBeGreaterThanOrEqual(1);
}

describe('wrk2 spectrum', () => {
  it('is exact on its ticks, in µs, and agrees with the percentiles wrk2 prints above it (rounded to 2 decimals)', async () => {
    const text = fixture('wrk2-get-latency.txt');
    const f = await parse('wrk2-get-latency.txt', text);
    expect(f.format).toBe('wrk');
    expect(f.producer?.tool).toBe('wrk2');
    const intended = distributionOf(f, 'Intended-http://127.0.0.1:8080');
    expect(intended.unit).toBe('us');
    // The tick at 0.5 as printed, "1.136" ms: 1136 µs exactly.
    expect(intended.rows.find((r) => r.percentile === 0.5)?.value).toBe(1136);
    const printed = printedList(text, 'Recorded');
    expect(printed.map(([p]) => p)).toEqual([50, 75, 90, 99, 99.9, 99.99, 99.999, 100]);
    expectPrintedWithin(intended, printed);
    expect(intended.totalCount).toBe(19997);
    expect(intended.precision).toEqual({ significantDigits: 3, lowestDiscernibleValue: 1 });
    expect([intended.mean, intended.stddev, intended.max]).toEqual([3671, 8902, 58496]);
  });

  it('the engine reports the tick values themselves as exact percentiles', async () => {
    const text = fixture('wrk2-get-latency.txt');
    const rows = text
      .split('\n')
      .map((l) => /^\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+\S+\s*$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ us: Math.round(Number(m[1]) * 1000), p: Number(m[2]), count: Number(m[3]) }));
    const { analysis } = await loadFiles([`${DIR}/wrk2-get-latency.txt`]);
    const op = analysis.runs[0]?.ops['Intended-http://127.0.0.1:8080'];
    expect(op?.source).toBe('distribution');
    expect(op?.count).toBe(19997);
    // p50 falls on the 0.5 tick and p90 on the 0.9 tick.
    expect(op?.p50).toBe(rows.find((r) => r.p === 0.5)?.us);
    expect(op?.p90).toBe(rows.find((r) => r.p === 0.9)?.us);
  });

  it('-U: the uncorrected spectrum is the operation, the recorded one its Intended- series', async () => {
    const text = fixture('wrk2-uncorrected.txt');
    const f = await parse('wrk2-uncorrected.txt', text);
    const actual = distributionOf(f, 'http://localhost:8080/v0/status');
    const intended = distributionOf(f, 'Intended-http://localhost:8080/v0/status');
    expect(actual.kind).toBe('distribution');
    expect(intended.kind).toBe('distribution');
    expectPrintedWithin(actual, printedList(text, 'Uncorrected'));
    expect(f.series.map((s) => s.op)).toEqual(['http://localhost:8080/v0/status', 'Intended-http://localhost:8080/v0/status']);
    expect(f.errors).toEqual([]);
  });

  it('without --latency: the operation has its count, the corrected thread stats are Intended-', async () => {
    const f = await parse('wrk2-no-latency.txt');
    expect(f.producer?.tool).toBe('wrk2');
    expect(f.producer?.command).toBe('wrk2 -t2 -c100 -d10s -R2000 http://127.0.0.1:8080/v0/status');
    const op = summaryOf(f, 'http://127.0.0.1:8080/v0/status');
    expect([op.count, op.mean, op.max]).toEqual([18948, null, null]);
    const intended = summaryOf(f, 'Intended-http://127.0.0.1:8080/v0/status');
    // "Latency     1.53ms  712.00us  13.41ms"
    expect([intended.count, intended.mean, intended.stddev, intended.max]).toEqual([18948, 1530, 712, 13410]);
  });

  it('a run stopped with Ctrl-C and copied with its spaces collapsed reads whole', async () => {
    const text = fixture('wrk2-interrupted.txt');
    const f = await parse('wrk2-interrupted.txt', text);
    expect(f.errors).toEqual([]);
    expect(summaryOf(f, 'http://localhost:8080').count).toBe(printedCounts(text).requests);
    const intended = distributionOf(f, 'Intended-http://localhost:8080');
    expect(intended.totalCount).toBe(103632);
    // "1.85m" is 111 s; the spectrum's last tick is 111149.055 ms.
    expect(intended.rows[intended.rows.length - 1]?.value).toBe(111149055);
  });
});

describe('wrk', () => {
  it('reads units with their suffixes: us, ms, s, m, h', () => {
    expect(wrkTimeToMicros('635.91us')).toBeCloseTo(635.91, 9);
    expect(wrkTimeToMicros('0.89ms')).toBe(890);
    expect(wrkTimeToMicros('12.92ms')).toBe(12920);
    expect(wrkTimeToMicros('1.30s')).toBe(1_300_000);
    expect(wrkTimeToMicros('1.85m')).toBe(111_000_000);
    expect(wrkTimeToMicros('2.00h')).toBe(7_200_000_000);
    for (const bad of ['12.92', 'ms', '1,5ms', '-1.00ms', '1.2xs', '']) expect(wrkTimeToMicros(bad), bad).toBeNull();
  });

  it('--latency: thread stats and the four printed percentiles, in µs, as a summary', async () => {
    const text = fixture('wrk-latency.txt');
    const f = await parse('wrk-latency.txt', text);
    expect(f.producer?.tool).toBe('wrk');
    const op = summaryOf(f, 'http://127.0.0.1:18080/index.html');
    // "Latency     4.51ms    2.43ms  26.40ms" and "50% 3.79ms / 75% 5.56ms / 90% 7.61ms / 99% 12.76ms"
    expect([op.count, op.mean, op.stddev, op.max, op.min]).toEqual([printedCounts(text).requests, 4510, 2430, 26400, null]);
    expect(op.percentiles).toEqual({ p50: 3790, p75: 5560, p90: 7610, p99: 12760 });
    expect(f.series).toHaveLength(1);
  });

  it('non-2xx responses and socket errors are the FAILED count; the operation counts the rest; figures of all responses are never the successes\' own', async () => {
    for (const name of ['wrk-404.txt', 'wrk-flaky.txt', 'wrk-timeouts.txt']) {
      const text = fixture(name);
      const f = await parse(name, text);
      const counts = printedCounts(text);
      const url = /@ (\S+)/.exec(text)?.[1] ?? '';
      const ok = f.series.find((s) => s.op === url) as PrintedSeries | undefined;
      expect(ok?.count ?? 0, name).toBe(counts.requests - counts.non2xx);
      expect(summaryOf(f, `${url}-FAILED`).count, name).toBe(counts.non2xx + counts.socket);
      // wrk's thread stats cover every completed response, non-2xx ones too, not the socket errors.
      const stats = /Latency\s+(\S+)\s+(\S+)\s+(\S+)/.exec(text) as RegExpExecArray;
      // Every response failed (wrk-404): the figures are the failures' own.
      const carrier = counts.non2xx === 0 ? (ok as PrintedSeries) : counts.non2xx === counts.requests && counts.socket === 0 ? summaryOf(f, `${url}-FAILED`) : summaryOf(f, `${url} (including failures)`);
      expect([carrier.count, carrier.mean, carrier.max], name).toEqual([counts.requests, wrkTimeToMicros(stats[1] ?? ''), wrkTimeToMicros(stats[3] ?? '')]);
      if (counts.non2xx > 0 && ok) expect([ok.mean, ok.max, ok.percentiles], name).toEqual([null, null, {}]);
    }
  });

  it('the engine bounds what wrk prints and counts failures in the run', async () => {
    const { analysis } = await loadFiles([`${DIR}/wrk-flaky.txt`]);
    const run = analysis.runs[0];
    // 629 requests: 501 answered 2xx/3xx, 128 not.
    expect(run?.totalOps).toBe(629);
    const op = run?.ops['http://127.0.0.1:18082/flaky'];
    expect([op?.count, op?.mean, op?.p99, op?.bounds?.p99]).toEqual([501, null, null, undefined]);
    // The printed figures are of all 629 responses, shown beside and never counted again.
    const all = run?.ops['http://127.0.0.1:18082/flaky (including failures)'];
    expect([all?.count, all?.mean, all?.exact]).toEqual([629, 46120, false]);
    expect(all?.bounds?.p99).toEqual({ min: 71630, max: 71630 });
    expect(run?.ops['http://127.0.0.1:18082/flaky-FAILED']?.count).toBe(128);
  });

  it("a run's duration and throughput are the ones wrk prints (it times no single request)", async () => {
    for (const name of ['wrk-404.txt', 'wrk-flaky.txt', 'wrk-latency.txt', 'wrk-timeouts.txt', 'wrk2-get-latency.txt', 'wrk2-interrupted.txt']) {
      const text = fixture(name);
      const [, amount, unit] = /\d+ requests in (\d+(?:\.\d+)?)(s|m)\b/.exec(text)!;
      const rate = Number(/^Requests\/sec:\s+(\S+)/m.exec(text)![1]);
      const { analysis } = await loadFiles([`${DIR}/${name}`]);
      const run = analysis.runs[0]!;
      expect([run.durationS, run.throughput], name).toEqual([Number(amount) * (unit === 'm' ? 60 : 1), rate]);
    }
  });

  it('is recognised from its content, ahead of the .hgrm reader that wrk2 spectra also resemble', () => {
    for (const name of ['wrk2-get-latency.txt', 'wrk2-uncorrected.txt', 'wrk-latency.txt', 'wrk2-interrupted.txt']) {
      expect(detectFormat(fixture(name), 'out.hgrm')?.id, name).toBe('wrk');
    }
  });
});

describe('wrk: damaged and unusual input', () => {
  it('cut before the "requests in" line: nothing is counted, and that is said', async () => {
    const text = fixture('wrk2-get-latency.txt');
    const cut = text.slice(0, text.indexOf('  19998 requests'));
    const f = await parse('cut.txt', cut);
    expect(f.series).toEqual([]);
    expect(f.errors.map((e) => [e.line, e.message])).toEqual([[0, expect.stringMatching(/no "N requests in …" line: the run was cut short/)]]);
  });

  it('cut inside the spectrum: the rows read are kept and the missing footer is said at the spectrum line', async () => {
    const lines = fixture('wrk2-get-latency.txt').split('\n');
    const spectrumAt = lines.findIndex((l) => l.includes('Detailed Percentile spectrum')) + 1;
    const cut = [...lines.slice(0, spectrumAt + 30), ...lines.slice(lines.findIndex((l) => l.startsWith('-----')))].join('\n');
    const f = await parse('cut.txt', cut);
    const intended = distributionOf(f, 'Intended-http://127.0.0.1:8080');
    expect(intended.rows.length).toBe(28);
    expect(f.errors).toEqual([expect.objectContaining({ line: spectrumAt, message: expect.stringMatching(/no "#\[Max = …, Total count = …\]" footer/) })]);
  });

  it('two runs in one file: the first is read, the second is said at its first line', async () => {
    const a = fixture('wrk-latency.txt');
    const b = fixture('wrk-flaky.txt');
    const f = await parse('two.txt', a + b);
    const secondAt = a.split('\n').length;
    expect(f.errors).toEqual([expect.objectContaining({ line: secondAt, message: expect.stringMatching(/a second wrk run starts here/) })]);
    expect(f.series.map((s) => s.op)).toEqual(['http://127.0.0.1:18080/index.html']);
  });

  it('a damaged thread-stats line is skipped with its line number; CRLF and a BOM change nothing', async () => {
    const text = fixture('wrk-latency.txt');
    const damaged = text.replace('4.51ms', '4.51xs');
    const f = await parse('damaged.txt', damaged);
    expect(f.errors).toEqual([expect.objectContaining({ line: 4, field: 'Latency' })]);
    expect(f.skippedLines).toBe(1);
    const crlf = await parse('crlf.txt', `\uFEFF${text.replace(/\n/g, '\r\n')}`);
    expect(crlf.series).toEqual((await parse('wrk-latency.txt')).series);
  });
});
