import { baseName, withoutCompression } from '../model/naming.ts';
import { parseNonNegativeInteger, parseScaledDecimal, secondsToMicros } from '../model/numbers.ts';
import type { IntervalsSeries, ParsedFile, ProducerInfo, PrintedSeries } from '../model/types.ts';
import { clip, LineParserBase, MAX_MESSAGE_CHARS, type FormatModule, type LineParser } from './format.ts';
import { hdrLogScore, producerHdrLog } from './hdr-log.ts';

/**
 * scylla-bench (github.com/scylladb/scylla-bench, v0.1.0 to v1.3.x): its stdout and the
 * HdrHistogram log it writes with `-hdr-latency-file`. One module; the parser tells the two apart
 * from the first meaningful line.
 *
 * Text output (main.go / pkg/results, pkg/testrun): a `Configuration` block (`Mode:\t\t\t write`,
 * …), a header, one row per second (`PrintPartialResult`), then `Results`:
 *       time   ops/s  rows/s errors max    99.9th 99th   95th   90th   median mean
 *         1s    2000    2000      0 11ms   11ms   4.6ms  3.6ms  3.2ms  2ms    2.1ms
 * (v0.1.0–v0.1.2: `time operations/s rows/s errors …` with unrounded durations such as
 * `2.416392808s`; with `-measure-latency=false` the four first columns only). `ops/s` is the number
 * of operations that succeeded in that second and `errors` the failed ones (modes.go counts them
 * apart: IncOps / IncErrors). Durations are Go `time.Duration` strings of nanoseconds, read exactly
 * and kept in µs (the engine reports every figure in µs; the unit of summaries is not scaled).
 * Each row's time is the elapsed time at its end, so the time base is relative. The row of the
 * last, partial second is often never printed (the process exits first), so the rows' sum can fall
 * short of `Total ops`: throughput over time is exact for the seconds printed, the run's count comes
 * from the summary. Go's log lines (retries, warnings) may be glued to the end of a row: only the
 * row's own columns are read.
 *
 * Summary: `Total ops` (successful operations), `Total errors` (when not 0), then `raw latency :`
 * (service time → `<mode>`) and `c-o fixed latency :` (coordinated omission fixed, measured from the
 * intended start → `Intended-<mode>`) — or, before v0.1.3, a single `Latency:` block (raw). Mixed
 * mode adds `raw read latency :` … `c-o fixed write latency :`: they split the same operations by
 * type with no count of each, so they are not read. The operation is the `Mode:` setting (`write`,
 * `read`, `mixed`, `counter_update`, `scan`, …).
 *
 * HdrHistogram log (`-hdr-latency-file`): tags `raw` → `<mode>`, `co-fixed` → `Intended-<mode>`;
 * mixed mode (v0.3+) adds `raw-read` → `read`, `co-fixed-read` → `Intended-read`, `raw-write` →
 * `write`, `co-fixed-write` → `Intended-write`, and then the combined `raw`/`co-fixed` are not read:
 * they hold the same operations again (v1.1's combined `raw` even records each one twice). So a
 * mixed-mode text log (`mixed`) and its HdrHistogram log (`read`, `write`) are two views of the
 * same operations. The log does not name the mode: it is taken from the file name when that holds
 * one, else `ops`. Values are in `-hdr-latency-units` (default `ns`, main.go; config.go scales the
 * recorded values by it), which the log does not record: nanoseconds are assumed. From v1.2
 * (SaveLatenciesToHdrHistogram) interval starts are written as epoch seconds where the writer
 * expects milliseconds, which makes them negative; such starts and lengths are scaled back.
 */

/** Nanoseconds per unit of a Go duration string (`time.Duration.String`, which writes `µs`, U+00B5). */
const DURATION_UNITS: Record<string, { ns: number; decimals: number }> = {
  h: { ns: 3600e9, decimals: 0 },
  m: { ns: 60e9, decimals: 0 },
  s: { ns: 1e9, decimals: 9 },
  ms: { ns: 1e6, decimals: 6 },
  us: { ns: 1e3, decimals: 3 },
  'µs': { ns: 1e3, decimals: 3 },
  'μs': { ns: 1e3, decimals: 3 },
  ns: { ns: 1, decimals: 0 },
};
const DURATION_PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|μs|ns)/y;

/** A Go duration string (`1m0.5s`, `786µs`, `2.416392808s`, `0s`) as integer nanoseconds; null when it is not one. */
export function goDurationToNanos(text: string): number | null {
  if (text.length === 0 || text.length > 40) return null;
  if (text === '0') return 0;
  let ns = 0;
  DURATION_PART.lastIndex = 0;
  let at = 0;
  while (at < text.length) {
    DURATION_PART.lastIndex = at;
    const m = DURATION_PART.exec(text);
    if (!m) return null;
    const unit = DURATION_UNITS[m[2] as string] as { ns: number; decimals: number };
    const scaled = parseScaledDecimal(m[1] as string, unit.decimals);
    if (scaled === null) return null;
    ns += scaled * (unit.ns / 10 ** unit.decimals);
    at = DURATION_PART.lastIndex;
  }
  return Number.isSafeInteger(ns) ? ns : null;
}

const ROW_HEADER = /^\s*time\s+(?:ops\/s|operations\/s)\s+rows\/s\s+errors(\s+max\s+99\.9th\s+99th\s+95th\s+90th\s+median\s+mean)?\s*$/;
const ROW = /^\s*(\S+)\s+(\d+)\s+(\d+)\s+(\d+)(?:\s+(.*))?$/;
const SETTING = /^(\s*)([A-Za-z][^:\t]*?):\s*\t\s*(.*)$/;
const SECTION = /^(raw |c-o fixed )?(read |write )?latency\s*:\s*$/i;
const FIGURE = /^\s+(max|99\.9th|99th|95th|90th|median|mean):\s*(\S+)\s*$/;
const FIGURE_KEY: Record<string, string> = { '99.9th': 'p99.9', '99th': 'p99', '95th': 'p95', '90th': 'p90', median: 'p50' };
const LATENCY_COLUMNS = ['max', 'p99.9', 'p99', 'p95', 'p90', 'p50', 'mean'] as const;

interface Section {
  intended: boolean;
  /** A per-type block of mixed mode: not read. */
  split: boolean;
  figures: Record<string, number>;
}

class ScyllaBenchTextParser extends LineParserBase {
  private readonly settings: Record<string, string> = {};
  private settingPrefix = '';
  private mode: string | null = null;
  private withLatency: boolean | null = null;
  private inResults = false;
  private section: Section | null = null;
  private readonly sections: Section[] = [];
  private totalOps: number | null = null;
  private totalErrors = 0;
  private ok: IntervalsSeries | null = null;
  private failed: IntervalsSeries | null = null;
  /** Run-relative end of the last row, µs, and where the current run starts on the file's timeline. */
  private lastUs = 0;
  private offsetUs = 0;
  private runs = 0;
  private rowsInRun = 0;

  private get op(): string {
    return this.mode ?? 'ops';
  }

  line(raw: string, lineNo: number): void {
    this.lines = lineNo;
    const text = raw.trimEnd();
    if (text.trim().length === 0) return;
    const header = ROW_HEADER.exec(text);
    if (header) {
      this.withLatency = header[1] !== undefined;
      this.inResults = false;
      return;
    }
    if (/^Results\s*$/.test(text)) {
      this.inResults = true;
      this.section = null;
      return;
    }
    if (this.inResults) {
      this.resultLine(text, lineNo);
      return;
    }
    if (this.withLatency !== null) {
      const first = /^\s*(\S+)/.exec(text)?.[1] ?? '';
      if (goDurationToNanos(first) !== null) {
        const row = ROW.exec(text);
        if (row) this.row(row, lineNo);
        else this.issues.skip(lineNo, `row ${JSON.stringify(clip(text.trim(), 80))} lacks its operation, row or error count (a cut or garbled row)`);
        return;
      }
    }
    const section = /^([A-Za-z][^:\t]*):$/.exec(text);
    if (section && this.withLatency === null) {
      // `Retries:` opens indented settings (`  number:\t\t 10`).
      this.settingPrefix = `${section[1] ?? ''}.`;
      return;
    }
    const setting = SETTING.exec(text);
    if (setting && this.withLatency === null) {
      const [, indent = '', key = '', value = ''] = setting;
      if (indent.length === 0) this.settingPrefix = value.trim().length === 0 ? `${key}.` : '';
      const name = indent.length > 0 ? `${this.settingPrefix}${key.trim()}` : key.trim();
      if (name === 'Mode') this.mode = value.trim() || null;
      if (Object.keys(this.settings).length < 100 && value.trim().length > 0) this.settings[name.slice(0, 80)] = value.trim().slice(0, MAX_MESSAGE_CHARS);
    }
    // Other lines (Go log output, `interrupted`, critical errors) are not this format's business.
  }

  private row(m: RegExpExecArray, lineNo: number): void {
    const timeNs = goDurationToNanos(m[1] as string) as number;
    const ops = parseNonNegativeInteger(m[2] as string);
    const errors = parseNonNegativeInteger(m[4] as string);
    if (ops === null || errors === null) {
      this.issues.skip(lineNo, 'operation or error count out of range');
      return;
    }
    const figures: Record<string, number> = {};
    if (this.withLatency) {
      const tokens = (m[5] ?? '').split(/\s+/);
      for (let i = 0; i < LATENCY_COLUMNS.length; i++) {
        const token = tokens[i] ?? '';
        const ns = goDurationToNanos(token);
        if (ns === null) {
          this.issues.skip(lineNo, `latency "${LATENCY_COLUMNS[i]}" ${JSON.stringify(clip(token, 80))} is not a duration (a cut or garbled row)`, LATENCY_COLUMNS[i]);
          return;
        }
        figures[LATENCY_COLUMNS[i] as string] = ns / 1000;
      }
    }
    const endUs = Math.round(timeNs / 1000);
    if (this.runs === 0 || endUs < this.lastUs) {
      // Elapsed time starting again: a second run's output follows (logs concatenated).
      this.offsetUs += this.lastUs;
      this.lastUs = 0;
      this.runs++;
      this.rowsInRun = 0;
    }
    const at = { startUs: this.offsetUs + this.lastUs, lengthUs: endUs - this.lastUs, line: lineNo };
    this.lastUs = endUs;
    this.rowsInRun++;
    this.ok ??= { kind: 'intervals', op: this.op, unit: 'us', timeBase: 'relative', rows: [] };
    const { max, mean, ...rest } = figures;
    const percentiles: Record<string, number> = {};
    for (const [k, v] of Object.entries(rest)) percentiles[k] = v;
    this.ok.rows.push(
      ops > 0
        ? { ...at, count: ops, mean: mean ?? null, stddev: null, min: null, max: max ?? null, percentiles }
        : { ...at, count: 0, mean: null, stddev: null, min: null, max: null, percentiles: {} },
    );
    if (errors > 0) {
      this.failed ??= { kind: 'intervals', op: `${this.op}-FAILED`, unit: 'us', timeBase: 'relative', rows: [] };
      this.failed.rows.push({ ...at, count: errors, mean: null, stddev: null, min: null, max: null, percentiles: {} });
    }
  }

  private resultLine(text: string, lineNo: number): void {
    const section = SECTION.exec(text.trim());
    if (section) {
      this.section = { intended: /^c-o/i.test(section[1] ?? ''), split: section[2] !== undefined, figures: {} };
      this.sections.push(this.section);
      return;
    }
    const figure = FIGURE.exec(text);
    if (figure && this.section) {
      const ns = goDurationToNanos(figure[2] as string);
      if (ns === null) {
        this.issues.note(lineNo, `summary ${figure[1]} ${JSON.stringify(clip(figure[2] as string, 80))} is not a duration`);
        return;
      }
      this.section.figures[FIGURE_KEY[figure[1] as string] ?? (figure[1] as string)] = ns / 1000;
      return;
    }
    const total = /^Total (ops|errors):\s*(\S+)\s*$/.exec(text);
    if (total) {
      const n = parseNonNegativeInteger(total[2] as string);
      if (n === null) this.issues.note(lineNo, `Total ${total[1]} ${JSON.stringify(clip(total[2] as string, 80))} is not a whole number`);
      else if (total[1] === 'ops') this.totalOps = n;
      else this.totalErrors = n;
    }
  }

  private summaries(): PrintedSeries[] {
    if (this.runs > 1 || this.totalOps === null) return [];
    const out: PrintedSeries[] = [];
    for (const s of this.sections) {
      if (s.split || s.figures.mean === undefined) continue;
      const { mean, max, ...percentiles } = s.figures;
      out.push({ kind: 'printed', op: s.intended ? `Intended-${this.op}` : this.op, unit: 'us', count: this.totalOps, mean: mean ?? null, min: null, max: max ?? null, percentiles, returns: {} });
    }
    // With -measure-latency=false the summary holds counts only: the run's count is still exact.
    if (out.length === 0) out.push({ kind: 'printed', op: this.op, unit: 'us', count: this.totalOps, mean: null, min: null, max: null, percentiles: {}, returns: {} });
    if (this.totalErrors > 0) out.push({ kind: 'printed', op: `${this.op}-FAILED`, unit: 'us', count: this.totalErrors, mean: null, min: null, max: null, percentiles: {}, returns: {} });
    return out;
  }

  finish(): ParsedFile {
    const series = [this.ok, this.failed].filter((s): s is IntervalsSeries => s !== null);
    const summaries = this.summaries();
    if (series.length === 0 && summaries.length === 0 && this.issues.errors.length === 0) this.issues.note(0, 'no scylla-bench result rows or summary found');
    const settings = { ...this.settings };
    if (this.runs > 1) settings.runs = `${this.runs} runs read one after another; their summaries are per run and not merged`;
    const producer: ProducerInfo = { tool: 'scylla-bench', settings };
    return this.parsed('scylla-bench', { series: [...series, ...summaries], producer });
  }
}

/** scylla-bench's modes, longest first, as they may appear in an HdrHistogram log's file name. */
const MODES = ['counter_update', 'counter_read', 'mixed', 'write', 'read', 'scan'];

function modeFromFileName(path: string): string {
  const name = withoutCompression(baseName(path)).toLowerCase();
  return MODES.find((m) => name.includes(m)) ?? 'ops';
}

const SB_TAG = /^Tag=(?:raw|co-fixed)(?:-read|-write)?,/m;
/** hdrhistogram-go writes the version line first, then scylla-bench's comment, and whole-second base times. */
const SB_HEADER = /^#\[Histogram log format version [\d.]+\]\n#Logging op latencies for Cassandra Stress\n#\[Base[Tt]ime: \d+ \(/m;

function ownsHdrLog(head: string): boolean {
  return SB_TAG.test(head) || (SB_HEADER.test(head) && !/^Tag=/m.test(head));
}

/** Placeholders for the combined histograms until the file shows whether per-type ones follow. */
const COMBINED_RAW = '\u0000raw';
const COMBINED_CO_FIXED = '\u0000co-fixed';
const TAG_OP: Record<string, string> = {
  raw: COMBINED_RAW,
  'co-fixed': COMBINED_CO_FIXED,
  'raw-read': 'read',
  'co-fixed-read': 'Intended-read',
  'raw-write': 'write',
  'co-fixed-write': 'Intended-write',
};

/**
 * The HdrHistogram log, read by the common HdrHistogram reader under scylla-bench's names;
 * negative starts (see the header comment) are scaled back first.
 */
class ScyllaBenchHdrParser implements LineParser {
  private readonly inner: LineParser;
  private baseSeconds: number | null = null;
  private rescale: boolean | null = null;

  constructor(private readonly path: string) {
    this.inner = producerHdrLog(
      'scylla-bench HdrHistogram log',
      { format: 'scylla-bench', unit: 'ns', producer: { tool: 'scylla-bench' }, opOfTag: (tag) => TAG_OP[tag] ?? tag },
      () => true,
    ).createParser(path);
  }

  line(text: string, lineNo: number): void {
    const base = /^#\[Base[Tt]ime:\s*(\d+(?:\.\d+)?)/.exec(text);
    if (base) this.baseSeconds = Number(base[1]);
    if (text.startsWith('Tag=')) {
      const fields = text.split(',');
      const startUs = secondsToMicros(fields[1] ?? '');
      this.rescale ??= startUs !== null && startUs < 0;
      if (this.rescale && this.baseSeconds !== null && fields.length === 5) {
        const rescaled = this.rescaled(fields);
        if (rescaled) {
          this.inner.line(rescaled, lineNo);
          return;
        }
      }
    }
    this.inner.line(text, lineNo);
  }

  /**
   * Start written as (epoch s − base ms) / 1000 and length as (end s − start s) / 1000: the start
   * relative to the base time is written × 1000 + base s × 999, the length written × 1000.
   */
  private rescaled(fields: string[]): string | null {
    const writtenUs = secondsToMicros(fields[1] ?? '');
    const lengthUs = secondsToMicros(fields[2] ?? '');
    if (writtenUs === null || lengthUs === null || this.baseSeconds === null) return null;
    const startS = Math.round(writtenUs / 1000) + Math.round(this.baseSeconds * 1000) - this.baseSeconds;
    const lengthS = Math.round(lengthUs / 1000);
    if (!Number.isSafeInteger(startS) || startS < 0) return null;
    return `${fields[0]},${startS},${lengthS},${fields[3]},${fields[4]}`;
  }

  finish(): ParsedFile {
    const file = this.inner.finish();
    const split = file.series.some((s) => s.op === 'read' || s.op === 'write');
    const op = modeFromFileName(this.path);
    // Mixed mode: the per-type histograms are the operations; the combined ones repeat them (and
    // v1.1's combined raw histogram records every operation twice).
    file.series = file.series.filter((s) => !split || (s.op !== COMBINED_RAW && s.op !== COMBINED_CO_FIXED));
    for (const s of file.series) {
      if (s.op === COMBINED_RAW) s.op = op;
      else if (s.op === COMBINED_CO_FIXED) s.op = `Intended-${op}`;
    }
    return file;
  }
}

function isHdrLine(line: string): boolean {
  return line.startsWith('#') || line.startsWith('Tag=') || line.startsWith('"StartTimestamp"');
}

class ScyllaBenchParser implements LineParser {
  private inner: LineParser | null = null;

  constructor(private readonly path: string) {}

  line(text: string, lineNo: number): void {
    if (!this.inner) {
      const trimmed = text.trim();
      if (trimmed.length === 0) return;
      this.inner = isHdrLine(trimmed) ? new ScyllaBenchHdrParser(this.path) : new ScyllaBenchTextParser(this.path);
    }
    this.inner.line(text, lineNo);
  }

  finish(): ParsedFile {
    return (this.inner ?? new ScyllaBenchTextParser(this.path)).finish();
  }
}

/** The common HdrHistogram detector takes no negative start: score v1.2+ logs the same way (all lines fit). */
function negativeStartScore(head: string): number {
  const lines = head.split('\n', 200).filter((l) => l.trim().length > 0);
  const data = lines.filter((l) => /^Tag=[^,]+,-[\d.]+,[\d.]+,[\d.]+,HIST[A-Za-z0-9+/]/.test(l)).length;
  const fitting = data + lines.filter((l) => l.startsWith('#') || l.startsWith('"StartTimestamp"')).length;
  return data > 0 && fitting / lines.length > 0.9 ? 1 : 0;
}

function textScore(head: string): number {
  // [ \t], not \s: \s crosses line ends, and a head of blank lines took seconds to reject.
  if (/^[ \t]*time[ \t]+(?:ops\/s|operations\/s)[ \t]+rows\/s[ \t]+errors\b/m.test(head)) return 0.95;
  if (/^Configuration\n(?:HostSelectionPolicy:|Mode:\t)/m.test(head)) return 0.9;
  if (/^Results\nTime \(avg\):\t/m.test(head)) return 0.9;
  return 0;
}

export const scyllaBenchFormat: FormatModule = {
  id: 'scylla-bench',
  label: 'scylla-bench output',
  detect: (head, fileName) => {
    const first = head.split('\n', 50).find((l) => l.trim().length > 0)?.trim() ?? '';
    if (isHdrLine(first)) return ownsHdrLog(head) ? Math.max(hdrLogScore(head, fileName), negativeStartScore(head)) : 0;
    return textScore(head);
  },
  createParser: (path) => new ScyllaBenchParser(path),
};
