import { closeSync, createReadStream, mkdirSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { MappingError, parseMapSpec } from '../formats/csv-mapping.ts';
import { isFailed, readFile } from '../formats/read-file.ts';
import type { CountedSamples, RawSampleSink } from '../formats/sample-counter.ts';
import { groupIntoRuns } from '../model/grouping.ts';
import { boundsOf, encodeHistogramV2Compressed } from '../model/hdr-codec.ts';
import { IntervalRecorder, largestExactValue, type ClosedInterval } from '../model/interval-recorder.ts';
import { dirName, normalisePath } from '../model/naming.ts';
import type { HdrPrecision, LatencyUnit, ParseIssue, RawSeries, SampleCountColumns } from '../model/types.ts';
import { display, fileRandomAccess, walk } from '../engine/node-files.ts';
import { reportProblems } from './run-main.ts';

export const USAGE = `usage: benchlens reduce --out DIR [--precision 3] [--interval 1] [--window 10] [--json]
    [--map time=col,latency=col:ms,op=col,ok=col,client=col] <raw-files-or-folders>...

Streams raw per-operation files (YCSB raw, per-operation CSV, the load tools' raw outputs,
Parquet) in constant memory and writes, per client, one HdrHistogram interval log (format 1.3,
V2 compressed histograms tagged by operation) to DIR, plus DIR/reduce.json saying what was read.
--precision: significant digits (0-5); --interval: seconds per interval histogram; --window:
seconds of data time each operation keeps open for rows that arrive out of order. Exit code as
summarize: 0 all read, 1 something was skipped (listed on standard error), 2 bad usage, 3 internal error.`;

/** What one input gave. */
interface InputTally {
  path: string;
  format: string | null;
  /** Samples per series, keyed `op` or `client/op`. */
  rows: Record<string, number>;
  skippedLines: number;
  errors: ParseIssue[];
  firstMs: number | null;
  lastMs: number | null;
  /** Samples handed to the histograms as they were read (false: the parser counted them first). */
  streamed: boolean;
  lateSamples: number;
}

/** Where one input series' intervals go. */
interface SeriesTarget {
  log: LogTarget;
  op: string;
}

interface LogTarget {
  file: string;
  client: string;
  unit: LatencyUnit;
  inputs: Set<string>;
  ops: Record<string, number>;
  firstMs: number;
  baseMs: number;
  lines: number;
  lateLines: number;
}

interface Options {
  out: string;
  precision: HdrPrecision;
  intervalMs: number;
  windowMs: number;
  map: string | undefined;
  json: boolean;
  inputs: string[];
}

function parseArgs(argv: readonly string[]): Options | string {
  const values: Record<string, string> = {};
  const inputs: string[] = [];
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--json') json = true;
    else if (['--out', '--precision', '--interval', '--window', '--map'].includes(a)) {
      const v = argv[++i];
      if (v === undefined) return `${a} needs a value`;
      values[a] = v;
    } else if (a.startsWith('-')) return `unknown option ${a}`;
    else inputs.push(a);
  }
  const out = values['--out'];
  if (out === undefined) return '--out DIR is required';
  if (inputs.length === 0) return 'no input files';
  const digits = Number(values['--precision'] ?? '3');
  if (!Number.isInteger(digits) || digits < 0 || digits > 5) return `--precision must be 0 to 5 significant digits (got ${values['--precision']})`;
  const seconds = (name: string, fallback: string): number | null => {
    const text = values[name] ?? fallback;
    if (!/^\d+(\.\d{1,3})?$/.test(text)) return null;
    const ms = Math.round(Number(text) * 1000);
    return ms > 0 ? ms : null;
  };
  const intervalMs = seconds('--interval', '1');
  if (intervalMs === null) return `--interval must be a positive number of seconds with at most 3 decimals (got ${values['--interval']})`;
  const windowMs = seconds('--window', '10');
  if (windowMs === null) return `--window must be a positive number of seconds with at most 3 decimals (got ${values['--window']})`;
  const map = values['--map'];
  if (map !== undefined) {
    try {
      parseMapSpec(map);
    } catch (e) {
      if (!(e instanceof MappingError)) throw e;
      return `--map ${map}: ${e.message}`;
    }
  }
  return { out, precision: { significantDigits: digits, lowestDiscernibleValue: 1 }, intervalMs, windowMs, map, json, inputs };
}

/**
 * A file's bytes in 1 MiB chunks read into one reused buffer: each chunk is parsed before the next
 * is read, and a small heap (the point of reducing) then never collects a chunk a millisecond.
 */
async function* reusedChunks(file: string): AsyncIterable<Uint8Array> {
  const handle = await open(file, 'r');
  const buffer = new Uint8Array(1 << 20);
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** Closed intervals wait in a spool file until every input is read: only then are clients and names known. */
class Spool {
  private readonly fd: number;
  private buffer: string[] = [];
  private buffered = 0;

  constructor(readonly file: string) {
    this.fd = openSync(file, 'w');
  }

  write(line: string): void {
    this.buffer.push(line);
    this.buffered += line.length;
    if (this.buffered > 1 << 20) this.flush();
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  private flush(): void {
    if (this.buffer.length > 0) writeSync(this.fd, this.buffer.join(''));
    this.buffer = [];
    this.buffered = 0;
  }
}

async function inputFiles(inputs: readonly string[], errors: ParseIssue[]): Promise<string[]> {
  const files: string[] = [];
  for (const input of inputs) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(input).isDirectory();
    } catch {
      errors.push({ file: input, line: 0, message: 'no such file or folder' });
      continue;
    }
    files.push(...(isDirectory ? await walk(input) : [input]));
  }
  return files;
}

/** The folder path the inputs' folders share, so that each run keeps its own folder under --out. */
function commonFolder(folders: readonly string[]): string {
  if (folders.length === 0) return '';
  const parts = folders.map((f) => (f === '' ? [] : f.split('/')));
  let common = 0;
  while (parts.every((p) => common < p.length && p[common] === parts[0]![common])) common++;
  return parts[0]!.slice(0, common).join('/');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function logHeader(target: LogTarget, options: Options): string {
  const start = new Date(target.firstMs);
  return (
    `#[Reduced by benchlens from ${[...target.inputs].join(', ')}: raw samples of client ${target.client}, ${options.precision.significantDigits} significant digits, ${seconds(options.intervalMs)} s intervals]\n` +
    `#[Latency unit: ${target.unit}]\n` +
    '#[Histogram log format version 1.3]\n' +
    `#[StartTime: ${seconds(target.firstMs)} (seconds since epoch), ${Number.isNaN(start.getTime()) ? 'no time' : start.toUTCString()}]\n` +
    `#[BaseTime: ${seconds(target.baseMs)} (seconds since epoch)]\n` +
    '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"\n'
  );
}

export async function main(argv: string[]): Promise<number> {
  const parsed = parseArgs(argv);
  if (typeof parsed === 'string') {
    console.error(`${parsed}\n${USAGE}`);
    return 2;
  }
  const options = parsed;
  const errors: ParseIssue[] = [];
  const files = await inputFiles(options.inputs, errors);
  mkdirSync(options.out, { recursive: true });
  const spool = new Spool(path.join(options.out, `.reduce-spool-${process.pid}`));
  const tallies: InputTally[] = [];
  /** Per input file, its series' targets (by the recorder's series number). */
  const targets: SeriesTarget[][] = [];
  const logs = new Map<string, LogTarget>();
  const shownFiles = files.map(display);
  const root = commonFolder(shownFiles.map((f) => dirName(normalisePath(f))));
  try {
    for (let fileNo = 0; fileNo < files.length; fileNo++) {
      const file = files[fileNo]!;
      const shown = shownFiles[fileNo]!;
      const starts: number[] = [];
      const recorder = new IntervalRecorder(options.precision, options.intervalMs, options.windowMs, (interval: ClosedInterval) => {
        const { histogram, series, startMs } = interval;
        const { layout } = recorder;
        // Interval_Max as HistogramLogWriter writes it: the highest value of the top bucket, ÷ 10^6.
        const highest = layout.highestEquivalentValue(layout.valueFromIndex(histogram.index[histogram.index.length - 1]!));
        // highestTrackableValue: the encoder widens it to the top bucket, as Java's auto-resizing histograms do.
        const encoded = encodeHistogramV2Compressed({ precision: options.precision, highestTrackableValue: 2, integerToDoubleConversionRatio: 1, histogram: boundsOf(layout, histogram) });
        if (!Number.isNaN(startMs) && !(startMs >= (starts[series] ?? Infinity))) starts[series] = startMs;
        spool.write(`${fileNo}\t${series}\t${startMs}\t${interval.lengthMs}\t${highest}\t${interval.late ? 1 : 0}\t${histogram.totalCount}\t${encoded}\n`);
      });
      const seriesOfCounts = new Map<SampleCountColumns, number>();
      let streamedCounts: readonly CountedSamples[] = [];
      const sink: RawSampleSink = {
        add: (series, timeMs, value) => recorder.add(series, timeMs, value),
        end: (counted) => {
          streamedCounts = counted;
          counted.forEach((c, i) => seriesOfCounts.set(c.counts, i));
        },
      };
      const size = statSync(file).size;
      const outcome = await readFile(shown, reusedChunks(file), {
        format: { rawSamples: sink },
        totalBytes: size,
        randomAccess: fileRandomAccess(file, size),
        ...(options.map !== undefined ? { csvMappings: { any: options.map } } : {}),
      });
      if (isFailed(outcome)) {
        errors.push(...outcome.errors);
        tallies.push({ path: shown, format: null, rows: {}, skippedLines: 0, errors: outcome.errors, firstMs: null, lastMs: null, streamed: false, lateSamples: 0 });
        continue;
      }
      errors.push(...outcome.errors);
      const raw = outcome.series.filter((s): s is RawSeries => s.kind === 'raw');
      const notRaw = outcome.series.filter((s) => s.kind !== 'raw').map((s) => s.op);
      if (notRaw.length > 0) {
        const issue = { file: shown, line: 0, message: `${notRaw.join(', ')}: not raw samples (reduce records raw files only; the app and summarize read this file as it is)` };
        errors.push(issue);
        outcome.errors.push(issue);
      }
      // A parser that does not hand samples to the sink has counted them per second: those
      // counts are recorded now, at their second's start.
      let streamed = true;
      const fileTargets: SeriesTarget[] = [];
      let extra = seriesOfCounts.size;
      const clientOf = new Map<RawSeries, string>();
      for (const run of groupIntoRuns([outcome])) for (const c of run.clients) for (const s of c.series) if (s.data.kind === 'raw') clientOf.set(s.data, c.name);
      const folder = dirName(normalisePath(shown));
      const relative = root === '' ? folder : folder.slice(root.length).replace(/^\//, '');
      const rows: Record<string, number> = {};
      let firstMs: number | null = null;
      let lastMs: number | null = null;
      for (const s of raw) {
        let series = seriesOfCounts.get(s.counts);
        if (series === undefined) {
          series = extra++;
          streamed = false;
          const { secs, starts, value, n } = s.counts;
          for (let k = 0; k < secs.length; k++) for (let i = starts[k]!; i < starts[k + 1]!; i++) recorder.addCount(series, secs[k]! * 1000, value[i]!, n[i]!);
        }
        const client = clientOf.get(s) ?? 'client';
        // The file name names the client in the app; characters a path cannot hold become _.
        const logName = [...client].map((c) => (c === '/' || c === '\\' || c.charCodeAt(0) < 32 ? '_' : c)).join('') + (s.unit === 'us' ? '' : `-${s.unit}`);
        const key = `${relative}/${logName}`;
        let log = logs.get(key);
        if (!log) {
          log = { file: path.join(options.out, relative, `${logName}.hdr`), client, unit: s.unit, inputs: new Set(), ops: {}, firstMs: Infinity, baseMs: Infinity, lines: 0, lateLines: 0 };
          logs.set(key, log);
        }
        log.inputs.add(shown);
        log.ops[s.op] = (log.ops[s.op] ?? 0) + s.samples;
        if (s.firstMs !== null) log.firstMs = Math.min(log.firstMs, s.firstMs);
        // A tag ends at the first comma of a log line.
        fileTargets[series] = { log, op: s.op.replaceAll(',', ';') };
        rows[s.client !== undefined ? `${s.client}/${s.op}` : s.op] = s.samples;
        if (s.firstMs !== null) firstMs = Math.min(firstMs ?? Infinity, s.firstMs);
        if (s.lastMs !== null) lastMs = Math.max(lastMs ?? -Infinity, s.lastMs);
      }
      recorder.finish();
      const lost = streamedCounts.reduce((n, c, i) => n + (fileTargets[i] === undefined ? c.samples : 0), 0);
      if (lost > 0) {
        const issue = { file: shown, line: 0, message: `${lost} samples were read into no series of the parsed file and are not in the log (a parser error)` };
        errors.push(issue);
        outcome.errors.push(issue);
      }
      for (let series = 0; series < fileTargets.length; series++) {
        const target = fileTargets[series];
        const start = starts[series];
        if (target && start !== undefined && !Number.isNaN(start)) target.log.baseMs = Math.min(target.log.baseMs, start);
      }
      if (recorder.unrecordable > 0) {
        const issue = { file: shown, line: 0, message: `${recorder.unrecordable} samples are not integers from 0 to 2^53 - 1 and could not be recorded in a histogram` };
        errors.push(issue);
        outcome.errors.push(issue);
      }
      targets[fileNo] = fileTargets;
      tallies.push({ path: shown, format: outcome.format, rows, skippedLines: outcome.skippedLines, errors: outcome.errors, firstMs, lastMs, streamed, lateSamples: recorder.lateSamples });
    }
  } finally {
    spool.close();
  }
  try {
    await writeLogs(spool.file, targets, logs, options);
  } finally {
    rmSync(spool.file, { force: true });
  }
  const summary = {
    precision: { ...options.precision, exactUpTo: largestExactValue(options.precision) },
    intervalS: options.intervalMs / 1000,
    windowS: options.windowMs / 1000,
    files: tallies,
    logs: [...logs.values()].map((l) => ({
      file: display(l.file),
      client: l.client,
      unit: l.unit,
      inputs: [...l.inputs],
      ops: l.ops,
      intervals: l.lines,
      lateIntervals: l.lateLines,
      startMs: Number.isFinite(l.firstMs) ? l.firstMs : null,
    })),
    errors,
  };
  writeFileSync(path.join(options.out, 'reduce.json'), `${JSON.stringify(summary, null, 2)}\n`);
  if (options.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else {
    for (const l of summary.logs) console.log(`${l.file}: ${Object.entries(l.ops).map(([op, n]) => `${op} ${n}`).join(', ')} in ${l.intervals} intervals`);
  }
  reportProblems(errors);
  return errors.length > 0 ? 1 : 0;
}

/** Reads the spool back and writes each client's log: its header, then its intervals tagged by operation. */
async function writeLogs(spoolFile: string, targets: readonly SeriesTarget[][], logs: ReadonlyMap<string, LogTarget>, options: Options): Promise<void> {
  const fds = new Map<LogTarget, number>();
  const buffers = new Map<LogTarget, string[]>();
  const flush = (log: LogTarget): void => {
    const buffer = buffers.get(log);
    if (buffer && buffer.length > 0) writeSync(fds.get(log)!, buffer.join(''));
    buffers.set(log, []);
  };
  try {
    for (const log of logs.values()) {
      if (!Number.isFinite(log.firstMs)) log.firstMs = 0;
      if (!Number.isFinite(log.baseMs)) log.baseMs = 0;
      mkdirSync(path.dirname(log.file), { recursive: true });
      const fd = openSync(log.file, 'w');
      fds.set(log, fd);
      writeSync(fd, logHeader(log, options));
      buffers.set(log, []);
    }
    const lines = createInterface({ input: createReadStream(spoolFile), crlfDelay: Infinity });
    for await (const line of lines) {
      const [fileNo, series, startMs, lengthMs, highest, late, , encoded] = line.split('\t');
      const target = targets[Number(fileNo)]?.[Number(series)];
      if (!target) continue;
      const start = Number(startMs);
      const length = Number(lengthMs);
      // Untimed samples: one interval at the base time, of no length.
      const relative = Number.isNaN(start) ? 0 : start - target.log.baseMs;
      const buffer = buffers.get(target.log)!;
      buffer.push(`Tag=${target.op},${seconds(relative)},${seconds(Number.isNaN(length) ? 0 : length)},${(Number(highest) / 1e6).toFixed(3)},${encoded}\n`);
      target.log.lines++;
      if (late === '1') target.log.lateLines++;
      if (buffer.length >= 1024) flush(target.log);
    }
    for (const log of logs.values()) flush(log);
  } finally {
    for (const fd of fds.values()) closeSync(fd);
  }
}
