import { FURTHER_ERRORS, IssueLog } from '../formats/format.ts';
import { partPlan, partSeriesOf, type PartPlan } from '../formats/part-plan.ts';
import { isFailed, type FileOutcome, type ReadProgress } from '../formats/read-file.ts';
import { mergeCounted } from '../formats/sample-counter.ts';
import type { ParsedFile, RawSeries } from '../model/types.ts';
import { FailureTally } from '../model/failures.ts';
import { fileChunks } from './input-stream.ts';
import { attachLevels, levelsAttachedTo, mergeLevels } from './prebuilt-levels.ts';
import type { InputFile } from './protocol.ts';

/**
 * One large file read in parts on several cores: each part is a byte range that owns the lines
 * starting in it, read on its own after the format's preamble (a CSV's header line), and the parts'
 * parses are merged into the parse of the whole file — the same samples, errors at the same lines.
 */

/** Below this a file is read whole: starting a part costs more than it saves. */
export const PART_MIN_BYTES = 32 * 1024 * 1024;

/** A part of a large file to read on its own: the lines starting in [start, end), as `plan` says. */
export interface PartRequest {
  start: number;
  end: number;
  plan: PartPlan;
}

/** Bytes of a file's start that say whether it can be read in parts (see partPlan). */
const PLAN_HEAD_BYTES = 64 * 1024;

/**
 * A large local file of a format read one sample a line, read in `parts` parts at once (one per
 * parse worker) and merged: one big file no longer leaves all cores but one idle. Null when the file
 * is to be read whole (small, remote, gzipped, of a format that cannot be split, or a file whose
 * parts showed it cannot: ParsedFile.partUnsafe).
 */
export async function readInParts(
  input: InputFile,
  parts: number,
  onProgress: (p: ReadProgress) => void,
  readPart: (part: PartRequest, onProgress: (p: ReadProgress) => void) => Promise<FileOutcome>,
  minBytes = PART_MIN_BYTES,
): Promise<FileOutcome | null> {
  const file = input.file;
  if (parts < 2 || !file || file.size < minBytes) return null;
  const plan = partPlan(input.path, new Uint8Array(await file.slice(0, PLAN_HEAD_BYTES).arrayBuffer()), input.csvMaps ? { csvMappings: { byHeader: input.csvMaps } } : {});
  if (!plan) return null;
  const seriesOf = partSeriesOf(plan.formatId);
  const even = partRanges(file.size, parts, minBytes);
  const ranges = seriesOf && even.length > 1 ? await cutAtBlocks(file, even, seriesOf) : even;
  if (ranges.length < 2) return null;
  const bytes = ranges.map(() => 0);
  const lines = ranges.map(() => 0);
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  const outcomes = await Promise.all(
    ranges.map(([start, end], k) =>
      readPart({ start, end, plan }, (p) => {
        bytes[k] = p.bytesRead;
        lines[k] = p.lines;
        onProgress({ path: input.path, bytesRead: sum(bytes), totalBytes: file.size, lines: sum(lines) });
      }),
    ),
  );
  const read: FilePart[] = [];
  for (const [k, outcome] of outcomes.entries()) {
    if (isFailed(outcome)) {
      // A part that owns no line (one line longer than the part) reads as an empty file.
      if (k > 0 && outcome.kind === 'empty') continue;
      return outcome;
    }
    read.push({ outcome, preambleLines: k > 0 && plan.preamble.length > 0 ? 1 : 0 });
  }
  // Something only the whole file reads right (a record spanning lines, perhaps across a cut).
  if (read.some((p) => p.outcome.partUnsafe !== undefined)) return null;
  return mergeParts(read);
}

/** How far a cut between parts may move to reach a block's start: this share of a part's size. */
const BLOCK_REACH = 0.1;
/** Bytes read to find the line after a position: a row of a file of blocks is far shorter. */
const PROBE_BYTES = 512;

/**
 * `ranges` with each cut between two moved to the start of a block of one series (a YCSB raw
 * operation's header), where one starts within BLOCK_REACH of it: a series then lies in one part,
 * which saves merging it from two (a copy of its millions of cells and of its levels). Found by
 * bisection on the series of the line at a position, a few small reads; a cut with no block start
 * near stays where it was. Parts are merged exactly either way.
 */
async function cutAtBlocks(file: Blob, ranges: readonly [number, number][], seriesOf: (line: string) => string | null): Promise<[number, number][]> {
  const cuts = [0];
  for (const [start, end] of ranges.slice(1)) {
    const reach = Math.floor(BLOCK_REACH * (end - start));
    const moved = await blockStartNear(file, start, reach, seriesOf);
    if (moved > cuts[cuts.length - 1]!) cuts.push(moved);
  }
  return cuts.map((cut, k): [number, number] => [cut, cuts[k + 1] ?? file.size]);
}

async function blockStartNear(file: Blob, cut: number, reach: number, seriesOf: (line: string) => string | null): Promise<number> {
  let lo = Math.max(0, cut - reach);
  let hi = Math.min(file.size, cut + reach);
  const before = (await linesAfter(file, lo, PROBE_BYTES))[0];
  const after = (await linesAfter(file, hi, PROBE_BYTES))[0];
  const series = before ? seriesOf(before.text) : null;
  if (series === null || !after || seriesOf(after.text) === series) return cut;
  // The line after lo is of `series`, the one after hi is not: a block starts in between.
  while (hi - lo > PROBE_BYTES) {
    const mid = Math.floor((lo + hi) / 2);
    const line = (await linesAfter(file, mid, PROBE_BYTES))[0];
    if (!line) return cut;
    if (seriesOf(line.text) === series) lo = mid;
    else hi = mid;
  }
  const next = (await linesAfter(file, lo, hi - lo + 2 * PROBE_BYTES)).find((line) => seriesOf(line.text) !== series);
  return next && Math.abs(next.start - cut) <= reach ? next.start : cut;
}

/** The whole lines that start after byte `at` within `bytes` bytes of it, with where each starts. */
async function linesAfter(file: Blob, at: number, bytes: number): Promise<{ start: number; text: string }[]> {
  const chunk = new Uint8Array(await file.slice(at, Math.min(file.size, at + bytes)).arrayBuffer());
  const lines: { start: number; text: string }[] = [];
  for (let from = chunk.indexOf(10) + 1; from > 0; ) {
    const end = chunk.indexOf(10, from);
    if (end < 0) break;
    lines.push({ start: at + from, text: utf8.decode(chunk.subarray(from, end)) });
    from = end + 1;
  }
  return lines;
}

const utf8 = new TextDecoder();

/** `parts` byte ranges [start, end) of about equal size covering `size` bytes, none under half of `minBytes`. */
export function partRanges(size: number, parts: number, minBytes = PART_MIN_BYTES): [number, number][] {
  const count = Math.max(1, Math.min(parts, Math.floor(size / (minBytes / 2)) || 1));
  return Array.from({ length: count }, (_, k) => [Math.floor((size * k) / count), Math.floor((size * (k + 1)) / count)]);
}

/**
 * The bytes of the lines of `file` that start in [start, end) — a part owns a line that begins in
 * it, to its end, wherever that is — after `preamble`. Read a slice at a time, never whole.
 */
export async function* partBytes(file: Blob, start: number, end: number, preamble: Uint8Array): AsyncIterable<Uint8Array> {
  if (preamble.length > 0) yield preamble;
  // From the byte before the range: when it is a line end, the range starts with a line.
  const from = Math.max(0, start - 1);
  let at = from;
  let skipping = start > 0;
  for await (const value of fileChunks(file, from, end)) {
    let chunk = value;
    let chunkStart = at;
    at += value.length;
    if (skipping) {
      const lineEnd = chunk.indexOf(10);
      if (lineEnd < 0) continue;
      // A line that began before the range and ends past it: the range owns no line at all.
      if (chunkStart + lineEnd + 1 >= end) return;
      chunk = chunk.subarray(lineEnd + 1);
      chunkStart += lineEnd + 1;
      skipping = false;
    }
    if (chunkStart + chunk.length >= end) {
      // The last owned line is the one holding byte end-1: it ends at the first \n from there.
      const lineEnd = chunk.indexOf(10, Math.max(0, end - 1 - chunkStart));
      if (lineEnd >= 0) {
        yield chunk.subarray(0, lineEnd + 1);
        return;
      }
    }
    if (chunk.length > 0) yield chunk;
  }
}

export interface FilePart {
  outcome: ParsedFile;
  /** Lines of the preamble the part was read after: its own lines come after them. */
  preambleLines: number;
}

/**
 * The parse of a whole file from the parses of its parts, in file order: each series' samples
 * counted together (a second that two parts share is counted once), line numbers made the file's,
 * file-level notes once. Parts read formats that give raw samples only.
 */
export function mergeParts(parts: readonly FilePart[]): ParsedFile {
  const first = parts[0];
  if (!first) throw new RangeError('a file of no parts');
  const series = new Map<string, RawSeries>();
  // As a parser lists them: the first MAX_ERRORS_PER_FILE, then one entry saying there are more.
  const log = new IssueLog(first.outcome.path);
  const notes = new Set<string>();
  const failures = new FailureTally();
  let lines = 0;
  let skippedLines = 0;
  let listing = true;
  // A part that found no samples says so at file level ("no rows found"): about the file only
  // when no part found any.
  const anySamples = parts.some((p) => p.outcome.series.length > 0);
  for (const [k, { outcome, preambleLines }] of parts.entries()) {
    const offset = lines - preambleLines;
    const notesApply = outcome.series.length > 0 || !anySamples;
    for (const e of outcome.errors) {
      if (e.line === 0) {
        if (notesApply && !notes.has(e.message)) {
          log.add(e);
          notes.add(e.message);
        }
      } else if (listing && (k === 0 || e.line > preambleLines)) {
        log.add({ ...e, line: e.line + offset });
        // The part listed no more: nor does the file, from here on.
        if (e.message === FURTHER_ERRORS) listing = false;
      }
    }
    lines += outcome.lines - preambleLines;
    skippedLines += outcome.skippedLines;
    failures.addAll(outcome.failures?.counts ?? []);
    for (const s of outcome.series) {
      if (s.kind !== 'raw') throw new TypeError(`${outcome.path}: a part gave ${s.kind} data, which parts cannot be merged from`);
      const key = `${s.client ?? ''}\u0000${s.op}\u0000${s.unit}`;
      const seen = series.get(key);
      if (!seen) {
        series.set(key, s);
        continue;
      }
      const merged: RawSeries = { ...seen, ...mergeCounted(seen, s) };
      const [seenLevels, levels] = [levelsAttachedTo(seen), levelsAttachedTo(s)];
      const mergedLevels = seenLevels && levels ? mergeLevels(seenLevels, levels) : null;
      if (mergedLevels) attachLevels(merged, mergedLevels);
      series.set(key, merged);
    }
  }
  const { failures: _, ...file } = first.outcome;
  const tallied = failures.of('requests');
  return { ...file, series: [...series.values()], ...(tallied ? { failures: tallied } : {}), errors: log.errors, skippedLines, lines };
}
