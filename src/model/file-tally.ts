import { sameRequests, type SameRequests } from './grouping.ts';
import type { ParsedFile, StrippedPrefix } from './types.ts';
import { absoluteSpan, type TimeSpan } from './time-splits.ts';

/**
 * A file's tally: how much was kept of what it held, so partial data is never mistaken for whole;
 * and where a file came from, as the HTML report names it (FileProvenance).
 */

/** What a file gave: how much was kept of what it held. */
export interface FileTally {
  path: string;
  format: ParsedFile['format'];
  /** Records kept: intervals (HdrHistogram logs), samples (raw CSVs), rows (.hgrm), lines (text). */
  kept: number;
  unit: 'intervals' | 'samples' | 'rows' | 'lines';
  /** Lines that could not be used. */
  skipped: number;
  /** Problems reported for the file (skipped lines and file-level notes). */
  problems: number;
  /** The prefix removed from its lines before they were read (a harness's timestamps). */
  linePrefix?: StrippedPrefix;
  /** Another file of its run holds the same requests: which, whether this one is counted, and why. */
  sameRequests?: Omit<SameRequests, 'path'>;
  /** When its requests ran, where the file has absolute times (see ./time-splits.ts). */
  span?: TimeSpan;
}

export function fileTally(f: ParsedFile): FileTally {
  // What a file holds decides how it is counted, whichever producer wrote it: interval histograms
  // and periodic report rows are intervals, raw files samples, percentile distributions rows.
  let intervals = 0;
  let samples = 0;
  let rows = 0;
  for (const s of f.series) {
    if (s.kind === 'histogram') intervals += s.intervals.length;
    else if (s.kind === 'intervals') intervals += s.rows.length;
    else if (s.kind === 'raw') samples += s.samples;
    else if (s.kind === 'distribution') rows += s.rows.length;
  }
  const span = absoluteSpan(f);
  const base = { path: f.path, format: f.format, skipped: f.skippedLines, problems: f.errors.length, ...(f.linePrefix ? { linePrefix: f.linePrefix } : {}), ...(span ? { span } : {}) };
  if (samples > 0 || f.series.some((s) => s.kind === 'raw') || f.format === 'ycsb-raw' || f.format === 'generic-csv') return { ...base, kept: samples, unit: 'samples' };
  if (intervals > 0 || f.format === 'hdr-log') return { ...base, kept: intervals, unit: 'intervals' };
  if (rows > 0 || f.format === 'hgrm') return { ...base, kept: rows, unit: 'rows' };
  return { ...base, kept: f.lines - f.skippedLines, unit: 'lines' };
}

/** Every file's tally, with the files of a run that hold the same requests marked (see `sameRequests`); `overrides` as for `groupIntoRuns`. */
export function fileTallies(files: readonly ParsedFile[], overrides: Readonly<Record<string, string>> = {}): FileTally[] {
  const same = new Map(sameRequests(files, overrides).map(({ path, ...rest }) => [path, rest]));
  return files.map((f) => {
    const r = fileTally(f);
    const s = same.get(f.path);
    return s ? { ...r, sameRequests: s } : r;
  });
}

/** A file as the HTML report names it: what was read, how big, its hash. */
export interface FileProvenance {
  path: string;
  /** Null when the size is not known (a file fetched from a link). */
  bytes: number | null;
  /** Hex SHA-256 of the file as read; null when it was not hashed (too large in a browser). */
  sha256: string | null;
  format: string | null;
}

/** "25 of 27 intervals loaded" — or "all 27 intervals loaded". */
export function describeKept(r: FileTally): string {
  const total = r.kept + r.skipped;
  return r.skipped === 0 ? `all ${r.kept.toLocaleString('en-US')} ${r.unit} loaded` : `${r.kept.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} ${r.unit} loaded`;
}

/** What was done to a file before or after reading it, in words: shown beside it in the page and the CLI. */
export function fileNotes(r: FileTally): string[] {
  const notes: string[] = [];
  const same = r.sameRequests;
  if (same) notes.push(same.counted ? `counted; ${same.other} holds ${same.reason}` : `not counted: ${same.other} holds ${same.reason}`);
  if (r.linePrefix) notes.push(`line prefix removed before reading (${r.linePrefix.lines.toLocaleString('en-US')} lines): ${r.linePrefix.label}`);
  return notes;
}

/** Problems grouped by file, in first-seen order. */
export function problemsByFile<T extends { file: string }>(problems: readonly T[]): [string, T[]][] {
  const out = new Map<string, T[]>();
  for (const p of problems) out.set(p.file, [...(out.get(p.file) ?? []), p]);
  return [...out];
}
