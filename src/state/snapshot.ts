import { deflateSync, inflateSync } from 'fflate';
import { decodeHistogram, decodeHistogramBytes, encodeHistogramV2, encodeHistogramV2Compressed, type DecodedHistogram } from '../model/hdr-codec.ts';
import { setOwn } from '../model/own.ts';
import type { HdrPrecision } from '../model/types.ts';
import { decodeIntegers, encodeIntegers, LinkCodecError } from './link-codec.ts';
import { DISTRIBUTION_PERCENTILES, percentileRank, PERCENTILES } from '../model/percentiles.ts';
import type { OpSummary, RunSummary, ThroughputSeries } from '../model/figures.ts';
import type { CompareResult } from '../model/comparison.ts';

/**
 * A comparison as data: per run, its metadata, and per operation the merged histogram (every
 * client's buckets summed) plus the naive per-client figures, and the per-second throughput. It is
 * what a self-contained link carries and what a snapshot file holds; opening either recomputes
 * every figure with the same code, so the numbers are the original's.
 *
 * Two levels. *Histograms*: the merged histograms themselves; everything the merged data allows
 * is recomputed. *Figures only*, for links the histograms do not fit (real tail-heavy histograms
 * take ~0.7 byte per non-empty bucket, and a 12-run comparison has ~100,000 of them): per operation
 * exactly the figures the app shows — count, min, max, mean, stddev and the value at each of
 * SHOWN_PERCENTILES (the summary's and the distribution chart's) — and, on opening, a stand-in
 * histogram built from them that the same rank rule turns back into the same numbers:
 *
 *   for each distinct shown value v (in order), one bucket whose highest value is v, holding the
 *   cumulative count R(v) = the largest rank, under the op's own rule (HdrHistogram 2.2.2 or raw
 *   nearest rank, see percentileRank), of a shown percentile whose value is v; the first bucket
 *   starts at min; a last bucket at max holds the rest of count.
 *
 * Why it is exact: in the original, a shown percentile p of rank r has value v because v's bucket
 * is the first whose cumulative count reaches r. Ranks grow with p, and two percentiles with one
 * rank share a bucket, so every shown percentile below v has a rank below r; the stand-in buckets
 * before v's therefore end below r, and v's reaches it — the rule picks v again. Count, min and max
 * are the stand-in's total, lowest and highest value by construction. Mean and stddev are not
 * (they weigh every bucket), so they travel as numbers and the summary takes them from here
 * (figures-only.ts). A percentile outside the carried set would come out as the next carried
 * one's value, so a figures-only snapshot that lacks any percentile this app shows is refused.
 * Per-client figures, latency over time and time windows need the result files at either level.
 *
 * Snapshot file (JSON, `format: "benchlens-comparison"`, `version: 1`, or 2 when it holds
 * figures-only operations):
 *   percentiles?: [p, …]  (version 2: what every `figures.values` is taken at)
 *   runs[]: { key, label, clients[{client, files[]}], target, threadsPerClient, db, workload,
 *             properties, startEpochMs, endEpochMs, durationS, throughput, totalOps,
 *             throughputPerSecond: {startEpochS, bucketS?, ok[], failed[]} | null  (bucketS: seconds per
 *               entry, default 1; wider only for runs longer than 100,000 s),
 *             ops: { <OP>: { histogram: "HISTF…" (HdrHistogram V2 compressed, base64) |
 *                            exact: [[value, count], …] (raw samples, exact values) |
 *                            figures: {raw, count, min, max, mean, stddev, values[]} (version 2),
 *                            unit, naive: {maxClientP95, maxClientP99, meanClientP99} } } }
 *   comparison?: the A/B comparison shown when shared (src/model/comparison.ts), as computed —
 *                its intervals need per-second data a snapshot does not carry
 *   view?: the view's SLA rules, prices, run labels and comparison sides, as a link fragment
 * Values are in the op's unit (µs for YCSB).
 *
 * One file of over 500 lines: the format, its reader with every check, and its writer change
 * together, and a version that reads differently from how it was written breaks old links.
 */

/** Files and links written before the word was "snapshot" say this too: the format's name stays. */
export const SNAPSHOT_FORMAT = 'benchlens-comparison';
/** Version 2 adds figures-only operations and, in links, integer arrays as binary blobs. */
export const SNAPSHOT_VERSION = 2;
/** Self-contained links must stay below this many characters of fragment data. */
export const MAX_LINK_BYTES = 32 * 1024;

/** Every percentile the app shows for an operation: the summary's and the distribution chart's. */
export const SHOWN_PERCENTILES: readonly number[] = [...new Set([...PERCENTILES, ...DISTRIBUTION_PERCENTILES])].sort((a, b) => a - b);

export type SnapshotLevel = 'histograms' | 'figures';

/** An operation's figures as shown, for the figures-only level. */
export interface OpFigures {
  /** Raw samples rank by exact nearest rank, histograms by HdrHistogram's rule. */
  raw: boolean;
  count: number;
  min: number;
  max: number;
  mean: number;
  stddev: number;
  /** The percentiles `values` are taken at (one array shared by every op of a snapshot). */
  percentiles: readonly number[];
  values: number[];
}

export interface SnapshotOp {
  unit: string;
  /** Histogram runs: the merged HdrHistogram. */
  histogram?: DecodedHistogram;
  /** Raw-sample runs: exact (value, count) pairs in ascending value order. */
  exact?: [number, number][];
  /** The figures shown; the only latency data of an op opened from a figures-only link. */
  figures?: OpFigures;
  naive: OpSummary['naive'];
}

/** A run's own figures as summarised; its latency data travels in `ops`. */
export type SnapshotRun = Omit<RunSummary, 'id' | 'dir' | 'paths' | 'ops' | 'allRequests' | 'failures' | 'failuresFrom'> & {
  key: string;
  throughputPerSecond: ThroughputSeries | null;
  ops: Record<string, SnapshotOp>;
};

export interface Snapshot {
  runs: SnapshotRun[];
  /**
   * The A/B comparison shown when it was shared: its intervals need the runs' per-second data,
   * which a comparison does not carry, so it travels as computed.
   */
  comparison?: CompareResult;
  /**
   * What the page decided with, as a view-state fragment (src/state/view-state.ts: the SLA rules,
   * prices, sizing percentile, run labels and comparison sides): a snapshot file has no link
   * around it to carry them. Read with decodeState, which checks every field.
   */
  view?: string;
}

export class SnapshotError extends Error {}

/** Whether an operation of a comparison carries its data (a histogram or exact values), not only figures. */
export const hasFullData = (o: SnapshotOp): boolean => o.histogram !== undefined || o.exact !== undefined;

/** Mean and stddev of an operation opened from figures only, which its stand-in histogram does not reproduce. */
export function figuresOnlyMoments(run: SnapshotRun | undefined, op: string): { mean: number; stddev: number } | null {
  const o = run && Object.hasOwn(run.ops, op) ? run.ops[op] : undefined;
  return o?.figures && !hasFullData(o) ? { mean: o.figures.mean, stddev: o.figures.stddev } : null;
}

/** The level a snapshot can be opened at: figures only as soon as one operation has nothing else. */
export function snapshotLevel(s: Snapshot): SnapshotLevel {
  return s.runs.every((r) => Object.values(r.ops).every(hasFullData)) ? 'histograms' : 'figures';
}

/** The stand-in histogram of a figures-only operation (see the module comment); refuses figures no data could have. */
export function standInHistogram(f: OpFigures): { lo: number[]; width: number[]; count: number[] } {
  const lo: number[] = [];
  const hi: number[] = [];
  const cum: number[] = [];
  f.values.forEach((v, i) => {
    const r = percentileRank(f.percentiles[i] as number, f.count, f.raw);
    const last = hi.length - 1;
    if (last >= 0 && v === hi[last]) cum[last] = r;
    else {
      lo.push(last < 0 ? f.min : v);
      hi.push(v);
      cum.push(r);
    }
  });
  if (hi.length === 0 || f.max > (hi[hi.length - 1] as number)) {
    lo.push(hi.length === 0 ? f.min : f.max);
    hi.push(f.max);
    cum.push(f.count);
  } else cum[cum.length - 1] = f.count;
  const count = cum.map((c, i) => c - (i > 0 ? (cum[i - 1] as number) : 0));
  const ordered = lo.every((l, i) => l <= (hi[i] as number) && (i === 0 || l > (hi[i - 1] as number)));
  if (!ordered || f.max !== hi[hi.length - 1] || count.some((n) => !(n > 0))) throw new SnapshotError('its figures contradict each other');
  return { lo, width: lo.map((l, i) => (hi[i] as number) - l + 1), count };
}

// ---- JSON form (snapshot file, and link data with its bulk in binary blobs) ------------------------

type Ints = number[] | string;
type JsonFigures = Omit<OpFigures, 'percentiles' | 'values'> & { values: Ints };
type JsonOp = Omit<SnapshotOp, 'histogram' | 'figures'> & { histogram?: string; figures?: JsonFigures };
type JsonRun = Omit<SnapshotRun, 'ops' | 'throughputPerSecond'> & {
  throughputPerSecond: (Omit<ThroughputSeries, 'ok' | 'failed'> & { ok: Ints; failed: Ints }) | null;
  ops: Record<string, JsonOp>;
};
interface JsonDoc {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
  percentiles?: readonly number[];
  runs: JsonRun[];
  comparison?: CompareResult;
  view?: string;
}

interface Writer {
  histogram(h: DecodedHistogram): string;
  ints(values: readonly number[]): Ints;
}

/**
 * `prefer` picks what an operation that has both travels as; one that has only one kind travels
 * as that. A document holding figures is version 2; one without stays readable by version-1 readers.
 */
function toJsonDoc(s: Snapshot, prefer: SnapshotLevel, w: Writer, version?: number): JsonDoc {
  let percentiles: readonly number[] | undefined;
  const runs = s.runs.map((r): JsonRun => {
    const t = r.throughputPerSecond;
    const ops: Record<string, JsonOp> = {};
    for (const [op, o] of Object.entries(r.ops)) {
      const out: JsonOp = { unit: o.unit, naive: o.naive };
      if (o.figures && (prefer === 'figures' || !hasFullData(o))) {
        const { percentiles: at, values, ...rest } = o.figures;
        if (percentiles && (at.length !== percentiles.length || at.some((p, i) => p !== percentiles?.[i]))) {
          throw new SnapshotError('operations carry figures at different percentiles');
        }
        percentiles = at;
        out.figures = { ...rest, values: w.ints(values) };
      } else if (o.histogram) out.histogram = w.histogram(o.histogram);
      else if (o.exact) out.exact = o.exact;
      setOwn(ops, op, out);
    }
    return { ...r, throughputPerSecond: t ? { ...t, ok: w.ints(t.ok), failed: w.ints(t.failed) } : null, ops };
  });
  return { format: SNAPSHOT_FORMAT, version: version ?? (percentiles ? 2 : 1), ...(percentiles ? { percentiles } : {}), runs, ...(s.comparison ? { comparison: s.comparison } : {}), ...(s.view ? { view: s.view } : {}) };
}

export function snapshotToFile(s: Snapshot): string {
  return JSON.stringify(toJsonDoc(s, 'histograms', { histogram: encodeHistogramV2Compressed, ints: (v) => [...v] }), null, 1);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const numOrNull = (v: unknown): v is number | null => v === null || (typeof v === 'number' && Number.isFinite(v));
const isNumArray = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x) && x >= 0);
const isIntArray = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isSafeInteger(x));

/** Version upgraders: a v(n) document becomes v(n+1). Version 2 only added to version 1. */
const UPGRADERS: Record<number, (doc: Record<string, unknown>) => Record<string, unknown>> = { 1: (doc) => doc };

interface Reader {
  histogram(v: unknown, where: string): DecodedHistogram;
  ints(v: unknown, where: string): unknown;
}

function readPercentiles(v: unknown): readonly number[] | null {
  if (v === undefined) return null;
  if (!Array.isArray(v) || !v.every((p, i) => typeof p === 'number' && p > 0 && p <= 100 && (i === 0 || p > (v[i - 1] as number)))) {
    throw new SnapshotError('the carried percentiles are malformed');
  }
  const carried = new Set(v);
  const missing = SHOWN_PERCENTILES.filter((p) => !carried.has(p));
  // Any other percentile would come out as a neighbouring one's value: refuse rather than mislead.
  if (missing.length > 0) throw new SnapshotError(`it carries no figures for p${missing.slice(0, 3).join(', p')}; open its snapshot file instead`);
  return v as number[];
}

function readFigures(f: unknown, percentiles: readonly number[] | null, values: unknown, where: string): OpFigures {
  if (!percentiles) throw new SnapshotError(`${where}: figures without their percentiles`);
  if (
    !isObject(f) ||
    typeof f.raw !== 'boolean' ||
    !Number.isSafeInteger(f.count) ||
    (f.count as number) < 1 ||
    !Number.isSafeInteger(f.min) ||
    !Number.isSafeInteger(f.max) ||
    typeof f.mean !== 'number' ||
    !Number.isFinite(f.mean) ||
    typeof f.stddev !== 'number' ||
    !Number.isFinite(f.stddev) ||
    !isIntArray(values) ||
    values.length !== percentiles.length ||
    values.some((v, i) => i > 0 && v < (values[i - 1] as number))
  ) {
    throw new SnapshotError(`${where}: figures are malformed`);
  }
  const figures: OpFigures = { raw: f.raw, count: f.count as number, min: f.min as number, max: f.max as number, mean: f.mean, stddev: f.stddev, percentiles, values };
  try {
    standInHistogram(figures);
  } catch (e) {
    throw new SnapshotError(`${where}: ${(e as Error).message}`);
  }
  return figures;
}

function fromJsonDoc(raw: unknown, read: Reader): Snapshot {
  if (!isObject(raw) || raw.format !== SNAPSHOT_FORMAT) throw new SnapshotError('not a benchlens comparison');
  let doc = raw;
  const version = doc.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1 || version > SNAPSHOT_VERSION) {
    throw new SnapshotError(`comparison version ${String(version)} is not supported (this benchlens reads up to ${SNAPSHOT_VERSION})`);
  }
  for (let v = version; v < SNAPSHOT_VERSION; v++) doc = UPGRADERS[v]?.(doc) ?? doc;
  if (!Array.isArray(doc.runs)) throw new SnapshotError('comparison has no runs');
  const percentiles = readPercentiles(doc.percentiles);
  return {
    runs: doc.runs.map((r: unknown, i: number): SnapshotRun => {
      const where = `run ${i + 1}`;
      if (!isObject(r) || typeof r.key !== 'string' || typeof r.label !== 'string' || !isObject(r.ops)) throw new SnapshotError(`${where} is malformed`);
      for (const f of ['target', 'threadsPerClient', 'startEpochMs', 'endEpochMs', 'durationS', 'throughput'] as const) {
        if (!numOrNull(r[f])) throw new SnapshotError(`${where}: ${f} must be a number or null`);
      }
      if (typeof r.totalOps !== 'number') throw new SnapshotError(`${where}: totalOps must be a number`);
      let tps: ThroughputSeries | null = null;
      const t = r.throughputPerSecond;
      if (t !== null) {
        const ok = isObject(t) ? read.ints(t.ok, where) : null;
        const failed = isObject(t) ? read.ints(t.failed, where) : null;
        if (
          !isObject(t) ||
          typeof t.startEpochS !== 'number' ||
          !(t.bucketS === undefined || (Number.isSafeInteger(t.bucketS) && (t.bucketS as number) >= 1)) ||
          !isNumArray(ok) ||
          !isNumArray(failed)
        ) {
          throw new SnapshotError(`${where}: throughputPerSecond is malformed`);
        }
        tps = { startEpochS: t.startEpochS, ...(t.bucketS !== undefined ? { bucketS: t.bucketS as number } : {}), ok, failed };
      }
      const clients = Array.isArray(r.clients)
        ? r.clients.filter((c): c is { client: string; files: string[] } => isObject(c) && typeof c.client === 'string' && Array.isArray(c.files) && c.files.every((f) => typeof f === 'string'))
        : [];
      const properties = isObject(r.properties) ? Object.fromEntries(Object.entries(r.properties).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};
      const ops: Record<string, SnapshotOp> = {};
      for (const [op, o] of Object.entries(r.ops)) {
        if (!isObject(o) || !isObject(o.naive) || typeof o.unit !== 'string') throw new SnapshotError(`${where} ${op}: malformed`);
        const naive = { maxClientP95: o.naive.maxClientP95, maxClientP99: o.naive.maxClientP99, meanClientP99: o.naive.meanClientP99 };
        if (!Object.values(naive).every(numOrNull)) throw new SnapshotError(`${where} ${op}: naive figures must be numbers`);
        const entry: SnapshotOp = { unit: o.unit, naive: naive as SnapshotOp['naive'] };
        if (o.histogram !== undefined) entry.histogram = read.histogram(o.histogram, `${where} ${op}`);
        else if (Array.isArray(o.exact) && o.exact.every((p) => Array.isArray(p) && p.length === 2 && isNumArray(p))) entry.exact = o.exact as [number, number][];
        else if (o.figures !== undefined) entry.figures = readFigures(o.figures, percentiles, isObject(o.figures) ? read.ints(o.figures.values, `${where} ${op}`) : null, `${where} ${op}`);
        else throw new SnapshotError(`${where} ${op}: needs a histogram, exact values or figures`);
        setOwn(ops, op, entry);
      }
      return {
        key: r.key,
        label: r.label,
        clients,
        target: r.target as number | null,
        threadsPerClient: r.threadsPerClient as number | null,
        db: typeof r.db === 'string' ? r.db : null,
        workload: typeof r.workload === 'string' ? r.workload : null,
        properties,
        startEpochMs: r.startEpochMs as number | null,
        endEpochMs: r.endEpochMs as number | null,
        durationS: r.durationS as number | null,
        throughput: r.throughput as number | null,
        totalOps: r.totalOps,
        throughputPerSecond: tps,
        ops,
      };
    }),
    ...(doc.comparison !== undefined ? { comparison: readComparison(doc.comparison) } : {}),
    ...(typeof doc.view === 'string' && doc.view.length > 0 ? { view: doc.view } : {}),
  };
}

const VERDICTS = ['better', 'worse', 'same'];
const METHODS = ['block-bootstrap', 'between-runs', 'none'];
const isString = (v: unknown): v is string => typeof v === 'string';
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const isNumbers = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x));

/** A carried A/B comparison, checked field by field: it is shown as it came, so nothing else may come with it. */
function readComparison(v: unknown): CompareResult {
  const bad = (what: string) => new SnapshotError(`the carried comparison is malformed (${what})`);
  if (!isObject(v)) throw bad('not an object');
  const side = (x: unknown, name: string) => {
    if (!isObject(x) || !isString(x.label) || !isStrings(x.runs) || !isNumbers(x.seconds) || !isNumbers(x.blockLengthS)) throw bad(name);
    return { label: x.label, runs: x.runs, seconds: x.seconds, blockLengthS: x.blockLengthS };
  };
  if (!isNumbers(v.percentiles) || !METHODS.includes(v.method as string) || !isString(v.methodText) || !isStrings(v.problems) || !isStrings(v.notes) || !Array.isArray(v.rows)) throw bad('fields');
  if (![v.confidence, v.resamples, v.seed].every((x) => typeof x === 'number' && Number.isFinite(x))) throw bad('parameters');
  const rows = v.rows.map((r: unknown, i: number) => {
    if (!isObject(r) || !isString(r.op) || !isString(r.stat) || !isString(r.delta) || !METHODS.includes(r.method as string)) throw bad(`row ${i + 1}`);
    if (![r.baseline, r.candidate, r.ratio, r.ciLow, r.ciHigh].every(numOrNull)) throw bad(`row ${i + 1} figures`);
    if (!(r.verdict === null || VERDICTS.includes(r.verdict as string)) || !(r.note === undefined || isString(r.note))) throw bad(`row ${i + 1} verdict`);
    return {
      op: r.op,
      stat: r.stat,
      baseline: r.baseline as number | null,
      candidate: r.candidate as number | null,
      ratio: r.ratio as number | null,
      ciLow: r.ciLow as number | null,
      ciHigh: r.ciHigh as number | null,
      verdict: r.verdict as CompareResult['rows'][number]['verdict'],
      method: r.method as CompareResult['method'],
      delta: r.delta,
      ...(r.note !== undefined ? { note: r.note as string } : {}),
    };
  });
  return {
    baseline: side(v.baseline, 'baseline'),
    candidate: side(v.candidate, 'candidate'),
    percentiles: v.percentiles,
    method: v.method as CompareResult['method'],
    methodText: v.methodText,
    confidence: v.confidence as number,
    resamples: v.resamples as number,
    seed: v.seed as number,
    rows,
    problems: v.problems,
    notes: v.notes,
  };
}

export function snapshotFromFile(text: string): Snapshot {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new SnapshotError('the snapshot file is not valid JSON');
  }
  return fromJsonDoc(raw, {
    histogram: (v, where) => {
      if (typeof v !== 'string') throw new SnapshotError(`${where}: histogram must be a base64 string`);
      try {
        return decodeHistogram(v);
      } catch (e) {
        throw new SnapshotError(`${where}: ${(e as Error).message}`);
      }
    },
    ints: (v) => v,
  });
}

/** Cheap check on the head of a dropped file. */
export function looksLikeSnapshotFile(head: string): boolean {
  return /^\s*\{\s*"format"\s*:\s*"benchlens-comparison"/.test(head);
}

// ---- Link form ----------------------------------------------------------------------------------

/**
 * Link payload: one deflate stream over [u32 JSON length][JSON][u32 n][n × (u32 length, bytes)].
 * The JSON is the comparison document, with its bulk referenced by blob index: histograms as
 * HdrHistogram V2 *uncompressed* encodings, and (version 2) the per-second counts and percentile
 * values as delta varints (link-codec.ts) — compressing once over everything beats base64 strings
 * of separately compressed blobs, and varints beat JSON digits.
 */
function toBase64Url(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new SnapshotError('link data is not base64url');
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  const bin = atob(b64);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/**
 * Link data at `level`: 'histograms' carries every operation's histogram where the snapshot has
 * one, 'figures' carries figures wherever the snapshot has them.
 */
export function snapshotToLinkData(s: Snapshot, level: SnapshotLevel = 'histograms'): string {
  const blobs: Uint8Array[] = [];
  const blob = (b: Uint8Array) => String(blobs.push(b) - 1);
  const doc = toJsonDoc(s, level, { histogram: (h) => blob(encodeHistogramV2(h)), ints: (v) => blob(encodeIntegers(v)) }, SNAPSHOT_VERSION);
  const json = new TextEncoder().encode(JSON.stringify(doc));
  const size = 8 + json.length + blobs.reduce((a, b) => a + 4 + b.length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  view.setUint32(at, json.length);
  out.set(json, (at += 4));
  at += json.length;
  view.setUint32(at, blobs.length);
  at += 4;
  for (const b of blobs) {
    view.setUint32(at, b.length);
    out.set(b, (at += 4));
    at += b.length;
  }
  return toBase64Url(deflateSync(out, { level: 9 }));
}

export type SharedLink = { level: SnapshotLevel; data: string } | { level: null; histogramBytes: number; figuresBytes: number };

/** The richest link within MAX_LINK_BYTES: the histograms, else figures only, else none (and what each needs). */
export function bestLink(s: Snapshot): SharedLink {
  const full = snapshotToLinkData(s, 'histograms');
  if (full.length <= MAX_LINK_BYTES) return { level: snapshotLevel(s), data: full };
  const figures = snapshotToLinkData(s, 'figures');
  if (figures.length <= MAX_LINK_BYTES) return { level: 'figures', data: figures };
  return { level: null, histogramBytes: full.length, figuresBytes: figures.length };
}

/** Inflate at most this much: a link is tiny; a hostile one must not exhaust memory. */
const MAX_LINK_EXPANDED = 64 * 1024 * 1024;

export function linkDataToSnapshot(text: string): Snapshot {
  let bytes: Uint8Array;
  try {
    const compressed = fromBase64Url(text);
    bytes = inflateSync(compressed, { out: new Uint8Array(Math.min(MAX_LINK_EXPANDED, Math.max(1024, compressed.length * 200))) });
  } catch (e) {
    throw e instanceof SnapshotError ? e : new SnapshotError('link data cannot be decompressed (is the link complete?)');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const read32 = (at: number) => {
    if (at + 4 > bytes.length) throw new SnapshotError('link data is truncated');
    return view.getUint32(at);
  };
  const jsonLength = read32(0);
  if (4 + jsonLength > bytes.length) throw new SnapshotError('link data is truncated');
  const json = new TextDecoder().decode(bytes.subarray(4, 4 + jsonLength));
  let at = 4 + jsonLength;
  const count = read32(at);
  at += 4;
  const blobs: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const n = read32(at);
    at += 4;
    if (at + n > bytes.length) throw new SnapshotError('link data is truncated');
    blobs.push(bytes.subarray(at, at + n));
    at += n;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new SnapshotError('link data is corrupt');
  }
  const blobOf = (v: unknown, where: string, what: string): Uint8Array => {
    const b = typeof v === 'string' && /^\d+$/.test(v) ? blobs[Number(v)] : undefined;
    if (!b) throw new SnapshotError(`${where}: ${what} missing from the link`);
    return b;
  };
  return fromJsonDoc(raw, {
    histogram: (v, where) => {
      try {
        return decodeHistogramBytes(blobOf(v, where, 'histogram'));
      } catch (e) {
        throw e instanceof SnapshotError ? e : new SnapshotError(`${where}: ${(e as Error).message}`);
      }
    },
    // Version-1 links wrote these arrays as JSON.
    ints: (v, where) => {
      if (typeof v !== 'string') return v;
      try {
        return decodeIntegers(blobOf(v, where, 'data'));
      } catch (e) {
        throw e instanceof LinkCodecError ? new SnapshotError(`${where}: ${e.message}`) : e;
      }
    },
  });
}

/** Bucket arrays of a snapshot op, for loading into the engine (figures only: the stand-in histogram). */
export function snapshotBuckets(o: SnapshotOp): { lo: Float64Array; width: Float64Array; count: Float64Array; raw: boolean; precision: HdrPrecision | null } {
  if (o.histogram) return { ...o.histogram.histogram, raw: false, precision: o.histogram.precision };
  if (!o.exact && o.figures) {
    const h = standInHistogram(o.figures);
    return { lo: Float64Array.from(h.lo), width: Float64Array.from(h.width), count: Float64Array.from(h.count), raw: o.figures.raw, precision: null };
  }
  const pairs = o.exact ?? [];
  return { lo: Float64Array.from(pairs, (p) => p[0]), width: Float64Array.from(pairs, () => 1), count: Float64Array.from(pairs, (p) => p[1]), raw: true, precision: null };
}
