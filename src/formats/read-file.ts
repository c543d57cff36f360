import type { ParsedFile, ParseIssue } from '../model/types.ts';
import { baseName } from '../model/naming.ts';
import { csvPreview, mappingForHeader, MappingError, type CsvMappings, type CsvPreview } from './csv-mapping.ts';
import type { FormatModule, FormatOptions, LineParser } from './format.ts';
import { listingServer } from './listing-page.ts';
import { PrefixStripper } from './line-prefix.ts';
import { readParquet, sniffParquet, type RandomAccessInput } from './parquet.ts';
import { chooseFormat, HEAD_CHARS } from './registry.ts';
import { InputPipeline, type Encoding } from './decompress.ts';
import { ByteLineSplitter, InputError, LineSplitter, type ByteLineReader } from './text-input.ts';

/**
 * Reading one file: decompress, decode, detect its format on the first 64 KiB of text (registry.ts),
 * then feed it line by line to that format's parser — or, for Parquet, hand it to the Parquet
 * reader, which seeks. A file that cannot be read fails alone, with a message naming it and the
 * kind of failure; cancellation raises CancelledError.
 */

/**
 * Why a file could not be read. `empty`: nothing but white space. `unrecognised`: no format claims
 * it (a README beside the logs). `needs-mapping`: a table whose columns the user must name.
 * `folder-listing`: a web server's listing of a folder linked without its trailing '/'.
 * `unreadable`: broken or refused as a whole (corrupt or cut gzip, a line too long, the disk or
 * network failing, a column mapping that cannot be read, a Parquet file that can only be streamed).
 * `internal`: a parser broke its promise of per-line errors, or the JS engine ran out of room.
 */
export type FailureKind = 'empty' | 'unrecognised' | 'needs-mapping' | 'folder-listing' | 'unreadable' | 'internal';

/** A file that could not be read at all. */
export interface FailedFile {
  path: string;
  failed: true;
  kind: FailureKind;
  errors: ParseIssue[];
  /** A table no format claims: its header and first rows, for the user to map its columns. */
  csv?: CsvPreview;
}

export type FileOutcome = ParsedFile | FailedFile;

export function isFailed(f: FileOutcome): f is FailedFile {
  return 'failed' in f;
}

/** A file that is simply not a result file (a README beside the logs), as opposed to a broken one. */
export function isUnrecognised(f: FailedFile): boolean {
  return f.kind === 'unrecognised' || f.kind === 'empty' || f.kind === 'needs-mapping';
}

export class CancelledError extends Error {
  constructor() {
    super('cancelled');
  }
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

const UNRECOGNISED = 'not a recognised benchmark result format (HdrHistogram log, .hgrm, YCSB output, YCSB raw CSV, per-operation CSV, or the output of a supported load tool)';
const EMPTY = 'the file is empty';
const NEEDS_MAPPING = 'a table whose columns benchlens cannot tell apart: map its columns (time, latency and its unit, operation, success, client) to read it';
/** What a parser bug or an exhausted resource looks like to the user: this file, not the whole load. */
const INTERNAL = 'could not be read because of an internal error';

/**
 * Leading blank lines are skipped for detection (a tool padding its output), up to this much: a
 * file holding nothing else is not kept whole in memory to find out.
 */
const MAX_BLANK_HEAD = 16 * 1024 * 1024;
/** Content bytes gathered for the head at a time (see LineFileReader.content). */
const HEAD_PIECE_BYTES = 64 * 1024;

function failure(path: string, kind: FailureKind, message: string): FailedFile {
  return { path, failed: true, kind, errors: [{ file: path, line: 0, message }] };
}

/**
 * Read one file from a stream of byte chunks: decompress, decode, detect its format on the first
 * 64 KiB of text, then feed it line by line to that format's parser. A file that cannot be read
 * fails alone, with a message naming it; cancellation raises CancelledError.
 */
export async function readFile(path: string, chunks: AsyncIterable<Uint8Array>, options: ReadOptions = {}): Promise<FileOutcome> {
  try {
    const sniffed = await sniffParquet(fromSource(path, chunks));
    if (sniffed.parquet) return await readParquetInput(path, options);
    return await readLines(path, sniffed.rest, options);
  } catch (e) {
    if (e instanceof CancelledError) throw e;
    if (e instanceof InputError) return failure(path, 'unreadable', e.message);
    // Every parser promises per-line errors instead of exceptions; should one break that promise
    // (or a string or array exceed what the JS engine allows), the other files still load.
    return failure(path, 'internal', `${path} ${INTERNAL} (${e instanceof Error ? `${e.name}: ${e.message}` : String(e)})`.slice(0, 500));
  }
}

async function readLines(path: string, chunks: AsyncIterable<Uint8Array>, options: ReadOptions): Promise<FileOutcome> {
  const reader = new LineFileReader(path, options);
  for await (const chunk of fromSource(path, chunks)) {
    if (options.signal?.aborted) throw new CancelledError();
    reader.push(chunk);
    if (reader.refused) break;
    options.onProgress?.({ path, bytesRead: reader.bytesRead, totalBytes: options.totalBytes ?? null, lines: reader.lines });
  }
  return reader.finish();
}

/**
 * One text file on its way to its parser: its head gathered until detection can look at it, then
 * every line to the parser of the format chosen (or the reason none reads it).
 */
class LineFileReader {
  /** Decoded text before detection. */
  private head = '';
  /** Where the first line holding more than white space starts in `head`; -1 while there is none. */
  private contentStart = -1;
  /** The content bytes behind `head`, for a parser that reads bytes. */
  private headBytes: Uint8Array[] = [];
  private encoding: Encoding = 'utf-8';
  /** Decodes the head, and after detection every line of a parser that reads text. */
  private decoder: TextDecoder | null = null;
  /** After detection: the lines and the parser they go to. */
  private reading: { lines: LineSplitter | ByteLineSplitter; parser: LineParser } | null = null;
  /** The prefix removed from the file's lines, when it has one. */
  private prefix: PrefixStripper | null = null;
  /** Set when no format reads the file: the outcome that says why. */
  refused: FailedFile | null = null;
  private readonly pipeline: InputPipeline;

  constructor(
    private readonly path: string,
    private readonly options: ReadOptions,
  ) {
    this.pipeline = new InputPipeline((bytes, encoding, final) => this.content(bytes, encoding, final), path);
  }

  get bytesRead(): number {
    return this.pipeline.compressedBytesSeen;
  }

  get lines(): number {
    return this.reading?.lines.linesEmitted ?? 0;
  }

  push(chunk: Uint8Array): void {
    this.pipeline.push(chunk);
  }

  finish(): FileOutcome {
    const path = this.path;
    if (!this.refused) this.pipeline.push(new Uint8Array(0), true);
    const truncated = this.pipeline.truncated ? `${path}: the gzip data ends before its end marker — the file was cut short` : null;
    if (!this.reading && !this.refused) {
      if (this.head.trim().length === 0) return truncated ? failure(path, 'unreadable', truncated) : failure(path, 'empty', EMPTY);
      this.startParsing();
    }
    if (this.refused) return this.refused;
    const { lines, parser } = this.reading as NonNullable<LineFileReader['reading']>;
    // What follows the last line end of a cut file is part of a line: it could parse as a different,
    // valid value (4181 cut to 41), so it is not read at all.
    const dropped = truncated ? lines.discardPending() : 0;
    lines.end();
    const file = parser.finish();
    if (this.prefix) file.linePrefix = this.prefix.stripped;
    if (truncated) {
      const message = dropped > 0 ? `${truncated}; its incomplete last line (line ${lines.linesEmitted + 1}) was not read` : truncated;
      // First: every other error of the file may be a consequence of the cut.
      file.errors.unshift({ file: path, line: 0, message });
    }
    return file;
  }

  /** Content bytes from the pipeline (decompressed; `encoding` recognised). */
  private content(bytes: Uint8Array, encoding: Encoding, final: boolean): void {
    let rest = bytes;
    // Until the format is chosen, a piece at a time: a chunk of a local file is 16 MiB, and
    // decoding (and keeping a copy of) all of it to look at its first 64 KiB cost a part of a
    // large file some 30 ms of a parse worker's core.
    while (!this.reading) {
      if (this.refused) return;
      const piece = rest.subarray(0, HEAD_PIECE_BYTES);
      rest = rest.subarray(piece.length);
      this.gather(piece, encoding, final && rest.length === 0);
      if (rest.length === 0) return;
    }
    if (this.refused) return;
    const { lines } = this.reading;
    if (lines instanceof ByteLineSplitter) {
      lines.push(rest);
      return;
    }
    const text = (this.decoder as TextDecoder).decode(rest, { stream: !final });
    if (text.length > 0) lines.push(text);
  }

  /** Adds content bytes to the head, and chooses the format once there is enough of it. */
  private gather(bytes: Uint8Array, encoding: Encoding, final: boolean): void {
    this.decoder ??= new TextDecoder(encoding, { fatal: false });
    const text = this.decoder.decode(bytes, { stream: !final });
    this.encoding = encoding;
    // A copy: the chunk's buffer may be reused by its producer before parsing starts.
    this.headBytes.push(bytes.slice());
    this.head += text;
    if (this.contentStart < 0) {
      const i = text.search(/\S/);
      if (i >= 0) {
        const at = this.head.length - text.length + i;
        this.contentStart = Math.max(this.head.lastIndexOf('\n', at), this.head.lastIndexOf('\r', at)) + 1;
      }
    }
    if (this.contentStart >= 0 ? this.head.length - this.contentStart >= HEAD_CHARS : this.head.length >= MAX_BLANK_HEAD) this.startParsing();
  }

  /** Choose the format on the head, then hand it what was gathered. */
  private startParsing(): void {
    const { path, options } = this;
    // Only the documented head: detectors scan it with regular expressions, and a single decoded
    // chunk can be many megabytes.
    const from = Math.max(0, this.contentStart);
    const shown = this.head.slice(from, from + HEAD_CHARS).replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
    let choice;
    try {
      choice = chooseFormat(shown, path, options);
    } catch (e) {
      if (!(e instanceof MappingError)) throw e;
      throw new InputError(`${path}: column mapping: ${e.message}`);
    }
    if (!choice) {
      this.refused = this.refusal(shown);
      this.pipeline.stop();
      return;
    }
    const parser = choice.module.createParser(path, choice.mapping ? { ...options.format, mapping: choice.mapping } : options.format);
    if (choice.prefix) {
      // Read as text, each line without its prefix; line numbers stay the file's own.
      const stripper = new PrefixStripper(choice.prefix);
      this.prefix = stripper;
      const text = new LineSplitter((line, lineNo) => parser.line(stripper.strip(line), lineNo), path);
      text.push(this.head);
      this.reading = { lines: text, parser };
    } else if (parser.lineBytes && this.encoding === 'utf-8') {
      const bytes = new ByteLineSplitter(parser as LineParser & ByteLineReader, path);
      for (const chunk of this.headBytes) bytes.push(chunk);
      this.reading = { lines: bytes, parser };
    } else {
      const text = new LineSplitter((line, lineNo) => parser.line(line, lineNo), path);
      text.push(this.head);
      this.reading = { lines: text, parser };
    }
    this.head = '';
    this.headBytes = [];
  }

  /** Why no format reads a file whose head is `shown`. */
  private refusal(shown: string): FailedFile {
    const path = this.path;
    // A link to a folder without its trailing '/' fetches the host's listing of it.
    if (!/\.[A-Za-z0-9]{1,8}$/.test(baseName(path)) && listingServer(shown) !== null) {
      return failure(path, 'folder-listing', `${path} is a web server's listing of a folder: link it with a trailing / (${path}/) to read the files it lists`);
    }
    const table = csvPreview(path, shown);
    return table ? { ...failure(path, 'needs-mapping', NEEDS_MAPPING), csv: table } : failure(path, 'unrecognised', UNRECOGNISED);
  }
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
