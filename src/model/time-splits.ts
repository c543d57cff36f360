import { baseName, withoutCompression } from './naming.ts';
import type { ParsedFile } from './types.ts';

/**
 * Files of one run that did not run at the same time. A folder is read as one run, its files as
 * the clients of that run; a folder holding one file per load level, or results of different days,
 * would then pool requests that never ran together (and show a throughput averaged over the gaps).
 * The page offers to split such a run by time (./grouping.ts overrides); it never does so itself,
 * as every number of the run would change.
 */

/** When a file's requests ran: epoch ms, first to last. */
export interface TimeSpan {
  startMs: number;
  endMs: number;
}

/** The span of a file's series with absolute times (raw samples, absolute interval logs and reports); null when it has none. */
export function absoluteSpan(file: ParsedFile): TimeSpan | null {
  let startMs = Infinity;
  let endMs = -Infinity;
  const take = (from: number, to: number): void => {
    startMs = Math.min(startMs, from);
    endMs = Math.max(endMs, to);
  };
  for (const s of file.series) {
    if (s.kind === 'raw') {
      if (s.firstMs !== null && s.lastMs !== null) take(s.firstMs, s.lastMs);
    } else if ((s.kind === 'histogram' && s.timeBase === 'absolute') || (s.kind === 'intervals' && s.timeBase === 'absolute')) {
      const pieces = s.kind === 'histogram' ? s.intervals : s.rows;
      for (const p of pieces) take(p.startUs / 1000, (p.startUs + p.lengthUs) / 1000);
    }
  }
  return startMs <= endMs ? { startMs, endMs } : null;
}

/** A run whose files ran at separate times, and the runs it splits into (each a key and its files, in time order). */
export interface TimeSplit {
  runKey: string;
  parts: { key: string; paths: string[]; span: TimeSpan }[];
}

/**
 * The runs among `runs` whose timed files fall into separate times: a file that starts at or after
 * the end of every earlier one (by start) begins a new part. Files without absolute times go with
 * the first part. A part's key is the run's key and its first file's name (`results/rate-100`), so
 * that runs of load levels read as such.
 */
export function timeSplits(runs: readonly { key: string; paths: readonly string[] }[], spans: ReadonlyMap<string, TimeSpan>): TimeSplit[] {
  const out: TimeSplit[] = [];
  // A part never takes the key of a run there is already.
  const used = new Set(runs.map((r) => r.key));
  for (const run of runs) {
    const timed = run.paths.filter((p) => spans.has(p)).sort((a, b) => (spans.get(a) as TimeSpan).startMs - (spans.get(b) as TimeSpan).startMs);
    const parts: { paths: string[]; span: TimeSpan }[] = [];
    for (const path of timed) {
      const span = spans.get(path) as TimeSpan;
      const last = parts[parts.length - 1];
      if (last && span.startMs < last.span.endMs) {
        last.paths.push(path);
        last.span = { startMs: last.span.startMs, endMs: Math.max(last.span.endMs, span.endMs) };
      } else parts.push({ paths: [path], span });
    }
    if (parts.length < 2) continue;
    (parts[0] as { paths: string[] }).paths.push(...run.paths.filter((p) => !spans.has(p)));
    out.push({
      runKey: run.key,
      parts: parts.map((part) => {
        const name = withoutCompression(baseName(part.paths[0] as string)).replace(/\.[^.]+$/, '') || 'run';
        const named = run.key === '' ? name : `${run.key}/${name}`;
        let key = named;
        for (let k = 2; used.has(key); k++) key = `${named} (${k})`;
        used.add(key);
        return { key, ...part };
      }),
    });
  }
  return out;
}

/** The overrides (file path → run key, as ./grouping.ts takes them) that make the splits' parts runs. */
export function splitOverrides(splits: readonly TimeSplit[]): Record<string, string> {
  return Object.fromEntries(splits.flatMap((s) => s.parts.flatMap((part) => part.paths.map((p) => [p, part.key]))));
}
