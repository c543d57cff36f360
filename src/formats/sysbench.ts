import { msToMicros, parseNonNegativeInteger, parseScaledDecimal } from '../model/numbers.ts';
import type { DistributionSeries, IntervalRow, LatencySeries, ParsedFile, ProducerInfo, PrintedSeries } from '../model/types.ts';
import { LineParserBase, type FormatModule } from './format.ts';

/**
 * sysbench's text output (0.4, 0.5, 1.0 and later): the header, the per-interval report lines
 * (`--report-interval`), the `--histogram` table and the final statistics.
 *
 * - Interval lines. 1.x: `[ 10s ] thds: 8 tps: 1234.56 qps: … (r/w/o: …) lat (ms,95%): 12.34 err/s:
 *   0.00 reconn/s: 0.00` (database tests; the Lua `report_default` writes `err/s 0.00`) or
 *   `[ 10s ] thds: 8 eps: 1234.56 lat (ms,95%): 12.34` (other tests); 0.5: `[  10s] threads: 8, tps:
 *   …, reads: …, writes: …, response time: 12.34ms (95%), errors: 0.00, reconnects: 0.00`. sysbench
 *   prints *rates* (events ÷ the measured interval, `%4.2f`: db_driver.c db_report_intermediate),
 *   never counts, so an interval's count here is rate × interval length, rounded — close, not exact
 *   (the producer settings say so). Latency columns are the interval's percentile in ms.
 * - `--histogram` (1.x): `%12.3f |<stars> %lu` rows (sb_histogram.c sb_histogram_print): 1024
 *   logarithmic buckets from 0.001 to 100000 ms; bucket i holds the latencies v with
 *   round((ln v − ln 0.001) · 1023 / ln 1e8) = i, i.e. [e^((i−½)/m)·0.001, e^((i+½)/m)·0.001) ms with
 *   m = 1023/ln 1e8 ≈ 55.5 (±0.9 % around its value), and prints that value exp(i/m)·0.001 ms rounded
 *   to 1 µs. Its counts are exact: the table becomes a DistributionSeries with one row per printed
 *   bucket, whose percentiles (nearest rank) are exact *in sysbench's buckets*: the bucket holding
 *   the rank is known exactly, and the value shown is the one sysbench prints for it; the true
 *   latency lies within ±0.9 % of it. The buckets are the same for every run, so the tables of
 *   several clients sum exactly, bucket by bucket (DistributionSeries.allBuckets).
 * - Final statistics: `transactions: N (x per sec.)`, `ignored errors: N` (0.4/0.5: `deadlocks: N`),
 *   `total number of events: N`, `Latency (ms):` min/avg/max/`95th percentile`/sum (0.4/0.5:
 *   `min: 1.30ms` …, `approx.  95 percentile: …`, `total time taken by event execution: …s`).
 *   Counts are exact; latencies are printed in ms with 2 decimals.
 *
 * The operation is `transaction` (database tests: tps, SQL/OLTP statistics) or `event` (others);
 * ignored errors (0.4/0.5: deadlocks) are `transaction-FAILED`.
 */

interface IntervalLine {
  line: number;
  t: number;
  /** Rate × 100 (sysbench prints two decimals). */
  rateCents: number;
  errorCents: number;
  percentile: string | null;
  valueUs: number | null;
}

interface Block {
  line: number;
  checkpoint: boolean;
  events: number | null;
  transactions: number | null;
  errors: number;
  minUs: number | null;
  avgUs: number | null;
  maxUs: number | null;
  sumUs: number | null;
  percentile: string | null;
  percentileUs: number | null;
}

interface Bucket {
  valueUs: number;
  count: number;
}

const HEADER = /^sysbench (\d+\.\d+\S*?)(?::? +multi-threaded system evaluation benchmark| \(using (.*)\))$/;
const INTERVAL = /^\[ *(\d+)s ?\] (.*)$/;
const V1_LINE = /^thds: (\d+) (tps|eps): (\d+\.\d+)(?: qps: \S+ \(r\/w\/o: [^)]*\))? lat \(ms,(\d+)%\): (\d+\.\d+)(?: err\/s:? (\d+\.\d+) reconn\/s: \S+)?$/;
const KEY_VALUE = /^([A-Za-z0-9][A-Za-z0-9 ./()%-]*?):\s+(\S.*)$/;
/** A count as printed in the statistics: `6726`, `6726   (1343.21 per sec.)`. */
const COUNT = /^(\d+)(?:\s+\(.*\))?$/;

function emptyBlock(line: number, checkpoint: boolean): Block {
  return { line, checkpoint, events: null, transactions: null, errors: 0, minUs: null, avgUs: null, maxUs: null, sumUs: null, percentile: null, percentileUs: null };
}

class SysbenchParser extends LineParserBase {
  private version: string | undefined;
  private readonly settings: Record<string, string> = {};
  private reportIntervalS: number | null = null;
  private readonly intervals: IntervalLine[] = [];
  private histogram: Bucket[] | null = null;
  private inHistogram = false;
  private histogramLine = 0;
  private readonly blocks: Block[] = [];
  private nextIsCheckpoint = false;
  /** `transaction` or `event`, from the first line that tells: an interval line (tps/eps) or the statistics' heading. */
  private transactional: boolean | null = null;
  private started = false;
  private seenContent = false;

  line(raw: string, lineNo: number): void {
    this.lines = lineNo;
    if (this.issues.countIfStopped()) return;
    const text = raw.replace(/^\uFEFF/, '').trim();
    if (this.inHistogram && this.histogramRow(text, lineNo)) return;
    if (text.length === 0) return;
    const header = HEADER.exec(text);
    if (header) {
      if (this.seenContent) return this.secondRun(lineNo, 'a second sysbench header');
      this.version = header[1];
      if (header[2] !== undefined) this.settings['Lua'] = header[2];
      return;
    }
    this.seenContent = true;
    const interval = INTERVAL.exec(text);
    if (interval) return this.intervalLine(Number(interval[1]), interval[2] ?? '', lineNo);
    if (text === 'Latency histogram (values are in milliseconds)') {
      if (this.histogram !== null) return this.secondRun(lineNo, 'a second latency histogram');
      this.histogram = [];
      this.inHistogram = true;
      this.histogramLine = lineNo;
      return;
    }
    if (text === 'Threads started!') this.started = true;
    if (text === 'SQL statistics:' || text === 'OLTP test statistics:') {
      this.transactional ??= true;
      return this.newBlock(lineNo, true);
    }
    if (text === 'General statistics:' || text === 'Test execution summary:' || text === 'Throughput:') return this.newBlock(lineNo, false);
    const rate = /^Report intermediate results every (\d+) second\(s\)$/.exec(text);
    if (rate) {
      this.reportIntervalS = Number(rate[1]);
      return;
    }
    const kv = KEY_VALUE.exec(text);
    if (kv) this.keyValue(kv[1] ?? '', (kv[2] ?? '').trim(), lineNo);
  }

  private secondRun(lineNo: number, what: string): void {
    this.issues.stopAt(lineNo, `${what} starts here (two runs in one file?); it is not read`);
  }

  /** A section that opens the final statistics: a new block, unless this one has only begun. */
  private newBlock(lineNo: number, opens: boolean): void {
    const current = this.blocks[this.blocks.length - 1];
    if (current && !opens && current.events === null) return;
    if (current && !this.nextIsCheckpoint && !current.checkpoint) return this.secondRun(lineNo, 'a second set of final statistics');
    this.blocks.push(emptyBlock(lineNo, this.nextIsCheckpoint));
    this.nextIsCheckpoint = false;
  }

  private histogramRow(text: string, lineNo: number): boolean {
    if (/^value +-+ distribution -+ count$/.test(text)) return true;
    const bar = text.indexOf(' |');
    if (bar < 0) {
      this.inHistogram = false;
      return false;
    }
    const valueUs = msToMicros(text.slice(0, bar));
    const rest = text.slice(bar + 2);
    const space = rest.lastIndexOf(' ');
    const count = parseNonNegativeInteger(space < 0 ? rest : rest.slice(space + 1));
    const stars = space < 0 ? '' : rest.slice(0, space);
    if (valueUs === null || count === null || !/^[* ]*$/.test(stars)) {
      this.issues.skip(lineNo, `not a histogram row ("value |*** count"): "${text.slice(0, 80)}"`);
      return true;
    }
    const buckets = this.histogram as Bucket[];
    const previous = buckets[buckets.length - 1];
    if (previous && valueUs < previous.valueUs) {
      this.issues.skip(lineNo, `histogram value ${text.slice(0, bar).trim()} ms is below the previous row's: rows must ascend`);
      return true;
    }
    if (count > 0) buckets.push({ valueUs, count });
    return true;
  }

  private intervalLine(t: number, rest: string, lineNo: number): void {
    if (rest === 'Checkpoint report:') {
      this.nextIsCheckpoint = true;
      return;
    }
    let parsed: Omit<IntervalLine, 'line' | 't'> | string | null = null;
    if (rest.startsWith('thds: ')) parsed = v1Interval(rest);
    else if (rest.startsWith('threads: ')) parsed = v05Interval(rest);
    // Other tests' lines (fileio's MiB/s, memory's MiB/sec, the --rate queue line) hold no count.
    if (parsed === null) return;
    if (typeof parsed === 'string') return this.issues.skip(lineNo, parsed);
    const previous = this.intervals[this.intervals.length - 1];
    if (previous && t <= previous.t) return this.secondRun(lineNo, `an interval report at ${t} s after one at ${previous.t} s`);
    if (this.blocks.length > 0 && !this.nextIsCheckpoint && !this.blocks[this.blocks.length - 1]?.checkpoint) return this.secondRun(lineNo, 'an interval report after the final statistics');
    this.transactional ??= !rest.startsWith('thds: ') || / tps: /.test(rest.slice(0, 40));
    this.intervals.push({ line: lineNo, t, ...parsed });
  }

  private keyValue(key: string, value: string, lineNo: number): void {
    const block = this.blocks[this.blocks.length - 1];
    const count = (): number | null => {
      const m = COUNT.exec(value);
      const v = m ? parseNonNegativeInteger(m[1] ?? '') : null;
      if (v === null) this.issues.skip(lineNo, `${key}: "${value.slice(0, 60)}" is not a count`);
      return v;
    };
    const latency = (): number | null => {
      // sysbench 0.x prints `12.34ms`, 1.x `12.34`.
      const v = msToMicros(value.endsWith('ms') ? value.slice(0, -2) : value);
      if (v === null) this.issues.skip(lineNo, `${key}: "${value.slice(0, 60)}" is not a latency in ms`);
      return v;
    };
    if (key === 'Number of threads' || key === 'Target transaction rate') {
      this.settings[key] = value;
      return;
    }
    if (!block) return;
    const percentile = /^(?:(\d+)th percentile|approx\. +(\d+) percentile)$/.exec(key);
    if (percentile) {
      block.percentile = `p${percentile[1] ?? percentile[2]}`;
      block.percentileUs = latency();
      return;
    }
    switch (key) {
      case 'transactions':
        block.transactions = count();
        return;
      case 'ignored errors':
      case 'deadlocks':
        block.errors += count() ?? 0;
        return;
      case 'total number of events':
        block.events = count();
        return;
      case 'min':
        block.minUs = latency();
        return;
      case 'avg':
        block.avgUs = latency();
        return;
      case 'max':
        block.maxUs = latency();
        return;
      case 'sum':
        block.sumUs = latency();
        return;
      case 'total time taken by event execution': {
        // 0.4/0.5: seconds with 4 decimals (0.4 omits the unit).
        const v = parseScaledDecimal(value.endsWith('s') ? value.slice(0, -1) : value, 6);
        if (v === null) this.issues.skip(lineNo, `${key}: "${value.slice(0, 60)}" is not a time in s`);
        block.sumUs = v;
        return;
      }
      case 'total time':
      case 'time elapsed':
      case 'reconnects':
      case 'queries':
      case 'events per second':
      case 'events/s (eps)':
        if (!block.checkpoint) this.settings[key] = value;
        return;
    }
  }

  finish(): ParsedFile {
    const op = this.transactional === true ? 'transaction' : 'event';
    const series: LatencySeries[] = [];
    const block = this.combinedBlock();
    if (this.intervals.length > 0) series.push(...this.intervalSeries(op));
    const events = block?.events ?? block?.transactions ?? null;
    if (this.histogram !== null && this.histogram.length > 0) {
      series.push(this.distribution(op, this.histogram, block));
      const total = this.histogram.reduce((a, b) => a + b.count, 0);
      if (events !== null && total !== events) {
        this.issues.note(0, `the latency histogram (line ${this.histogramLine}) holds ${total} events, the final statistics ${events}`);
      }
    } else if (block && events !== null) {
      series.push(summary(op, events, block));
    }
    if (block && block.errors > 0) series.push({ kind: 'printed', op: `${op}-FAILED`, unit: 'us', count: block.errors, mean: null, min: null, max: null, percentiles: {}, returns: {} });
    if (events === null && (this.started || this.intervals.length > 0 || this.histogram !== null)) {
      this.issues.note(0, 'no final statistics (total number of events): the run was interrupted or the output cut');
    }
    if (this.blocks.length > 1) this.settings['checkpoint reports'] = `${this.blocks.length - 1}, summed with the final statistics`;
    const file = this.parsed('sysbench', { series });
    // A file that said nothing about the run (cut before its first line ended) has no provenance.
    if (this.version !== undefined || Object.keys(this.settings).length > 0 || series.length > 0) {
      const producer: ProducerInfo = { tool: 'sysbench', settings: this.settings };
      if (this.version !== undefined) producer.version = this.version;
      file.producer = producer;
    }
    return file;
  }

  /**
   * The final statistics; with `--report-checkpoints` each checkpoint's statistics cover the time
   * since the previous one, and are summed (counts, sums) or combined (min, max) with them; the
   * percentile of the parts cannot be combined.
   */
  private combinedBlock(): Block | null {
    const [first, ...rest] = this.blocks;
    if (!first || rest.length === 0) return first ?? null;
    const all = this.blocks;
    const sum = (f: (b: Block) => number | null): number | null => (all.every((b) => f(b) !== null) ? all.reduce((a, b) => a + (f(b) as number), 0) : null);
    const min = all.every((b) => b.minUs !== null) ? Math.min(...all.map((b) => b.minUs as number)) : null;
    const max = all.every((b) => b.maxUs !== null) ? Math.max(...all.map((b) => b.maxUs as number)) : null;
    return { ...emptyBlock(first.line, false), events: sum((b) => b.events), transactions: sum((b) => b.transactions), errors: all.reduce((a, b) => a + b.errors, 0), minUs: min, maxUs: max, sumUs: sum((b) => b.sumUs) };
  }

  private intervalSeries(op: string): LatencySeries[] {
    const rows: IntervalRow[] = [];
    const failed: IntervalRow[] = [];
    this.intervals.forEach((r, i) => {
      const previousT = this.intervals[i - 1]?.t ?? 0;
      const lengthS = this.reportIntervalS ?? r.t - previousT;
      const startUs = Math.max(0, r.t - lengthS) * 1e6;
      const row = (count: number, percentiles: Record<string, number>): IntervalRow => ({ startUs, lengthUs: lengthS * 1e6, count, mean: null, stddev: null, min: null, max: null, percentiles, line: r.line });
      const count = Math.round((r.rateCents * lengthS) / 100);
      rows.push(row(count, count > 0 && r.percentile !== null && r.valueUs !== null ? { [r.percentile]: r.valueUs } : {}));
      const errors = Math.round((r.errorCents * lengthS) / 100);
      if (errors > 0) failed.push(row(errors, {}));
    });
    const out: LatencySeries[] = [{ kind: 'intervals', op, unit: 'us', timeBase: 'relative', rows }];
    if (failed.length > 0) out.push({ kind: 'intervals', op: `${op}-FAILED`, unit: 'us', timeBase: 'relative', rows: failed });
    return out;
  }

  /**
   * One row per printed bucket: its value and its cumulative count. Every non-empty bucket is
   * listed, so the first row whose cumulative count reaches a rank is the bucket holding it: each
   * row is exact for every rank (src/model/distribution.ts reads a row as exact from its
   * `percentile` on), which a `percentile` of 0 says — a share of the total instead would change
   * with every row read after it.
   */
  private distribution(op: string, buckets: readonly Bucket[], block: Block | null): DistributionSeries {
    let below = 0;
    const rows = buckets.map((b) => {
      below += b.count;
      return { value: b.valueUs, percentile: 0, totalCount: below };
    });
    const total = below;
    const events = block?.events ?? null;
    // sum ÷ events is closer to the mean than the printed avg (both printed with 2 decimals).
    const mean = block && events !== null && events === total && block.sumUs !== null ? block.sumUs / events : (block?.avgUs ?? null);
    // sysbench's buckets are fixed (1024 from 0.001 to 100000 ms): every client's table sums with every other's.
    return { kind: 'distribution', op, unit: 'us', rows, totalCount: total, precision: null, mean, stddev: null, max: block?.maxUs ?? null, allBuckets: true };
  }
}

function summary(op: string, count: number, block: Block): PrintedSeries {
  const mean = block.sumUs !== null && count > 0 ? block.sumUs / count : block.avgUs;
  const percentiles: Record<string, number> = {};
  if (block.percentile !== null && block.percentileUs !== null && count > 0) percentiles[block.percentile] = block.percentileUs;
  return { kind: 'printed', op, unit: 'us', count, mean: count > 0 ? mean : null, min: count > 0 ? block.minUs : null, max: count > 0 ? block.maxUs : null, percentiles, returns: {} };
}

function v1Interval(rest: string): Omit<IntervalLine, 'line' | 't'> | string {
  const m = V1_LINE.exec(rest);
  if (!m) return `not a sysbench interval line ("thds: N tps|eps: X … lat (ms,P%): Y …"): "${rest.slice(0, 80)}"`;
  const rateCents = parseScaledDecimal(m[3] ?? '', 2);
  const errorCents = m[6] === undefined ? 0 : parseScaledDecimal(m[6], 2);
  const valueUs = msToMicros(m[5] ?? '');
  if (rateCents === null || errorCents === null || valueUs === null) return `a rate or latency of an interval line is not a number: "${rest.slice(0, 80)}"`;
  const p = Number(m[4]);
  return { rateCents, errorCents, percentile: p > 0 && p <= 100 ? `p${p}` : null, valueUs };
}

/** 0.5: `threads: 8, tps: 5060.40, reads: …, writes: …, response time: 1.73ms (95%)[, errors: 0.00, reconnects:  0.00]`. */
function v05Interval(rest: string): Omit<IntervalLine, 'line' | 't'> | string | null {
  const parts = new Map<string, string>();
  for (const part of rest.split(', ')) {
    const colon = part.indexOf(': ');
    if (colon > 0) parts.set(part.slice(0, colon), part.slice(colon + 2).trim());
  }
  const tps = parts.get('tps');
  if (tps === undefined) return null;
  const response = /^(\d+\.\d+)ms \((\d+)%\)$/.exec(parts.get('response time') ?? '');
  const rateCents = parseScaledDecimal(tps, 2);
  const errors = parts.get('errors');
  const errorCents = errors === undefined ? 0 : parseScaledDecimal(errors, 2);
  const valueUs = response ? msToMicros(response[1] ?? '') : null;
  if (rateCents === null || errorCents === null || !response || valueUs === null) return `not a sysbench 0.5 interval line ("threads: N, tps: X, …, response time: Yms (P%)"): "${rest.slice(0, 80)}"`;
  const p = Number(response[2]);
  return { rateCents, errorCents, percentile: p > 0 && p <= 100 ? `p${p}` : null, valueUs };
}

const SIGNS: [RegExp, number][] = [
  [/^sysbench \d+\.\d+\S*?(?::? +multi-threaded system evaluation benchmark| \(using )/m, 1],
  [/^\[ *\d+s ?\] (?:thds: \d+ (?:tps|eps): \d|threads: \d+, tps: \d)/m, 0.95],
  [/^Latency histogram \(values are in milliseconds\)$/m, 0.95],
  [/^(?:SQL statistics|OLTP test statistics):$/m, 0.9],
  [/^ +total number of events: +\d+$/m, 0.85],
];

export const sysbenchFormat: FormatModule = {
  id: 'sysbench',
  label: 'sysbench (report lines, --histogram, final statistics)',
  detect(head) {
    let score = 0;
    for (const [sign, weight] of SIGNS) if (weight > score && sign.test(head)) score = weight;
    return score;
  },
  createParser: (path) => new SysbenchParser(path),
};
