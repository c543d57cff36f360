import type { ParsedFile, ParseIssue } from '../model/types.ts';
import { baseName } from '../model/naming.ts';
import type { FormatModule, FormatOptions, LineParser } from './format.ts';
import { cassandraStressFormat } from './cassandra-stress.ts';
import { csvPreview, headerKey, MappingError, parseMapSpec, splitHead, type CsvMapping, type CsvMappings, type CsvPreview } from './csv-mapping.ts';
import { gatlingFormat } from './gatling.ts';
import { genericCsvFormat } from './generic-csv.ts';
import { goYcsbFormat } from './go-ycsb.ts';
import { hdrLogFormat } from './hdr-log.ts';
import { hgrmFormat } from './hgrm.ts';
import { jmeterFormat } from './jmeter.ts';
import { k6Format } from './k6.ts';
import { locustFormat } from './locust.ts';
import { memtierFormat } from './memtier.ts';
import { nosqlbenchFormat } from './nosqlbench.ts';
import { pgbenchFormat } from './pgbench.ts';
import { redisBenchmarkFormat } from './redis-benchmark.ts';
import { sysbenchFormat } from './sysbench.ts';
import { scyllaBenchFormat } from './scylla-bench.ts';
import { listingServer } from './listing-page.ts';
import { findLinePrefix, PrefixStripper, stripPrefixes, type LinePrefixShape } from './line-prefix.ts';
import { isParquetMagic, PARQUET_MAGIC, readParquet, type RandomAccessInput } from './parquet.ts';
import { ByteLineSplitter, InputError, InputPipeline, LineSplitter, type ByteLineReader, type Encoding } from './text-input.ts';
import { vegetaFormat } from './vegeta.ts';
import { wrkFormat } from './wrk.ts';
import { ycsbRawFormat } from './ycsb-raw.ts';
import { ycsbTextFormat } from './ycsb-text.ts';

/**
 * A producer's own formats (one module per producer, `src/formats/<producer>.ts`). They come
 * before the generic readers: where a producer's file also fits a generic one (its HdrHistogram
 * logs, its CSV), the producer's module claims it with the same score and, being first, wins.
 */
const PRODUCER_FORMATS: readonly FormatModule[] = [cassandraStressFormat, scyllaBenchFormat, jmeterFormat, gatlingFormat, locustFormat, k6Format, vegetaFormat, wrkFormat, nosqlbenchFormat, memtierFormat, goYcsbFormat, pgbenchFormat, sysbenchFormat, redisBenchmarkFormat];

/** Every input format. Adding a format = one module here + its fixtures and tests. */
export const FORMATS: readonly FormatModule[] = [...PRODUCER_FORMATS, hdrLogFormat, hgrmFormat, ycsbRawFormat, ycsbTextFormat, genericCsvFormat];

/** Text examined for detection. */
export const HEAD_CHARS = 64 * 1024;
/**
 * Leading blank lines are skipped for detection (a tool padding its output), up to this much: a
 * file holding nothing else is not kept whole in memory to find out.
 */
const MAX_BLANK_HEAD = 16 * 1024 * 1024;
const MIN_SCORE = 0.25;

/** Documents that sit beside results (a run's README, a report) and may quote result lines. */
const DOCUMENT_NAME = /\.(md|markdown|rst|adoc|html?|pdf|png|jpe?g|gif|svg|docx?|xlsx?|pptx?)$/i;

/** Markdown headings or code fences: a document that may quote result lines, not a result. */
const DOCUMENT_CONTENT = /^(#{1,6} \S|```)/m;

export function detectFormat(rawHead: string, fileName: string): FormatModule | null {
  return scoredFormat(normalisedHead(rawHead), fileName)?.module ?? null;
}

/** Modules are promised normalised line ends and no BOM. */
function normalisedHead(rawHead: string): string {
  // Their detectors split on \n, so a file with CR-only line ends (classic Mac, some Windows
  // tools) was one long line and went to the wrong module.
  return rawHead.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

function scoredFormat(head: string, fileName: string): { module: FormatModule; score: number } | null {
  if (DOCUMENT_NAME.test(fileName) || DOCUMENT_CONTENT.test(head)) return null;
  let best: FormatModule | null = null;
  let bestScore = MIN_SCORE;
  for (const f of FORMATS) {
    const score = f.detect(head, baseName(fileName));
    if (score > bestScore) {
      best = f;
      bestScore = score;
    }
  }
  return best ? { module: best, score: bestScore } : null;
}

/**
 * The format of a file starting with `rawHead`, and the line prefix to remove from its lines
 * first (see line-prefix.ts) when one is on most of them and the file reads at least as well
 * without it: a harness's timestamps never take a file from another format that reads it as it is.
 */
export function detectInput(rawHead: string, fileName: string): { module: FormatModule; prefix: LinePrefixShape | null } | null {
  const head = normalisedHead(rawHead);
  const plain = scoredFormat(head, fileName);
  const prefix = findLinePrefix(head);
  if (prefix) {
    const stripped = scoredFormat(stripPrefixes(head, prefix), fileName);
    // The same module on both: its detector looks past the line starts, its parser would not.
    if (stripped && (stripped.score > (plain?.score ?? 0) || stripped.module === plain?.module)) return { module: stripped.module, prefix };
  }
  return plain ? { module: plain.module, prefix: null } : null;
}

/** A file that could not be read at all. */
export interface FailedFile {
  path: string;
  failed: true;
  errors: ParseIssue[];
  /** A table no format claims: its header and first rows, for the user to map its columns. */
  csv?: CsvPreview;
}

export type FileOutcome = ParsedFile | FailedFile;

export function isFailed(f: FileOutcome): f is FailedFile {
  return 'failed' in f;
}

export interface ReadProgress {
  path: string;
  bytesRead: number;
  totalBytes: number | null;
  lines: number;
}

export interface ReadOptions {
  format?: FormatOptions;
  /** Force a format instead of detecting it. */
  formatId?: FormatModule['id'];
  /** Column mappings the user gave for CSVs (by header, or for any CSV with the columns: the CLI's --map). */
  csvMappings?: CsvMappings;
  onProgress?: (p: ReadProgress) => void;
  signal?: AbortSignal;
  totalBytes?: number;
  /**
   * Opens the file for reading by byte ranges, for a format read by seeking (Parquet): called only
   * for such a file, which is refused without it.
   */
  randomAccess?: () => Promise<RandomAccessInput>;
}

export class CancelledError extends Error {
  constructor() {
    super('cancelled');
  }
}

const UNRECOGNISED = 'not a recognised benchmark result format (HdrHistogram log, .hgrm, YCSB output, YCSB raw CSV, per-operation CSV, or the output of a supported load tool)';
const EMPTY = 'the file is empty';
const NEEDS_MAPPING = 'a table whose columns benchlens cannot tell apart: map its columns (time, latency and its unit, operation, success, client) to read it';

function failure(path: string, message: string): FailedFile {
  return { path, failed: true, errors: [{ file: path, line: 0, message }] };
}

/** A file that is simply not a result file (a README beside the logs), as opposed to a broken one. */
export function isUnrecognised(f: FailedFile): boolean {
  return f.errors.every((e) => e.message === UNRECOGNISED || e.message === EMPTY || e.message === NEEDS_MAPPING);
}

/**
 * The mapping the user gave for a CSV starting with `head`: by its header, or the one for any CSV
 * that has its latency column. Null when there is none (or the head is no table).
 */
function mappingFor(head: string, mappings: CsvMappings | undefined): CsvMapping | null {
  if (!mappings || (!mappings.any && Object.keys(mappings.byHeader ?? {}).length === 0)) return null;
  const table = splitHead(head);
  return table ? mappingForHeader(table.header, mappings) : null;
}

/** The same for a table whose column names are known (a Parquet file's). */
function mappingForHeader(header: readonly string[], mappings: CsvMappings | undefined): CsvMapping | null {
  const spec = mappings?.byHeader?.[headerKey(header)];
  if (spec !== undefined) return parseMapSpec(spec);
  if (mappings?.any !== undefined) {
    const any = parseMapSpec(mappings.any);
    if (header.includes(any.latency)) return any;
  }
  return null;
}

/** How a file can be read in parts on several cores: see `FormatModule.partPreamble`. */
export interface PartPlan {
  formatId: FormatModule['id'];
  /** The format options every part is read with (a mapped CSV's columns). */
  format?: FormatOptions;
  /** Text each part is read after (a CSV's header line, '' for none): line 1 of every part but the first. */
  preamble: string;
}

/** The series a line of a file of format `formatId` belongs to, where its files come in blocks of one series (`FormatModule.partSeries`). */
export function partSeriesOf(formatId: FormatModule['id']): ((line: string) => string | null) | null {
  return FORMATS.find((f) => f.id === formatId)?.partSeries ?? null;
}

/**
 * Whether a file whose first bytes are `headBytes` can be read in parts, and how: plain UTF-8 text
 * (not gzip, not UTF-16) with `\n` line ends, of a format that splits (see
 * `FormatModule.partPreamble`). Null when it must be read whole.
 */
export function partPlan(path: string, headBytes: Uint8Array, options: Pick<ReadOptions, 'csvMappings' | 'formatId'> = {}): PartPlan | null {
  const gzip = headBytes[0] === 0x1f && headBytes[1] === 0x8b;
  const utf16 = (headBytes[0] === 0xff && headBytes[1] === 0xfe) || (headBytes[0] === 0xfe && headBytes[1] === 0xff) || headBytes.subarray(0, 64).includes(0);
  if (gzip || utf16) return null;
  const text = new TextDecoder().decode(headBytes).replace(/^\uFEFF/, '');
  // Parts start after a \n: files whose lines end otherwise (a CR alone) are read whole.
  const whole = text.slice(0, text.lastIndexOf('\n') + 1);
  const first = whole.search(/\S/);
  if (first < 0 || /\r(?!\n)/.test(whole)) return null;
  // As readFile shows it to the detectors: from the first line with content, line ends normalised.
  const shown = whole.slice(whole.lastIndexOf('\n', first) + 1).replace(/\r\n/g, '\n');
  let mapping: CsvMapping | null;
  try {
    mapping = options.formatId ? null : mappingFor(shown, options.csvMappings);
  } catch (e) {
    if (e instanceof MappingError) return null;
    throw e;
  }
  const detected = mapping || options.formatId ? null : detectInput(shown, path);
  // A file read with its lines' prefix removed is read whole: parts hand lines to the parser directly.
  if (detected?.prefix) return null;
  const module = mapping ? genericCsvFormat : options.formatId ? (FORMATS.find((f) => f.id === options.formatId) ?? null) : (detected?.module ?? null);
  const preamble = module?.partPreamble?.(shown);
  if (!module || preamble === null || preamble === undefined) return null;
  return { formatId: module.id, ...(mapping ? { format: { mapping } } : {}), preamble };
}

/** What a parser bug or an exhausted resource looks like to the user: this file, not the whole load. */
const INTERNAL = 'could not be read because of an internal error';

/**
 * Read one file from a stream of byte chunks: decompress, decode, detect its format on the first
 * 64 KiB of text, then feed it line by line to that format's parser. A file that cannot be read
 * fails alone, with a message naming it; cancellation raises CancelledError.
 */
export async function readFile(path: string, chunks: AsyncIterable<Uint8Array>, options: ReadOptions = {}): Promise<FileOutcome> {
  try {
    const { parquet, rest } = await sniffParquet(fromSource(path, chunks));
    if (parquet) return await readParquetInput(path, options);
    return await readFileUnguarded(path, rest, options);
  } catch (e) {
    if (e instanceof CancelledError) throw e;
    if (e instanceof InputError) return failure(path, e.message);
    // Every parser promises per-line errors instead of exceptions; should one break that promise
    // (or a string or array exceed what the JS engine allows), the other files still load.
    return failure(path, `${path} ${INTERNAL} (${e instanceof Error ? `${e.name}: ${e.message}` : String(e)})`.slice(0, 500));
  }
}

async function readFileUnguarded(path: string, chunks: AsyncIterable<Uint8Array>, options: ReadOptions): Promise<FileOutcome> {
  let head = '';
  /** Where the first line holding more than white space starts in `head`; -1 while there is none. */
  let contentStart = -1;
  /** Decodes the head, and after detection every line of a parser that reads text. */
  let decoder: TextDecoder | null = null;
  /** The content bytes behind `head`, for a parser that reads bytes. */
  let headBytes: Uint8Array[] = [];
  let encoding: Encoding = 'utf-8';
  let splitter: LineSplitter | ByteLineSplitter | null = null;
  let parser: ReturnType<FormatModule['createParser']> | null = null;
  let detectionFailed = false;
  /** A table no format claims, offered for mapping. */
  let unmapped: CsvPreview | null = null;
  /** The prefix removed from the file's lines, when it has one. */
  let prefix: PrefixStripper | null = null;
  /** The file is a web server's listing of the folder `path` (linked without its trailing '/'). */
  let listingOf: string | null = null;

  const startParsing = (): void => {
    // Only the documented head: detectors scan it with regular expressions, and a single decoded
    // chunk can be many megabytes.
    const from = Math.max(0, contentStart);
    const shown = head.slice(from, from + HEAD_CHARS).replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
    let mapping: CsvMapping | null;
    try {
      mapping = options.formatId ? null : mappingFor(shown, options.csvMappings);
    } catch (e) {
      if (!(e instanceof MappingError)) throw e;
      throw new InputError(`${path}: column mapping: ${e.message}`);
    }
    const detected = mapping || options.formatId ? null : detectInput(shown, path);
    const module = mapping ? genericCsvFormat : options.formatId ? (FORMATS.find((f) => f.id === options.formatId) ?? null) : (detected?.module ?? null);
    if (!module) {
      detectionFailed = true;
      // A link to a folder without its trailing '/' fetches the host's listing of it.
      if (!/\.[A-Za-z0-9]{1,8}$/.test(baseName(path)) && listingServer(shown) !== null) listingOf = path;
      unmapped = csvPreview(path, shown);
      pipeline.stop();
      return;
    }
    const p = module.createParser(path, mapping ? { ...options.format, mapping } : options.format);
    parser = p;
    if (detected?.prefix) {
      // Read as text, each line without its prefix; line numbers stay the file's own.
      const stripper = new PrefixStripper(detected.prefix);
      prefix = stripper;
      const text = new LineSplitter((line, lineNo) => p.line(stripper.strip(line), lineNo), path);
      text.push(head);
      splitter = text;
    } else if (p.lineBytes && encoding === 'utf-8') {
      const bytes = new ByteLineSplitter(p as LineParser & ByteLineReader, path);
      for (const chunk of headBytes) bytes.push(chunk);
      splitter = bytes;
    } else {
      const text = new LineSplitter((line, lineNo) => p.line(line, lineNo), path);
      text.push(head);
      splitter = text;
    }
    head = '';
    headBytes = [];
  };

  const pipeline = new InputPipeline((bytes, contentEncoding, final) => {
    if (detectionFailed) return;
    if (splitter instanceof ByteLineSplitter) {
      splitter.push(bytes);
      return;
    }
    decoder ??= new TextDecoder(contentEncoding, { fatal: false });
    const text = decoder.decode(bytes, { stream: !final });
    if (splitter) {
      if (text.length > 0) splitter.push(text);
      return;
    }
    encoding = contentEncoding;
    // A copy: the chunk's buffer may be reused by its producer before parsing starts.
    headBytes.push(bytes.slice());
    head += text;
    if (contentStart < 0) {
      const i = text.search(/\S/);
      if (i >= 0) {
        const at = head.length - text.length + i;
        contentStart = Math.max(head.lastIndexOf('\n', at), head.lastIndexOf('\r', at)) + 1;
      }
    }
    if (contentStart >= 0 ? head.length - contentStart >= HEAD_CHARS : head.length >= MAX_BLANK_HEAD) startParsing();
  }, path);

  for await (const chunk of fromSource(path, chunks)) {
    if (options.signal?.aborted) throw new CancelledError();
    pipeline.push(chunk);
    if (detectionFailed) break;
    options.onProgress?.({
      path,
      bytesRead: pipeline.compressedBytesSeen,
      totalBytes: options.totalBytes ?? null,
      lines: (splitter as LineSplitter | ByteLineSplitter | null)?.linesEmitted ?? 0,
    });
  }
  if (!detectionFailed) pipeline.push(new Uint8Array(0), true);
  const truncated = pipeline.truncated ? `${path}: the gzip data ends before its end marker — the file was cut short` : null;
  if (!splitter && !detectionFailed) {
    if (head.trim().length === 0) return failure(path, truncated ?? EMPTY);
    startParsing();
  }
  if (listingOf) return failure(path, `${path} is a web server's listing of a folder: link it with a trailing / (${path}/) to read the files it lists`);
  if (detectionFailed || !splitter || !parser) {
    return unmapped ? { ...failure(path, NEEDS_MAPPING), csv: unmapped } : failure(path, UNRECOGNISED);
  }
  const lines = splitter as LineSplitter | ByteLineSplitter;
  // What follows the last line end of a cut file is part of a line: it could parse as a different,
  // valid value (4181 cut to 41), so it is not read at all.
  const dropped = truncated ? lines.discardPending() : 0;
  lines.end();
  const file = (parser as ReturnType<FormatModule['createParser']>).finish();
  if (prefix) file.linePrefix = (prefix as PrefixStripper).stripped;
  if (truncated) {
    const message = dropped > 0 ? `${truncated}; its incomplete last line (line ${lines.linesEmitted + 1}) was not read` : truncated;
    // First: every other error of the file may be a consequence of the cut.
    file.errors.unshift({ file: path, line: 0, message });
  }
  return file;
}

/**
 * Whether the chunks start with Parquet's magic bytes, and the chunks as they were (those looked at
 * first, then the rest). A Parquet file is not streamed: its reader seeks (`readParquetInput`).
 */
async function sniffParquet(chunks: AsyncIterable<Uint8Array>): Promise<{ parquet: boolean; rest: AsyncIterable<Uint8Array> }> {
  const it = chunks[Symbol.asyncIterator]();
  const seen: Uint8Array[] = [];
  let length = 0;
  let done = false;
  while (length < PARQUET_MAGIC.length) {
    const next = await it.next();
    if (next.done) {
      done = true;
      break;
    }
    // A short chunk is copied: its buffer may be reused by its producer while the next is read.
    seen.push(next.value.length < PARQUET_MAGIC.length ? next.value.slice() : next.value);
    length += next.value.length;
  }
  const first = seen.length === 1 ? seen[0]! : concatenated(seen, length);
  if (isParquetMagic(first)) {
    if (!done) await it.return?.();
    return { parquet: true, rest: oneChunk(new Uint8Array(0)) };
  }
  async function* rest(): AsyncIterable<Uint8Array> {
    let finished = done;
    try {
      yield* seen;
      while (!finished) {
        const next = await it.next();
        if (next.done) finished = true;
        else yield next.value;
      }
    } finally {
      if (!finished) await it.return?.();
    }
  }
  return { parquet: false, rest: rest() };
}

function concatenated(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function readParquetInput(path: string, options: ReadOptions): Promise<FileOutcome> {
  if (!options.randomAccess) throw new InputError(`${path}: a Parquet file, which is read by seeking in it; this input can only be streamed`);
  let input: RandomAccessInput;
  try {
    input = await options.randomAccess();
  } catch (e) {
    if (e instanceof CancelledError) throw e;
    throw new InputError(`${path}: reading failed (${e instanceof Error ? e.message : String(e)})`);
  }
  const totalBytes = options.totalBytes ?? input.size;
  return readParquet(path, input, {
    mappingFor: (header) => {
      try {
        return mappingForHeader(header, options.csvMappings);
      } catch (e) {
        if (!(e instanceof MappingError)) throw e;
        throw new InputError(`${path}: column mapping: ${e.message}`);
      }
    },
    ...(options.format?.rawSamples ? { rawSamples: options.format.rawSamples } : {}),
    onRowGroup: (bytesRead, rows) => {
      if (options.signal?.aborted) throw new CancelledError();
      options.onProgress?.({ path, bytesRead, totalBytes, lines: rows });
    },
  });
}

/** The chunks, with a failure of the source itself (disk, network) reported as such, not as a bug. */
async function* fromSource(path: string, chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  try {
    yield* chunks;
  } catch (e) {
    if (e instanceof CancelledError || e instanceof InputError) throw e;
    throw new InputError(`${path}: reading failed (${e instanceof Error ? e.message : String(e)})`);
  }
}

/** Bytes already in memory (tests, small files, the CLI) as a one-chunk stream. */
export async function* oneChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** Split a large buffer into chunks so progress and cancellation have a chance to run. */
export async function* inChunks(bytes: Uint8Array, chunkSize = 1 << 20): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i += chunkSize) yield bytes.subarray(i, Math.min(bytes.length, i + chunkSize));
}

export function readText(path: string, text: string, options: ReadOptions = {}): Promise<FileOutcome> {
  return readFile(path, oneChunk(new TextEncoder().encode(text)), options);
}
