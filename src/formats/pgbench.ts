import { MAX_EPOCH_MS, msToMicros, parseNonNegativeInteger, parseScaledDecimal } from '../model/numbers.ts';
import type { IntervalRow, IntervalsSeries, LatencySeries, ParsedFile, ProducerInfo, PrintedSeries } from '../model/types.ts';
import { FailureTally } from '../model/failures.ts';
import { IssueLog, LineParserBase, type FormatModule } from './format.ts';
import { outcomeSeries } from './outcomes.ts';
import { SampleCounter } from './sample-counter.ts';

/**
 * pgbench (PostgreSQL's benchmark client): its three kinds of output, told apart by the first line
 * that holds anything.
 *
 * - The per-transaction log (`-l`, one file per thread: `pgbench_log.<pid>[.<thread>]`):
 *   `client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]` — `time`
 *   is the latency in µs, or `skipped` (`--rate` with `--latency-limit`) or, from PostgreSQL 15,
 *   `failed` / `serialization` / `deadlock` (`--failures-detailed`; `other` in later versions);
 *   `schedule_lag` (µs) only with `--rate`, `retries` only with `--max-tries` ≠ 1 (PostgreSQL 15+).
 *   Raw samples per script (`script<N>` after script_no), timed by their completion.
 * - The aggregated log (`--aggregate-interval`): up to PostgreSQL 14
 *   `interval_start num_transactions sum_latency sum_latency_2 min_latency max_latency
 *   [sum_lag sum_lag_2 min_lag max_lag [skipped]]` (6, 10 or 11 columns; num_transactions then
 *   counts the skipped transactions too, which have no latency); from 15 on every column
 *   is always written, 0 when not measured: `… max_latency sum_lag sum_lag_2 min_lag max_lag skipped
 *   retried retries serialization_failures deadlock_failures` (15), later also
 *   `other_sql_failures` (16) — the failure columns hold 0 unless `--failures-detailed` was given,
 *   and the log does not say whether it was. One interval row each, with exact count, mean,
 *   stddev, min and max; pgbench never writes the last, incomplete interval, and the first row's
 *   length is not known from the log (0).
 * - The text report (stdout, with `--progress` lines from stderr): whole-run and per-script
 *   summaries, and `progress:` lines as intervals.
 *
 * With `--rate`, pgbench measures latency from each transaction's *scheduled* start ("When
 * throttling is active, the transaction latency reported at the end of the run is calculated from
 * the scheduled start times, so it includes the average schedule lag time", pgbench docs, --rate;
 * the log's `time` is the same quantity: pgbench.c processXactStats, `latency = now -
 * txn_scheduled; lag = txn_begin - txn_scheduled`). So the logged latency is the intended
 * (coordinated-omission-corrected) one, `Intended-script<N>`, and the service time is latency − lag,
 * `script<N>`. Skipped and failed transactions have no latency: they become `script<N>-FAILED`
 * counts (per second for the per-transaction log, per interval for the aggregated log).
 *
 * A file longer than ~500 lines: the three kinds share detection, the op naming, the rate split and
 * the second-run rules, and pgbench's users get them from one place.
 */

/** Transaction outcomes the per-transaction log writes in place of a latency. */
export const SKIPPED = 'skipped';
export const FAILURES: ReadonlySet<string> = new Set(['failed', 'serialization', 'deadlock', 'other']);
/**
 * What a per-transaction log's settings say (ParsedFile.producer): its extra columns as the parser
 * decided them, which `requests` reads the file by (src/engine/request-columns.ts).
 */
export const TRANSACTION_LOG = { log: 'per-transaction (-l)', lag: 'schedule lag column (--rate)', retries: 'retries column (--max-tries)' } as const;
/** Epoch seconds are at least this (1973); pgbench writes Unix-epoch times in both logs. */
const EPOCH_MIN_S = 1e8;
const EPOCH_MAX_S = Math.floor(MAX_EPOCH_MS / 1000) - 1;
/** Column counts of the aggregated log: ≤14 without/with --rate, with --latency-limit; 15+. */
const AGGREGATE_COLUMNS = new Set([6, 10, 11, 15, 16]);
/** Rows of a 7-column per-transaction log held back until it shows whether column 7 is lag or retries. */
const UNDECIDED_ROWS = 1000;

function fields(text: string): string[] {
  const t = text.trim();
  return t.length === 0 ? [] : t.split(/[ \t]+/);
}

function epochSeconds(text: string | undefined): number | null {
  const v = text === undefined ? null : parseNonNegativeInteger(text);
  return v !== null && v >= EPOCH_MIN_S && v <= EPOCH_MAX_S ? v : null;
}

/** Whether `f` has the shape of a per-transaction log row. */
function isTransactionRow(f: readonly string[]): boolean {
  if (f.length < 6 || f.length > 8) return false;
  const [client = '', txn = '', time = '', script = '', , us = ''] = f;
  const number = (s: string) => parseNonNegativeInteger(s) !== null;
  const micros = parseNonNegativeInteger(us);
  return (
    number(client) &&
    number(txn) &&
    (number(time) || time === SKIPPED || FAILURES.has(time)) &&
    number(script) &&
    epochSeconds(f[4]) !== null &&
    micros !== null &&
    micros < 1e6 &&
    f.slice(6).every(number) &&
    // An aggregated row starts with its epoch second: a client id never looks like one.
    epochSeconds(client) === null
  );
}

/**
 * Transactions with a latency in an aggregated row: up to PostgreSQL 14 `num_transactions` also
 * counts the skipped ones (column 11; pgbench.c accumStats counted `cnt` before `skipped`), from 15
 * on it counts successful ones only.
 */
function executed(n: readonly number[]): number {
  return n.length === 11 ? (n[1] ?? 0) - (n[10] ?? 0) : (n[1] ?? 0);
}

/** Whether `f` has the shape of an aggregated log row (its sums consistent with its count, min and max). */
function isAggregateRow(f: readonly string[]): boolean {
  if (!AGGREGATE_COLUMNS.has(f.length) || epochSeconds(f[0]) === null) return false;
  const n = f.map((s) => parseNonNegativeInteger(s));
  if (n.some((v) => v === null)) return false;
  const [, , sum = 0, , min = 0, max = 0, lagSum = 0, , lagMin = 0, lagMax = 0] = n as number[];
  const count = executed(n as number[]);
  if (count < 0) return false;
  const within = (total: number, lo: number, hi: number) => lo <= hi && total >= count * lo - 1 && total <= count * hi + 1;
  // The lag is part of each transaction's latency (pgbench measures from the scheduled start).
  return count === 0 || (within(sum, min, max) && (f.length < 10 || (lagSum <= sum && within(lagSum, lagMin, lagMax))));
}

/** ms with up to 3 decimals (pgbench's `%.3f`) → µs; null for nan. */
// ---------------------------------------------------------------------------------------------
// Per-transaction log

type Extra = 'none' | 'lag' | 'retries' | 'lag+retries';

interface FailedSeconds {
  /** Epoch second → failed/skipped transactions in it, and the first line that had one. */
  seconds: Map<number, { count: number; line: number }>;
}

class TransactionLog {
  private columns = 0;
  private extra: Extra | null = null;
  private readonly held: { f: string[]; lineNo: number }[] = [];
  private readonly counter = new SampleCounter();
  private readonly seriesIndex = new Map<string, number>();
  private readonly failed = new Map<string, FailedSeconds>();
  /** Failed and skipped transactions by the word the log writes in place of their latency. */
  readonly failures = new FailureTally();
  private readonly lastTransaction = new Map<string, number>();
  /** Transaction numbers a client skipped: only `--sampling-rate` leaves gaps (failed and skipped ones are logged). */
  private unlogged = 0;
  /** A damaged row was skipped since the last row taken: the next gap may be its transaction, not sampling. */
  private gapUnknown = false;

  constructor(private readonly issues: IssueLog) {}

  row(text: string, lineNo: number): void {
    if (this.issues.countIfStopped()) return;
    const f = fields(text);
    if (f.length === 0) return;
    if (this.columns === 0) this.columns = f.length;
    if (f.length !== this.columns || !isTransactionRow(f)) {
      this.gapUnknown = true;
      if (f.length !== this.columns) {
        return this.issues.skip(lineNo, `${f.length} fields where this log's rows have ${this.columns} (client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries])`);
      }
      return this.issues.skip(lineNo, `not a pgbench per-transaction log row: "${text.slice(0, 80)}"`);
    }
    if (this.extra === null) this.extra = this.columns === 6 ? 'none' : this.columns === 8 ? 'lag+retries' : null;
    if (this.extra !== null) return this.take(f, lineNo);
    this.held.push({ f, lineNo });
    const seventh = Number(f[6]);
    // Column 7 is the schedule lag if anything was skipped (only --rate skips), and the retries
    // if a failed transaction has a non-zero value there (pgbench logs no lag for failed ones).
    if (f[2] === SKIPPED) this.decide('lag');
    else if (FAILURES.has(f[2] ?? '') && seventh > 0) this.decide('retries');
    else if (this.held.length >= UNDECIDED_ROWS) this.decide(this.guess());
  }

  /**
   * Without such evidence: the lag of a throttled transaction is its start delay in µs, rarely 0;
   * retries are mostly 0. Mostly zeros among the completed transactions means retries.
   */
  private guess(): Extra {
    let completed = 0;
    let zeros = 0;
    for (const { f } of this.held) {
      if (parseNonNegativeInteger(f[2] ?? '') === null) continue;
      completed++;
      if (f[6] === '0') zeros++;
    }
    return zeros * 2 > completed ? 'retries' : 'lag';
  }

  private decide(extra: Extra): void {
    this.extra = extra;
    const held = this.held.splice(0);
    for (const { f, lineNo } of held) {
      if (!this.issues.countIfStopped()) this.take(f, lineNo);
    }
  }

  private take(f: string[], lineNo: number): void {
    const [client = '', txnText = '', time = '', script = '', epochText = '', usText = ''] = f;
    const txn = Number(txnText);
    const last = this.lastTransaction.get(client);
    if (last !== undefined && txn <= last) {
      return this.issues.stopAt(lineNo, `client ${client}'s transaction numbers start again (${txn} after ${last}): a second run's log follows; it is not read`);
    }
    if (last !== undefined && !this.gapUnknown) this.unlogged += txn - last - 1;
    this.gapUnknown = false;
    this.lastTransaction.set(client, txn);
    const op = `script${script}`;
    const second = Number(epochText);
    const timeMs = second * 1000 + Math.floor(Number(usText) / 1000);
    if (time === SKIPPED || FAILURES.has(time)) {
      this.countFailed(`${op}-FAILED`, second, lineNo);
      this.failures.add(op, time, null);
      return;
    }
    const latency = Number(time);
    const lag = this.extra === 'lag' || this.extra === 'lag+retries' ? Number(f[6]) : null;
    if (lag === null) {
      this.counter.add(this.series(op), timeMs, latency);
      return;
    }
    if (lag > latency) {
      this.gapUnknown = true;
      return this.issues.skip(lineNo, `schedule lag ${lag} µs exceeds the latency ${latency} µs, which includes it`);
    }
    this.counter.add(this.series(op), timeMs, latency - lag);
    this.counter.add(this.series(`Intended-${op}`), timeMs, latency);
  }

  private series(op: string): number {
    let i = this.seriesIndex.get(op);
    if (i === undefined) {
      i = this.seriesIndex.size;
      this.seriesIndex.set(op, i);
    }
    return i;
  }

  private countFailed(op: string, second: number, lineNo: number): void {
    let f = this.failed.get(op);
    if (!f) {
      f = { seconds: new Map() };
      this.failed.set(op, f);
    }
    const cell = f.seconds.get(second);
    if (cell) cell.count++;
    else f.seconds.set(second, { count: 1, line: lineNo });
  }

  finish(): { series: LatencySeries[]; producer: ProducerInfo } {
    if (this.extra === null && this.held.length > 0) this.decide(this.guess());
    if (this.unlogged > 0) {
      this.issues.note(0, `the clients' transaction numbers skip ${this.unlogged} transactions: a sampled log (--sampling-rate)? Its counts and throughput are the sample's`);
    }
    const ops = [...this.seriesIndex.keys()];
    const counted = this.counter.finish(ops.length);
    const series: LatencySeries[] = ops.map((op, i) => ({ kind: 'raw', op, unit: 'us', ...(counted[i] as ReturnType<SampleCounter['finish']>[number]) }));
    for (const [op, f] of this.failed) {
      const rows = [...f.seconds].sort((a, b) => a[0] - b[0]).map(([second, c]) => intervalRow(second * 1e6, 1e6, c.count, c.line));
      series.push({ kind: 'intervals', op, unit: 'us', timeBase: 'absolute', rows });
    }
    const extra = this.extra ?? 'none';
    return {
      series,
      producer: {
        tool: 'pgbench',
        settings: {
          log: TRANSACTION_LOG.log,
          [TRANSACTION_LOG.lag]: extra.startsWith('lag') ? 'yes' : 'no',
          [TRANSACTION_LOG.retries]: extra.endsWith('retries') ? 'yes' : 'no',
        },
      },
    };
  }
}

function intervalRow(startUs: number, lengthUs: number, count: number, line: number, figures: Partial<IntervalRow> = {}): IntervalRow {
  return { startUs, lengthUs, count, mean: null, stddev: null, min: null, max: null, percentiles: {}, line, ...figures };
}

// ---------------------------------------------------------------------------------------------
// Aggregated log

interface AggregateRow {
  line: number;
  start: number;
  n: number[];
}

class AggregateLog {
  private columns = 0;
  private readonly rows: AggregateRow[] = [];

  constructor(private readonly issues: IssueLog) {}

  row(text: string, lineNo: number): void {
    if (this.issues.countIfStopped()) return;
    const f = fields(text);
    if (f.length === 0) return;
    if (this.columns === 0) this.columns = f.length;
    if (f.length !== this.columns) {
      return this.issues.skip(lineNo, `${f.length} fields where this aggregated log's rows have ${this.columns} (interval_start num_transactions sum_latency sum_latency_2 min_latency max_latency …)`);
    }
    if (!isAggregateRow(f)) return this.issues.skip(lineNo, `not a pgbench aggregated log row (whole numbers, an epoch second first, sums within count × min … count × max): "${text.slice(0, 80)}"`);
    const n = f.map(Number);
    const start = n[0] as number;
    const previous = this.rows[this.rows.length - 1];
    if (previous && start <= previous.start) {
      return this.issues.stopAt(lineNo, `interval start ${start} is not after the previous one (${previous.start}): a second run's log follows; it is not read`);
    }
    this.rows.push({ line: lineNo, start, n });
  }

  finish(): { series: LatencySeries[]; producer: ProducerInfo | null } {
    const columns = this.columns;
    // Up to 14 the lag columns exist only with --rate; from 15 on they are 0 without it, so the
    // first interval with transactions tells (each row is read alike whatever follows it).
    const firstBusy = this.rows.find((r) => executed(r.n) > 0);
    const throttled = columns >= 10 && (columns < 15 || (firstBusy !== undefined && ((firstBusy.n[6] ?? 0) > 0 || (firstBusy.n[9] ?? 0) > 0)));
    const failures = (r: AggregateRow): number => {
      const n = r.n;
      if (columns === 11) return n[10] ?? 0;
      if (columns >= 15) return (n[10] ?? 0) + (n[13] ?? 0) + (n[14] ?? 0) + (n[15] ?? 0);
      return 0;
    };
    const op: IntervalRow[] = [];
    const intended: IntervalRow[] = [];
    const failed: IntervalRow[] = [];
    this.rows.forEach((r, i) => {
      const [, , sum = 0, sum2 = 0, min = 0, max = 0, lagSum = 0] = r.n;
      const count = executed(r.n);
      const startUs = r.start * 1e6;
      // pgbench writes every interval, empty ones too: the gap to the previous start is the
      // interval; the first one's length the log does not say.
      const previous = this.rows[i - 1];
      const lengthUs = previous ? (r.start - previous.start) * 1e6 : 0;
      const exact: Partial<IntervalRow> = count > 0 ? { mean: sum / count, stddev: Math.sqrt(Math.max(0, sum2 / count - (sum / count) ** 2)), min, max } : {};
      if (throttled) {
        intended.push(intervalRow(startUs, lengthUs, count, r.line, exact));
        // Service time = latency − lag per transaction: its mean is exact, its spread and extremes are not known.
        op.push(intervalRow(startUs, lengthUs, count, r.line, count > 0 ? { mean: (sum - lagSum) / count } : {}));
      } else {
        op.push(intervalRow(startUs, lengthUs, count, r.line, exact));
      }
      const f = failures(r);
      if (f > 0) failed.push(intervalRow(startUs, lengthUs, f, r.line));
    });
    const series: LatencySeries[] = [];
    const push = (name: string, rows: IntervalRow[]) => series.push({ kind: 'intervals', op: name, unit: 'us', timeBase: 'absolute', rows });
    if (op.length > 0) push('script0', op);
    if (intended.length > 0) push('Intended-script0', intended);
    if (failed.length > 0) push('script0-FAILED', failed);
    // No provenance of its own: a row already yields up to three series, and the log says nothing
    // about the run beyond its rows.
    return { series, producer: null };
  }
}

// ---------------------------------------------------------------------------------------------
// Text report (stdout and --progress lines)

interface Totals {
  line: number;
  count: number | null;
  failed: number;
  skipped: number;
  /**
   * µs. Measured (of the successful transactions) when pgbench printed a stddev beside it;
   * otherwise pgbench computed it as run time × clients ÷ transactions, failed ones included
   * when it says `(including failures)`.
   */
  mean: number | null;
  /** The printed mean covers the failed transactions too (`latency average = … ms (including failures)`). */
  meanWithFailures: boolean;
  stddev: number | null;
}

interface Script extends Totals {
  index: number;
  name: string;
}

interface Progress {
  line: number;
  tUs: number;
  /** tps × 10 (pgbench prints it with one decimal). */
  tpsTenths: number;
  latUs: number | null;
  stddevUs: number | null;
  lagUs: number | null;
  failed: number;
}

const PROGRESS = /^progress: (\d+(?:\.\d+)?) s, (\d+(?:\.\d)?) tps, lat (\S+) ms stddev ([^\s,]+)(.*)$/;
/** Every script of a multi-script run together: a view of transactions the scripts' own figures count. */
const ALL_SCRIPTS = 'all scripts (all requests)';
/** Report lines kept as the run's settings, as printed. */
const SETTING = /^(?:transaction type|scaling factor|query mode|number of clients|number of threads|maximum number of tries|maximum try duration|number of transactions per client|duration|initial connection time|tps|total number of retries|number of .+)$/;
const NUMBER_AND_PERCENT = /^(\d+)(?:\/\d+)? ?(?:\(.*\))?$/;

function emptyTotals(line: number): Totals {
  return { line, count: null, failed: 0, skipped: 0, mean: null, meanWithFailures: false, stddev: null };
}

class TextReport {
  private version: string | undefined;
  private readonly settings: Record<string, string> = {};
  private readonly total: Totals = emptyTotals(0);
  private readonly scripts: Script[] = [];
  private readonly progress: Progress[] = [];
  private lagAvgUs: number | null = null;
  private summaryStart: number | null = null;
  /** `transaction type: multiple scripts`: figures come per script, progress lines are of all of them. */
  private multiScript = false;

  constructor(private readonly issues: IssueLog) {}

  row(raw: string, lineNo: number): void {
    if (this.issues.countIfStopped()) return;
    const text = raw.trim();
    if (text.length === 0) return;
    if (text.startsWith('progress: ')) return this.progressLine(text, lineNo);
    const header = /^pgbench \((.+)\)$/.exec(text);
    if (header || text.startsWith('transaction type: ')) {
      if ((header && this.version !== undefined) || (!header && this.summaryStart !== null)) return this.secondRun(lineNo, 'a second pgbench report');
      if (header) this.version = header[1];
      else {
        this.summaryStart = lineNo;
        this.multiScript = text === 'transaction type: multiple scripts';
      }
    }
    if (text.startsWith('SQL script ')) return this.scriptHeader(text, lineNo);
    if (text.startsWith('- ')) return this.scriptLine(text.slice(2), lineNo);
    const sep = /^([a-z][a-z .0-9]*?)(?::| =) (.*)$/.exec(text);
    if (sep) this.keyValue(sep[1] ?? '', sep[2] ?? '', lineNo, this.total);
  }

  private secondRun(lineNo: number, what: string): void {
    this.issues.stopAt(lineNo, `${what} starts here (two runs in one file?); it is not read`);
  }

  private keyValue(key: string, value: string, lineNo: number, into: Totals): void {
    const count = (): number | null => {
      const m = NUMBER_AND_PERCENT.exec(value);
      const v = m ? parseNonNegativeInteger(m[1] ?? '') : null;
      if (v === null) this.issues.skip(lineNo, `${key}: "${value.slice(0, 60)}" is not a count`);
      return v;
    };
    const millis = (): number | null => {
      const m = /^(\d+(?:\.\d+)?) ms(?: \(.*\))?$/.exec(value);
      const v = m ? msToMicros(m[1] ?? '') : null;
      if (v === null) this.issues.skip(lineNo, `${key}: "${value.slice(0, 60)}" is not a latency in ms`);
      return v;
    };
    switch (key) {
      case 'number of transactions actually processed': {
        if (into === this.total && this.total.count !== null) return this.secondRun(lineNo, 'a second pgbench summary');
        into.count = count();
        into.line = lineNo;
        return;
      }
      case 'number of failed transactions':
        into.failed = count() ?? 0;
        return;
      case 'number of transactions skipped':
        into.skipped = count() ?? 0;
        return;
      case 'latency average':
        into.mean = millis();
        into.meanWithFailures = /\(including failures\)$/.test(value);
        if (into === this.total) this.settings[key] = value;
        return;
      case 'latency stddev':
        into.stddev = millis();
        return;
      case 'rate limit schedule lag': {
        const m = /^avg (\d+(?:\.\d+)?) \(max (\d+(?:\.\d+)?)\) ms$/.exec(value);
        this.lagAvgUs = m ? msToMicros(m[1] ?? '') : null;
        if (this.lagAvgUs === null) this.issues.skip(lineNo, `rate limit schedule lag: "${value.slice(0, 60)}" is not "avg X (max Y) ms"`);
        return;
      }
      default:
        if (into === this.total && SETTING.test(key)) {
          // ≤13 prints tps twice (including and excluding connection time).
          const before = this.settings[key];
          this.settings[key] = before === undefined ? value : `${before}; ${value}`;
        }
    }
  }

  private scriptHeader(text: string, lineNo: number): void {
    const m = /^SQL script (\d+): (.*)$/.exec(text);
    const index = m ? parseNonNegativeInteger(m[1] ?? '') : null;
    if (!m || index === null || index < 1) return this.issues.skip(lineNo, `unrecognised script header "${text.slice(0, 80)}"`);
    this.scripts.push({ ...emptyTotals(lineNo), index, name: m[2] ?? '' });
  }

  private scriptLine(text: string, lineNo: number): void {
    const script = this.scripts[this.scripts.length - 1];
    if (!script) return;
    const txns = /^(\d+) transactions \(/.exec(text);
    if (txns) {
      script.count = parseNonNegativeInteger(txns[1] ?? '');
      return;
    }
    const sep = /^([a-z][a-z .0-9]*?)(?::| =) (.*)$/.exec(text);
    if (sep) this.keyValue(sep[1] ?? '', sep[2] ?? '', lineNo, script);
  }

  private progressLine(text: string, lineNo: number): void {
    const m = PROGRESS.exec(text);
    const tUs = m ? parseScaledDecimal(m[1] ?? '', 6) : null;
    const tpsTenths = m ? parseScaledDecimal(m[2] ?? '', 1) : null;
    if (!m || tUs === null || tpsTenths === null) return this.issues.skip(lineNo, `not a pgbench progress line ("progress: T s, X tps, lat Y ms stddev Z…"): "${text.slice(0, 80)}"`);
    const previous = this.progress[this.progress.length - 1];
    if ((previous && tUs <= previous.tUs) || this.total.count !== null) return this.secondRun(lineNo, 'progress of a second run');
    const nan = (s: string) => /^-?nan$/i.test(s);
    const latUs = nan(m[3] ?? '') ? null : msToMicros(m[3] ?? '');
    const stddevUs = nan(m[4] ?? '') ? null : msToMicros(m[4] ?? '');
    if ((latUs === null && !nan(m[3] ?? '')) || (stddevUs === null && !nan(m[4] ?? ''))) return this.issues.skip(lineNo, `latency or stddev of a progress line is not a number: "${text.slice(0, 80)}"`);
    let lagUs: number | null = null;
    let failed = 0;
    for (const part of (m[5] ?? '').split(', ')) {
      if (part.length === 0) continue;
      const lag = /^lag (\S+) ms$/.exec(part);
      const counted = /^(\d+) (failed|skipped|retried|retries)$/.exec(part);
      if (lag) lagUs = msToMicros(lag[1] ?? '');
      else if (counted && (counted[2] === 'failed' || counted[2] === 'skipped')) failed += Number(counted[1]);
      else if (!counted) return this.issues.skip(lineNo, `unrecognised part "${part.slice(0, 40)}" in a progress line`);
    }
    this.progress.push({ line: lineNo, tUs, tpsTenths, latUs, stddevUs, lagUs, failed });
  }

  finish(): { series: LatencySeries[]; producer: ProducerInfo } {
    const series: LatencySeries[] = [];
    const throttled = this.lagAvgUs !== null;
    if (this.multiScript) {
      for (const s of this.scripts) if (s.count !== null) series.push(...summaries(`script${s.index - 1}`, s, throttled ? null : 0));
      // The report's own figures of every script together: shown, never counted again.
      const t = this.total;
      if (t.count !== null) {
        const count = t.count + (t.meanWithFailures ? t.failed : 0);
        series.push({ kind: 'printed', op: ALL_SCRIPTS, unit: 'us', count, mean: count > 0 ? t.mean : null, stddev: count > 0 ? t.stddev : null, min: null, max: null, percentiles: {}, returns: {} });
      }
    } else if (this.total.count !== null) {
      series.push(...summaries('script0', this.total, this.lagAvgUs ?? 0));
    }
    if (this.total.mean !== null && this.total.stddev === null) {
      // Without --progress, --rate or --latency-limit pgbench measures no latency (pgbench.c printResults).
      this.settings['latency average, how'] = 'computed by pgbench: run time × clients ÷ transactions (not measured per transaction)';
    }
    if (this.summaryStart !== null && this.total.count === null) {
      this.issues.note(0, `the report that starts at line ${this.summaryStart} has no "number of transactions actually processed": the run was interrupted or the output cut`);
    }
    if (this.progress.length > 0) series.push(...this.progressSeries());
    const producer: ProducerInfo = { tool: 'pgbench', settings: this.settings };
    if (this.version !== undefined) producer.version = this.version;
    // The report covers every client thread: beside their -l logs it is their report, not more data.
    return { series: series.map((s) => ({ ...s, scope: 'run' as const })), producer };
  }

  /**
   * Progress lines as intervals: count = tps × interval length, rounded (pgbench prints a rate, not
   * a count). With several scripts they are all of them together: shown under a name that is never
   * counted again (`… (all requests)`), their failures left to the per-script figures.
   */
  private progressSeries(): LatencySeries[] {
    const name = this.multiScript ? ALL_SCRIPTS : 'script0';
    const absolute = (this.progress[0]?.tUs ?? 0) >= EPOCH_MIN_S * 1e6;
    const op: IntervalRow[] = [];
    const intended: IntervalRow[] = [];
    const failed: IntervalRow[] = [];
    this.progress.forEach((p, i) => {
      const previous = this.progress[i - 1];
      // Relative times count from the run's start; the first of --progress-timestamp's epoch times has no known start.
      const lengthUs = previous ? p.tUs - previous.tUs : absolute ? 0 : p.tUs;
      const startUs = p.tUs - lengthUs;
      const count = Math.round((p.tpsTenths * lengthUs) / 1e7);
      if (p.lagUs !== null && p.latUs !== null) {
        intended.push(intervalRow(startUs, lengthUs, count, p.line, count > 0 ? { mean: p.latUs, stddev: p.stddevUs } : {}));
        op.push(intervalRow(startUs, lengthUs, count, p.line, count > 0 ? { mean: Math.max(0, p.latUs - p.lagUs) } : {}));
      } else {
        op.push(intervalRow(startUs, lengthUs, count, p.line, count > 0 ? { mean: p.latUs, stddev: p.stddevUs } : {}));
      }
      if (p.failed > 0) failed.push(intervalRow(startUs, lengthUs, p.failed, p.line));
    });
    const timeBase = absolute ? 'absolute' : 'relative';
    const out: IntervalsSeries[] = [{ kind: 'intervals', op: name, unit: 'us', timeBase, rows: op }];
    if (intended.length > 0) out.push({ kind: 'intervals', op: `Intended-${name}`, unit: 'us', timeBase, rows: intended });
    if (failed.length > 0 && !this.multiScript) out.push({ kind: 'intervals', op: `${name}-FAILED`, unit: 'us', timeBase, rows: failed });
    return out;
  }
}

/**
 * A whole-run (or one script's) summary: count exact; the mean and stddev as printed — measured
 * when pgbench printed a stddev, else its run time × clients ÷ transactions. With --rate the
 * printed latency includes the schedule lag: it is the intended one, and the service mean is that
 * minus the average lag when pgbench printed it (`lagUs`; null when it did not, for a script's
 * figures). A mean `(including failures)` covers the failed transactions too: it goes to
 * `<op> (including failures)` (src/formats/outcomes.ts), never to the successful ones alone.
 */
function summaries(op: string, t: Totals, lagUs: number | null): LatencySeries[] {
  const count = t.count ?? 0;
  const summary = (name: string, n: number, m: number | null, s: number | null): PrintedSeries => ({ kind: 'printed', op: name, unit: 'us', count: n, mean: n > 0 ? m : null, stddev: n > 0 ? s : null, min: null, max: null, percentiles: {}, returns: {} });
  if (lagUs === 0) {
    const failed = t.meanWithFailures ? t.failed : 0;
    return outcomeSeries(op, { ok: count, failed, failedApart: t.failed - failed + t.skipped }, { unit: 'us' }, (name, n) => summary(name, n, t.mean, t.stddev));
  }
  const out: PrintedSeries[] = [summary(op, count, t.mean !== null && lagUs !== null ? Math.max(0, t.mean - lagUs) : null, null), summary(`Intended-${op}`, count, t.mean, t.stddev)];
  if (t.failed + t.skipped > 0) out.push(summary(`${op}-FAILED`, t.failed + t.skipped, null, null));
  return out;
}

// ---------------------------------------------------------------------------------------------

type Kind = 'transactions' | 'aggregate' | 'text';

function kindOf(line: string): Kind {
  const f = fields(line);
  if (isAggregateRow(f)) return 'aggregate';
  if (isTransactionRow(f)) return 'transactions';
  return 'text';
}

class PgbenchParser extends LineParserBase {
  private reader: TransactionLog | AggregateLog | TextReport | null = null;

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    // A BOM may open a second file concatenated onto the first.
    const t = text.replace(/^\uFEFF/, '');
    if (this.reader === null) {
      if (t.trim().length === 0) return;
      const kind = kindOf(t);
      this.reader = kind === 'aggregate' ? new AggregateLog(this.issues) : kind === 'transactions' ? new TransactionLog(this.issues) : new TextReport(this.issues);
    }
    this.reader.row(t, lineNo);
  }

  finish(): ParsedFile {
    const read = this.reader?.finish();
    const file = this.parsed('pgbench', { series: read?.series ?? [] });
    if (read?.producer) file.producer = read.producer;
    const failures = this.reader instanceof TransactionLog ? this.reader.failures.of('requests') : undefined;
    if (failures) file.failures = failures;
    if (!read) this.issues.note(0, 'no pgbench output found');
    return file;
  }
}

/** The first complete lines of a head that hold anything (the head's last line may be cut). */
function headLines(head: string, max: number): string[] {
  const all = head.split('\n');
  if (all.length > 1 && !head.endsWith('\n')) all.pop();
  const out: string[] = [];
  for (const l of all) {
    if (l.trim().length === 0) continue;
    out.push(l);
    if (out.length >= max) break;
  }
  return out;
}

/** A log whose first row is pgbench's and most of its head's rows too (a damaged row does not hide it). */
function logScore(head: string): number {
  const lines = headLines(head, 50);
  const first = lines[0];
  if (first === undefined) return 0;
  const kind = kindOf(first);
  if (kind === 'text') return 0;
  const test = kind === 'aggregate' ? isAggregateRow : isTransactionRow;
  const width = fields(first).length;
  const valid = lines.filter((l) => {
    const f = fields(l);
    return f.length === width && test(f);
  }).length;
  if (valid * 5 < lines.length * 4) return 0;
  return valid >= 2 ? 0.95 : 0.8;
}

const TEXT_SIGNS: [RegExp, number][] = [
  [/^number of transactions actually processed: \d+/m, 1],
  [/^progress: \d+(?:\.\d+)? s, \d+(?:\.\d)? tps, lat /m, 0.95],
  [/^pgbench \(\d+[^\n)]*\)?\)$/m, 0.9],
  [/^transaction type: (?:<builtin: |multiple scripts|\S)/m, 0.6],
];

export const pgbenchFormat: FormatModule = {
  id: 'pgbench',
  label: 'pgbench (per-transaction log, aggregated log, report and progress)',
  detect(head) {
    let score = logScore(head);
    for (const [sign, weight] of TEXT_SIGNS) if (weight > score && sign.test(head)) score = weight;
    return score;
  },
  createParser: (path) => new PgbenchParser(path),
};
