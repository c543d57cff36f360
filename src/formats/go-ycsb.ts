import { MAX_EPOCH_MS, parseNonNegativeInteger, parseScaledDecimal } from '../model/numbers.ts';
import type { IntervalRow, IntervalsSeries, ParsedFile, ProducerInfo, RawSeries, PrintedSeries } from '../model/types.ts';
import { type FormatModule, type FormatOptions, LineParserBase } from './format.ts';
import { SampleCounter } from './sample-counter.ts';

/**
 * go-ycsb (pingcap/go-ycsb, a Go port of YCSB whose output is its own, not YCSB's) as it writes to
 * stdout: the `***************** properties *****************` block of `"name"="value"` lines,
 * then every `measurement.interval` seconds (default 10) one summary line per measurement, then
 * `Run finished, takes <duration>` and the final summary lines.
 *
 * Summary lines (pkg/measurement/histogram.go, histograms.go; µs from `latency.Microseconds()`):
 * - plain (`outputstyle=plain`, the default): `READ   - Takes(s): 10.0, Count: 1000, OPS: 100.0,
 *   Avg(us): 500, Min(us): 100, Max(us): 9000, 50th(us): 400, 90th(us): …, 99.99th(us): …`;
 *   before 2023 without 50th/90th/95th, before 2019 with 95th and 99th only (those older
 *   percentiles are the upper bounds of 1 ms buckets, printed as the tool computed them);
 * - `outputstyle=table`: the same columns in a tablewriter table, names upper-cased (`TAKES(S)`);
 * - `outputstyle=json`: one `[{"Operation":"READ","Takes(s)":"10.0",…}]` array per report.
 * Every report is cumulative — go-ycsb never resets its histograms, and `Takes(s)` counts from the
 * measurement's first operation — so a periodic report gives exact counts per interval (the
 * difference of consecutive counts) but no per-interval latency figures: its percentiles are of the
 * run so far. The final report is the whole run's summary.
 *
 * `measurementtype=csv` (or `raw`) writes `operation,timestamp_us,latency_us` and one row per
 * operation (start time in epoch µs, latency in µs; pkg/measurement/csv.go) to stdout after `Run
 * finished`, or alone to `measurement.output_file`: raw samples, exact.
 *
 * Names: `READ_ERROR` (a failed READ, dbwrapper.go) → `READ-FAILED`; `TOTAL`, every successful
 * operation again, → `TOTAL (all requests)`, shown but not counted twice.
 */

const BANNER = '***************** properties *****************';
const PROPERTY = /^"([^"]*)"="(.*)"$/;
const RUN_FINISHED = /^Run finished, takes (\S+)\s*$/;
/** `NAME - Takes(s): …` with the name padded to 6 characters. */
const PLAIN_SUMMARY = /^(\S+)\s+- (Takes\(s\): .*)$/;
const CSV_HEADER = 'operation,timestamp_us,latency_us';
const CSV_ROW = /^([A-Za-z][\w-]*),(\d{1,19}),(\d{1,19})$/;
const PERCENTILE_KEY = /^(\d+(?:\.\d+)?)th\(us\)$/;
const ERROR_SUFFIX = '_ERROR';
const TOTAL = 'TOTAL';
const ALL_REQUESTS = 'TOTAL (all requests)';

/** One measurement's figures in one report, as printed. */
interface Report {
  op: string;
  /** Takes(s) in tenths of a second. */
  takesTenths: number;
  count: number;
  mean: number;
  min: number;
  max: number;
  percentiles: Record<string, number>;
  line: number;
}

function opName(name: string): string {
  if (name === TOTAL) return ALL_REQUESTS;
  if (name.endsWith(ERROR_SUFFIX) && name.length > ERROR_SUFFIX.length) return `${name.slice(0, -ERROR_SUFFIX.length)}-FAILED`;
  return name;
}

/**
 * A report from its `key: value` pairs (any case: the table style upper-cases its headers), or
 * why it is not one. Every version prints Takes(s), Count, OPS, Avg, Min, Max and at least two
 * percentiles; a line missing any of them was cut or is not go-ycsb's.
 */
function toReport(name: string, pairs: [string, string][], line: number): Report | string {
  const values = new Map<string, string>();
  const percentiles: Record<string, number> = {};
  for (const [rawKey, value] of pairs) {
    const key = rawKey.trim().toLowerCase();
    const p = PERCENTILE_KEY.exec(key);
    if (p) {
      const v = parseNonNegativeInteger(value);
      if (v === null) return `${rawKey} "${value}" of ${name} is not a whole number of µs`;
      percentiles[`p${Number(p[1])}`] = v;
    } else values.set(key, value.trim());
  }
  const takes = parseScaledDecimal(values.get('takes(s)') ?? '', 1);
  if (takes === null || takes < 0) return `Takes(s) "${values.get('takes(s)') ?? ''}" of ${name} is not a number of seconds`;
  const whole = (key: string, label: string): number | string => {
    const text = values.get(key);
    if (text === undefined) return `the report of ${name} has no ${label} (cut short?)`;
    const v = parseNonNegativeInteger(text);
    return v === null ? `${label} "${text}" of ${name} is not a whole number` : v;
  };
  const count = whole('count', 'Count');
  const mean = whole('avg(us)', 'Avg(us)');
  const min = whole('min(us)', 'Min(us)');
  const max = whole('max(us)', 'Max(us)');
  for (const v of [count, mean, min, max]) if (typeof v === 'string') return v;
  if (!values.has('ops')) return `the report of ${name} has no OPS (cut short?)`;
  if (Object.keys(percentiles).length < 2) return `the report of ${name} has fewer percentiles than any go-ycsb version prints (cut short?)`;
  return { op: opName(name), takesTenths: takes, count: count as number, mean: mean as number, min: min as number, max: max as number, percentiles, line };
}

function plainPairs(body: string): [string, string][] {
  return body.split(', ').map((part) => {
    const colon = part.indexOf(': ');
    return colon < 0 ? [part, ''] : [part.slice(0, colon), part.slice(colon + 2)];
  });
}

/** Cells of a tablewriter row `| a | b |`, trimmed; null when the line is no such row. */
function tableCells(line: string): string[] | null {
  if (!line.startsWith('|') || !line.endsWith('|') || line.length < 2) return null;
  return line
    .slice(1, -1)
    .split('|')
    .map((c) => c.trim());
}

const TENTH_US = 100_000;

class GoYcsbParser extends LineParserBase {
  private readonly settings: Record<string, string> = {};
  private inProperties = false;
  private finished = false;
  /** Whether anything of a run (a report or a sample) was read, so that a second banner means a second run. */
  private hasData = false;
  /** The report being gathered (periodic or final), op → report. */
  private block = new Map<string, Report>();
  private lastOpInBlock: string | null = null;
  /** End of the last periodic report, in tenths of a second since the run started. */
  private lastEndTenths = 0;
  /** Per measurement: its cumulative count at the last report. */
  private readonly lastCount = new Map<string, number>();
  private readonly intervals = new Map<string, IntervalsSeries>();
  private readonly finals = new Map<string, Report>();
  private tableHeader: string[] | null = null;
  private csv = false;
  private readonly rawOps = new Map<string, number>();
  private readonly counter: SampleCounter;
  private runStartLine = 0;

  constructor(path: string, options: FormatOptions = {}) {
    super(path);
    this.counter = new SampleCounter(options.rawSamples);
  }

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    const line = text.replace(/^\uFEFF/, '').trim();
    if (line.length === 0) return;
    if (this.csv) {
      const row = CSV_ROW.exec(line);
      if (row) return this.sample(row, lineNo);
    }
    if (line === BANNER) return this.banner(lineNo);
    if (line.startsWith('****')) {
      this.inProperties = false;
      return;
    }
    if (this.inProperties) {
      const p = PROPERTY.exec(line);
      if (p) this.settings[p[1] ?? ''] = p[2] ?? '';
      return;
    }
    if (RUN_FINISHED.test(line)) {
      this.flush();
      this.finished = true;
      return;
    }
    if (line === CSV_HEADER) {
      this.flush();
      this.csv = true;
      this.hasData = true;
      return;
    }
    const plain = PLAIN_SUMMARY.exec(line);
    if (plain) return this.report(plain[1] ?? '', plainPairs(plain[2] ?? ''), lineNo, true);
    if (line.startsWith('[{"') || line.startsWith('[{ "')) return this.jsonReport(line, lineNo);
    if (line.startsWith('+-') && /^[+-]+$/.test(line)) return;
    const cells = tableCells(line);
    if (cells) return this.tableRow(cells, lineNo);
    if (line.startsWith('[{') || /^\S+\s+- Takes\(s\)/.test(line)) this.issues.skip(lineNo, `incomplete report line: "${line.slice(0, 80)}"`);
    else if (this.csv && /^[A-Za-z][\w-]*,/.test(line)) this.issues.skip(lineNo, `not a go-ycsb sample row (operation,timestamp_us,latency_us): "${line.slice(0, 80)}"`);
  }

  private banner(lineNo: number): void {
    if (this.hasData) {
      // `go-ycsb load … > out; go-ycsb run … >> out`: one file, two runs. The later one is kept,
      // as YCSB's text reader keeps the later summary.
      this.issues.note(lineNo, `a second go-ycsb run starts here; what was read of the run starting at line ${this.runStartLine} (lines ${this.runStartLine}–${lineNo - 1}) is dropped`);
      this.reset();
    }
    this.runStartLine = lineNo;
    this.inProperties = true;
  }

  private reset(): void {
    this.block = new Map();
    this.lastOpInBlock = null;
    this.lastEndTenths = 0;
    this.lastCount.clear();
    this.intervals.clear();
    this.finals.clear();
    this.tableHeader = null;
    this.finished = false;
    this.hasData = false;
    for (const key of Object.keys(this.settings)) delete this.settings[key];
    if (this.rawOps.size > 0) this.issues.note(this.runStartLine, 'samples of the earlier run are dropped with it');
    this.csv = false;
  }

  private sample(row: RegExpExecArray, lineNo: number): void {
    const [, name = '', startText = '', latencyText = ''] = row;
    if (name === TOTAL) return; // every successful operation again (dbwrapper.go measures it twice)
    const startUs = parseNonNegativeInteger(startText);
    const latency = parseNonNegativeInteger(latencyText);
    if (startUs === null || startUs / 1000 > MAX_EPOCH_MS) return this.issues.skip(lineNo, `start time "${startText}" is not an epoch time in µs (up to year 2255)`, 'timestamp_us');
    if (latency === null) return this.issues.skip(lineNo, `latency "${latencyText}" is not a whole number of µs`, 'latency_us');
    const op = opName(name);
    let index = this.rawOps.get(op);
    if (index === undefined) {
      index = this.rawOps.size;
      this.rawOps.set(op, index);
    }
    this.counter.add(index, Math.floor(startUs / 1000), latency);
  }

  private jsonReport(line: string, lineNo: number): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return this.issues.skip(lineNo, `report line is not complete JSON: "${line.slice(0, 80)}"`);
    }
    if (!Array.isArray(parsed)) return this.issues.skip(lineNo, 'JSON report is not an array of measurements');
    this.flush();
    for (const entry of parsed) {
      if (typeof entry !== 'object' || entry === null) return this.issues.skip(lineNo, 'JSON report entry is not an object');
      const pairs = Object.entries(entry as Record<string, unknown>).map(([k, v]): [string, string] => [k, String(v)]);
      const name = pairs.find(([k]) => k === 'Operation')?.[1];
      if (name === undefined) return this.issues.skip(lineNo, 'JSON report entry has no Operation');
      this.report(name, pairs.filter(([k]) => k !== 'Operation'), lineNo, false);
    }
    this.flush();
  }

  private tableRow(cells: string[], lineNo: number): void {
    if (cells[0]?.toUpperCase() === 'OPERATION') {
      this.flush();
      this.tableHeader = cells;
      return;
    }
    const header = this.tableHeader;
    if (!header) return;
    if (cells.length !== header.length) return this.issues.skip(lineNo, `table row has ${cells.length} cells, its header ${header.length}`);
    this.report(cells[0] ?? '', header.slice(1).map((h, i): [string, string] => [h, cells[i + 1] ?? '']), lineNo, false);
  }

  /**
   * One measurement's line of a report. Plain reports are not delimited: measurements are printed
   * sorted by name, so a name that does not sort after the previous one starts the next report.
   */
  private report(name: string, pairs: [string, string][], lineNo: number, plain: boolean): void {
    const report = toReport(name, pairs, lineNo);
    if (typeof report === 'string') return this.issues.skip(lineNo, report);
    if (plain && this.lastOpInBlock !== null && name <= this.lastOpInBlock) this.flush();
    this.block.set(report.op, report);
    this.lastOpInBlock = name;
    this.hasData = true;
  }

  private flush(): void {
    if (this.block.size === 0) return;
    const block = this.block;
    this.block = new Map();
    this.lastOpInBlock = null;
    // The measurement that started first has run longest: its Takes(s) is the time of the report.
    const endTenths = Math.max(...[...block.values()].map((r) => r.takesTenths));
    if (endTenths < this.lastEndTenths) {
      for (const r of block.values()) this.issues.skip(r.line, `report time ${r.takesTenths / 10} s is before the previous report's ${this.lastEndTenths / 10} s`);
      return;
    }
    for (const r of block.values()) {
      const before = this.lastCount.get(r.op) ?? 0;
      if (r.count < before) {
        this.issues.skip(r.line, `count of ${r.op} went down from ${before} to ${r.count}; counts are cumulative`);
        continue;
      }
      if (this.finished) this.finals.set(r.op, r);
      this.lastCount.set(r.op, r.count);
      if (r.count === before && this.finished) continue;
      this.interval(r.op).rows.push(this.row(r, r.count - before, endTenths));
    }
    this.lastEndTenths = endTenths;
  }

  /**
   * The operations between two reports. Their latency figures are unknown (the printed ones are of
   * the run so far), except in the measurement's first report, which covers its whole life.
   */
  private row(r: Report, count: number, endTenths: number): IntervalRow {
    const own = count === r.count && count > 0;
    return {
      startUs: this.lastEndTenths * TENTH_US,
      lengthUs: (endTenths - this.lastEndTenths) * TENTH_US,
      count,
      mean: own ? r.mean : null,
      stddev: null,
      min: own ? r.min : null,
      max: own ? r.max : null,
      percentiles: own ? r.percentiles : {},
      line: r.line,
    };
  }

  private interval(op: string): IntervalsSeries {
    let s = this.intervals.get(op);
    if (!s) {
      s = { kind: 'intervals', op, unit: 'us', timeBase: 'relative', rows: [] };
      this.intervals.set(op, s);
    }
    return s;
  }

  finish(): ParsedFile {
    this.flush();
    const summaries: PrintedSeries[] = [...this.finals.values()].map((r) => ({
      kind: 'printed',
      op: r.op,
      unit: 'us',
      count: r.count,
      mean: r.count > 0 ? r.mean : null,
      min: r.count > 0 ? r.min : null,
      max: r.count > 0 ? r.max : null,
      percentiles: r.count > 0 ? r.percentiles : {},
      returns: {},
    }));
    const counted = this.counter.finish(this.rawOps.size);
    const raw: RawSeries[] = [...this.rawOps.keys()].map((op, i) => ({ kind: 'raw', op, unit: 'us', ...counted[i]! }));
    const intervals = [...this.intervals.values()].filter((s) => s.rows.length > 0);
    const series = [...raw, ...summaries, ...intervals];
    if (series.length === 0 && this.issues.errors.length === 0) this.issues.note(0, 'no go-ycsb report or sample found');
    const producer: ProducerInfo = { tool: 'go-ycsb' };
    if (Object.keys(this.settings).length > 0) producer.settings = { ...this.settings };
    if (this.settings.command !== undefined) producer.command = this.settings.command;
    return this.parsed('go-ycsb', { series, producer });
  }
}

const CONTENT_SIGNS: [RegExp, number][] = [
  [/^\S+\s+- Takes\(s\): [\d.]+, Count: \d+, OPS: /m, 1],
  [/^operation,timestamp_us,latency_us[ \t]*$/m, 1],
  [/^\|[ \t]*OPERATION[ \t]*\|[ \t]*TAKES\(S\)[ \t]*\|[ \t]*COUNT[ \t]*\|/m, 1],
  [/^\[\{[^\n]*"Takes\(s\)":"[\d.]+"/m, 1],
  [/^\*{17} properties \*{17}$/m, 0.9],
];

export const goYcsbFormat: FormatModule = {
  id: 'go-ycsb',
  label: 'go-ycsb output (reports, csv samples)',
  detect(head) {
    let score = 0;
    for (const [sign, weight] of CONTENT_SIGNS) if (weight > score && sign.test(head)) score = weight;
    return score;
  },
  createParser: (path, options) => new GoYcsbParser(path, options),
};
