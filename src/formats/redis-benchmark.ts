import { HdrLayout } from '../model/hdr-layout.ts';
import { msToMicros, parseNonNegativeInteger } from '../model/numbers.ts';
import type { DistributionSeries, HdrPrecision, LatencySeries, ParsedFile, PrintedSeries } from '../model/types.ts';
import { LineParserBase, type FormatModule } from './format.ts';

/**
 * redis-benchmark's outputs (also valkey-benchmark's), one test per block or row:
 *
 * - Default text, Redis 7+: `====== SET ======`, `N requests completed in X seconds`, the settings,
 *   `Latency by percentile distribution:` (`P% <= V milliseconds (cumulative count C)`, one row per
 *   percentile tick of HdrHistogram's percentile iterator, 1 tick per half distance, a row only
 *   when its count changed), `Cumulative distribution of latencies:` (the same rows at 0.1 ms steps
 *   up to 2 ms, then 1 ms steps), and `Summary:` (rps, then avg min p50 p95 p99 max in ms).
 *   redis-benchmark records latencies in µs in an HdrHistogram (lowest value 10 µs, 3 significant
 *   digits: CONFIG_LATENCY_HISTOGRAM_MIN_VALUE, DEFAULT_LATENCY_PRECISION in redis-benchmark.c) and
 *   prints each value as its bucket's highest equivalent value / 1000 with `%.3f`, so every value is
 *   an exact µs. Both row sets become one DistributionSeries: a percentile whose rank falls on a
 *   tick row is exact (that bucket), elsewhere it is bounded by the neighbouring rows.
 * - Default text, Redis 6 and older: `P% <= V milliseconds` rows without counts (V is the lower
 *   edge of a 0.1 ms or 1 ms step, P rounded to 2 decimals): they give no exact count below any
 *   value and are not used; the count (`requests completed`) and rate are.
 * - `--csv`: Redis 7 `"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",
 *   "p95_latency_ms","p99_latency_ms","max_latency_ms"`; older ones `"test","rps"` rows only.
 * - `-q`: `SET: 41753.65 requests per second, p50=0.615 msec` (Redis 7; older: no p50).
 * The CSV and `-q` outputs hold no request count: their tests are summaries with count 0 and the
 * printed latencies (the settings say so); tests with no latency at all keep only their rate, in
 * the settings. redis-benchmark reports no failed requests.
 */

/** redis-benchmark's histogram (see above); checked against the printed minimum before it is used. */
const REDIS_PRECISION: HdrPrecision = { significantDigits: 3, lowestDiscernibleValue: 10 };

const TEST_HEADER = /^={6} (.+) ={6}$/;
const COMPLETED = /^(\d+) requests completed in (\d+(?:\.\d+)?) seconds$/;
const COUNTED_ROW = /^(\d+(?:\.\d+)?)% <= (\d+(?:\.\d+)?) milliseconds \(cumulative count (\d+)\)$/;
const OLD_ROW = /^\d+(?:\.\d+)?% <= \d+(?:\.\d+)? milliseconds$/;
const QUIET = /^(.+): (\d+(?:\.\d+)?) requests per second(?:, p50=(\d+(?:\.\d+)?) msec)?$/;
const CSV_HEADER = '"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"';

interface Row {
  valueUs: number;
  percentile: number;
  count: number;
}

interface Test {
  name: string;
  line: number;
  count: number | null;
  ticks: Row[];
  linear: Row[];
  section: 'ticks' | 'linear' | 'summary' | 'latency' | null;
  /** avg min p50 p95 p99 max in µs, from the Summary block. */
  summary: number[] | null;
  rps: string | null;
}

/**
 * The lowest rank a tick row's bucket is known to hold. The percentile iterator's ticks (1 per half
 * distance) are 100 · (1 − 2^-k) %, printed rounded to 3 decimals; the row is the bucket where the
 * cumulative count first reached the tick, so every rank from ⌈tick · total⌉ on (up to the row's
 * count) lies in it — that rank is N − ⌊N / 2^k⌋, in integers. A level that is no tick is read half
 * a printed unit higher, never claiming more than the row shows.
 */
function tickRank(printed: number, total: number): number {
  for (let k = 0; k <= 52; k++) {
    if (Math.abs(100 * (1 - 2 ** -k) - printed) <= 0.0005 + 1e-9) return total - Math.floor(total / 2 ** k);
  }
  return printed >= 100 ? total : Math.min(total, Math.ceil(((printed + 0.0005) / 100) * total));
}

/**
 * The percentile to store for a row whose bucket holds every rank from `rank` on: the engine reads
 * a row as exact for ranks r with 100·r/N ≥ 100·percentile + 1e-9 (src/model/distribution.ts), so
 * just below rank/N admits `rank` and not `rank − 1`.
 */
function admittingFrom(rank: number, total: number): number {
  return Math.min(1, Math.max(0, rank / total - 2e-11));
}

class RedisBenchmarkParser extends LineParserBase {
  private readonly settings: Record<string, string> = {};
  private readonly tests: Test[] = [];
  private readonly names = new Set<string>();
  private readonly csv: PrintedSeries[] = [];
  private csvHeader = false;

  line(raw: string, lineNo: number): void {
    this.lines = lineNo;
    if (this.issues.countIfStopped()) return;
    const text = raw.replace(/^\uFEFF/, '').trim();
    if (text.length === 0) return;
    if (text.startsWith('"')) return this.csvLine(text, lineNo);
    const header = TEST_HEADER.exec(text);
    if (header) return this.startTest(header[1] ?? '', lineNo);
    const test = this.tests[this.tests.length - 1];
    const quiet = text.startsWith('throughput summary: ') ? null : QUIET.exec(text);
    if (quiet) return this.quietLine(quiet, lineNo);
    if (test) this.testLine(test, text, lineNo);
  }

  private secondRun(lineNo: number, what: string): void {
    this.issues.stopAt(lineNo, `${what} (two runs in one file?); it is not read`);
  }

  private claim(name: string, lineNo: number): boolean {
    if (this.names.has(name)) {
      this.secondRun(lineNo, `a second result of test ${name}`);
      return false;
    }
    this.names.add(name);
    return true;
  }

  private startTest(name: string, lineNo: number): void {
    if (!this.claim(name, lineNo)) return;
    this.tests.push({ name, line: lineNo, count: null, ticks: [], linear: [], section: null, summary: null, rps: null });
  }

  private testLine(test: Test, text: string, lineNo: number): void {
    const completed = COMPLETED.exec(text);
    if (completed) {
      test.count = parseNonNegativeInteger(completed[1] ?? '');
      if (test.count === null) this.issues.skip(lineNo, `request count "${completed[1]}" is out of range`);
      return;
    }
    if (text === 'Latency by percentile distribution:') test.section = 'ticks';
    else if (text === 'Cumulative distribution of latencies:') test.section = 'linear';
    else if (text === 'Summary:') test.section = 'summary';
    else if (text === 'latency summary (msec):') test.section = 'latency';
    else if (COUNTED_ROW.test(text)) this.row(test, text, lineNo);
    else if (test.section === 'latency' && /^[\d.\s]+$/.test(text)) this.latencySummary(test, text, lineNo);
    else if (OLD_ROW.test(text)) return;
    else {
      const rps = /^(?:throughput summary: )?(\d+(?:\.\d+)?) requests per second$/.exec(text);
      if (rps) test.rps = rps[1] ?? null;
      else if (this.tests.length === 1) this.setting(text);
    }
  }

  /** `20 parallel clients`, `3 bytes payload`, `keep alive: 1`, `multi-thread: no`, … as printed (the first test's). */
  private setting(text: string): void {
    const m = /^(\d+) (parallel clients|bytes payload)$/.exec(text) ?? /^((?:keep alive|multi-thread|threads|cluster mode|host configuration "[a-z]+")): ?(.*)$/.exec(text);
    if (!m) return;
    const [key, value] = /^\d/.test(m[1] ?? '') ? [m[2] ?? '', m[1] ?? ''] : [m[1] ?? '', m[2] ?? ''];
    this.settings[key] = value;
  }

  private row(test: Test, text: string, lineNo: number): void {
    const m = COUNTED_ROW.exec(text) as RegExpExecArray;
    const printed = Number(m[1]);
    const valueUs = msToMicros(m[2] ?? '');
    const count = parseNonNegativeInteger(m[3] ?? '');
    if (valueUs === null || count === null || !(printed >= 0 && printed <= 100)) return this.issues.skip(lineNo, `value, percentage (0–100) or cumulative count out of range: "${text.slice(0, 80)}"`);
    if (test.section !== 'ticks' && test.section !== 'linear') return this.issues.skip(lineNo, 'a latency row outside a distribution section');
    // Rows are read against the test's request count, printed before them, so that each row means
    // the same whatever follows it.
    if (test.count === null || test.count === 0) return this.issues.skip(lineNo, 'a latency row before the test\'s "requests completed" line');
    if (count > test.count) return this.issues.skip(lineNo, `cumulative count ${count} exceeds the ${test.count} requests completed`);
    const rows = test.section === 'ticks' ? test.ticks : test.linear;
    const previous = rows[rows.length - 1];
    if (previous && (valueUs < previous.valueUs || count < previous.count)) return this.issues.skip(lineNo, 'row goes backwards (value and cumulative count must not decrease)');
    rows.push({ valueUs, percentile: printed, count });
  }

  private latencySummary(test: Test, text: string, lineNo: number): void {
    const values = text.split(/\s+/).map(msToMicros);
    if (values.length !== 6 || values.some((v) => v === null)) return this.issues.skip(lineNo, `latency summary "${text.slice(0, 80)}" is not six latencies in ms (avg min p50 p95 p99 max)`);
    test.summary = values as number[];
    test.section = null;
  }

  private quietLine(m: RegExpExecArray, lineNo: number): void {
    // Redis 7 prints a `-q` result after progress text on the same terminal line: the name is what follows the last progress.
    const name = m[1] ?? '';
    if (/: rps=/.test(name)) return;
    if (!this.claim(name, lineNo)) return;
    this.settings[`${name} requests/s`] = m[2] ?? '';
    if (m[3] === undefined) return;
    const p50 = msToMicros(m[3]);
    if (p50 === null) return this.issues.skip(lineNo, `p50 "${m[3]}" is not a latency in ms`);
    this.csv.push(summaryOf(name, null, { p50 }));
  }

  private csvLine(text: string, lineNo: number): void {
    if (text === CSV_HEADER) {
      if (this.csvHeader || this.names.size > 0) return this.secondRun(lineNo, 'a second CSV header');
      this.csvHeader = true;
      return;
    }
    if (!text.endsWith('"') || text.length < 2) return this.issues.skip(lineNo, `not a redis-benchmark CSV row: "${text.slice(0, 80)}"`);
    // The test name is printed unescaped: read the numbers from the right, the rest is the name.
    const fields = text.slice(1, -1).split('","');
    const numeric = fields.length >= 8 ? 7 : 1;
    const name = fields.slice(0, fields.length - numeric).join('","');
    const numbers = fields.slice(fields.length - numeric);
    if (name.length === 0 || !numbers.every((n) => /^\d+(?:\.\d+)?$/.test(n))) return this.issues.skip(lineNo, `not a redis-benchmark CSV row ("test","rps"[,latencies in ms]): "${text.slice(0, 80)}"`);
    if (!this.claim(name, lineNo)) return;
    this.settings[`${name} requests/s`] = numbers[0] ?? '';
    if (numeric === 1) return;
    const latencies = numbers.slice(1).map(msToMicros);
    const [avg, min, p50, p95, p99, max] = latencies;
    if (avg == null || min == null || p50 == null || p95 == null || p99 == null || max == null) return this.issues.skip(lineNo, `latencies of ${name} are not ms with up to 3 decimals`);
    this.csv.push(summaryOf(name, { avg, min, max }, { p50, p95, p99 }));
  }

  finish(): ParsedFile {
    const series: LatencySeries[] = [];
    for (const test of this.tests) series.push(...this.testSeries(test));
    series.push(...this.csv);
    if (this.csv.length > 0) this.settings['request counts'] = 'not in --csv or -q output: those tests show count 0';
    const file = this.parsed('redis-benchmark', { series });
    // A file that said nothing about the run (cut before its first line ended) has no provenance.
    if (Object.keys(this.settings).length > 0 || series.length > 0) file.producer = { tool: 'redis-benchmark', settings: this.settings };
    return file;
  }

  private testSeries(test: Test): LatencySeries[] {
    if (test.count === null) {
      this.issues.note(0, `test ${test.name} (line ${test.line}) has no "requests completed" line: the output was cut`);
      return [];
    }
    if (test.rps !== null) this.settings[`${test.name} requests/s`] = test.rps;
    const rows = mergeRows(test.ticks, test.linear, test.count);
    const last = rows[rows.length - 1];
    if (!last) {
      if (test.ticks.length === 0 && test.summary === null) return [summaryOf(test.name, null, {}, test.count)];
      this.issues.note(0, `test ${test.name} (line ${test.line}) has no latency rows`);
      return [];
    }
    if (last.totalCount !== test.count) {
      this.issues.note(0, `test ${test.name} (line ${test.line}): its distribution ends at ${last.totalCount} requests, not the ${test.count} completed; the output was cut`);
    }
    if (test.summary === null) this.issues.note(0, `test ${test.name} (line ${test.line}) has no Summary block: mean and max are not known`);
    const [avg = null, min = null, , , , max = null] = test.summary ?? [];
    const distribution: DistributionSeries = { kind: 'distribution', op: test.name, unit: 'us', rows, totalCount: last.totalCount, precision: null, mean: avg, stddev: null, max };
    // The histogram's lowest bucket value is the minimum redis-benchmark prints, unless it was run with another --precision.
    const first = rows[0] as DistributionSeries['rows'][number];
    if (min !== null && new HdrLayout(REDIS_PRECISION).lowestEquivalentValue(first.value) === min) distribution.precision = REDIS_PRECISION;
    return [distribution];
  }
}

/** Tick rows and step rows in value order; a step row at a tick row's value adds nothing. */
function mergeRows(ticks: readonly Row[], linear: readonly Row[], total: number): DistributionSeries['rows'] {
  if (total === 0) return [];
  const tickRows = ticks.map((t) => ({ value: t.valueUs, percentile: admittingFrom(tickRank(t.percentile, total), total), totalCount: t.count }));
  const out: DistributionSeries['rows'] = [];
  let i = 0;
  let j = 0;
  while (i < tickRows.length || j < linear.length) {
    const t = tickRows[i];
    const l = linear[j];
    if (t && (!l || t.value <= l.valueUs)) {
      out.push(t);
      if (l && l.valueUs === t.value) j++;
      i++;
    } else if (l) {
      // "l.count of the requests took at most l.valueUs": the engine never reads it as exact.
      out.push({ value: l.valueUs, percentile: l.count / total, totalCount: l.count });
      j++;
    }
  }
  // The two sections disagree only in a damaged file: then the tick rows alone.
  for (let k = 1; k < out.length; k++) {
    const a = out[k - 1] as (typeof out)[number];
    const b = out[k] as (typeof out)[number];
    if (b.totalCount < a.totalCount || b.percentile < a.percentile || b.value < a.value) return tickRows;
  }
  return out;
}

function summaryOf(op: string, figures: { avg: number; min: number; max: number } | null, percentiles: Record<string, number>, count = 0): PrintedSeries {
  return { kind: 'printed', op, unit: 'us', count, mean: figures?.avg ?? null, min: figures?.min ?? null, max: figures?.max ?? null, percentiles, returns: {} };
}

const SIGNS: [RegExp, number][] = [
  [/^"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms"/m, 1],
  [/^[ \t]*={6} [^\n]+ ={6}[ \t]*\n[ \t]*\d+ requests completed in \d/m, 1],
  [/^[ \t]*\d+ requests completed in \d+(?:\.\d+)? seconds$/m, 0.9],
  [/^(?:[^\n:]{1,200}): \d+(?:\.\d+)? requests per second(?:, p50=\d+(?:\.\d+)? msec)?$/m, 0.9],
];

/** Redis ≤6 `--csv`: every line a `"TEST","rps"` pair (the generic CSV reader would see a header-less table). */
function oldCsvScore(head: string): number {
  const lines = head.split('\n').filter((l) => l.trim().length > 0);
  const complete = lines.length > 1 && !head.endsWith('\n') ? lines.slice(0, -1) : lines;
  return complete.length > 0 && complete.slice(0, 50).every((l) => /^"[^"\n]{1,200}","\d+\.\d{2}"\s*$/.test(l)) ? 0.8 : 0;
}

export const redisBenchmarkFormat: FormatModule = {
  id: 'redis-benchmark',
  label: 'redis-benchmark (text, --csv, -q)',
  detect(head) {
    let score = oldCsvScore(head);
    for (const [sign, weight] of SIGNS) if (weight > score && sign.test(head)) score = weight;
    return score;
  },
  createParser: (path) => new RedisBenchmarkParser(path),
};
