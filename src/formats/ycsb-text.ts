import { parseNonNegativeInteger } from '../model/numbers.ts';
import { FailureTally } from '../model/failures.ts';
import { opKind } from '../model/naming.ts';
import type { FileFailures, OverallSummary, ParsedFile, StatusOpFigures, StatusPoint, PrintedSeries, YcsbCommandLine } from '../model/types.ts';
import { LineParserBase, type FormatModule } from './format.ts';
import { parseYcsbCommandLine, ycsbClientHint } from './ycsb-command-line.ts';

/**
 * YCSB's text output: the client's stdout (the final summary written by TextMeasurementsExporter),
 * its stderr (the `Command line:` echo, then one status line per `status.interval`), or both in one
 * file (`> out.txt 2>&1`, or files concatenated). Lines of any other kind — progress messages,
 * binding logs, stack traces, raw samples written to stdout — are not this format's business and
 * are passed over silently; only lines that have the shape of a summary or status line and then
 * fail to parse are reported.
 *
 * Summary variants (`[NAME], metric, value`, value as Java's toString of int/long/double):
 * - hdrhistogram: Operations, AverageLatency(us), Min/MaxLatency(us), `<ordinal>PercentileLatency(us)`
 *   for every `hdrhistogram.percentiles` entry (`95th`, `99th`, `99.9` — a fractional percentile
 *   has no ordinal suffix), Return=STATUS, and with `measurement.histogram.verbose` one
 *   `[NAME], <value>, <count>` line per bucket;
 * - raw: Total Operations, `Below is a summary…, -1`, Average, Min, Max, p1 … p99.99, Return=;
 * - histogram (and timeseries): as hdrhistogram plus LatencyVariance(us), with 95th/99th as the
 *   lower bound of a 1 ms bucket, and bucket lines `[NAME], 0, n` … `[NAME], >1000, n` (timeseries:
 *   `[NAME], <ms offset>, <average>`); YCSB ≤ 0.1.x printed those two percentiles in ms
 *   (`95thPercentileLatency(ms)`), converted here to µs so that a series has one unit;
 * - `hdrhistogram+histogram` / `hdrhistogram+raw` prefix names with Hdr/Bucket/Raw, kept as printed.
 *
 * Status lines (StatusThread): `<label>yyyy-MM-dd HH:mm:ss:SSS N sec: N operations;`, then
 * optionally `X current ops/sec;` and `est completion in …`, then one entry per measurement: `[NAME: Count=…,
 * Max=…, Min=…, Avg=…, 90=…, …]` (hdrhistogram; newer YCSB adds `50=`), `NAME count: n, average
 * latency(us): x` (raw), or `[NAME AverageLatency(us)=x]` (histogram, timeseries). YCSB before
 * 0.2 printed `label N sec: …` without the date. Numbers there come from DecimalFormat("#.##") or
 * %.2f, which follow the JVM locale (a decimal comma is accepted), and a NaN or infinite value is
 * printed as `NaN`/`∞` (`\uFFFD` on Java 8; `?` when stderr's charset cannot encode `∞`).
 */

/** Summary blocks and status entries that are JVM statistics (`measurement.trackjvm`), not operations. */
const NON_OPERATION = /^(?:TOTAL_GC.*|(?:MAX|MIN)_(?:MEM_USED|THREADS|SYS_LOAD_AVG)|THREAD_COUNT|USED_MEM_MB|SYS_LOAD_AVG|GCS|GCS_TIME)$/;

const SUMMARY_LINE = /^\[([^\]]+)\], (.*)$/;
const JAVA_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|NaN|Infinity)$/;
const HDR_PERCENTILE = /^(\d[\d.Ee+-]*?)(?:st|nd|rd|th)?PercentileLatency\((us|ms)\)$/;
const RAW_PERCENTILE = /^p(\d+(?:\.\d+)?)$/;

/**
 * At most 19 digits before " sec:" (a long fits in 19): with \d+ the lazy prefix retried every
 * start inside a long run of digits, each scanning to its end — quadratic on a line of digits.
 */
const STATUS_HEAD = /^(.*?)(-?\d{1,19}) sec: (\d+) operations;(.*)$/;
const STATUS_DATE = /(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}):(\d{3}) $/;
/** YCSB's timestamp (colon before the milliseconds) opening a line that did not parse as a status line. */
const CUT_STATUS = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}:\d{3}(?: |$)/;
const CURRENT_OPS = /\s*(\S+) current ops\/sec;/y;
const EST_COMPLETION = /\s*est completion in (?:\d+ (?:days?|hours?|minutes?|seconds?)(?: |$))+/y;
const RAW_FIGURES = /(\S+) count: (\d+), average latency\(us\): (\S+)/y;
/**
 * `hdrhistogram+histogram` / `+raw` measurements print their two summaries joined by a newline,
 * so the figures of one status line continue on the following lines.
 */
const FIGURES_START = /^(?:\[[^\]:,]+(?:: Count=| AverageLatency\(us\)=)|\S+ count: \d+, average latency\(us\): )/;
const HDR_BRACKET = /^([^:]+): (.*)$/;
const AVG_BRACKET = /^(.+) AverageLatency\(us\)=(\S+)$/;

/** How DecimalFormat / String.format render NaN or ∞ across JDKs, locales and charsets. */
const NOT_A_NUMBER = new Set(['NaN', '\uFFFD', '∞', '-∞', 'Infinity', '?', 'âˆž']);
/** HdrHistogram's minimum of an empty interval (Long.MAX_VALUE). */
const EMPTY_MIN = '9223372036854775807';

function finite(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}

function percentileLabel(text: string): string | null {
  const v = Number(text);
  return text.length > 0 && Number.isFinite(v) && v >= 0 && v <= 100 ? `p${v}` : null;
}

/** A DecimalFormat("#.##") / %.2f number: null for NaN/∞, undefined when it is not a number at all. */
function statusDecimal(text: string): number | null | undefined {
  if (/^-?\d+(?:[.,]\d+)?$/.test(text)) {
    // 310 digits overflow to Infinity: not something DecimalFormat prints, so not a number at all.
    const v = Number(text.replace(',', '.'));
    return Number.isFinite(v) ? v : undefined;
  }
  return NOT_A_NUMBER.has(text) ? null : undefined;
}

type FigureEntry = [name: string, figures: StatusOpFigures | null];

function parseBracket(content: string): FigureEntry | string {
  const avgOnly = AVG_BRACKET.exec(content);
  if (avgOnly) {
    const [, name = '', value = ''] = avgOnly;
    return statusDecimal(value) === undefined ? `average "${value}" of ${name} is not a number` : [name, null];
  }
  const hdr = HDR_BRACKET.exec(content);
  if (!hdr) return `unrecognised status figures "[${content}]"`;
  const [, name = '', body = ''] = hdr;
  let count: number | null = null;
  let min: number | null = null;
  let max: number | null = null;
  let avg: number | null = null;
  const percentiles = new Map<string, number>();
  for (const part of body.split(', ')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return `"${part}" in the figures of ${name} is not key=value`;
    const key = part.slice(0, eq);
    const text = part.slice(eq + 1);
    if (key === 'Count') {
      count = parseNonNegativeInteger(text);
      if (count === null) return `Count "${text}" of ${name} is not a whole number`;
    } else if (key === 'Min' || key === 'Max') {
      if (!/^-?\d+$/.test(text)) return `${key} "${text}" of ${name} is not a whole number`;
      const v = text === EMPTY_MIN ? null : Number(text);
      if (v !== null && !Number.isFinite(v)) return `${key} "${text}" of ${name} is out of range`;
      if (key === 'Min') min = v;
      else max = v;
    } else {
      const label = key === 'Avg' ? key : percentileLabel(key);
      if (label === null) continue;
      const v = statusDecimal(text);
      if (v === undefined) return `${key} "${text}" of ${name} is not a number`;
      if (label === 'Avg') avg = v;
      else if (v !== null) percentiles.set(label, v);
    }
  }
  if (count === null) return `the figures of ${name} have no Count`;
  // An empty interval prints Max=0 and percentiles 0, which are not latencies.
  if (count === 0) return [name, { count, max: null, min: null, avg: null, percentiles: {} }];
  return [name, { count, max, min, avg, percentiles: Object.fromEntries(percentiles) }];
}

/** The per-measurement entries of a status line from `from` on, or why they do not parse. */
function parseFigures(text: string, from: number): FigureEntry[] | string {
  const entries: FigureEntry[] = [];
  let i = from;
  for (;;) {
    while (i < text.length && /\s/.test(text.charAt(i))) i++;
    if (i >= text.length) return entries;
    if (text.charAt(i) === '[') {
      const close = text.indexOf(']', i);
      if (close < 0) return `status figures cut off: "${text.slice(i, i + 60)}"`;
      const entry = parseBracket(text.slice(i + 1, close));
      if (typeof entry === 'string') return entry;
      entries.push(entry);
      i = close + 1;
      continue;
    }
    RAW_FIGURES.lastIndex = i;
    const raw = RAW_FIGURES.exec(text);
    if (!raw) return `unexpected text in a status line: "${text.slice(i, i + 60)}"`;
    const [, name = '', countText = '', avgText = ''] = raw;
    const count = parseNonNegativeInteger(countText);
    const avg = statusDecimal(avgText);
    if (count === null) return `count "${countText}" of ${name} is not a whole number`;
    if (avg === undefined) return `average latency "${avgText}" of ${name} is not a number`;
    entries.push([name, { count, max: null, min: null, avg: count === 0 ? null : avg, percentiles: {} }]);
    i = RAW_FIGURES.lastIndex;
  }
}

interface ParsedStatus {
  point: StatusPoint;
  entries: FigureEntry[];
}

function parseStatus(head: RegExpExecArray): ParsedStatus | string {
  const [, prefix = '', elapsedText = '', opsText = '', rest = ''] = head;
  // Before the count YCSB prints its label, then the date and a space (older versions: label and a space).
  if (prefix.length > 0 && !/\s$/.test(prefix)) return `status line with unexpected text before "${elapsedText} sec:"`;
  const operations = parseNonNegativeInteger(opsText);
  if (operations === null) return `operation count "${opsText}" is out of range`;
  const elapsedS = Number(elapsedText);
  if (!Number.isSafeInteger(elapsedS)) return `elapsed time "${elapsedText} sec" is out of range`;
  let localTimeMs: number | null = null;
  const date = STATUS_DATE.exec(prefix);
  if (date) {
    const [y = 0, mo = 1, d, h, mi, s, ms] = date.slice(1).map(Number);
    // The zone of the printed local time is unknown; UTC fields keep it comparable across lines and clients.
    localTimeMs = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  }
  let currentOpsPerS: number | null = null;
  let i = 0;
  CURRENT_OPS.lastIndex = 0;
  const current = CURRENT_OPS.exec(rest);
  if (current) {
    const [, value = ''] = current;
    const v = statusDecimal(value);
    if (v === undefined) return `current ops/sec "${value}" is not a number`;
    currentOpsPerS = v;
    i = CURRENT_OPS.lastIndex;
  }
  EST_COMPLETION.lastIndex = i;
  if (EST_COMPLETION.exec(rest)) i = EST_COMPLETION.lastIndex;
  const entries = parseFigures(rest, i);
  if (typeof entries === 'string') return entries;
  return { point: { elapsedS, operations, currentOpsPerS, localTimeMs, ops: {} }, entries };
}

interface SummaryBlock {
  op: string;
  line: number;
  count: number | null;
  mean: number | null;
  min: number | null;
  max: number | null;
  percentiles: Map<string, number>;
  returns: Map<string, number>;
}

class YcsbTextParser extends LineParserBase {
  private blocks = new Map<string, SummaryBlock>();
  private overall: OverallSummary | null = null;
  private commandLine: YcsbCommandLine | undefined;
  private readonly status: StatusPoint[] = [];
  /** Figures of the last status point, which continuation lines extend. */
  private lastOps = new Map<string, StatusOpFigures>();
  private lastStatusText: string | null = null;
  /** Line number of the last status line or continuation; figures on the very next line continue it. */
  private lastStatusLineNo = -1;
  private avgOnlyNoted = false;

  line(text: string, lineNo: number): void {
    this.lines++;
    // A BOM can also sit at the start of a second file concatenated onto the first.
    const t = text.replace(/^\uFEFF/, '').trim();
    if (t.length === 0) return;
    const summary = SUMMARY_LINE.exec(t);
    if (summary) return this.summaryLine(summary[1] ?? '', summary[2] ?? '', lineNo);
    if (t.startsWith('Command line:')) return this.commandLineLine(t, lineNo);
    if (t.includes(' sec: ')) {
      const head = STATUS_HEAD.exec(t);
      if (head) return this.statusLine(t, head, lineNo);
    }
    if (FIGURES_START.test(t)) return this.continuationLine(t, lineNo);
    if (CUT_STATUS.test(t)) this.issues.skip(lineNo, `incomplete status line: "${t.slice(0, 80)}"`);
  }

  private commandLineLine(text: string, lineNo: number): void {
    if (this.commandLine !== undefined) {
      this.issues.note(lineNo, 'a second YCSB command line (output of another run?); the first one is kept');
      return;
    }
    this.commandLine = parseYcsbCommandLine(text);
  }

  private summaryLine(name: string, rest: string, lineNo: number): void {
    const comma = rest.lastIndexOf(', ');
    if (comma < 0) return this.issues.skip(lineNo, `summary line of ${name} without a value ("[NAME], metric, value" expected)`);
    const metric = rest.slice(0, comma).trim();
    const valueText = rest.slice(comma + 2).trim();
    if (!JAVA_NUMBER.test(valueText)) return this.issues.skip(lineNo, `${name} ${metric}: "${valueText}" is not a number`, metric);
    const value = Number(valueText);
    if (name === 'OVERALL') return this.overallFigure(metric, value, lineNo);
    if (NON_OPERATION.test(name)) return;

    const isCount = metric === 'Operations' || metric === 'Total Operations';
    const isReturn = metric.startsWith('Return=');
    if ((isCount || isReturn) && !(Number.isSafeInteger(value) && value >= 0)) {
      return this.issues.skip(lineNo, `${name} ${metric}: "${valueText}" is not a whole number`, metric);
    }
    let block = this.blocks.get(name);
    if (block !== undefined && isCount && block.count !== null) {
      this.issues.note(lineNo, `a second summary of ${name}; the earlier one is dropped`);
      block = undefined;
    }
    if (block === undefined) {
      block = { op: name, line: lineNo, count: null, mean: null, min: null, max: null, percentiles: new Map(), returns: new Map() };
      this.blocks.set(name, block);
    }
    if (isCount) block.count = value;
    else if (isReturn) block.returns.set(metric.slice('Return='.length), value);
    else if (metric === 'AverageLatency(us)' || metric === 'Average') block.mean = finite(value);
    else if (metric === 'MinLatency(us)' || metric === 'Min') block.min = finite(value);
    else if (metric === 'MaxLatency(us)' || metric === 'Max') block.max = finite(value);
    else {
      const hdr = HDR_PERCENTILE.exec(metric);
      const label = percentileLabel(hdr?.[1] ?? RAW_PERCENTILE.exec(metric)?.[1] ?? '');
      if (label !== null && Number.isFinite(value)) block.percentiles.set(label, hdr?.[2] === 'ms' ? value * 1000 : value);
    }
  }

  private overallFigure(metric: string, value: number, lineNo: number): void {
    if (metric === 'RunTime(ms)') {
      // RunTime opens every summary, so a second one means a second run's output in this file.
      if (this.overall !== null || this.blocks.size > 0) {
        this.issues.note(lineNo, 'a second YCSB summary starts here; the figures of the earlier one are dropped');
        this.blocks = new Map();
      }
      this.overall = { runTimeMs: finite(value), throughputOpsPerS: null };
    } else if (metric === 'Throughput(ops/sec)') {
      this.overall = { runTimeMs: this.overall?.runTimeMs ?? null, throughputOpsPerS: finite(value) };
    }
  }

  private statusLine(text: string, head: RegExpExecArray, lineNo: number): void {
    // With measurementtype=timeseries YCSB prints each status line to stdout as well as stderr.
    if (text === this.lastStatusText) {
      this.lastStatusLineNo = lineNo;
      return;
    }
    const parsed = parseStatus(head);
    if (typeof parsed === 'string') return this.issues.skip(lineNo, parsed);
    this.flushOps();
    this.status.push(parsed.point);
    this.lastOps = new Map();
    this.addFigures(parsed.entries, lineNo);
    this.lastStatusText = text;
    this.lastStatusLineNo = lineNo;
  }

  private continuationLine(text: string, lineNo: number): void {
    if (lineNo !== this.lastStatusLineNo + 1 || this.status.length === 0) {
      return this.issues.skip(lineNo, 'status figures without the status line they belong to');
    }
    const entries = parseFigures(text, 0);
    if (typeof entries === 'string') return this.issues.skip(lineNo, entries);
    this.addFigures(entries, lineNo);
    this.lastStatusLineNo = lineNo;
  }

  private addFigures(entries: FigureEntry[], lineNo: number): void {
    const point = this.status[this.status.length - 1];
    if (point === undefined) return;
    for (const [name, figures] of entries) {
      if (NON_OPERATION.test(name)) continue;
      if (figures === null) {
        if (!this.avgOnlyNoted) {
          this.issues.note(lineNo, `status figures of ${name} are an average without a count (histogram/timeseries measurement); such figures are not kept`);
          this.avgOnlyNoted = true;
        }
        continue;
      }
      this.lastOps.set(name, figures);
    }
  }

  /**
   * The figures gathered for the last status point become its `ops`. Done once per point, not per
   * continuation line: rebuilding the object on each of thousands of continuation lines was quadratic.
   */
  private flushOps(): void {
    const point = this.status[this.status.length - 1];
    if (point !== undefined && this.lastOps.size > 0) point.ops = Object.fromEntries(this.lastOps);
  }

  finish(): ParsedFile {
    this.flushOps();
    const series: PrintedSeries[] = [];
    for (const b of this.blocks.values()) {
      if (b.count === null) {
        this.issues.note(b.line, `the summary of ${b.op} has no Operations line; it is not used`);
        continue;
      }
      // An empty measurement prints 0 or -1 (or NaN) as its latencies; none of them is a latency.
      const empty = b.count === 0;
      series.push({
        kind: 'printed',
        op: b.op,
        unit: 'us',
        count: b.count,
        mean: empty ? null : b.mean,
        min: empty ? null : b.min,
        max: empty ? null : b.max,
        percentiles: empty ? {} : Object.fromEntries(b.percentiles),
        returns: Object.fromEntries(b.returns),
      });
    }
    const file = this.parsed('ycsb-text', { series });
    const failures = returnFailures(series);
    if (failures) file.failures = failures;
    if (this.commandLine !== undefined) {
      file.commandLine = this.commandLine;
      const hint = ycsbClientHint(this.commandLine);
      if (hint !== undefined) file.clientHint = hint;
    }
    if (this.overall !== null) file.overall = this.overall;
    if (this.status.length > 0) file.status = this.status;
    return file;
  }
}

/** Statuses YCSB counts as success (Status.isOk): every other `Return=` is a failed operation. */
const OK_RETURNS = new Set(['OK', 'BATCHED_OK']);

/** The failed operations of the summary's `Return=` lines, by status, as the client counted them. */
function returnFailures(series: readonly PrintedSeries[]): FileFailures | undefined {
  const tally = new FailureTally();
  for (const s of series) {
    if (opKind(s.op) !== 'op') continue;
    for (const [status, n] of Object.entries(s.returns)) if (!OK_RETURNS.has(status)) tally.add(s.op, status, null, n);
  }
  return tally.of('report');
}

const CONTENT_SIGNS: [RegExp, number][] = [
  [/^\[OVERALL\], RunTime\(ms\), /m, 1],
  [/^Command line:.*? -(?:db|P|p|threads|target|load|t|s|l)(?: |$)/m, 0.95],
  [/(?:^|\s)\d+ sec: \d+ operations;/m, 0.95],
  // [^\]\n], not [^\]]: a head of lines starting "[" without a "]" was rescanned to its end from every line.
  [/^\[[^\]\n]+\], (?:Operations|Total Operations|AverageLatency\(us\)|Return=[^,\n]+), /m, 0.9],
  [/^YCSB Client \d/m, 0.7],
  [/^(?:Loading workload\.\.\.|Starting test\.|DBWrapper: report latency)/m, 0.4],
];
/** Heads of HdrHistogram logs, .hgrm files and YCSB raw CSVs, which a file name must not make YCSB text. */
const OTHER_FORMAT = /^(?:#\[|"StartTimestamp"|Tag=|\d+(?:\.\d+)?,\d+(?:\.\d+)?,\d+(?:\.\d+)?,HIST|\S+ latency raw data: |[ \t]*Value[ \t]+Percentile[ \t]+TotalCount)/m;
const NAME_HINT = /\.(?:stdout|stderr|out|err)(?:\.(?:txt|log))?$/i;

export const ycsbTextFormat: FormatModule = {
  id: 'ycsb-text',
  label: 'YCSB output (stdout summary, stderr status)',
  detect(head, fileName) {
    let score = 0;
    for (const [sign, weight] of CONTENT_SIGNS) if (weight > score && sign.test(head)) score = weight;
    const nameHint = NAME_HINT.test(fileName);
    if (score > 0) return Math.min(1, score + (nameHint ? 0.05 : 0));
    return nameHint && !OTHER_FORMAT.test(head) ? 0.1 : 0;
  },
  createParser: (path) => new YcsbTextParser(path),
};
