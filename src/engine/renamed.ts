import { mergeCounted } from '../formats/sample-counter.ts';
import { FailureTally } from '../model/failures.ts';
import type { ClientData, RunData, SourcedSeries } from '../model/grouping.ts';
import type { LatencySeries, PrintedSeries } from '../model/types.ts';

/**
 * Runs with their operations renamed by the name rules (src/model/name-rules.ts), and the series
 * of one client that now share a name merged into one, exactly: raw samples counted together (as
 * the parts of a file are, src/engine/file-parts.ts), interval histograms of one precision side by
 * side, periodic reports' intervals side by side. Summaries add their counts, and their min, max
 * and mean where each has one; their percentiles cannot be merged and are dropped. Series that
 * cannot be merged with each other (different kinds, units or precision, or percentile tables)
 * keep their own names. Failures are renamed alike and summed per cause.
 */
export function renamedRuns(runs: readonly RunData[], rename: ((op: string) => string) | null): RunData[] {
  if (!rename) return [...runs];
  return runs.map((run) => ({
    ...run,
    clients: run.clients.map((c) => renamedClient(c, rename)),
    failures: run.failures.map((f) => {
      const tally = new FailureTally();
      tally.addAll(f.counts, rename);
      return { from: f.from, counts: tally.list() };
    }),
  }));
}

function renamedClient(client: ClientData, rename: (op: string) => string): ClientData {
  const byName = new Map<string, SourcedSeries[]>();
  for (const s of client.series) {
    const name = rename(s.data.op);
    const list = byName.get(name);
    if (list) list.push(s);
    else byName.set(name, [s]);
  }
  const series: SourcedSeries[] = [];
  for (const [name, list] of byName) {
    const merged = list.length === 1 ? list[0]!.data : mergeSeries(list.map((s) => s.data));
    if (merged) series.push({ ...list[0]!, file: [...new Set(list.map((s) => s.file))].join(', '), data: { ...merged, op: name } });
    else series.push(...list);
  }
  return { ...client, series };
}

/** The series as one, or null when they cannot be merged exactly. */
function mergeSeries(list: readonly LatencySeries[]): LatencySeries | null {
  const first = list[0]!;
  if (list.some((s) => s.kind !== first.kind || s.unit !== first.unit || s.scope !== first.scope)) return null;
  switch (first.kind) {
    case 'raw': {
      let merged = first;
      for (const s of list.slice(1)) if (s.kind === 'raw') merged = { ...merged, ...mergeCounted(merged, s) };
      return merged;
    }
    case 'histogram': {
      const all = list.filter((s) => s.kind === 'histogram');
      const p = first.precision;
      if (all.some((s) => s.timeBase !== first.timeBase || s.precision.significantDigits !== p.significantDigits || s.precision.lowestDiscernibleValue !== p.lowestDiscernibleValue)) return null;
      return { ...first, intervals: all.flatMap((s) => s.intervals).sort((a, b) => a.startUs - b.startUs) };
    }
    case 'intervals': {
      const all = list.filter((s) => s.kind === 'intervals');
      if (all.some((s) => s.timeBase !== first.timeBase)) return null;
      return { ...first, rows: all.flatMap((s) => s.rows).sort((a, b) => a.startUs - b.startUs) };
    }
    case 'printed':
      return mergeSummaries(list.filter((s) => s.kind === 'printed'));
    case 'distribution':
      return null;
  }
}

function mergeSummaries(list: readonly PrintedSeries[]): PrintedSeries {
  const count = list.reduce((a, s) => a + s.count, 0);
  const counted = list.filter((s) => s.count > 0);
  const all = <T>(pick: (s: PrintedSeries) => T | null | undefined): T[] | null => {
    const values = counted.map(pick);
    return values.every((v) => v !== null && v !== undefined) ? (values as T[]) : null;
  };
  const mins = all((s) => s.min);
  const maxs = all((s) => s.max);
  const means = all((s) => s.mean);
  const returns: Record<string, number> = {};
  for (const s of list) for (const [k, n] of Object.entries(s.returns)) returns[k] = (returns[k] ?? 0) + n;
  return {
    ...list[0]!,
    count,
    min: mins && mins.length > 0 ? Math.min(...mins) : null,
    max: maxs && maxs.length > 0 ? Math.max(...maxs) : null,
    mean: means && means.length > 0 && count > 0 ? counted.reduce((a, s, i) => a + (means[i] as number) * s.count, 0) / count : null,
    stddev: null,
    percentiles: {},
    returns,
  };
}
