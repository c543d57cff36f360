import type { ParsedFile } from './types.ts';

/** What a file gave: how much was kept of what it held, so partial data is never mistaken for whole. */
export interface FileReport {
  path: string;
  format: ParsedFile['format'];
  /** Records kept: intervals (HdrHistogram logs), samples (raw CSVs), rows (.hgrm), lines (text). */
  kept: number;
  unit: 'intervals' | 'samples' | 'rows' | 'lines';
  /** Lines that could not be used. */
  skipped: number;
  /** Problems reported for the file (skipped lines and file-level notes). */
  problems: number;
}

export function fileReport(f: ParsedFile): FileReport {
  let kept = 0;
  let unit: FileReport['unit'] = 'lines';
  switch (f.format) {
    case 'hdr-log':
      unit = 'intervals';
      for (const s of f.series) if (s.kind === 'histogram') kept += s.intervals.length;
      break;
    case 'ycsb-raw':
    case 'generic-csv':
      unit = 'samples';
      for (const s of f.series) if (s.kind === 'raw') kept += s.samples;
      break;
    case 'hgrm':
      unit = 'rows';
      for (const s of f.series) if (s.kind === 'distribution') kept += s.rows.length;
      break;
    case 'ycsb-text':
      kept = f.lines - f.skippedLines;
      break;
  }
  return { path: f.path, format: f.format, kept, unit, skipped: f.skippedLines, problems: f.errors.length };
}

/** "25 of 27 intervals loaded" — or "all 27 intervals loaded". */
export function describeKept(r: FileReport): string {
  const total = r.kept + r.skipped;
  return r.skipped === 0 ? `all ${r.kept.toLocaleString('en-US')} ${r.unit} loaded` : `${r.kept.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} ${r.unit} loaded`;
}

/** Problems grouped by file, in first-seen order. */
export function problemsByFile<T extends { file: string }>(problems: readonly T[]): [string, T[]][] {
  const out = new Map<string, T[]>();
  for (const p of problems) out.set(p.file, [...(out.get(p.file) ?? []), p]);
  return [...out];
}
