import { precisionFromSubBuckets } from '../model/hdr-layout.ts';
import { msToMicros, parseNonNegativeInteger, parseScaledDecimal } from '../model/numbers.ts';
import type { DistributionSeries, HdrPrecision, LatencySeries, OverallSummary, ParsedFile, ProducerInfo, PrintedSeries } from '../model/types.ts';
import { LineParserBase, type FormatModule } from './format.ts';
import { outcomeSeries } from './outcomes.ts';
import { FailureTally } from '../model/failures.ts';

/**
 * wrk's and wrk2's stdout (one module: wrk2 is a fork that prints the same report plus an
 * HdrHistogram section). Everything wrk prints is a whole-run summary of one client:
 *
 * - `Running 30s test @ <url>` and `N threads and M connections` open a run; the URL is the
 *   operation's name (wrk has no other name for what it requests).
 * - `Thread Stats ... Latency <avg> <stdev> <max> <+/- stdev>`: the mean, standard deviation and
 *   maximum, printed by wrk's `format_time_us` (src/units.c) with two decimals of the largest unit
 *   that fits (us, ms, s, m, h) — rounded, so a summary only.
 * - wrk's `--latency` block `Latency Distribution` / `50%  3.79ms` … (50, 75, 90, 99): its exact
 *   percentiles, printed rounded the same way.
 * - wrk2's `Latency Distribution (HdrHistogram - Recorded Latency)`, then `Detailed Percentile
 *   spectrum:` — HdrHistogram_c's `hdr_percentiles_print` of a histogram of integer µs with a value
 *   scale of 1000 and `%.3f`: each printed value is an integer number of µs written in ms with three
 *   decimals, so it is read back exactly (`1.136` = 1136 µs), and percentiles that fall on a printed
 *   tick are exact (src/model/distribution.ts). The short list above the spectrum (`50.000%
 *   1.14ms`) is rounded to two decimals and is used only when there is no spectrum.
 * - wrk2 measures latency from each request's intended start (its constant-rate schedule): that is
 *   coordinated-omission corrected latency, kept as `Intended-<url>`. Its `-U` option adds
 *   `Uncorrected Latency (measured without taking delayed starts into account)`, the latency from
 *   the actual send, kept under the operation's own name. Without `-U` wrk2 prints no uncorrected
 *   latency, and the operation has its count only.
 * - `N requests in 30.00s, …` counts completed requests; `Non-2xx or 3xx responses: N` and
 *   `Socket errors: connect N, read N, write N, timeout N` are failures, `<url>-FAILED` (tallied
 *   by those words as the message, no status). Completed
 *   non-2xx/3xx responses are inside every latency figure wrk prints (it cannot tell them apart
 *   there; socket errors are not): with any, `<url>` and `<url>-FAILED` carry exact counts only and
 *   the figures (thread stats, percentiles, wrk2's uncorrected spectrum) go to `<url> (including
 *   failures)`, counted once (src/formats/outcomes.ts). wrk2's corrected figures stay
 *   `Intended-<url>`, of every completed response.
 *
 * wrk2 is told from wrk by its HdrHistogram sections, its `Thread calibration:` lines, or a `-R`
 * rate in a command line pasted above the output. wrk2 run without `--latency` and without
 * calibration lines prints exactly what wrk prints, and is then read as wrk.
 * A file holding several runs keeps the first one and says where the next starts (the report of one
 * client is one run; runs at other rates belong in other folders).
 */

/** wrk's time units (src/units.c `time_units_us`) in µs. */
const TIME_UNITS_US: Record<string, number> = { us: 1, ms: 1e3, s: 1e6, m: 6e7, h: 3.6e9 };

const RUNNING = /^Running (\S+) test @ (\S+)\s*$/;
const THREADS = /^(\d+) threads and (\d+) connections\s*$/;
const CALIBRATION = /^Thread calibration: mean lat\.: (\S+), rate sampling interval: (\S+)\s*$/;
const THREAD_STATS = /^Thread Stats\s+Avg\s+Stdev\s+Max\s+\+\/- Stdev\s*$/;
const LATENCY_STATS = /^Latency\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$/;
const DISTRIBUTION = /^Latency Distribution(?: \(HdrHistogram - (Recorded|Uncorrected) Latency.*\))?\s*$/;
const PRINTED_PERCENTILE = /^(\d{1,3}(?:\.\d+)?)%\s+(\S+)\s*$/;
const SPECTRUM = /^Detailed Percentile spectrum:\s*$/;
const SPECTRUM_HEADER = /^Value\s+Percentile\s+TotalCount\s+1\/\(1-Percentile\)\s*$/;
const SPECTRUM_ROW = /^(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(\d+)\s+(\S+)\s*$/;
const FOOTER_MEAN = /^#\[Mean\s*=\s*(\S+),\s*StdDeviation\s*=\s*(\S+)\]\s*$/;
const FOOTER_MAX = /^#\[Max\s*=\s*(\S+),\s*Total count\s*=\s*(\d+)\]\s*$/;
const FOOTER_BUCKETS = /^#\[Buckets\s*=\s*(\d+),\s*SubBuckets\s*=\s*(\d+)\]\s*$/;
const REQUESTS = /^(\d+) requests in (\S+), (\S+) read\s*$/;
const SOCKET_ERRORS = /^Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)\s*$/;
const NON_2XX = /^Non-2xx or 3xx responses: (\d+)\s*$/;
const SOCKET_KINDS = ['connect', 'read', 'write', 'timeout'];
const PER_SEC = /^(Requests|Transfer)\/sec:\s+(\S+)\s*$/;
/** A wrk or wrk2 command line pasted above the output (`wrk -t2 -c100 -d30s -R2000 --latency http://…`). */
const COMMAND = /^(?:\S*\/)?wrk2?\s+(?:\S+\s+)*?https?:\/\/\S+/;
const RATE_OPTION = /\s(?:-R\s*\d|--rate[\s=])/;
/** What Ctrl-C leaves at the start of the line wrk prints next. */
const INTERRUPT = /^\^C\s*/;

/** `635.91us`, `12.92ms`, `1.85m` → µs; null if it is not a wrk time. */
export function wrkTimeToMicros(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)(us|ms|s|m|h)$/.exec(text);
  if (!m) return null;
  const hundredths = parseScaledDecimal(m[1] ?? '', 2);
  const factor = TIME_UNITS_US[m[2] ?? ''];
  return hundredths === null || factor === undefined ? null : (hundredths * factor) / 100;
}

interface Spectrum {
  rows: DistributionSeries['rows'];
  mean: number | null;
  stddev: number | null;
  max: number | null;
  footerCount: number | null;
  precision: HdrPrecision | null;
  line: number;
}

interface Section {
  kind: 'wrk' | 'recorded' | 'uncorrected';
  printed: Record<string, number>;
  spectrum: Spectrum | null;
}

interface Run {
  line: number;
  url: string | null;
  duration: string | null;
  threads: string | null;
  connections: string | null;
  calibrated: boolean;
  stats: { mean: number; stddev: number; max: number } | null;
  sections: Section[];
  requests: number | null;
  elapsed: string | null;
  socketErrors: number;
  /** Socket errors by kind, as printed: connect, read, write, timeout. */
  socketKinds: number[];
  non2xx: number;
  perSec: Record<string, string>;
}

function newRun(line: number): Run {
  return {
    line,
    url: null,
    duration: null,
    threads: null,
    connections: null,
    calibrated: false,
    stats: null,
    sections: [],
    requests: null,
    elapsed: null,
    socketErrors: 0,
    socketKinds: [],
    non2xx: 0,
    perSec: {},
  };
}

class WrkParser extends LineParserBase {
  private readonly failures = new FailureTally();
  private command: string | null = null;
  private run: Run | null = null;
  /** A second run started: its lines are not read. */
  private another = false;
  /** Where the lines that follow belong. */
  private state: 'none' | 'stats' | 'printed' | 'spectrum' = 'none';

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    const t = text.replace(/^\uFEFF/, '').trim().replace(INTERRUPT, '');
    if (t.length === 0 || this.another) return;
    if (this.spectrumLine(t, lineNo)) return;
    let m = RUNNING.exec(t);
    if (m) return this.startRun(m, lineNo);
    if (COMMAND.test(t) && !t.startsWith('Running')) {
      if (this.command === null) this.command = t;
      return;
    }
    const run = this.run;
    if (!run) return;
    if ((m = THREADS.exec(t))) {
      run.threads = m[1] ?? null;
      run.connections = m[2] ?? null;
    } else if (CALIBRATION.test(t)) run.calibrated = true;
    else if (THREAD_STATS.test(t)) this.state = 'stats';
    else if (t.startsWith('Latency') && this.state === 'stats' && (m = LATENCY_STATS.exec(t))) this.latencyStats(run, m, lineNo);
    else if ((m = DISTRIBUTION.exec(t))) {
      run.sections.push({ kind: m[1] === 'Recorded' ? 'recorded' : m[1] === 'Uncorrected' ? 'uncorrected' : 'wrk', printed: {}, spectrum: null });
      this.state = 'printed';
    } else if (this.state === 'printed' && (m = PRINTED_PERCENTILE.exec(t))) this.printedPercentile(run, m, lineNo);
    else if (SPECTRUM.test(t)) {
      const section = run.sections[run.sections.length - 1];
      if (!section || section.kind === 'wrk') return this.issues.skip(lineNo, 'a percentile spectrum outside a wrk2 latency distribution');
      section.spectrum = { rows: [], mean: null, stddev: null, max: null, footerCount: null, precision: null, line: lineNo };
      this.state = 'spectrum';
    } else if ((m = REQUESTS.exec(t))) {
      run.requests = parseNonNegativeInteger(m[1] ?? '');
      run.elapsed = m[2] ?? null;
      if (run.requests === null) this.issues.skip(lineNo, `request count "${m[1] ?? ''}" is out of range`);
    } else if ((m = SOCKET_ERRORS.exec(t))) {
      const counts = m.slice(1, 5).map((c) => parseNonNegativeInteger(c));
      if (counts.some((c) => c === null)) return this.issues.skip(lineNo, 'a socket error count is out of range');
      run.socketErrors = (counts as number[]).reduce((a, c) => a + c, 0);
      run.socketKinds = counts as number[];
    } else if ((m = NON_2XX.exec(t))) {
      const n = parseNonNegativeInteger(m[1] ?? '');
      if (n === null) return this.issues.skip(lineNo, `non-2xx/3xx count "${m[1] ?? ''}" is out of range`);
      run.non2xx = n;
    } else if ((m = PER_SEC.exec(t))) run.perSec[m[1] ?? ''] = m[2] ?? '';
    else if (/^(?:Latency|Socket errors:|Non-2xx|\d+ requests in )/.test(t) && !/^Latency Distribution/.test(t)) {
      // The shape of a report line that did not parse: a damaged copy, said rather than passed over.
      this.issues.skip(lineNo, `unreadable wrk report line: "${t.slice(0, 80)}"`);
    }
  }

  private startRun(m: RegExpExecArray, lineNo: number): void {
    if (this.run) {
      this.issues.note(lineNo, 'a second wrk run starts here; only the first run of a file is read (put each run in a file of its own)');
      this.another = true;
      return;
    }
    this.run = newRun(lineNo);
    this.run.duration = m[1] ?? null;
    this.run.url = m[2] ?? null;
    this.state = 'none';
  }

  private latencyStats(run: Run, m: RegExpExecArray, lineNo: number): void {
    const [mean, stddev, max] = [m[1], m[2], m[3]].map((v) => wrkTimeToMicros(v ?? ''));
    // An empty run prints 0.00us everywhere; `-nan` appears in Req/Sec, never here.
    if (mean === null || mean === undefined || stddev === null || stddev === undefined || max === null || max === undefined) {
      return this.issues.skip(lineNo, `thread latency figures "${m.slice(1, 4).join(' ')}" are not wrk times (e.g. 12.34ms)`, 'Latency');
    }
    run.stats = { mean, stddev, max };
  }

  private printedPercentile(run: Run, m: RegExpExecArray, lineNo: number): void {
    const section = run.sections[run.sections.length - 1];
    const p = Number(m[1]);
    const value = wrkTimeToMicros(m[2] ?? '');
    if (!section || !(p >= 0 && p <= 100)) return this.issues.skip(lineNo, `percentile "${m[1] ?? ''}%" is out of range`);
    if (value === null) return this.issues.skip(lineNo, `latency "${m[2] ?? ''}" at ${m[1] ?? ''}% is not a wrk time (e.g. 12.34ms)`);
    section.printed[`p${p}`] = value;
  }

  /** A line of the current spectrum, or false when the line is not one (the spectrum then ends). */
  private spectrumLine(t: string, lineNo: number): boolean {
    if (this.state !== 'spectrum') return false;
    const spectrum = this.run?.sections[this.run.sections.length - 1]?.spectrum;
    if (!spectrum) return false;
    if (SPECTRUM_HEADER.test(t)) return true;
    if (/^-{10,}$/.test(t)) {
      this.state = 'none';
      return true;
    }
    let m = SPECTRUM_ROW.exec(t);
    if (m) {
      const value = msToMicros(m[1] ?? '');
      const percentile = Number(m[2]);
      const totalCount = parseNonNegativeInteger(m[3] ?? '');
      if (value === null || !(percentile >= 0 && percentile <= 1) || totalCount === null) {
        this.issues.skip(lineNo, `spectrum row "${t.slice(0, 80)}": value (ms, 3 decimals), percentile (0–1) or total count out of range`);
        return true;
      }
      const prev = spectrum.rows[spectrum.rows.length - 1];
      if (prev && (value < prev.value || percentile < prev.percentile || totalCount < prev.totalCount)) {
        this.issues.skip(lineNo, 'spectrum row goes backwards (value, percentile and count must not decrease)');
        return true;
      }
      spectrum.rows.push({ value, percentile, totalCount });
      return true;
    }
    if ((m = FOOTER_MEAN.exec(t))) {
      spectrum.mean = this.footerMillis(m[1] ?? '', 'mean', lineNo);
      spectrum.stddev = this.footerMillis(m[2] ?? '', 'standard deviation', lineNo);
      return true;
    }
    if ((m = FOOTER_MAX.exec(t))) {
      spectrum.max = this.footerMillis(m[1] ?? '', 'max', lineNo);
      spectrum.footerCount = parseNonNegativeInteger(m[2] ?? '');
      return true;
    }
    if ((m = FOOTER_BUCKETS.exec(t))) {
      spectrum.precision = precisionFromSubBuckets(Number(m[2]));
      return true;
    }
    this.state = 'none';
    return false;
  }

  /** A footer figure in ms → µs; null for `nan` (an empty histogram) or anything unreadable, which is said. */
  private footerMillis(text: string, name: string, lineNo: number): number | null {
    const us = msToMicros(text);
    if (us !== null && us >= 0) return us;
    if (!/^-?nan$/i.test(text)) this.issues.note(lineNo, `spectrum footer ${name} "${text.slice(0, 40)}" is not a number of ms with three decimals; it is not used`);
    return null;
  }

  finish(): ParsedFile {
    const run = this.run;
    const series: LatencySeries[] = [];
    let producer: ProducerInfo | undefined;
    if (run) {
      const wrk2 = run.calibrated || run.sections.some((s) => s.kind !== 'wrk') || (this.command !== null && RATE_OPTION.test(this.command));
      producer = this.producer(run, wrk2);
      series.push(...this.series(run, wrk2));
    } else {
      this.issues.note(0, 'no wrk run found (no "Running … test @ <url>" line)');
    }
    const file = this.parsed('wrk', { series });
    // wrk times no request: its run time and rate as printed are the run's throughput.
    const overall = run && run.requests !== null ? wrkOverall(run) : null;
    if (overall) file.overall = overall;
    // wrk prints counts of the whole run only: they are its report's.
    const failures = this.failures.of('report');
    if (failures) file.failures = failures;
    if (producer) file.producer = producer;
    return file;
  }

  private producer(run: Run, wrk2: boolean): ProducerInfo {
    const settings: Record<string, string> = {};
    if (run.url !== null) settings.url = run.url;
    if (run.duration !== null) settings.duration = run.duration;
    if (run.threads !== null) settings.threads = run.threads;
    if (run.connections !== null) settings.connections = run.connections;
    if (run.elapsed !== null) settings.elapsed = run.elapsed;
    if (run.perSec.Requests !== undefined) settings['requests/sec'] = run.perSec.Requests;
    if (run.perSec.Transfer !== undefined) settings['transfer/sec'] = run.perSec.Transfer;
    return { tool: wrk2 ? 'wrk2' : 'wrk', ...(this.command !== null ? { command: this.command } : {}), settings };
  }

  private series(run: Run, wrk2: boolean): LatencySeries[] {
    const op = run.url ?? 'request';
    const out: LatencySeries[] = [];
    const uncorrected = run.sections.find((s) => s.kind === 'uncorrected');
    const actual = wrk2 ? uncorrected : run.sections.find((s) => s.kind === 'wrk');
    const actualDistribution = actual?.spectrum ? this.distribution(op, actual.spectrum) : null;
    if (run.requests === null) {
      if (run.stats || run.sections.length > 0) this.issues.note(0, 'no "N requests in …" line: the run was cut short; its counts are unknown and its figures are not used');
      return out;
    }
    // Every completed response is inside wrk's figures, non-2xx/3xx ones too; socket errors are not.
    const counts = { ok: Math.max(0, run.requests - run.non2xx), failed: Math.min(run.non2xx, run.requests), failedApart: run.socketErrors };
    out.push(
      ...outcomeSeries(op, counts, { unit: 'us' }, (name, count) =>
        // wrk2's thread stats are of the corrected latency: without -U the operation has its count only.
        actualDistribution ? { ...actualDistribution, op: name } : this.summary(name, count, wrk2 ? null : run.stats, actual?.printed ?? {}),
      ),
    );
    if (wrk2) {
      const recorded = run.sections.find((s) => s.kind === 'recorded');
      const intended = recorded?.spectrum ? this.distribution(`Intended-${op}`, recorded.spectrum) : null;
      if (intended) out.push(intended);
      else if (run.stats || recorded) out.push(this.summary(`Intended-${op}`, run.requests, run.stats, recorded?.printed ?? {}));
    }
    this.failures.add(op, null, 'Non-2xx or 3xx responses', counts.failed);
    run.socketKinds.forEach((n, i) => this.failures.add(op, null, `Socket errors: ${SOCKET_KINDS[i]}`, n));
    return out;
  }

  private summary(op: string, count: number, stats: Run['stats'], percentiles: Record<string, number>): PrintedSeries {
    return {
      kind: 'printed',
      op,
      unit: 'us',
      count,
      mean: count > 0 ? (stats?.mean ?? null) : null,
      stddev: count > 0 ? (stats?.stddev ?? null) : null,
      min: null,
      max: count > 0 ? (stats?.max ?? null) : null,
      percentiles: count > 0 ? percentiles : {},
      returns: {},
    };
  }

  private distribution(op: string, s: Spectrum): DistributionSeries | null {
    const last = s.rows[s.rows.length - 1];
    if (!last) {
      this.issues.note(s.line, `the percentile spectrum of ${op} has no rows`);
      return null;
    }
    if (s.footerCount === null) this.issues.note(s.line, `the percentile spectrum of ${op} has no "#[Max = …, Total count = …]" footer; it may be cut short after percentile ${last.percentile}`);
    else if (s.footerCount !== last.totalCount) this.issues.note(s.line, `the spectrum footer of ${op} counts ${s.footerCount}, its last row ${last.totalCount}: rows are missing`);
    return { kind: 'distribution', op, unit: 'us', rows: s.rows, totalCount: last.totalCount, precision: s.precision, mean: s.mean, stddev: s.stddev, max: s.max ?? last.value };
  }
}

/** The first lines of a wrk report, looked at without scanning a whole 64 KiB head per pattern. */
function firstLines(head: string, n: number): string[] {
  const out: string[] = [];
  let at = 0;
  while (out.length < n && at < head.length) {
    const end = head.indexOf('\n', at);
    const line = head.slice(at, end < 0 ? head.length : end);
    if (line.trim().length > 0) out.push(line.length > 512 ? line.slice(0, 512) : line);
    if (end < 0) break;
    at = end + 1;
  }
  return out;
}

export const wrkFormat: FormatModule = {
  id: 'wrk',
  label: 'wrk / wrk2 output',
  detect(head) {
    const lines = firstLines(head, 40).map((l) => l.trim().replace(INTERRUPT, ''));
    const running = lines.some((l) => RUNNING.test(l));
    const threads = lines.some((l) => THREADS.test(l));
    const stats = lines.some((l) => THREAD_STATS.test(l));
    // 1 when sure: wrk2's spectrum also has an .hgrm's column header, which the hgrm module claims with 1.
    if (running && (threads || stats)) return 1;
    if (stats && lines.some((l) => LATENCY_STATS.test(l))) return 0.9;
    return 0;
  },
  createParser: (path) => new WrkParser(path),
};

/**
 * `N requests in 3.00s` and `Requests/sec: 1424.67` (wrk divides by its own µs clock, so the
 * printed rate is the tool's, not N ÷ the rounded time); null when either is missing or garbled.
 */
function wrkOverall(run: Run): OverallSummary | null {
  const us = wrkTimeToMicros(run.elapsed ?? '');
  const rate = Number(run.perSec.Requests ?? Number.NaN);
  if (us === null || !Number.isFinite(rate) || rate < 0) return null;
  return { runTimeMs: us / 1000, throughputOpsPerS: rate };
}
