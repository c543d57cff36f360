import { msToMicros } from '../model/numbers.ts';
import { baseName, withoutCompression } from '../model/naming.ts';
import type { IntervalRow, IntervalsSeries, OverallSummary, ParsedFile, PrintedSeries } from '../model/types.ts';
import { LineParserBase, type FormatModule } from './format.ts';
import { outcomeSeries } from './outcomes.ts';
import { RecordJoiner } from './quoted-records.ts';
import { FailureTally } from '../model/failures.ts';

/**
 * Locust's `--csv=PREFIX` files (locust/stats.py, StatsCSV and StatsCSVFileWriter):
 *
 * - `PREFIX_stats.csv`: one row per request type and name, the whole run so far, then the
 *   `Aggregated` row. → a PrintedSeries per name (`GET /path`): count = requests − failures, and
 *   Locust's figures. Since 0.14 Locust logs a failed request's response time too (log_request,
 *   then log_error), so its mean, min, max and percentiles cover the failed requests as well (they
 *   go to `-FAILED` when every request failed; before 0.14 failures were counted apart); its
 *   percentiles come from response times rounded to 2 significant digits above 100 ms (StatsEntry.
 *   _log_response_time). `<name>-FAILED` holds the failure count, with no figures of its own.
 * - `PREFIX_stats_history.csv`: every second (CSV_STATS_INTERVAL_SEC) the cumulative totals, of the
 *   `Aggregated` entry only, or of every name with `--csv-full-history`. → an IntervalsSeries
 *   per name: the requests of an interval are the difference of the cumulative counts, exact; its
 *   mean comes from the cumulative averages (only where it had no failures, whose times Locust
 *   mixes in). The percentile columns are NOT the interval's own — cumulative (default) or the
 *   last ~10 s window (`--csv-full-history`, and Locust 0.14) — so they are not kept: a bound built
 *   from them would be wrong. Its last row per name is cumulative over the whole run: its `Total …`
 *   count, failures, median, average, min and max become that name's whole-run summary (above).
 * - `PREFIX_failures.csv` (Method, Name, Error, Occurrences): the failure counts per name →
 *   `<name>-FAILED` summaries with a count only (the same series stats.csv gives; the engine keeps one),
 *   and the failures by their Error, as Locust counted them (no status: Locust writes none).
 * - `PREFIX_exceptions.csv` (Count, Message, Traceback, Nodes): errors in the test code, not
 *   requests: recognised, nothing to measure.
 * - Locust before 0.14: `PREFIX_requests.csv` (Method, Name, # requests, …) and
 *   `PREFIX_distribution.csv` (Name = "GET /path", # requests, 50%…100%).
 *
 * The `Aggregated` (before 0.12: `Total`) rows are all requests together, not an operation: they
 * become `Aggregated (all requests)`, shown but never counted in throughput again. stats.csv's
 * Requests/s of that row is the run's throughput when no timed series exists (the history in its
 * default mode holds only that row). Response times are ms (float); kept as µs.
 * Columns are found by their names, which changed between versions (`# requests` → `Request
 * Count`, `Method` → `Type`, quoted headers before 1.x). The files of one `--csv` prefix are one
 * client: the prefix is the client's name.
 */

type Kind = 'stats' | 'history' | 'failures' | 'exceptions' | 'distribution';

const AGGREGATED_OP = 'Aggregated (all requests)';

/** Header names of each role, across Locust versions. */
const NAMES = {
  timestamp: ['Timestamp'],
  type: ['Type', 'Method'],
  name: ['Name'],
  count: ['Total Request Count', 'Request Count', '# requests', '# Requests'],
  failures: ['Total Failure Count', 'Failure Count', '# failures', '# Failures'],
  median: ['Total Median Response Time', 'Median Response Time', 'Median response time'],
  average: ['Total Average Response Time', 'Average Response Time', 'Average response time'],
  min: ['Total Min Response Time', 'Min Response Time', 'Min response time'],
  max: ['Total Max Response Time', 'Max Response Time', 'Max response time'],
  rps: ['Requests/s'],
  occurrences: ['Occurrences'],
  error: ['Error'],
  traceback: ['Traceback'],
} as const;
type Role = keyof typeof NAMES;

/** `50%`, `99.9%`, and Locust 0.14's `99.999` (its header lacks the %). */
const PERCENTILE_HEADER = /^(\d{1,3}(?:\.\d+)?)%?$/;

function percentileLabel(header: string): string | null {
  const m = PERCENTILE_HEADER.exec(header);
  if (!m) return null;
  const v = Number(m[1]);
  return v > 0 && v <= 100 ? `p${v}` : null;
}

/** Milliseconds as Locust writes them (an int, Python's repr of a float, a decimal comma) → µs, or null. */
function responseMicros(text: string): number | null {
  const t = text.trim().replace(',', '.');
  const exact = msToMicros(t);
  if (exact !== null) return exact;
  if (!/^\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.test(t)) return null;
  const v = Number(t) * 1000;
  return Number.isFinite(v) ? v : null;
}

function count(text: string): number | null {
  const t = text.trim();
  if (!/^\d{1,15}$/.test(t)) return null;
  return Number(t);
}

function kindOf(header: string[]): Kind | null {
  const has = (name: string) => header.includes(name);
  const hasAny = (names: readonly string[]) => names.some(has);
  if (has('Count') && has('Message') && has('Traceback')) return 'exceptions';
  if (hasAny(NAMES.type) && has('Name') && has('Error') && has('Occurrences')) return 'failures';
  if (!has('Name') || !hasAny(NAMES.count)) return null;
  if (has('Timestamp')) return 'history';
  if (hasAny(NAMES.type)) return 'stats';
  return header.some((h) => percentileLabel(h) !== null) ? 'distribution' : null;
}

/** The header row's fields, or null when the line is not a Locust CSV header. */
function headerFields(line: string): string[] | null {
  if (!line.includes(',')) return null;
  const fields = line.split(',').map((f) => f.trim().replace(/^"(.*)"$/, '$1'));
  return kindOf(fields) ? fields : null;
}

/** The files of one `--csv` prefix share the prefix as their client. */
const SUFFIX = /_(?:stats_history|stats|failures|exceptions|requests|distribution)\.csv$/i;

interface HistoryState {
  requests: number;
  failures: number;
  /** Cumulative response time in ms (average × requests), null when an average was missing. */
  totalMs: number | null;
}

class LocustParser extends LineParserBase {
  private readonly joiner: RecordJoiner;
  private header: string[] | null = null;
  private kind: Kind | null = null;
  private column: Partial<Record<Role, number>> = {};
  private percentileColumns: [number, string][] = [];
  private readonly summaries: PrintedSeries[] = [];
  /** stats.csv / requests.csv: each name once. */
  private readonly seen = new Set<string>();
  private readonly failureCounts = new Map<string, number>();
  /** The failures file's rows by their Error, as Locust counted them. */
  private readonly causes = new FailureTally();
  private readonly intervals = new Map<string, IntervalsSeries>();
  private readonly history = new Map<string, HistoryState>();
  /** The history's previous distinct timestamp (s) and the one being read. */
  private previousTs: number | null = null;
  private currentTs: number | null = null;
  /** Locust 0.14 printed averages with two decimals: interval means from them are not kept. */
  private roundedAverages = false;
  /**
   * Locust before 0.14 (`_requests.csv`, with a Method column) logged a failed request only as a
   * failure (on_request_failure → log_error): its request count and figures are the successes'.
   */
  private failuresApart = false;
  private overall: OverallSummary | null = null;
  /** The history's latest row per name: its `Total …` columns are cumulative, the whole run's so far. */
  private readonly lastRows = new Map<string, { fields: string[]; requests: number; failures: number; aggregate: boolean; line: number }>();
  /** Names whose cumulative counts started again (--reset-stats). */
  private readonly resets = new Set<string>();

  constructor(path: string) {
    super(path);
    this.joiner = RecordJoiner.reportingTo(this.issues, ',');
  }

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    if (!this.joiner.open && text.trim().length === 0) return;
    const record = this.joiner.push(text, lineNo);
    if (!record) return;
    if (!this.header) return this.readHeader(record.fields, record.line);
    this.row(record.fields, record.line);
  }

  private readHeader(raw: string[], lineNo: number): void {
    const fields = raw.map((f) => f.trim());
    const kind = kindOf(fields);
    if (!kind) return this.issues.skip(lineNo, `not a Locust CSV header (stats, stats_history, failures or exceptions columns expected): "${raw.join(',').slice(0, 80)}"`);
    this.header = fields;
    this.kind = kind;
    for (const role of Object.keys(NAMES) as Role[]) {
      const i = fields.findIndex((h) => (NAMES[role] as readonly string[]).includes(h));
      if (i >= 0) this.column[role] = i;
    }
    this.percentileColumns = fields.flatMap((h, i): [number, string][] => {
      const label = percentileLabel(h);
      return label ? [[i, label]] : [];
    });
    this.roundedAverages = kind === 'history' && fields.includes('# requests');
    this.failuresApart = kind === 'stats' && fields.includes('Method');
  }

  private field(fields: string[], role: Role): string | undefined {
    const i = this.column[role];
    return i === undefined ? undefined : fields[i];
  }

  private row(fields: string[], lineNo: number): void {
    const header = this.header ?? [];
    if (this.kind === 'exceptions') return;
    if (fields.length !== header.length) return this.issues.skip(lineNo, `row has ${fields.length} fields, the header has ${header.length}`);
    if (this.kind === 'failures') return this.failureRow(fields, lineNo);
    const name = this.field(fields, 'name') ?? '';
    const type = (this.field(fields, 'type') ?? '').trim();
    const aggregate = ((type === '' || type === 'None') && (name === 'Aggregated' || name === 'Total')) || name === 'None Total';
    const op = aggregate ? AGGREGATED_OP : type === '' || type === 'None' ? name : `${type} ${name}`;
    if (this.kind === 'history') return this.historyRow(fields, op, aggregate, lineNo);
    this.statsRow(fields, op, aggregate, lineNo);
  }

  private statsRow(fields: string[], op: string, aggregate: boolean, lineNo: number): void {
    const requests = count(this.field(fields, 'count') ?? '');
    if (requests === null) return this.issues.skip(lineNo, `request count "${(this.field(fields, 'count') ?? '').slice(0, 40)}" is not a whole number`);
    const failuresText = this.field(fields, 'failures');
    const failures = failuresText === undefined ? 0 : count(failuresText);
    if (failures === null || (!this.failuresApart && failures > requests)) return this.issues.skip(lineNo, `failure count "${(failuresText ?? '').slice(0, 40)}" is not a whole number up to the request count ${requests}`);
    if (this.seen.has(op)) return this.issues.skip(lineNo, `a second row for ${op}`);
    const figures = this.figures(fields, requests > 0, lineNo);
    if (figures === null) return;
    this.seen.add(op);
    if (aggregate) {
      this.summaries.push({ kind: 'printed', op, unit: 'us', count: this.failuresApart ? requests + failures : requests, ...figures, returns: {} });
      const rps = Number((this.field(fields, 'rps') ?? '').trim());
      if (this.kind === 'stats' && Number.isFinite(rps) && rps >= 0 && (this.field(fields, 'rps') ?? '').trim() !== '') this.overall = { runTimeMs: null, throughputOpsPerS: rps };
      return;
    }
    // Before 0.14 a failure was logged apart (its request and figures are the successful ones'); since,
    // Locust's figures cover failed requests too (src/formats/outcomes.ts gives them to all requests).
    const counts = this.failuresApart ? { ok: requests, failed: 0, failedApart: failures } : { ok: requests - failures, failed: failures };
    const empty = { mean: null, min: null, max: null, percentiles: {} };
    this.summaries.push(...outcomeSeries(op, counts, { unit: 'us' }, (name, n): PrintedSeries => ({ kind: 'printed', op: name, unit: 'us', count: n, ...(n > 0 ? figures : empty), returns: {} })));
  }

  /** Mean, min, max and percentiles of a stats row in µs; null (and the row skipped) when one does not parse. */
  private figures(fields: string[], any: boolean, lineNo: number): Pick<PrintedSeries, 'mean' | 'min' | 'max' | 'percentiles'> | null {
    const empty = { mean: null, min: null, max: null, percentiles: {} };
    if (!any) return empty;
    const read = (role: Role): number | null | undefined => {
      const text = this.field(fields, role);
      if (text === undefined) return null;
      return responseMicros(text) ?? undefined;
    };
    const mean = read('average');
    const min = read('min');
    const max = read('max');
    if (mean === undefined || min === undefined || max === undefined) return void this.issues.skip(lineNo, 'average, min or max response time is not a number'), null;
    const percentiles: Record<string, number> = {};
    for (const [i, label] of this.percentileColumns) {
      const text = (fields[i] ?? '').trim();
      if (text === 'N/A') continue;
      const v = responseMicros(text);
      if (v === null) return void this.issues.skip(lineNo, `percentile ${this.header?.[i] ?? label} "${text.slice(0, 40)}" is not a number`), null;
      percentiles[label] = v;
    }
    // The median is the 50% column's figure; requests.csv before 0.14 has no percentile columns (distribution.csv has).
    const median = read('median');
    if (percentiles.p50 === undefined && typeof median === 'number') percentiles.p50 = median;
    return { mean, min, max, percentiles };
  }

  private failureRow(fields: string[], lineNo: number): void {
    const occurrences = count(this.field(fields, 'occurrences') ?? '');
    if (occurrences === null) return this.issues.skip(lineNo, `occurrences "${(this.field(fields, 'occurrences') ?? '').slice(0, 40)}" is not a whole number`);
    const type = (this.field(fields, 'type') ?? '').trim();
    const name = this.field(fields, 'name') ?? '';
    const op = `${type === '' || type === 'None' ? name : `${type} ${name}`}-FAILED`;
    this.failureCounts.set(op, (this.failureCounts.get(op) ?? 0) + occurrences);
    this.causes.add(op.slice(0, -'-FAILED'.length), null, this.field(fields, 'error') ?? null, occurrences);
  }

  private historyRow(fields: string[], op: string, aggregate: boolean, lineNo: number): void {
    const tsText = (this.field(fields, 'timestamp') ?? '').trim();
    if (!/^\d{1,12}$/.test(tsText)) return this.issues.skip(lineNo, `timestamp "${tsText.slice(0, 40)}" is not epoch seconds`);
    const ts = Number(tsText);
    const requests = count(this.field(fields, 'count') ?? '');
    const failures = count(this.field(fields, 'failures') ?? '0');
    if (requests === null || failures === null || failures > requests) return this.issues.skip(lineNo, 'request or failure count is not a whole number (failures up to requests)');
    const averageText = this.field(fields, 'average');
    const average = averageText === undefined ? null : responseMicros(averageText);
    if (averageText !== undefined && average === null) return this.issues.skip(lineNo, `average response time "${averageText.slice(0, 40)}" is not a number`);
    if (this.currentTs === null || ts > this.currentTs) {
      this.previousTs = this.currentTs;
      this.currentTs = ts;
    } else if (ts < this.currentTs) {
      return this.issues.skip(lineNo, `timestamp ${ts} goes back in time (after ${this.currentTs})`);
    }
    const before = this.history.get(op) ?? { requests: 0, failures: 0, totalMs: 0 };
    // Counts only grow, except when Locust resets its statistics (--reset-stats): then they start again.
    const reset = requests < before.requests || failures < before.failures;
    if (reset) this.resets.add(op);
    this.lastRows.set(op, { fields, requests, failures, aggregate, line: lineNo });
    const base = reset ? { requests: 0, failures: 0, totalMs: 0 } : before;
    const totalMs = average === null ? null : (average / 1000) * requests;
    this.history.set(op, { requests, failures, totalMs });
    const newRequests = requests - base.requests;
    const newFailures = failures - base.failures;
    if (newRequests === 0) return;
    // The requests counted at `ts` happened since the file's previous row (Locust writes one a second).
    const startS = this.previousTs ?? ts - 1;
    // The mean of all the interval's requests: the successful ones' when none failed, the failures' when all did.
    const meanUs = !this.roundedAverages && totalMs !== null && base.totalMs !== null ? ((totalMs - base.totalMs) / newRequests) * 1000 : null;
    const row = (n: number, mean: number | null): IntervalRow => ({ startUs: startS * 1e6, lengthUs: (ts - startS) * 1e6, count: n, mean, stddev: null, min: null, max: null, percentiles: {}, line: lineNo });
    if (aggregate) {
      this.intervalSeries(op).rows.push(row(newRequests, meanUs));
      return;
    }
    if (newRequests - newFailures > 0) this.intervalSeries(op).rows.push(row(newRequests - newFailures, newFailures === 0 ? meanUs : null));
    if (newFailures > 0) this.intervalSeries(`${op}-FAILED`).rows.push(row(newFailures, newFailures === newRequests ? meanUs : null));
  }

  /**
   * The history's last row per name holds the whole run's cumulative figures (`Total Request
   * Count`, `Total Failure Count`, `Total Median/Average/Min/Max Response Time`): the run's summary
   * when stats.csv is absent (beside it, stats.csv's own of the same name is read first and kept).
   * Its percentile columns are a recent window or cumulative depending on the version, and not read.
   */
  private historyTotals(): PrintedSeries[] {
    const out: PrintedSeries[] = [];
    for (const [op, last] of this.lastRows) {
      if (this.resets.has(op)) {
        this.issues.note(last.line, `${op}: the cumulative counts start again in this history (--reset-stats); its last row is not the whole run's`);
        continue;
      }
      const read = (role: Role): number | null => {
        const text = this.field(last.fields, role);
        return text === undefined ? null : responseMicros(text);
      };
      const median = read('median');
      const any = last.requests > 0;
      const percentiles: Record<string, number> = any && median !== null ? { p50: median } : {};
      const figures = { mean: any ? read('average') : null, min: any ? read('min') : null, max: any ? read('max') : null, percentiles };
      const empty = { mean: null, min: null, max: null, percentiles: {} };
      const summary = (name: string, n: number): PrintedSeries => ({ kind: 'printed', op: name, unit: 'us', count: n, ...(n > 0 ? figures : empty), returns: {} });
      if (last.aggregate) out.push(summary(op, last.requests));
      else out.push(...outcomeSeries(op, { ok: last.requests - last.failures, failed: last.failures }, { unit: 'us' }, summary));
    }
    return out;
  }

  private intervalSeries(op: string): IntervalsSeries {
    let s = this.intervals.get(op);
    if (!s) {
      s = { kind: 'intervals', op, unit: 'us', timeBase: 'absolute', rows: [] };
      this.intervals.set(op, s);
    }
    return s;
  }

  finish(): ParsedFile {
    this.joiner.end();
    if (!this.header) this.issues.note(0, 'no Locust CSV header found');
    if (this.kind === 'history') this.summaries.push(...this.historyTotals());
    const failures: PrintedSeries[] = [...this.failureCounts].map(([op, n]) => ({ kind: 'printed', op, unit: 'us', count: n, mean: null, min: null, max: null, percentiles: {}, returns: {} }));
    const file = this.parsed('locust', { series: [...this.summaries, ...failures, ...this.intervals.values()] });
    // A file with no Locust header (cut before its first line ended) says nothing of the tool or a client.
    if (!this.header) return file;
    file.producer = { tool: 'Locust', settings: { file: this.kind === 'history' ? 'stats history' : (this.kind ?? 'unknown') } };
    const causes = this.causes.of('report');
    if (causes) file.failures = causes;
    if (this.overall) file.overall = this.overall;
    const name = withoutCompression(baseName(this.path));
    if (SUFFIX.test(name)) {
      const prefix = name.replace(SUFFIX, '');
      if (prefix.length > 0) file.clientHint = prefix;
    }
    return file;
  }
}

export const locustFormat: FormatModule = {
  id: 'locust',
  label: 'Locust CSV (--csv)',
  detect(head) {
    const first = head.split('\n', 1)[0] ?? '';
    return headerFields(first) ? 0.9 : 0;
  },
  createParser: (path) => new LocustParser(path),
};
