import { minFromDistribution, percentileFromDistribution, summable, sumDistributions } from '../model/distribution.ts';
import { baseOp, opKind } from '../model/naming.ts';
import { runFailures } from '../model/failures.ts';
import { setOwn } from '../model/own.ts';
import { toMicros } from '../model/numbers.ts';
import type { DistributionSeries, LatencyUnit, OpKind } from '../model/types.ts';
import { figuresOnlyMoments } from '../state/snapshot.ts';
import { groupSummaries, runExtents, type GroupSummary, type Selection } from './group-merge.ts';
import type { RunInfo, SeriesInfo, Store } from './store.ts';
import { timelineSeries } from './timeline-series.ts';
import type { SeriesSource } from '../model/figures.ts';
import type { AllRequests, ClientFigures, Figures, OpSummary, RunSummary } from '../model/figures.ts';
import { PERCENTILE_KEYS, PERCENTILES, type PercentileKey } from '../model/percentiles.ts';

/**
 * Per run and operation: the merged figures across clients, computed the only correct way
 * (summed histogram buckets, or nearest rank over all raw samples), beside the naive figures
 * people usually publish (max / mean of client percentiles), and honest bounds where only
 * per-client summaries exist.
 */

/** A tool's whole-run summary before its periodic report: its percentiles are of the whole run. */
const SOURCE_PREFERENCE: readonly SeriesSource[] = ['raw', 'histogram', 'distribution', 'summary', 'intervals'];

function emptyFigures(count: number): Figures {
  return { count, mean: null, stddev: null, min: null, max: null, p50: null, p90: null, p95: null, p99: null, 'p99.9': null, 'p99.99': null };
}

/** Figures of a merged group whose series record in `unit`, in µs. */
function figuresFromStats(stats: GroupSummary | undefined, unit: LatencyUnit): Figures {
  const f = emptyFigures(stats?.count ?? 0);
  if (!stats || stats.count === 0) return f;
  const us = (v: number | null) => (v === null ? null : toMicros(v, unit));
  f.mean = us(stats.mean);
  f.stddev = us(stats.stddev);
  f.min = us(stats.min);
  f.max = us(stats.max);
  PERCENTILE_KEYS.forEach((k, i) => (f[k] = us(stats.values[i] ?? null)));
  return f;
}

function figuresFromDistribution(d: DistributionSeries | undefined): { figures: Figures; exact: boolean } {
  if (!d) return { figures: emptyFigures(0), exact: false };
  const f = emptyFigures(d.totalCount);
  f.mean = d.mean;
  f.stddev = d.stddev;
  f.min = minFromDistribution(d);
  f.max = d.max;
  let exact = true;
  const bounds: NonNullable<Figures['bounds']> = {};
  PERCENTILES.forEach((p, i) => {
    const key = PERCENTILE_KEYS[i] as PercentileKey;
    const v = percentileFromDistribution(d, p);
    if (!v) return;
    if (v.exact) f[key] = v.value;
    else {
      exact = false;
      bounds[key] = { min: v.low, max: v.high };
    }
  });
  if (!exact) f.bounds = bounds;
  return { figures: f, exact };
}

/**
 * Figures read as the producer wrote them (a summary, a periodic report, a percentile table), in
 * µs: every figure leaves the engine in µs whatever unit its series records in.
 */
function inMicros(f: Figures, unit: LatencyUnit): Figures {
  if (unit === 'us') return f;
  const us = (v: number | null) => (v === null ? null : toMicros(v, unit));
  const out: Figures = { ...f, mean: us(f.mean), stddev: us(f.stddev), min: us(f.min), max: us(f.max) };
  for (const k of PERCENTILE_KEYS) out[k] = us(f[k]);
  if (f.bounds) out.bounds = Object.fromEntries(Object.entries(f.bounds).map(([k, b]) => [k, { min: toMicros(b.min, unit), max: toMicros(b.max, unit) }]));
  return out;
}

/** A YCSB summary block: only what the client printed; its percentiles follow YCSB's own rules. */
function figuresFromSummary(s: SeriesInfo): Figures {
  const sum = s.summary;
  if (!sum) return emptyFigures(0);
  const f = emptyFigures(sum.count);
  f.mean = sum.mean;
  f.stddev = sum.stddev ?? null;
  f.min = sum.min;
  f.max = sum.max;
  for (const k of PERCENTILE_KEYS) f[k] = sum.percentiles[k] ?? null;
  return f;
}

/**
 * A producer's periodic report: count, min and max are exact; the mean is exact when every
 * non-empty interval has one (a count-weighted mean); a percentile over all intervals lies between
 * the smallest and the largest of the intervals' own values for it, so that is what is given.
 */
function figuresFromIntervals(s: SeriesInfo): Figures {
  const rows = (s.periodic?.rows ?? []).filter((r) => r.count > 0);
  const f = emptyFigures(rows.reduce((a, r) => a + r.count, 0));
  if (rows.length === 0) return f;
  if (rows.every((r) => r.mean !== null)) f.mean = rows.reduce((a, r) => a + (r.mean as number) * r.count, 0) / f.count;
  if (rows.every((r) => r.min !== null)) f.min = Math.min(...rows.map((r) => r.min as number));
  if (rows.every((r) => r.max !== null)) f.max = Math.max(...rows.map((r) => r.max as number));
  const bounds: NonNullable<Figures['bounds']> = {};
  for (const k of PERCENTILE_KEYS) {
    const values = rows.map((r) => r.percentiles[k]);
    if (values.every((v): v is number => v !== undefined)) bounds[k] = { min: Math.min(...values), max: Math.max(...values) };
  }
  f.bounds = bounds;
  return f;
}

/** Merge what cannot be merged exactly: sums and weighted means are exact; percentiles only bounded. */
function boundedMerge(clients: readonly Figures[]): Figures {
  const count = clients.reduce((a, c) => a + c.count, 0);
  const f = emptyFigures(count);
  const withMean = clients.filter((c) => c.mean !== null && c.count > 0);
  if (withMean.length === clients.length && count > 0) f.mean = withMean.reduce((a, c) => a + (c.mean as number) * c.count, 0) / count;
  else if (count === 0 && clients.length > 0 && clients.every((c) => c.mean !== null)) {
    // No count to weigh by (redis-benchmark's --csv prints none): the mean lies between the clients' means.
    const means = clients.map((c) => c.mean as number);
    const [lo, hi] = [Math.min(...means), Math.max(...means)];
    if (lo === hi) f.mean = lo;
    else (f.bounds ??= {}).mean = { min: lo, max: hi };
  }
  const mins = clients.map((c) => c.min).filter((v): v is number => v !== null);
  const maxs = clients.map((c) => c.max).filter((v): v is number => v !== null);
  if (mins.length === clients.length && mins.length > 0) f.min = Math.min(...mins);
  if (maxs.length === clients.length && maxs.length > 0) f.max = Math.max(...maxs);
  const bounds: NonNullable<Figures['bounds']> = f.bounds ?? {};
  for (const k of PERCENTILE_KEYS) {
    const lows = clients.map((c) => c[k] ?? c.bounds?.[k]?.min ?? null);
    const highs = clients.map((c) => c[k] ?? c.bounds?.[k]?.max ?? null);
    if (lows.every((v) => v !== null) && highs.every((v) => v !== null) && lows.length > 0) {
      bounds[k] = { min: Math.min(...(lows as number[])), max: Math.max(...(highs as number[])) };
    }
  }
  f.bounds = bounds;
  return f;
}

function naive(perClient: readonly ClientFigures[]): OpSummary['naive'] {
  const p95 = perClient.map((c) => c.p95).filter((v): v is number => v !== null);
  const p99 = perClient.map((c) => c.p99).filter((v): v is number => v !== null);
  return {
    maxClientP95: p95.length ? Math.max(...p95) : null,
    maxClientP99: p99.length ? Math.max(...p99) : null,
    meanClientP99: p99.length ? p99.reduce((a, b) => a + b, 0) / p99.length : null,
  };
}

const KIND_ORDER: Record<OpKind, number> = { op: 0, failed: 1, intended: 2, derived: 3, cleanup: 4 };

/** Operations first, then their failures, the intended (coordinated-omission-corrected) ones, derived views, cleanup. */
function opOrder(op: string): number {
  return KIND_ORDER[opKind(op)];
}

function precisionKey(s: SeriesInfo): string {
  return s.precision ? `${s.precision.significantDigits}/${s.precision.lowestDiscernibleValue}` : 'exact';
}

/** How many figures a producer's summary printed: of two summaries of one client's operation, the fuller one is kept. */
function printedFigures(s: SeriesInfo): number {
  const sum = s.summary;
  if (!sum) return 0;
  return [sum.mean, sum.min, sum.max, sum.stddev ?? null].filter((v) => v !== null).length + Object.keys(sum.percentiles).length;
}

/**
 * For each client and operation, the best series: raw samples, then histograms, then the rest;
 * of two summaries (a tool's stats file and the last cumulative row of its history, say), the one
 * that printed more figures, whatever order the files came in.
 */
function chooseSeries(series: readonly SeriesInfo[]): Map<string, SeriesInfo[]> {
  const best = new Map<string, SeriesInfo>();
  for (const s of series) {
    const key = `${s.op}\u0000${s.client}`;
    const current = best.get(key);
    const rank = SOURCE_PREFERENCE.indexOf(s.source);
    const currentRank = current ? SOURCE_PREFERENCE.indexOf(current.source) : Infinity;
    if (rank < currentRank || (current && rank === currentRank && s.source === 'summary' && printedFigures(s) > printedFigures(current))) best.set(key, s);
  }
  const byOp = new Map<string, SeriesInfo[]>();
  for (const s of best.values()) {
    const list = byOp.get(s.op) ?? [];
    list.push(s);
    byOp.set(s.op, list);
  }
  for (const list of byOp.values()) list.sort((a, b) => a.client.localeCompare(b.client, 'en', { numeric: true }));
  return byOp;
}

/** Why a set of series cannot be summed bucket by bucket, or null when it can. */
function mergeRefusal(list: readonly SeriesInfo[]): string | null {
  const sources = new Set(list.map((s) => s.source));
  if (sources.size > 1) return `clients mix ${[...sources].join(' and ')} data; only bounds can be given`;
  const source = list[0]?.source;
  if (source === 'summary') return 'only per-client summaries exist: percentiles cannot be merged, only bounded';
  if (source === 'intervals') return 'only per-interval summaries exist: percentiles over several intervals cannot be merged, only bounded';
  if (source === 'distribution') return list.length > 1 && !summable(list.map((s) => s.distribution as DistributionSeries)) ? 'percentile distributions cannot be merged, only bounded' : null;
  const units = new Set(list.map((s) => s.unit));
  if (units.size > 1) return `clients record in different units (${[...units].join(', ')})`;
  const precisions = new Set(list.map(precisionKey));
  if (precisions.size > 1) return `histograms have different precision (${[...precisions].join(' vs ')}); buckets cannot be summed`;
  return null;
}

/** Seconds after each run's own start, half-open [fromS, toS); null = whole runs. */
export type AnalysisWindow = { fromS: number | null; toS: number | null } | null;

export interface SummaryOptions {
  /** Seconds after each run's own start, half-open [fromS, toS); null = unbounded. */
  window?: AnalysisWindow;
}

export interface MergeGroup {
  run: RunInfo;
  op: string;
  /** The series merged for this run and operation: one per client, the best source of each. */
  series: SeriesInfo[];
  /** Why they cannot be summed bucket by bucket; null when they can. */
  refusal: string | null;
}

/** What merges into each run's figures per operation (timeline-only series are not latency data). */
export function mergeGroups(store: Store): MergeGroup[] {
  const out: MergeGroup[] = [];
  for (const run of store.runs) {
    const byOp = chooseSeries(store.series.filter((s) => s.runId === run.id && s.role !== 'timeline'));
    for (const [op, series] of byOp) out.push({ run, op, series, refusal: mergeRefusal(series) });
  }
  return out;
}

export const dbBacked = (s: SeriesInfo): boolean => s.source === 'histogram' || s.source === 'raw';

/**
 * An operation opened from a figures-only link sits in DuckDB as a stand-in histogram that
 * reproduces its count, min, max and percentiles but not its mean and stddev: those it carries.
 * A comparison has no time in its latency data, so a window never applies to it (see `at`).
 */
function withCarriedMoments(f: Figures, m: MergeGroup): Figures {
  const moments = figuresOnlyMoments(m.run.snapshot, m.op);
  return moments ? { ...f, ...moments } : f;
}

/**
 * The run's failures by cause, of the whole run whatever the window: its files' tallies, and what its
 * counted `-FAILED` series hold beyond them (src/model/failures.ts). They are a report's when a
 * tally is (vegeta's `status_codes`, Locust's failures file), or when what no tally explains comes
 * from a series that is not per-request data (a summary, a periodic report).
 */
function failuresOf(run: RunInfo, groups: readonly MergeGroup[]): Pick<RunSummary, 'failures' | 'failuresFrom'> {
  const counts = run.failures.flatMap((f) => f.counts);
  const tallied = new Map<string, number>();
  for (const c of counts) tallied.set(c.op, (tallied.get(c.op) ?? 0) + c.count);
  const failed = new Map<string, number>();
  let reported = run.failures.some((f) => f.from === 'report');
  for (const g of groups) {
    if (g.run !== run || opKind(g.op) !== 'failed') continue;
    const op = baseOp(g.op);
    const count = g.series.reduce((a, s) => a + s.count, 0);
    failed.set(op, count);
    if (count > (tallied.get(op) ?? 0) && !g.series.every(dbBacked)) reported = true;
  }
  return { failures: runFailures(counts, failed), failuresFrom: reported ? 'report' : 'requests' };
}

/** Each run's extent: every op/failed series with time, whatever was chosen for latency. */
function extentsByRun(store: Store) {
  return new Map(runExtents(store, timelineSeries(store.series)).map((e) => [e.g, e]));
}

/**
 * A window (seconds after each run's start) as per-series bounds for a `Selection`: whole seconds
 * from the run's first second, the seconds its charts show. A run opened from a comparison has no
 * per-second latency and keeps its whole-run figures.
 */
export function windowBounds(store: Store, series: readonly SeriesInfo[], w: SummaryOptions['window']): Pick<Selection, 'fromS' | 'toS'> {
  if (!w) return {};
  const extents = extentsByRun(store);
  const at = (s: SeriesInfo, offsetS: number | null) => {
    const e = extents.get(s.runId);
    if (store.runs[s.runId]?.snapshot || offsetS === null || !e) return null;
    return Math.floor(e.startUs / 1e6) + offsetS;
  };
  return { fromS: series.map((s) => at(s, w.fromS)), toS: series.map((s) => at(s, w.toS)) };
}

interface AllRequestGroup {
  g: number;
  /** The operations merged (kind 'op'), in the summary's order. */
  ops: string[];
  series: SeriesInfo[];
  /** Why the operations' data cannot be summed into one histogram; null when it can. */
  refusal: string | null;
}

/**
 * Per run, the group that merges every operation's chosen series (numbered from `firstG`). A
 * figures-only snapshot carries stand-in histograms that reproduce each operation's own figures,
 * not its data: their sum is no run's data, so such a run is bounded.
 */
function allRequestGroups(store: Store, mergeable: readonly (MergeGroup & { g: number })[], firstG: number): Map<number, AllRequestGroup> {
  const out = new Map<number, AllRequestGroup>();
  for (const run of store.runs) {
    const ofRun = mergeable.filter((m) => m.run.id === run.id && opKind(m.op) === 'op');
    if (ofRun.length === 0) continue;
    const series = ofRun.flatMap((m) => m.series);
    const refusal =
      ofRun.find((m) => m.refusal !== null)?.refusal ??
      (series.every(dbBacked) ? mergeRefusal(series) : 'some operations have only summaries: percentiles over all of them can only be bounded') ??
      (ofRun.some((m) => figuresOnlyMoments(run.snapshot, m.op)) ? 'opened from figures only: percentiles over all operations can only be bounded' : null);
    out.set(run.id, { g: firstG + out.size, ops: ofRun.map((m) => m.op), series, refusal });
  }
  return out;
}

/** A run's all-requests row from its operations' figures and, where they merge, the group's own. */
function allRequestsOf(ops: Readonly<Record<string, OpSummary>>, group: AllRequestGroup | undefined, summaries: ReadonlyMap<number, GroupSummary>): AllRequests | null {
  const failed = Object.entries(ops).filter(([op]) => opKind(op) === 'failed').reduce((a, [, o]) => a + o.count, 0);
  if (!group) return failed > 0 ? { ...emptyFigures(0), exact: true, ops: 0, failed } : null;
  const figures = group.ops.map((op) => ops[op]).filter((o): o is OpSummary => o !== undefined);
  if (group.refusal === null) {
    const merged = figuresFromStats(summaries.get(group.g), group.series[0]?.unit ?? 'us');
    return { ...merged, exact: true, ops: group.ops.length, failed };
  }
  // One operation is its own all-requests row, exact or bounded as it is.
  const only = figures.length === 1 ? figures[0] : undefined;
  if (only) {
    const { source: _source, exact, note, naive: _naive, perClient: _perClient, ...f } = only;
    return { ...f, exact, ...(note ? { note } : {}), ops: 1, failed };
  }
  return { ...boundedMerge(figures), exact: false, note: group.refusal, ops: group.ops.length, failed };
}

export function summarizeRuns(store: Store, options: SummaryOptions = {}): RunSummary[] {
  // Groups: one per (run, op) for the merge and one per (run, op, client) for the breakdown.
  const mergedGroup = mergeGroups(store);
  const clientGroup = mergedGroup.flatMap((m) => m.series);
  const extents = extentsByRun(store);
  const w = options.window ?? null;

  // One query for everything: each client series in a group of its own (ids 0…), and the series
  // of each mergeable (run, op) together in a group numbered after them.
  const clientSel = clientGroup.filter(dbBacked);
  const mergeable = mergedGroup.map((m, i) => ({ ...m, g: store.series.length + i }));
  const mergedSel = mergeable.filter((m) => m.refusal === null && m.series.every(dbBacked));
  // And per run, every operation's series together: its all-requests row (see AllRequests).
  const allOfRun = allRequestGroups(store, mergeable, store.series.length + mergeable.length);
  const allSel = [...allOfRun.values()].filter((a) => a.refusal === null);
  const members = [
    ...clientSel.map((s) => ({ s, g: s.id })),
    ...mergedSel.flatMap((m) => m.series.map((s) => ({ s, g: m.g }))),
    ...allSel.flatMap((a) => a.series.map((s) => ({ s, g: a.g }))),
  ];
  const summaries = new Map(
    groupSummaries(
      store,
      {
        seriesIds: members.map((x) => x.s.id),
        groups: members.map((x) => x.g),
        ...windowBounds(
          store,
          members.map((x) => x.s),
          w,
        ),
      },
      PERCENTILES,
    ).map((x) => [x.g, x]),
  );

  const runs: RunSummary[] = store.runs.map((run) => {
    const ops: Record<string, OpSummary> = {};
    const ofRun = mergeable.filter((x) => x.run.id === run.id).sort((a, b) => opOrder(a.op) - opOrder(b.op) || a.op.localeCompare(b.op));
    for (const m of ofRun) {
      const perClient: ClientFigures[] = m.series.map((s) => {
        if (dbBacked(s)) {
          return { client: s.client, file: s.file, source: s.source, exact: true, ...withCarriedMoments(figuresFromStats(summaries.get(s.id), s.unit), m) };
        }
        if (s.source === 'distribution') {
          const { figures, exact } = figuresFromDistribution(s.distribution);
          return { client: s.client, file: s.file, source: s.source, exact, ...inMicros(figures, s.unit) };
        }
        if (s.source === 'intervals') return { client: s.client, file: s.file, source: s.source, exact: false, ...inMicros(figuresFromIntervals(s), s.unit) };
        return { client: s.client, file: s.file, source: s.source, exact: false, ...inMicros(figuresFromSummary(s), s.unit) };
      });
      const source = new Set(m.series.map((s) => s.source)).size === 1 ? (m.series[0]?.source ?? 'summary') : 'mixed';
      let merged: Figures;
      let exact: boolean;
      if (m.refusal === null && m.series.every(dbBacked)) {
        merged = withCarriedMoments(figuresFromStats(summaries.get(m.g), m.series[0]?.unit ?? 'us'), m);
        exact = true;
      } else if (m.refusal === null && source === 'distribution' && perClient.length > 1) {
        // Distributions that list all their buckets, in one layout: summed bucket by bucket.
        const summed = figuresFromDistribution(sumDistributions(m.series.map((s) => s.distribution as DistributionSeries)));
        merged = inMicros(summed.figures, m.series[0]?.unit ?? 'us');
        exact = summed.exact;
      } else if (m.refusal === null && perClient.length === 1 && perClient[0]) {
        const { client, file, source, exact: single, ...figures } = perClient[0];
        merged = figures;
        exact = single;
      } else {
        merged = boundedMerge(perClient);
        exact = false;
      }
      setOwn(ops, m.op, {
        ...merged,
        source,
        exact,
        ...(m.refusal ? { note: m.refusal } : {}),
        // A comparison loaded from a link has no clients' data, only the naive figures it carried.
        naive: m.series[0]?.naive ?? naive(perClient),
        perClient,
      });
    }
    const allRequests = allRequestsOf(ops, allOfRun.get(run.id), summaries);
    if (run.snapshot) {
      const f = run.snapshot;
      return {
        id: run.id,
        label: run.label,
        dir: run.key,
        paths: run.paths,
        clients: f.clients,
        target: f.target,
        threadsPerClient: f.threadsPerClient,
        db: f.db,
        workload: f.workload,
        properties: f.properties,
        startEpochMs: f.startEpochMs,
        endEpochMs: f.endEpochMs,
        durationS: f.durationS,
        throughput: f.throughput,
        totalOps: f.totalOps,
        ops,
        allRequests,
        failures: [],
        failuresFrom: 'requests',
      };
    }

    const cmd = run.clients.find((c) => c.commandLine)?.commandLine ?? null;
    const extent = extents.get(run.id);
    const throughputOps = Object.entries(ops)
      .filter(([, o]) => o.perClient.length > 0)
      .filter(([op]) => {
        const kind = store.series.find((s) => s.runId === run.id && s.op === op)?.kind;
        return kind === 'op' || kind === 'failed';
      })
      .reduce((a, [, o]) => a + o.count, 0);
    let startEpochMs: number | null = null;
    let endEpochMs: number | null = null;
    let durationS: number | null = null;
    let throughput: number | null = null;
    if (extent && extent.endUs > extent.startUs) {
      // A window narrows the run to the part of it that lies inside the window.
      const firstUs = Math.floor(extent.startUs / 1e6) * 1e6;
      const from = w?.fromS != null ? Math.max(extent.startUs, firstUs + Math.ceil(w.fromS) * 1e6) : extent.startUs;
      const to = w?.toS != null ? Math.min(extent.endUs, firstUs + Math.ceil(w.toS) * 1e6) : extent.endUs;
      startEpochMs = from / 1000;
      endEpochMs = to / 1000;
      durationS = Math.max(0, (to - from) / 1e6);
      throughput = durationS > 0 ? throughputOps / durationS : null;
    } else {
      // Summaries only: YCSB's own per-client throughput adds up; run time is the longest client's.
      const overall = run.clients.map((c) => c.overall).filter((o) => o !== null);
      if (overall.length > 0 && overall.every((o) => o.throughputOpsPerS !== null)) {
        throughput = overall.reduce((a, o) => a + (o.throughputOpsPerS as number), 0);
        const times = overall.map((o) => o.runTimeMs).filter((t): t is number => t !== null);
        durationS = times.length ? Math.max(...times) / 1000 : null;
      }
    }
    const workload = cmd?.workloadFiles.length ? cmd.workloadFiles.map((w) => w.split('/').pop()).join('+') : null;
    const timed = store.series.filter((s) => s.runId === run.id && s.timeBase !== null);
    const relativeTime = timed.length > 0 && timed.every((s) => s.timeBase === 'relative');
    return {
      id: run.id,
      label: run.label,
      dir: run.key,
      paths: run.paths,
      clients: run.clients.map((c) => ({ client: c.name, files: [...c.files].sort() })),
      target: cmd?.target ?? null,
      threadsPerClient: cmd?.threads ?? null,
      db: cmd?.db ?? null,
      workload,
      properties: cmd?.properties ?? {},
      startEpochMs,
      endEpochMs,
      ...(relativeTime ? { relativeTime } : {}),
      durationS,
      throughput,
      totalOps: throughputOps,
      ops,
      allRequests,
      ...failuresOf(run, mergedGroup),
    };
  });
  return runs;
}
