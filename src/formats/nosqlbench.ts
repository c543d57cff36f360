import { parseNonNegativeInteger, secondsToMicros, toMicros } from '../model/numbers.ts';
import type { IntervalRow, IntervalsSeries, LatencyUnit, ParsedFile } from '../model/types.ts';
import { LineParserBase, type FormatModule, type LineParser } from './format.ts';
import { hdrLogScore, producerHdrLog } from './hdr-log.ts';

/**
 * NoSQLBench (nosqlbench/nosqlbench) metric logs:
 * - `--log-histograms file[:pattern[:interval]]`: an HdrHistogram interval log (HistoIntervalLogger,
 *   HdrHistogram's HistogramLogWriter) headed `#logging histograms for session <name>`, one
 *   `Tag=<metric>` line per timer and interval;
 * - `--log-histostats file[:pattern[:interval]]`: per timer and interval one CSV row
 *   (HistoStatsCSVWriter) `Tag=<metric>,<start s>,<length s>,count,min,p25,p50,p75,p90,p95,p98,p99,
 *   p999,p9999,max`, headed `#logging stats for session <name>` (older versions: `#logging
 *   histograms for session`), `#[StartTime: …]`, `#[TimeUnit: NANOSECONDS]` and that legend.
 *
 * Unit: timers record nanoseconds (OpTrackerImpl: `cycleServiceTimer.update(op.getServiceTimeNanos(),
 * TimeUnit.NANOSECONDS)`; HistoStats/NBCreators open the stats log with TimeUnit.NANOSECONDS), and
 * the histostats header states it; histogram logs carry no unit line and are read as ns.
 *
 * Tags are metric names: `<activity>.cycles.servicetime` (NoSQLBench 4 and 5 before labels),
 * `cycles_servicetime` (5.21 on, where the tag is the metric's `name` label alone). The cycle is
 * the operation a user runs: its service time is read as `<activity>.cycles` (or `cycles`), its
 * response time — measured from the cycle's intended start under a rate limit — as
 * `Intended-<activity>.cycles`. Every other timer (bind, execute, result, result_success, strides,
 * read_input, tries…) times the same cycles again or is not a latency; those lines are passed over
 * so that each cycle counts once.
 *
 * Histostats percentiles: before 4.17.31/5.17.1 (July 2022, commit bdd8317) the writer asked
 * `getValueAtPercentile(0.25)` … `(0.9999)` — percentiles 0.25 % … 0.9999 % — under the labels
 * p25 … p9999. The header does not say which version wrote a file, but its rows do: with fewer
 * than 10,000 values, p99.99 is the highest value's bucket, so it equals `max`; a row where it
 * does not was written by the old code, and the whole file's columns are then read as what they
 * are (p0.25 … p0.9999).
 */

const HISTOLOG_HEADER = /^#logging histograms for session /m;
const STATS_HEADER = /^#logging (?:stats|histograms) for session /m;
const STATS_LEGEND = '#Tag,Interval_Start,Interval_Length,count,min,p25,p50,p75,p90,p95,p98,p99,p999,p9999,max';
const STATS_ROW_SIGN = /^Tag=[^,\n]*,[\d.Ee+-]+,[\d.]+,\d+,\d+,\d+,\d+,/m;
const HISTOLOG_ROW = /^(?:Tag=[^,]*,)?[^,]*,[^,]*,[^,]*,HIST/;
const CYCLES_TAG = /^(.*?(?:^|[._]))cycles(?:[._](servicetime|responsetime))?$/;

/** The operation a tag stands for, or null for the timers that are not read. */
export function nosqlbenchOp(tag: string): string | null {
  const m = CYCLES_TAG.exec(tag.trim());
  if (!m) return null;
  const op = `${m[1] ?? ''}cycles`;
  return m[2] === 'responsetime' ? `Intended-${op}` : op;
}

const histoLog = producerHdrLog('NoSQLBench histogram log', { format: 'nosqlbench', unit: 'ns', opOfTag: (tag) => nosqlbenchOp(tag) ?? tag, producer: { tool: 'NoSQLBench' } }, (head) => HISTOLOG_HEADER.test(head));

/** The histogram log with the lines of timers that are not read left out. */
class HistoLogParser implements LineParser {
  private readonly inner: LineParser;
  private session: string | null = null;
  private lines = 0;

  constructor(path: string) {
    this.inner = histoLog.createParser(path);
  }

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    const line = text.trim();
    if (line.startsWith('Tag=')) {
      const comma = line.indexOf(',');
      if (comma > 0 && nosqlbenchOp(line.slice(4, comma)) === null) return;
    } else if (this.session === null && line.startsWith('#logging histograms for session ')) this.session = line.slice('#logging histograms for session '.length);
    this.inner.line(text, lineNo);
  }

  finish(): ParsedFile {
    const file = { ...this.inner.finish(), lines: this.lines };
    if (this.session !== null) file.producer = { tool: 'NoSQLBench', settings: { session: this.session } };
    return file;
  }
}

const UNITS: Record<string, LatencyUnit> = { NANOSECONDS: 'ns', MICROSECONDS: 'us', MILLISECONDS: 'ms', SECONDS: 's' };
const LABELS = ['p25', 'p50', 'p75', 'p90', 'p95', 'p98', 'p99', 'p99.9', 'p99.99'];
const OLD_LABELS = ['p0.25', 'p0.5', 'p0.75', 'p0.9', 'p0.95', 'p0.98', 'p0.99', 'p0.999', 'p0.9999'];

interface StatsRow {
  op: string;
  row: IntervalRow;
  /** The nine percentile columns as printed, in order. */
  columns: number[];
}

class HistoStatsParser extends LineParserBase {
  private startTimeUs: number | null = null;
  private unit: LatencyUnit = 'ns';
  private session: string | null = null;
  private readonly rows: StatsRow[] = [];
  /** Whether a row proves the columns are p0.25 … p0.9999 (see the file comment). */
  private oldColumns = false;

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    const line = text.replace(/^\uFEFF/, '').trim();
    if (line.length === 0) return;
    if (line.startsWith('#')) return this.header(line, lineNo);
    if (!line.startsWith('Tag=')) return this.issues.skip(lineNo, `not a histostats row (Tag=<metric>,start,length,count,min,p25…p9999,max): "${line.slice(0, 80)}"`);
    const fields = line.slice(4).split(',');
    if (fields.length !== 15) return this.issues.skip(lineNo, `expected 15 fields (tag, start, length, count, min, 9 percentiles, max), found ${fields.length}`);
    const [tag = '', startText = '', lengthText = '', ...numbers] = fields;
    const op = nosqlbenchOp(tag);
    if (op === null) return;
    const startUs = secondsToMicros(startText);
    const lengthUs = secondsToMicros(lengthText);
    if (startUs === null || startUs < 0) return this.issues.skip(lineNo, `interval start "${startText.slice(0, 40)}" is not a number of seconds`, 'Interval_Start');
    if (lengthUs === null || lengthUs < 0) return this.issues.skip(lineNo, `interval length "${lengthText.slice(0, 40)}" is not a number of seconds`, 'Interval_Length');
    const values = numbers.map(parseNonNegativeInteger);
    const bad = values.findIndex((v) => v === null);
    if (bad >= 0) return this.issues.skip(lineNo, `${['count', 'min', ...LABELS, 'max'][bad] ?? 'field'} "${(numbers[bad] ?? '').slice(0, 40)}" is not a whole number`);
    const [count = 0, min = 0, ...rest] = values as number[];
    const max = rest[9] ?? 0;
    const columns = rest.slice(0, 9);
    const absolute = this.startTimeUs !== null ? this.startTimeUs + startUs : startUs;
    if (!Number.isSafeInteger(absolute)) return this.issues.skip(lineNo, 'interval start is out of range', 'Interval_Start');
    if (count > 0 && count < 10_000 && columns[8] !== max) this.oldColumns = true;
    const empty = count === 0;
    this.rows.push({
      op,
      columns,
      row: { startUs: absolute, lengthUs, count, mean: null, stddev: null, min: empty ? null : min, max: empty ? null : max, percentiles: {}, line: lineNo },
    });
  }

  private header(line: string, lineNo: number): void {
    if (line.startsWith('#[StartTime:')) {
      const token = line.slice('#[StartTime:'.length).trim().split(/[\s\]]/)[0] ?? '';
      this.startTimeUs = secondsToMicros(token);
      if (this.startTimeUs === null) this.issues.note(lineNo, `StartTime "${token.slice(0, 40)}" is not epoch seconds; interval times are read as relative`);
    } else if (line.startsWith('#[TimeUnit:')) {
      const name = line.slice('#[TimeUnit:'.length).replace(/\]\s*$/, '').trim();
      const unit = UNITS[name];
      if (unit === undefined) this.issues.note(lineNo, `time unit "${name.slice(0, 40)}" is not one benchlens knows; values are read as nanoseconds`);
      else this.unit = unit;
    } else if (this.session === null && STATS_HEADER.test(line)) this.session = line.replace(/^#logging (?:stats|histograms) for session /, '');
  }

  finish(): ParsedFile {
    const labels = this.oldColumns ? OLD_LABELS : LABELS;
    const byOp = new Map<string, IntervalsSeries>();
    // Periodic figures are reported as printed, and figures leave the engine in µs: ns become
    // fractions of a µs (toMicros divides, so 1234 ns is exactly the double nearest 1.234 µs).
    const us = (v: number | null) => (v === null ? null : toMicros(v, this.unit));
    for (const { op, row, columns } of this.rows) {
      let s = byOp.get(op);
      if (!s) {
        s = { kind: 'intervals', op, unit: 'us', timeBase: this.startTimeUs !== null ? 'absolute' : 'relative', rows: [] };
        byOp.set(op, s);
      }
      row.min = us(row.min);
      row.max = us(row.max);
      if (row.count > 0) row.percentiles = Object.fromEntries(labels.map((label, i) => [label, toMicros(columns[i] ?? 0, this.unit)]));
      s.rows.push(row);
    }
    if (byOp.size === 0 && this.issues.errors.length === 0) this.issues.note(0, 'no cycles timer (cycles.servicetime, cycles_responsetime…) in this histostats log; other timers time the same cycles and are not read');
    const file = this.parsed('nosqlbench', { series: [...byOp.values()] });
    file.producer = this.session !== null ? { tool: 'NoSQLBench', settings: { session: this.session } } : { tool: 'NoSQLBench' };
    return file;
  }
}

/** Which log a file is, from its first data line (header lines are the same in both). */
class NosqlbenchParser implements LineParser {
  private inner: LineParser | null = null;
  private readonly held: { text: string; lineNo: number }[] = [];

  constructor(private readonly path: string) {}

  line(text: string, lineNo: number): void {
    if (this.inner) return this.inner.line(text, lineNo);
    const line = text.trim();
    if (line.length === 0 || line.startsWith('#') || line.startsWith('"StartTimestamp"')) {
      // Header lines only decide when they name the legend.
      if (line === STATS_LEGEND) this.start(new HistoStatsParser(this.path));
      else if (line.startsWith('"StartTimestamp"')) this.start(new HistoLogParser(this.path));
      if (this.inner) return (this.inner as LineParser).line(text, lineNo);
      this.held.push({ text, lineNo });
      return;
    }
    this.start(HISTOLOG_ROW.test(line) ? new HistoLogParser(this.path) : new HistoStatsParser(this.path));
    (this.inner as unknown as LineParser).line(text, lineNo);
  }

  private start(parser: LineParser): void {
    this.inner = parser;
    for (const h of this.held.splice(0)) parser.line(h.text, h.lineNo);
  }

  finish(): ParsedFile {
    if (!this.inner) this.start(new HistoStatsParser(this.path));
    return (this.inner as unknown as LineParser).finish();
  }
}

export const nosqlbenchFormat: FormatModule = {
  id: 'nosqlbench',
  label: 'NoSQLBench histogram and histostats logs',
  detect(head, fileName) {
    if (head.includes(STATS_LEGEND) || (STATS_HEADER.test(head) && STATS_ROW_SIGN.test(head))) return 1;
    return HISTOLOG_HEADER.test(head) ? hdrLogScore(head, fileName) : 0;
  },
  createParser: (path) => new NosqlbenchParser(path),
};
