import { includingFailuresOf } from '../model/naming.ts';
import { msToMicros, parseNonNegativeInteger, parseScaledDecimal } from '../model/numbers.ts';
import type { IntervalRow, IntervalsSeries, ParsedFile, ProducerInfo, PrintedSeries } from '../model/types.ts';
import { clip, LineParserBase, MAX_MESSAGE_CHARS, type FormatModule, type LineParser } from './format.ts';
import { hdrLogScore, producerHdrLog } from './hdr-log.ts';
import { outcomeSeries } from './outcomes.ts';

/**
 * cassandra-stress (Apache Cassandra 2.1–5.0 `tools/stress`, and ScyllaDB's fork): its text log
 * (stdout, or `-log file=`) and its HdrHistogram log (`-log hdrfile=`). One module, two kinds of
 * file; the parser tells them apart from the first meaningful line.
 *
 * Text log (StressMetrics.printRow / summarise, identical in 3.11, 4.x, 5.0 and the ScyllaDB fork
 * but for the width of the type column, `%-10s` before 4.0 and `%-50s` since):
 *   type       total ops,    op/s,    pk/s,   row/s,    mean,     med,     .95,     .99,    .999,     max,   time,   stderr, errors,  gc: #,  max ms,  sum ms,  sdv ms,      mb
 *   READ,            847,     847,     847,     847,     0.4,     0.4,     0.9,     2.1,     3.7,     5.0,    1.0,  0.00000,      0,      0,       0,       0,       0,       0
 *   total,          1073, …
 * `total ops` is CUMULATIVE (the op's whole-run count so far), `time` the run's elapsed seconds at
 * the interval's end, `errors` the interval's failed operations (counted in `total ops`: a failed
 * operation is timed like any other), latencies the interval's in ms (`%8.1f`). With one operation
 * type only the `total` row is printed; with several, one row per type (sorted by name) and then
 * `total`, which sums them and is never read as an operation of its own. So an interval's count is
 * exact (the difference of cumulative counts); its percentiles are the tool's, over all of the
 * interval's operations, failed ones included — bounds once intervals are merged.
 * With `-rate fixed=N/s` the printed latencies are response times measured from each operation's
 * intended start (TimingInterval.getLatencyHistogram); otherwise service times. The log does not
 * say which (`-rate throttle=` prints the same settings), so they stay under the operation's name.
 *
 * The log has no wall-clock time: `time` is relative to the run's start, so the intervals' time
 * base is relative. Several runs in one file — the auto-rate thread sweep (`Running with N
 * threadCount` … `Improvement over …`), or logs concatenated — are read one after the other on one
 * timeline, each starting where the previous one's last interval ended (the pauses between them
 * are not in the log); `producer.settings.runs` says how many. Each run's `Results:` block gives a
 * whole-run summary when the file holds one run only: the blocks of several runs describe
 * different runs and cannot be merged into one figure, so the intervals alone speak for the file.
 *
 * HdrHistogram log: tags `<OP>-st` (service time: from the operation's actual start) → `<OP>`,
 * `<OP>-rt` (response time: from its intended start, coordinated omission corrected; recorded only
 * with a fixed rate) → `Intended-<OP>`, `<OP>-wt` (time queued before the actual start: not an
 * operation, so not read). Values are nanoseconds: StressMetrics.record() records
 * `ended - started` and `ended - intended`, both `System.nanoTime()` readings (Timer.stop()), and
 * Interval_Max is written with HistogramLogWriter's default ns→ms ratio.
 *
 * One file of over 500 lines: a producer is one module, and its text log's versions (2.1 to 5.0,
 * several runs in one log) share detection, column reading and op naming with its HDR logs.
 */

const SETTINGS_BANNER = /^\*{5,} Stress Settings \*{5,}$/;
/** `type       total ops,    op/s,    pk/s, …` (3.x/4.x), `type,      total ops, …` (3.0), `total ops , op/s, …` (2.1). */
const ROW_HEADER = /^(?:type,?\s+)?total ops\s*,\s*op\/s,\s*pk\/s,\s*row\/s,/;
/** The auto-rate sweep's closing table: `id, type total ops, …` rows prefixed with `  4 threadCount, `. */
const SWEEP_HEADER = /^\s*id,\s*type[\s,]+total ops\s*,/;
const RUNNING = /^Running (\[[^\]]*\]|\S+) with (\d+) threads?\b/;
const THREAD_COUNT = /^Running with (\d+) threadCount$/;
const RESULTS = /^Results:\s*$/;
/** A row's first field: the operation type as the tool names it (`WRITE`, `insert`, `total`, a user query). */
const ROW_START = /^([A-Za-z_][\w.:-]*),\s*\d/;
/** 2.1 rows have no type column: `28983     ,   28976, …`. */
const UNTYPED_ROW_START = /^\d+\s*,\s*\d/;
const SUMMARY_LINE = /^(op rate|partition rate|row rate|latency (?:mean|median|95th percentile|99th percentile|99\.9th percentile|max)|total partitions|total errors|total operation time)\s*:\s*(.*)$/i;

/** Figures of a Results block line, as µs (latencies) or counts, overall and per operation. */
const SUMMARY_PERCENTILE: Record<string, string> = {
  'latency median': 'p50',
  'latency 95th percentile': 'p95',
  'latency 99th percentile': 'p99',
  'latency 99.9th percentile': 'p99.9',
};

/** Columns read from an interval row, by their header names. */
const COLUMN = { type: 'type', ops: 'total ops', rate: 'op/s', mean: 'mean', med: 'med', p95: '.95', p99: '.99', p999: '.999', max: 'max', time: 'time', errors: 'errors' } as const;

/** A milliseconds figure as printed (`%8.1f`, or `%,.1f` in Results) → integer µs; null when not a plain decimal. */
/** A latency in ms as printed, grouped or plain (`1,234.5`) → µs; null when not a non-negative decimal. */
function latencyMicros(text: string): number | null {
  const us = msToMicros(text.replace(/,/g, ''));
  return us !== null && us >= 0 ? us : null;
}

/** A count as printed with Java's `%,d` grouping (`40,000`) or plain. */
function groupedCount(text: string): number | null {
  const t = text.trim();
  if (!/^\d{1,3}(?:,\d{3})*$|^\d+$/.test(t)) return null;
  return parseNonNegativeInteger(t.replace(/,/g, ''));
}

interface ParsedRow {
  type: string;
  cumulative: number;
  /** The interval's printed op/s; NaN when the column is absent or not a number. */
  rate: number;
  timeUs: number;
  errors: number;
  mean: number | null;
  percentiles: Record<string, number>;
  max: number | null;
  line: number;
}

/** One operation's series across the whole file (all runs). */
interface OpSeries {
  ok: IntervalsSeries;
  failed: IntervalsSeries | null;
  /** Intervals with both: their figures, of every operation of the interval (`<op> (including failures)`). */
  all: IntervalsSeries | null;
}

/** One run: from its `Running …` line (or the file's first row) to the next. */
interface Run {
  /** Operation types the `Running …` line names; empty when the log does not show it. */
  ops: string[];
  threads: number | null;
  /** µs on the file's timeline where this run's time 0 lies. */
  offsetUs: number;
  /** End (run-relative µs) of the last complete interval. */
  lastTimeUs: number;
  /** Each operation's cumulative count after the last complete interval. */
  cumulative: Map<string, number>;
  /** The `total` row's cumulative count after the last complete interval. */
  totalCumulative: number;
  /** Intervals that printed only a `total` row while several operation types were named. */
  unattributed: { row: ParsedRow; count: number; startUs: number }[];
  intervals: number;
  results: Map<string, Partial<Record<string, number>>>;
  resultsOverall: Partial<Record<string, number>>;
}

class CassandraStressTextParser extends LineParserBase {
  private readonly settings: Record<string, string> = {};
  private settingsSection: string | null = null;
  private inSettings = false;
  private columns: string[] | null = null;
  private inSweepTable = false;
  private inResults = false;
  private pendingThreads: number | null = null;
  private readonly runs: Run[] = [];
  /** Rows of the interval being read (operation rows come before their `total` row). */
  private block: ParsedRow[] = [];
  private readonly series = new Map<string, OpSeries>();
  private running: string | null = null;

  line(raw: string, lineNo: number): void {
    this.lines = lineNo;
    const text = raw.trimEnd();
    const line = text.trimStart();
    if (line.length === 0) {
      this.inSettings = false;
      return;
    }
    if (SETTINGS_BANNER.test(line)) {
      this.inSettings = true;
      this.settingsSection = null;
      return;
    }
    if (this.inSettings && this.setting(text)) return;
    this.inSettings = false;

    const threadCount = THREAD_COUNT.exec(line);
    if (threadCount) {
      this.pendingThreads = Number(threadCount[1]);
      return;
    }
    const running = RUNNING.exec(line);
    if (running) {
      this.startRun(running[1] ?? '', Number(running[2]), lineNo);
      this.running = clip(line, 80);
      return;
    }
    if (SWEEP_HEADER.test(line)) {
      this.closeBlock(lineNo);
      this.inSweepTable = true;
      this.inResults = false;
      return;
    }
    if (ROW_HEADER.test(line)) {
      this.header(line, lineNo);
      return;
    }
    if (RESULTS.test(line)) {
      this.closeBlock(lineNo);
      this.inResults = true;
      return;
    }
    if (line === 'END') {
      this.inResults = false;
      this.inSweepTable = false;
      return;
    }
    if (this.inResults) {
      const summary = SUMMARY_LINE.exec(line);
      if (summary) {
        this.summaryLine((summary[1] ?? '').toLowerCase(), summary[2] ?? '', lineNo);
        return;
      }
    }
    // The sweep table repeats each run's whole-run rows: they are not intervals.
    if (this.inSweepTable) return;
    if (this.columns && (this.columns[0] === COLUMN.type ? ROW_START : UNTYPED_ROW_START).test(line)) this.row(line, lineNo);
    // Anything else (driver warnings, stack traces, `Sleeping 2s...`) is not this format's business.
  }

  /** A `  Key: value` line of the settings dump, kept under its section (`Rate.Thread Count`). */
  private setting(text: string): boolean {
    const section = /^([A-Za-z][\w ]*):\s*$/.exec(text);
    if (section) {
      this.settingsSection = section[1] ?? null;
      return true;
    }
    const entry = /^\s{2,}([^:]+?):\s*(.*)$/.exec(text);
    if (!entry) return false;
    if (Object.keys(this.settings).length < 200) {
      const key = this.settingsSection ? `${this.settingsSection}.${entry[1] ?? ''}` : (entry[1] ?? '');
      this.settings[key.slice(0, 80)] = (entry[2] ?? '').slice(0, MAX_MESSAGE_CHARS);
    }
    return true;
  }

  private startRun(opsText: string, threads: number, lineNo: number): void {
    this.closeBlock(lineNo);
    this.inResults = false;
    this.inSweepTable = false;
    const ops = opsText.startsWith('[')
      ? opsText
          .slice(1, -1)
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s.length > 0)
      : [opsText];
    const previous = this.runs[this.runs.length - 1];
    // A `Running …` line before any row of its run replaces a run that never printed a row.
    if (previous && previous.intervals === 0 && previous.unattributed.length === 0) this.runs.pop();
    this.runs.push(this.newRun(ops, threads ?? this.pendingThreads));
    this.pendingThreads = null;
  }

  private newRun(ops: string[], threads: number | null): Run {
    const previous = this.runs[this.runs.length - 1];
    return {
      ops,
      threads,
      offsetUs: previous ? previous.offsetUs + previous.lastTimeUs : 0,
      lastTimeUs: 0,
      cumulative: new Map(),
      totalCumulative: 0,
      unattributed: [],
      intervals: 0,
      results: new Map(),
      resultsOverall: {},
    };
  }

  private currentRun(): Run {
    let run = this.runs[this.runs.length - 1];
    if (!run) {
      run = this.newRun([], this.pendingThreads);
      this.runs.push(run);
    }
    return run;
  }

  private header(line: string, lineNo: number): void {
    this.closeBlock(lineNo);
    this.inResults = false;
    this.inSweepTable = false;
    const fields = line.split(',').map((f) => f.trim());
    const first = fields[0] ?? '';
    const columns: string[] = [];
    if (/^type\b/.test(first)) {
      columns.push(COLUMN.type);
      const rest = first.slice(4).trim();
      if (rest.length > 0) columns.push(rest);
    } else columns.push(first);
    columns.push(...fields.slice(1));
    this.columns = columns;
  }

  private row(line: string, lineNo: number): void {
    const columns = this.columns as string[];
    const hasType = columns[0] === COLUMN.type;
    const fields = line.split(',').map((f) => f.trim());
    if (fields.length !== columns.length) {
      this.issues.skip(lineNo, `interval row has ${fields.length} comma-separated fields, its header ${columns.length} (a cut or garbled line)`);
      return;
    }
    const at = (name: string): string | undefined => {
      const i = columns.indexOf(name);
      return i < 0 ? undefined : fields[i];
    };
    const type = hasType ? (fields[0] ?? '') : '';
    const cumulative = parseNonNegativeInteger(at(COLUMN.ops) ?? '');
    if (cumulative === null) {
      this.issues.skip(lineNo, `"total ops" ${JSON.stringify(clip(at(COLUMN.ops) ?? '', 80))} is not a whole number`, COLUMN.ops);
      return;
    }
    const timeText = at(COLUMN.time) ?? '';
    const timeUs = parseScaledDecimal(timeText, 6);
    if (timeUs === null || timeUs < 0) {
      this.issues.skip(lineNo, `"time" ${JSON.stringify(clip(timeText, 80))} is not a number of seconds`, COLUMN.time);
      return;
    }
    const errorsText = at(COLUMN.errors);
    const errors = errorsText === undefined ? 0 : parseNonNegativeInteger(errorsText);
    if (errors === null) {
      this.issues.skip(lineNo, `"errors" ${JSON.stringify(clip(errorsText ?? '', 80))} is not a whole number`, COLUMN.errors);
      return;
    }
    const latency: Record<string, number | null> = {};
    for (const [key, name] of [
      ['mean', COLUMN.mean],
      ['p50', COLUMN.med],
      ['p95', COLUMN.p95],
      ['p99', COLUMN.p99],
      ['p99.9', COLUMN.p999],
      ['max', COLUMN.max],
    ] as const) {
      const text = at(name);
      if (text === undefined) continue;
      const us = latencyMicros(text);
      if (us === null && text !== 'NaN') {
        this.issues.skip(lineNo, `latency "${name}" ${JSON.stringify(clip(text, 80))} is not a number of milliseconds`, name);
        return;
      }
      latency[key] = us;
    }
    const percentiles: Record<string, number> = {};
    for (const key of ['p50', 'p95', 'p99', 'p99.9']) {
      const v = latency[key];
      if (v !== undefined && v !== null) percentiles[key] = v;
    }
    const parsed: ParsedRow = { type, cumulative, rate: Number(at(COLUMN.rate) ?? Number.NaN), timeUs, errors, mean: latency.mean ?? null, percentiles, max: latency.max ?? null, line: lineNo };
    if (hasType && type !== 'total') {
      this.block.push(parsed);
      return;
    }
    this.closeInterval(parsed, lineNo);
  }

  /** A `total` row (or a 2.1 row without a type) closes the interval its operation rows opened. */
  private closeInterval(total: ParsedRow, lineNo: number): void {
    let run = this.currentRun();
    const block = this.block;
    this.block = [];
    if (total.timeUs < run.lastTimeUs || total.cumulative < run.totalCumulative) {
      // Time and counts start again with no `Running …` line: logs concatenated (the header may be
      // repeated within a run, `-reporting header-frequency=`, so it does not mark a run itself).
      run = this.newRun(run.ops, null);
      this.runs.push(run);
    }
    const startUs = run.lastTimeUs;
    const intervalTotal = total.cumulative - run.totalCumulative;
    if (block.length === 0) {
      const op = run.ops.length === 1 ? (run.ops[0] as string) : run.ops.length === 0 ? 'total' : null;
      if (op === null) run.unattributed.push({ row: total, count: intervalTotal, startUs });
      else this.addRow(run, op, total, intervalTotal, startUs);
    } else {
      const sum = block.reduce((a, r) => a + r.cumulative, 0);
      if (sum !== total.cumulative) {
        this.issues.note(lineNo, `the operation rows' cumulative counts sum to ${sum}, the total row says ${total.cumulative}`);
      }
      if (run.unattributed.length > 0) this.attribute(run, block);
      for (const r of block) {
        const count = r.cumulative - (run.cumulative.get(r.type) ?? 0);
        if (count < 0) {
          this.issues.skip(r.line, `${r.type}'s cumulative count ${r.cumulative} is below its previous ${run.cumulative.get(r.type) ?? 0}`);
          continue;
        }
        this.addRow(run, r.type, r, count, startUs);
      }
    }
    run.totalCumulative = total.cumulative;
    run.lastTimeUs = total.timeUs;
    run.intervals++;
  }

  /**
   * The intervals before a second operation type first appeared printed only their `total` row
   * (StressMetrics prints per-type rows once more than one type has been seen). They all belong to
   * the one type seen so far: the type whose first row's cumulative count covers their sum.
   */
  private attribute(run: Run, block: ParsedRow[]): void {
    const before = run.unattributed.reduce((a, u) => a + u.count, 0);
    const candidates = block.filter((r) => !run.cumulative.has(r.type) && r.cumulative >= before);
    // Several could hold them: the early type's count in this interval (its cumulative less theirs)
    // is the one its printed rate agrees with. This picks a name only; every count stays exact.
    const lengthS = ((block[0]?.timeUs ?? 0) - run.lastTimeUs) / 1e6;
    const misfit = (r: ParsedRow): number => Math.abs(r.cumulative - before - r.rate * lengthS);
    const early = candidates.length === 1 ? candidates[0] : candidates.filter((r) => Number.isFinite(misfit(r))).sort((a, b) => misfit(a) - misfit(b))[0];
    for (const u of run.unattributed) {
      if (early) this.addRow(run, early.type, u.row, u.count, u.startUs);
      else this.issues.skip(u.row.line, `interval printed only its total row and its operation type cannot be told (${run.ops.join(', ')})`);
    }
    run.unattributed = [];
  }

  private addRow(run: Run, op: string, row: ParsedRow, count: number, startUs: number): void {
    run.cumulative.set(op, row.cumulative);
    const errors = Math.min(row.errors, count);
    const ok = count - errors;
    const entry = this.seriesOf(op);
    const at = { startUs: run.offsetUs + startUs, lengthUs: Math.max(0, row.timeUs - startUs), line: row.line };
    // The row's figures time failed operations too (their attempts are timed): they are the
    // successes' own only when none failed, the failures' when all did, else every operation's.
    const withFigures = (n: number): IntervalRow => ({ ...at, count: n, mean: row.mean, stddev: null, min: null, max: row.max, percentiles: row.percentiles });
    const countOnly = (n: number): IntervalRow => ({ ...at, count: n, mean: null, stddev: null, min: null, max: null, percentiles: {} });
    entry.ok.rows.push(ok > 0 && errors === 0 ? withFigures(ok) : countOnly(ok));
    if (errors > 0) {
      entry.failed ??= { kind: 'intervals', op: `${op}-FAILED`, unit: 'us', timeBase: 'relative', rows: [] };
      entry.failed.rows.push(ok === 0 ? withFigures(errors) : countOnly(errors));
    }
    if (errors > 0 && ok > 0) {
      entry.all ??= { kind: 'intervals', op: includingFailuresOf(op), unit: 'us', timeBase: 'relative', rows: [] };
      entry.all.rows.push(withFigures(count));
    }
  }

  private seriesOf(op: string): OpSeries {
    let entry = this.series.get(op);
    if (!entry) {
      entry = { ok: { kind: 'intervals', op, unit: 'us', timeBase: 'relative', rows: [] }, failed: null, all: null };
      this.series.set(op, entry);
    }
    return entry;
  }

  /** Operation rows whose `total` row never came: the log ends (or another part starts) mid-interval. */
  private closeBlock(lineNo: number): void {
    for (const r of this.block) {
      this.issues.skip(r.line, `interval row has no closing "total" row before line ${lineNo} (the log was cut mid-interval); not read`);
    }
    this.block = [];
  }

  /** `Latency mean : 0.6 ms [READ: 0.6 ms, WRITE: 0.6 ms]`, `Total errors : 0 [READ: 0]`, 2.x's `op rate : 1846 [insert:1846]`. */
  private summaryLine(key: string, rest: string, lineNo: number): void {
    const run = this.currentRun();
    const bracket = rest.indexOf('[');
    const overallText = (bracket < 0 ? rest : rest.slice(0, bracket)).trim();
    const perOp: [string, string][] = [];
    if (bracket >= 0) {
      const close = rest.lastIndexOf(']');
      for (const part of rest.slice(bracket + 1, close < 0 ? undefined : close).split(/,\s+(?=[^,:]+:)/)) {
        const colon = part.lastIndexOf(':');
        if (colon > 0) perOp.push([part.slice(0, colon).trim(), part.slice(colon + 1).trim()]);
      }
    }
    const isLatency = key.startsWith('latency');
    const isCount = key === 'total partitions' || key === 'total errors';
    if (!isLatency && !isCount) return;
    const value = (text: string): number | null => {
      const number = text.replace(/\s*(ms|op\/s|pk\/s|row\/s)$/, '').trim();
      return isLatency ? latencyMicros(number) : groupedCount(number);
    };
    const label = key === 'latency mean' ? 'mean' : key === 'latency max' ? 'max' : key === 'total errors' ? 'errors' : key === 'total partitions' ? 'partitions' : SUMMARY_PERCENTILE[key];
    if (label === undefined) return;
    const overall = value(overallText);
    if (overall === null && overallText !== 'NaN') {
      this.issues.note(lineNo, `Results "${key}" ${JSON.stringify(clip(overallText, 80))} is not a number`);
      return;
    }
    if (overall !== null) run.resultsOverall[label] = overall;
    for (const [op, text] of perOp) {
      const v = value(text);
      if (v === null) continue;
      const figures = run.results.get(op) ?? {};
      figures[label] = v;
      run.results.set(op, figures);
    }
  }

  /** Whole-run summaries from the single run's Results block; counts come from its interval rows. */
  private summaries(): PrintedSeries[] {
    const run = this.runs[0];
    if (this.runs.length !== 1 || !run) return [];
    const out: PrintedSeries[] = [];
    const ops = run.cumulative.size > 0 ? [...run.cumulative.keys()] : [];
    for (const op of ops) {
      const figures = run.results.get(op) ?? (ops.length === 1 ? run.resultsOverall : undefined);
      if (!figures || figures.mean === undefined) continue;
      const total = run.cumulative.get(op) ?? 0;
      const errors = Math.min(figures.errors ?? 0, total);
      const percentiles: Record<string, number> = {};
      for (const p of ['p50', 'p95', 'p99', 'p99.9']) if (figures[p] !== undefined) percentiles[p] = figures[p] as number;
      // The Results latencies cover failed operations too (src/formats/outcomes.ts gives them to all of them).
      const mean = figures.mean;
      const summary = (name: string, n: number): PrintedSeries => ({ kind: 'printed', op: name, unit: 'us', count: n, mean, min: null, max: figures.max ?? null, percentiles, returns: {} });
      out.push(...outcomeSeries(op, { ok: total - errors, failed: errors }, { unit: 'us' }, summary));
    }
    return out;
  }

  finish(): ParsedFile {
    this.closeBlock(this.lines + 1);
    for (const run of this.runs) {
      for (const u of run.unattributed) this.issues.skip(u.row.line, `interval printed only its total row and its operation type cannot be told (${run.ops.join(', ')})`);
    }
    const series = [...this.series.values()].flatMap((s) => [s.ok, ...(s.failed ? [s.failed] : []), ...(s.all ? [s.all] : [])]);
    if (series.length === 0 && this.issues.errors.length === 0) this.issues.note(0, 'no cassandra-stress interval rows found');
    const settings: Record<string, string> = { ...this.settings };
    const runs = this.runs.filter((r) => r.intervals > 0);
    if (runs.length > 1) {
      const threads = runs.map((r) => r.threads).filter((t): t is number => t !== null);
      settings.runs = `${runs.length} runs read one after another${threads.length === runs.length ? ` (threads: ${threads.join(', ')})` : ''}; their Results blocks are per run and not merged`;
    }
    const producer: ProducerInfo = { tool: 'cassandra-stress', ...(this.running ? { command: this.running } : {}), settings };
    return this.parsed('cassandra-stress', { series: [...series, ...this.summaries()], producer });
  }
}

/** `Tag=WRITE-st,` … in a head: cassandra-stress's tags. */
const STRESS_TAG = /^Tag=[^,\s]+-(?:st|rt|wt),/m;
/** StressMetrics writes this comment first, before the format version (HistogramLogWriter's Java order). */
const STRESS_COMMENT = /^#Logging op latencies for Cassandra Stress\n#\[Histogram log format version/m;

function ownsHdrLog(head: string): boolean {
  return STRESS_TAG.test(head) || (STRESS_COMMENT.test(head) && !/^Tag=/m.test(head));
}

const stressHdrLog = producerHdrLog(
  'cassandra-stress HdrHistogram log',
  {
    format: 'cassandra-stress',
    unit: 'ns',
    producer: { tool: 'cassandra-stress' },
    opOfTag: (tag) => (tag.endsWith('-st') ? tag.slice(0, -3) : tag.endsWith('-rt') ? `Intended-${tag.slice(0, -3)}` : tag),
  },
  ownsHdrLog,
);

/** Whether a first meaningful line belongs to an HdrHistogram log rather than a text log. */
function isHdrLine(line: string): boolean {
  return line.startsWith('#') || line.startsWith('Tag=') || line.startsWith('"StartTimestamp"') || /^\d+(?:\.\d+)?,\d/.test(line);
}

/**
 * Decides from the first non-blank line which kind of file it reads. Wait-time histograms (`-wt`)
 * are not operations and are passed over before the HdrHistogram reader sees them.
 */
class CassandraStressParser implements LineParser {
  private inner: LineParser | null = null;
  private waitTimeIntervals = 0;
  private hdr = false;

  constructor(private readonly path: string) {}

  line(text: string, lineNo: number): void {
    if (!this.inner) {
      const trimmed = text.trim();
      if (trimmed.length === 0) return;
      this.hdr = isHdrLine(trimmed);
      this.inner = this.hdr ? stressHdrLog.createParser(this.path) : new CassandraStressTextParser(this.path);
    }
    if (this.hdr && /^\s*Tag=[^,]*-wt,/.test(text)) {
      this.waitTimeIntervals++;
      return;
    }
    this.inner.line(text, lineNo);
  }

  finish(): ParsedFile {
    const file = (this.inner ?? new CassandraStressTextParser(this.path)).finish();
    if (this.waitTimeIntervals > 0) {
      file.producer = {
        tool: 'cassandra-stress',
        settings: { ...(file.producer?.settings ?? {}), 'wait-time (-wt) intervals not read': String(this.waitTimeIntervals) },
      };
    }
    return file;
  }
}

function textScore(head: string): number {
  if (/^(?:type,?\s+)?total ops\s*,\s*op\/s,\s*pk\/s,\s*row\/s,/m.test(head)) return 0.95;
  if (/^\*{5,} Stress Settings \*{5,}$/m.test(head)) return 0.9;
  if (/^Results:\s*\n(?:op rate|Op rate)\s+:/m.test(head) && /^(?:partition rate|Partition rate)\s+:/m.test(head)) return 0.9;
  if (/^Running (?:\[[^\]\n]*\]|\S+) with \d+ threads? (?:for \d+ iteration|\d+ (?:seconds|minutes|hours)|until stderr)/m.test(head)) return 0.8;
  return 0;
}

export const cassandraStressFormat: FormatModule = {
  id: 'cassandra-stress',
  label: 'cassandra-stress log',
  detect: (head, fileName) => {
    const first = head.split('\n', 50).find((l) => l.trim().length > 0)?.trim() ?? '';
    if (isHdrLine(first)) return ownsHdrLog(head) ? hdrLogScore(head, fileName) : 0;
    return textScore(head);
  },
  createParser: (path) => new CassandraStressParser(path),
};
