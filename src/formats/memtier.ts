import { baseName, withoutCompression } from '../model/naming.ts';
import { msToMicros, parseNonNegativeInteger, parseScaledDecimal } from '../model/numbers.ts';
import type { DistributionSeries, IntervalRow, IntervalsSeries, LatencySeries, ParsedFile, ProducerInfo, PrintedSeries } from '../model/types.ts';
import { firstLine, IssueLog, LineParserBase, type FormatModule, type LineParser } from './format.ts';
import { hdrLogScore, producerHdrLog } from './hdr-log.ts';
import { decodeHistogram } from '../model/hdr-codec.ts';
import { max, mean, stdDeviation } from '../model/hdr-stats.ts';

/**
 * memtier_benchmark (RedisLabs/memtier_benchmark). One module for all it writes:
 * - `--hdr-file-prefix=P`: per command `P_<CMD>_command_run_<n>.hgrm`, an HdrHistogram *log* of one
 *   interval (the whole run; its header comment `#[GET command HDR latency histogram results]`),
 *   and `P_<CMD>_command_run_<n>.txt`, that histogram's percentile print; `P_FULL_RUN_<n>.*` the
 *   same for all commands together (run_stats.cpp save_hdr_*). Both come from HdrHistogram_c: its
 *   log writer puts the interval's *end* timestamp where Java's writes the interval length (legend
 *   `"StartTimestamp","EndTimestamp",…`), and its percentile print has its own column widths.
 * - `--json-out-file`: per command type (`Sets`, `Gets`, `Waits`, arbitrary commands as
 *   `<Cmd>s`, `Totals`) the whole-run Count and percentiles, its exact HdrHistogram (2.x: `Percentile
 *   Latencies` → `Histogram log format`), which gives the whole-run figures when present, and a
 *   per-second `Time-Serie`, which gives throughput over time (the same requests, counted once).
 * - stdout: the `ALL STATS` table (Type, Ops/sec, Hits/sec, Misses/sec, Avg. Latency,
 *   p50/p99/p99.9 Latency, KB/sec), with the stderr progress lines when both go to one file.
 *
 * Units: latencies are recorded in µs (`ts_diff` in run_stats.h subtracts two timevals in µs) and
 * printed in ms, divided by LATENCY_HDR_RESULTS_MULTIPLIER (1000, run_stats_types.h): ms with 3
 * decimals are exact µs and are read as such. The histograms have 2 significant digits
 * (LATENCY_HDR_SEC_SIGDIGTS), so the percentile print shows values rounded to 10 µs: from it only
 * the footer's count, mean, deviation and max are read; the `.hgrm` log holds the same histogram
 * exactly.
 *
 * Totals (the `Totals` row, the FULL_RUN files) are every request again: they are kept as
 * `Totals (all requests)`, shown but not counted twice. A command's `.hgrm`/`.txt` files are named
 * after its JSON and table row (`GET` → `Gets`): beside the JSON of the same run (same prefix, so
 * the same client) they are the same requests, counted once, the log's histogram preferred.
 *
 * One file of four readers because a producer is one module (one format id, one `detect`): the
 * parser learns which of memtier's outputs it reads only from the file's first line.
 */

const ALL_REQUESTS = 'Totals (all requests)';
/** `P_GET_command_run_1.hgrm`, `P_FULL_RUN_1.txt`: prefix, command, run. */
const FILE_NAME = /^(.*?)_(?:(.+)_command_run|FULL_RUN)_(\d+)\.(?:hgrm|txt)$/;

function fileParts(path: string): { prefix: string; command: string | null } | null {
  const m = FILE_NAME.exec(withoutCompression(baseName(path)));
  return m ? { prefix: m[1] ?? '', command: m[2] ?? null } : null;
}

/** A latency in ms as memtier writes it (a JSON number or table text; digits, no sign) → exact µs; null when not such a number. */
function figureMicros(value: unknown): number | null {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  return /^\d+(?:\.\d+)?$/.test(text) ? msToMicros(text) : null;
}

/** The table's mean (`%15.05f` ms, a fraction of a µs) → µs, to the printed precision. */
function meanMsToMicros(text: string): number | null {
  if (!/^\d+(?:\.\d+)?$/.test(text)) return null;
  const nanos = parseScaledDecimal(text, 6);
  return nanos === null ? null : nanos / 1000;
}

/** `p50.00`, `p99.900`, `p99.9 Latency` → `p50`, `p99.9`. */
function percentileLabel(key: string): string | null {
  const m = /^p(\d+(?:\.\d+)?)(?: Latency)?$/.exec(key.trim());
  if (!m) return null;
  const v = Number(m[1]);
  return v >= 0 && v <= 100 ? `p${v}` : null;
}

// ---------------------------------------------------------------------------------------------
// HdrHistogram log (.hgrm)

const LOG_HEADER = /^#\[(.+) command HDR latency histogram results\]\s*$/m;
const END_TIMESTAMP_LEGEND = /^"StartTimestamp","EndTimestamp"/;

const hdrLog = producerHdrLog('memtier_benchmark HdrHistogram log', { format: 'memtier', unit: 'us', producer: { tool: 'memtier_benchmark' } }, (head) => LOG_HEADER.test(head));

/**
 * The operation a command's log or print is of, named as the JSON and the table name it (`GET` →
 * `Gets`, `INCR` → `Incrs`: run_stats.cpp writes the command in lower case, capitalised, with an
 * `s`), so that the files memtier wrote of one run name the same requests alike and they are
 * counted once.
 */
function commandOp(command: string): string {
  if (/^full run$/i.test(command) || command === 'FULL_RUN') return ALL_REQUESTS;
  const lower = command.toLowerCase();
  return `${lower.charAt(0).toUpperCase()}${lower.slice(1)}s`;
}

/**
 * memtier's log, handed to the HdrHistogram log reader with its end timestamps turned into
 * interval lengths (exact, in ms: the C writer prints 3 decimals) and its one series named after
 * the command its header comment names.
 */
class MemtierLogParser implements LineParser {
  private readonly inner: LineParser;
  private readonly issues: IssueLog;
  private command: string | null = null;
  private endTimestamps = false;

  constructor(private readonly path: string) {
    this.inner = hdrLog.createParser(path);
    this.issues = new IssueLog(path);
  }

  line(text: string, lineNo: number): void {
    const line = text.trim();
    if (line.startsWith('#[') && this.command === null) {
      const m = LOG_HEADER.exec(line);
      if (m) this.command = m[1] ?? null;
    } else if (END_TIMESTAMP_LEGEND.test(line)) this.endTimestamps = true;
    else if (this.endTimestamps && /^\d/.test(line)) return this.inner.line(this.withLength(line, lineNo), lineNo);
    this.inner.line(text, lineNo);
  }

  private withLength(line: string, lineNo: number): string {
    const [start = '', end = '', ...rest] = line.split(',');
    const a = parseScaledDecimal(start, 3);
    const b = parseScaledDecimal(end, 3);
    if (a === null || b === null || b < a) {
      this.issues.note(lineNo, `end timestamp "${end.slice(0, 40)}" is not a time after the start "${start.slice(0, 40)}"`, 'EndTimestamp');
      return line;
    }
    const ms = b - a;
    return [start, `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`, ...rest].join(',');
  }

  finish(): ParsedFile {
    const file = this.inner.finish();
    const parts = fileParts(this.path);
    const command = this.command ?? parts?.command ?? null;
    if (command !== null) for (const s of file.series) s.op = commandOp(command);
    if (parts && parts.prefix.length > 0) file.clientHint = parts.prefix;
    file.errors.push(...this.issues.errors);
    return file;
  }
}

// ---------------------------------------------------------------------------------------------
// Percentile print (.txt)

/** HdrHistogram_c's `hdr_percentiles_print` head, `"%12s %12s %12s %12s"` (Java's differs). */
const C_PRINT_HEAD = /^ {7}Value {3}Percentile {3}TotalCount 1\/\(1-Percentile\)$/;
const PRINT_ROW = /^\s*(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(\d+)\s+(\S+)\s*$/;
const FOOTER_MEAN = /^#\[Mean\s*=\s*(\S+),\s*StdDeviation\s*=\s*(\S+)\]$/;
const FOOTER_MAX = /^#\[Max\s*=\s*(\S+),\s*Total count\s*=\s*(\d+)\]$/;

class MemtierPrintParser extends LineParserBase {
  private readonly rows: DistributionSeries['rows'] = [];
  private decimals = 3;
  private mean: number | null = null;
  private stddev: number | null = null;
  private max: number | null = null;
  private footerCount: number | null = null;

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    const line = text.trim();
    if (line.length === 0 || line.startsWith('Value')) return;
    if (line.startsWith('#')) return this.footer(line, lineNo);
    const m = PRINT_ROW.exec(line);
    if (!m) return this.issues.skip(lineNo, `not a percentile row (value, percentile, total count, 1/(1-percentile)): "${line.slice(0, 80)}"`);
    const [, valueText = '', percentileText = '', countText = ''] = m;
    const value = parseScaledDecimal(valueText, 3);
    const percentile = Number(percentileText);
    const totalCount = parseNonNegativeInteger(countText);
    if (value === null || !(percentile >= 0 && percentile <= 1) || totalCount === null) return this.issues.skip(lineNo, 'value, percentile (0–1) or total count out of range');
    const prev = this.rows[this.rows.length - 1];
    if (prev && (totalCount < prev.totalCount || value < prev.value || percentile < prev.percentile)) {
      return this.issues.skip(lineNo, 'row goes backwards (value, percentile and count must not decrease)');
    }
    const dot = valueText.indexOf('.');
    this.decimals = Math.min(this.decimals, dot < 0 ? 0 : valueText.length - dot - 1);
    this.rows.push({ value, percentile, totalCount });
  }

  private footer(line: string, lineNo: number): void {
    const mean = FOOTER_MEAN.exec(line);
    if (mean) {
      this.mean = figureMicros(mean[1]);
      this.stddev = figureMicros(mean[2]);
      if (this.mean === null) this.issues.note(lineNo, `footer mean "${mean[1] ?? ''}" is not a latency in ms; it is not used`);
      return;
    }
    const max = FOOTER_MAX.exec(line);
    if (max) {
      this.max = figureMicros(max[1]);
      this.footerCount = Number(max[2]);
    }
  }

  finish(): ParsedFile {
    const parts = fileParts(this.path);
    const op = parts?.command ? commandOp(parts.command) : parts ? ALL_REQUESTS : withoutCompression(baseName(this.path)).replace(/\.txt$/i, '');
    const last = this.rows[this.rows.length - 1];
    const series: LatencySeries[] = [];
    if (!last) this.issues.note(0, 'no percentile rows found');
    else if (this.footerCount === null) this.issues.note(0, `no footer with the total count (#[Max = …, Total count = …]); the file may be truncated after its last row (percentile ${last.percentile})`);
    else if (this.footerCount !== last.totalCount) this.issues.note(0, `footer total count ${this.footerCount} differs from the last row's ${last.totalCount}; the file may be truncated`);
    else if (this.decimals >= 3) {
      // Values printed to the µs are the buckets' own values: the distribution is read as any .hgrm.
      series.push({ kind: 'distribution', op, unit: 'us', rows: this.rows, totalCount: last.totalCount, precision: null, mean: this.mean, stddev: this.stddev, max: this.max ?? last.value });
    } else {
      const summary: PrintedSeries = { kind: 'printed', op, unit: 'us', count: last.totalCount, mean: this.mean, stddev: this.stddev, min: null, max: this.max, percentiles: {}, returns: {} };
      series.push(summary);
    }
    const file = this.parsed('memtier', { series, producer: { tool: 'memtier_benchmark' } });
    if (parts && parts.prefix.length > 0) file.clientHint = parts.prefix;
    return file;
  }
}

// ---------------------------------------------------------------------------------------------
// JSON (--json-out-file)

/** Result blocks in the order they are preferred: one run, or the average of several. */
const RESULT_BLOCKS = /^(ALL STATS|AGGREGATED AVERAGE RESULTS.*)$/;
/** Per-command entries of a result block that are not commands. */
const NOT_A_COMMAND = new Set(['Runtime', 'Active Clients', 'Per-Key Misses']);
/** Figures memtier prints as `-nan`/`nan`/`inf` when a command had no requests (older versions). */
const NON_NUMBER = /(:\s*)-?(?:nan|inf)\b/gi;
const HAS_NON_NUMBER = /:\s*-?(?:nan|inf)\b/i;

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function percentilesOf(entry: Json): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(entry)) {
    const label = percentileLabel(key);
    const us = label === null ? null : figureMicros(value);
    if (label !== null && us !== null) out[label] = us;
  }
  return out;
}

class MemtierJsonParser extends LineParserBase {
  private readonly text: string[] = [];
  /** Commands whose whole-run figures come from their exact histogram. */
  private histograms = 0;

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    this.text.push(text);
  }

  private parse(): Json | null {
    const source = this.text.join('\n');
    let parsed: unknown;
    try {
      parsed = JSON.parse(source);
    } catch (first) {
      try {
        if (!HAS_NON_NUMBER.test(source)) throw first;
        parsed = JSON.parse(source.replace(NON_NUMBER, '$1null'));
      } catch (e) {
        const message = e instanceof Error ? e.message : 'parse error';
        const at = /position (\d+)/.exec(message);
        // A document that stops before its end (a cut file) fails at its end, whichever line that
        // is: said of the file, not of a line; an error inside it is said of its line.
        if (!at || Number(at[1]) >= source.trimEnd().length) {
          this.issues.note(0, `the JSON document ends before it is complete (${message.slice(0, 120)}): the file was cut short`);
        } else this.issues.skip(source.slice(0, Number(at[1])).split('\n').length, `not valid JSON: ${message.slice(0, 120)}`);
        return null;
      }
    }
    if (isObject(parsed)) return parsed;
    this.issues.note(0, 'the JSON document is not an object of memtier results');
    return null;
  }

  finish(): ParsedFile {
    const doc = this.parse();
    const series: LatencySeries[] = [];
    const producer: ProducerInfo = { tool: 'memtier_benchmark' };
    if (doc) {
      const settings: Record<string, string> = {};
      for (const block of ['configuration', 'run information']) {
        const b = doc[block];
        if (isObject(b)) for (const [k, v] of Object.entries(b)) if (typeof v !== 'object') settings[k] = String(v);
      }
      if (Object.keys(settings).length > 0) producer.settings = settings;
      const name = Object.keys(doc).find((k) => RESULT_BLOCKS.test(k));
      const results = name === undefined ? undefined : doc[name];
      if (!isObject(results)) this.issues.note(0, 'no "ALL STATS" results in this memtier JSON');
      else {
        if (name !== 'ALL STATS') this.issues.note(0, `"${name ?? ''}" averages several runs: its counts and figures are memtier's averages`);
        series.push(...this.commands(results));
        if (this.histograms > 0) {
          producer.settings = { ...producer.settings, 'whole-run figures': "each command's exact HdrHistogram in the JSON (Percentile Latencies); per-second rows for throughput over time" };
        }
      }
    }
    const file = this.parsed('memtier', { series, producer });
    // `--json-out-file=P.json --hdr-file-prefix=P`: the client of the run's logs and prints too.
    const stem = withoutCompression(baseName(this.path)).replace(/\.json$/i, '');
    if (stem.length > 0) file.clientHint = stem;
    return file;
  }

  private commands(results: Json): LatencySeries[] {
    const runtime = results.Runtime;
    const startMs = isObject(runtime) && typeof runtime['Start time'] === 'number' ? runtime['Start time'] : null;
    const out: LatencySeries[] = [];
    for (const [type, entry] of Object.entries(results)) {
      if (NOT_A_COMMAND.has(type) || !isObject(entry)) continue;
      const op = type === 'Totals' ? ALL_REQUESTS : type;
      const count = entry.Count;
      if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
        this.issues.note(0, `${type} has no Count (memtier before 1.4 wrote none); its figures are not read`);
        continue;
      }
      const rows = this.timeSeries(type, entry['Time-Serie'], startMs);
      if (count === 0 && rows.every((r) => r.count === 0)) continue;
      const whole = isObject(entry['Percentile Latencies']) ? percentilesOf(entry['Percentile Latencies']) : {};
      const empty = count === 0;
      const exact = this.histogram(type, op, entry['Percentile Latencies'], count);
      if (exact) out.push(exact);
      else
        out.push({
          kind: 'printed',
          op,
          unit: 'us',
          count,
          mean: empty ? null : figureMicros(entry['Average Latency'] ?? entry.Latency),
          min: empty ? null : figureMicros(entry['Min Latency']),
          max: empty ? null : figureMicros(entry['Max Latency']),
          percentiles: empty ? {} : whole,
          returns: {},
        });
      if (rows.length > 0) {
        const periodic: IntervalsSeries = { kind: 'intervals', op, unit: 'us', timeBase: startMs === null ? 'relative' : 'absolute', rows };
        out.push(periodic);
      }
    }
    return out;
  }

  /**
   * The command's whole-run HdrHistogram (`Percentile Latencies` → `Histogram log format` →
   * `Compressed Histogram`, memtier 2.x): exact, so it gives the whole-run figures — every bucket a
   * row, the mean and deviation as HdrHistogram computes them — while the per-second rows give
   * throughput over time; the same requests are counted once. Null (the printed figures are used)
   * when there is none, or it does not decode, or it does not hold the command's Count.
   */
  private histogram(type: string, op: string, latencies: unknown, count: number): DistributionSeries | null {
    const compressed = isObject(latencies) && isObject(latencies['Histogram log format']) ? latencies['Histogram log format']['Compressed Histogram'] : undefined;
    if (typeof compressed !== 'string' || count === 0) return null;
    let decoded: ReturnType<typeof decodeHistogram>;
    try {
      decoded = decodeHistogram(compressed);
    } catch (e) {
      this.issues.note(0, `${type}: its Compressed Histogram does not decode (${e instanceof Error ? e.message.slice(0, 120) : 'error'}); its printed figures are used`);
      return null;
    }
    const h = decoded.histogram;
    if (h.totalCount !== count) {
      this.issues.note(0, `${type}: its Compressed Histogram holds ${h.totalCount} requests, its Count ${count}; its printed figures are used`);
      return null;
    }
    this.histograms++;
    let below = 0;
    const rows = Array.from(h.count, (n, i) => ({ value: (h.lo[i] as number) + (h.width[i] as number) - 1, percentile: 0, totalCount: (below += n) }));
    return { kind: 'distribution', op, unit: 'us', rows, totalCount: h.totalCount, precision: decoded.precision, mean: mean(h), stddev: stdDeviation(h), max: max(h), allBuckets: true };
  }

  /** `Time-Serie`: one entry per second since the run's start, keyed by that second. */
  private timeSeries(type: string, serie: unknown, startMs: number | null): IntervalRow[] {
    if (!isObject(serie)) return [];
    const rows: IntervalRow[] = [];
    for (const [second, entry] of Object.entries(serie)) {
      const s = parseNonNegativeInteger(second);
      const count = isObject(entry) ? entry.Count : undefined;
      if (s === null || !isObject(entry) || typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
        this.issues.skip(0, `${type} Time-Serie entry "${second.slice(0, 20)}" has no second or no Count`, 'Time-Serie');
        continue;
      }
      rows.push({
        startUs: ((startMs ?? 0) + s * 1000) * 1000,
        lengthUs: 1_000_000,
        count,
        mean: count > 0 ? figureMicros(entry['Average Latency']) : null,
        stddev: null,
        min: count > 0 ? figureMicros(entry['Min Latency']) : null,
        max: count > 0 ? figureMicros(entry['Max Latency']) : null,
        percentiles: count > 0 ? percentilesOf(entry) : {},
        line: 0,
      });
    }
    return rows.sort((a, b) => a.startUs - b.startUs);
  }
}

// ---------------------------------------------------------------------------------------------
// stdout table (and stderr progress lines)

const TABLE_TITLE = /^(ALL STATS|BEST RUN RESULTS|WORST RUN RESULTS|AGGREGATED AVERAGE RESULTS.*|RUN #\d+ RESULTS)$/;
const TABLE_HEAD = /^Type\s+Ops\/sec\s/;
const RUN_INFO = /^(\d+)\s+(Threads|Connections per thread|Requests per client|Seconds)$/;
/** The last progress line of a run: `[RUN #1 100%,   4 secs]  0 threads …:        6380 ops, …`. */
const PROGRESS = /\[RUN #(\d+) 100%,\s*\d+ secs\][^\r\n[]*?:\s+(\d+) ops,/g;

interface TableRow {
  type: string;
  opsPerSec: string;
  cells: Map<string, string>;
  line: number;
}

class MemtierTextParser extends LineParserBase {
  private readonly settings: Record<string, string> = {};
  private title: string | null = null;
  private columns: string[] | null = null;
  private readonly tables = new Map<string, TableRow[]>();
  /** Total requests of run 1, from its last progress line. */
  private progressTotal: number | null = null;

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    if (text.includes('[RUN #')) {
      for (const m of text.matchAll(PROGRESS)) if (m[1] === '1') this.progressTotal = Number(m[2]);
      return;
    }
    const line = text.trim();
    if (line.length === 0) return;
    const info = RUN_INFO.exec(line);
    if (info) {
      this.settings[info[2] ?? ''] = info[1] ?? '';
      return;
    }
    if (TABLE_TITLE.test(line)) {
      this.title = line;
      this.columns = null;
      return;
    }
    if (TABLE_HEAD.test(line)) {
      // Columns are separated by two spaces or more; `Avg. Latency` holds one.
      this.columns = line.split(/\s{2,}/);
      return;
    }
    if (/^[-=]+$/.test(line) || this.title === null || this.columns === null) return;
    if (line.startsWith('Request Latency Distribution') || line.startsWith('Type ')) {
      this.columns = null;
      return;
    }
    const cells = line.split(/\s+/);
    if (cells.length !== this.columns.length) {
      this.issues.skip(lineNo, `table row has ${cells.length} cells, its header ${this.columns.length}: "${line.slice(0, 80)}"`);
      return;
    }
    const row: TableRow = { type: cells[0] ?? '', opsPerSec: cells[1] ?? '', cells: new Map(this.columns.map((c, i) => [c, cells[i] ?? ''])), line: lineNo };
    const rows = this.tables.get(this.title) ?? [];
    rows.push(row);
    this.tables.set(this.title, rows);
  }

  /** Requests of the run: its last progress line, or threads × connections × requests per client. */
  private totalRequests(): number | null {
    if (this.progressTotal !== null) return this.progressTotal;
    const [t, c, n] = ['Threads', 'Connections per thread', 'Requests per client'].map((k) => this.settings[k]);
    if (t === undefined || c === undefined || n === undefined) return null;
    const total = Number(t) * Number(c) * Number(n);
    return Number.isSafeInteger(total) ? total : null;
  }

  /**
   * The table prints rates, not counts. Each command's share of the total is its Ops/sec over the
   * Totals' (both divide by the same duration); with the total known, a count is exact when the
   * rounding of the printed rates (to 0.01) leaves one whole number possible.
   */
  private countOf(row: TableRow, totals: TableRow, total: number): number | null {
    const rate = parseScaledDecimal(row.opsPerSec, 2);
    const all = parseScaledDecimal(totals.opsPerSec, 2);
    if (rate === null || all === null || all === 0) return null;
    const low = Math.ceil((total * Math.max(0, rate - 0.5)) / (all + 0.5));
    const high = Math.floor((total * (rate + 0.5)) / Math.max(0.5, all - 0.5));
    return low === high ? low : null;
  }

  /** Counts per row of the table; a single command left undetermined is the total less the others. */
  private counts(rows: TableRow[], total: number | null): Map<TableRow, number | null> {
    const totals = rows.find((r) => r.type === 'Totals');
    const counts = new Map<TableRow, number | null>();
    for (const row of rows) counts.set(row, parseScaledDecimal(row.opsPerSec, 2) === 0 ? 0 : totals && total !== null ? (row === totals ? total : this.countOf(row, totals, total)) : null);
    const unknown = rows.filter((r) => r !== totals && counts.get(r) === null);
    const only = unknown[0];
    if (only && unknown.length === 1 && totals && total !== null) {
      const rest = rows.filter((r) => r !== totals && r !== only).reduce((a, r) => a + (counts.get(r) ?? 0), 0);
      if (rest <= total) counts.set(only, total - rest);
    }
    return counts;
  }

  finish(): ParsedFile {
    const series: PrintedSeries[] = [];
    const title = this.tables.has('ALL STATS') ? 'ALL STATS' : [...this.tables.keys()].find((t) => t.startsWith('RUN #1 ')) ?? null;
    const rows = title === null ? [] : (this.tables.get(title) ?? []);
    if (title === null && this.tables.size > 0) this.issues.note(0, `only ${[...this.tables.keys()].join(', ')} tables: they aggregate several runs and are not read (print them with --print-all-runs)`);
    const counts = this.counts(rows, this.totalRequests());
    for (const row of rows) {
      const count = counts.get(row) ?? null;
      if (count === 0) continue;
      if (count === null) {
        this.issues.skip(row.line, `${row.type}: the table prints requests per second, not a count, and this output has no final progress line (stderr) or request count to give it`);
        continue;
      }
      const percentiles: Record<string, number> = {};
      let mean: number | null = null;
      for (const [column, value] of row.cells) {
        if (column === 'Avg. Latency' || column === 'Latency') mean = meanMsToMicros(value);
        const label = percentileLabel(column);
        const us = label === null ? null : figureMicros(value);
        if (label !== null && us !== null) percentiles[label] = us;
      }
      series.push({ kind: 'printed', op: row.type === 'Totals' ? ALL_REQUESTS : row.type, unit: 'us', count, mean, min: null, max: null, percentiles, returns: {} });
    }
    if (rows.length === 0 && this.issues.errors.length === 0) this.issues.note(0, 'no memtier results table found');
    const producer: ProducerInfo = { tool: 'memtier_benchmark' };
    if (Object.keys(this.settings).length > 0) producer.settings = { ...this.settings };
    return this.parsed('memtier', { series, producer });
  }
}

// ---------------------------------------------------------------------------------------------

const JSON_SIGN = /"(?:ALL STATS|BEST RUN RESULTS|AGGREGATED AVERAGE RESULTS[^"]*|RUN #\d+ RESULTS)"\s*:/;
const JSON_FIELDS = /"(?:Ops\/sec|Time-Serie|run information|Connections per thread)"\s*:/;
const TEXT_SIGN = /^(?:ALL STATS|BEST RUN RESULTS|RUN #\d+ RESULTS)\n=+\nType\s+Ops\/sec\s/m;
const RUN_INFO_SIGN = /^\d+\s+Threads\n\d+\s+Connections per thread\n\d+\s+(?:Requests per client|Seconds)$/m;

function score(head: string, fileName: string): number {
  if (LOG_HEADER.test(head)) {
    return hdrLogScore(head, fileName);
  }
  if (C_PRINT_HEAD.test(firstLine(head).replace(/\s+$/, ''))) return 1;
  if (head.trimStart().startsWith('{') && JSON_SIGN.test(head) && JSON_FIELDS.test(head)) return 1;
  if (TEXT_SIGN.test(head)) return 1;
  if (RUN_INFO_SIGN.test(head)) return 0.9;
  if (/^\[RUN #\d+ \d+%, /m.test(head) || /^Writing results to /m.test(head)) return 0.6;
  // A percentile print named as memtier names them, whatever its column widths.
  return FILE_NAME.test(withoutCompression(fileName)) && /^[ \t]*Value[ \t]+Percentile[ \t]+TotalCount/m.test(head) ? 1 : 0;
}

/**
 * Which of memtier's outputs a file is, decided from its first line that is not blank (the parser
 * gets no head): a JSON document, a log (its header comment), a percentile print, or text.
 */
class MemtierParser implements LineParser {
  private inner: LineParser | null = null;
  private readonly blank: number[] = [];

  constructor(private readonly path: string) {}

  line(text: string, lineNo: number): void {
    if (!this.inner) {
      const line = text.replace(/^\uFEFF/, '').trim();
      if (line.length === 0) {
        this.blank.push(lineNo);
        return;
      }
      this.inner = line.startsWith('{')
        ? new MemtierJsonParser(this.path)
        : LOG_HEADER.test(line)
          ? new MemtierLogParser(this.path)
          : C_PRINT_HEAD.test(text.replace(/^\uFEFF/, '').replace(/\s+$/, '')) || line.startsWith('Value ')
            ? new MemtierPrintParser(this.path)
            : new MemtierTextParser(this.path);
      for (const n of this.blank.splice(0)) this.inner.line('', n);
    }
    this.inner.line(text, lineNo);
  }

  finish(): ParsedFile {
    this.inner ??= new MemtierTextParser(this.path);
    return this.inner.finish();
  }
}

export const memtierFormat: FormatModule = {
  id: 'memtier',
  label: 'memtier_benchmark output (table, JSON, HdrHistogram files)',
  detect: score,
  createParser: (path) => new MemtierParser(path),
};
