import { deflateSync, inflateSync } from 'fflate';
import { decodeHistogram, decodeHistogramBytes, encodeHistogramV2, encodeHistogramV2Compressed, type DecodedHistogram } from '../model/hdr-codec.ts';
import { setOwn } from '../model/own.ts';
import type { ThroughputSeries } from '../engine/analyse.ts';
import type { OpSummary, RunSummary } from '../engine/summary.ts';
import type { HdrPrecision } from '../model/types.ts';

/**
 * A comparison as data: per run, its metadata, and per operation the merged histogram (every
 * client's buckets summed) plus the naive per-client figures, and the per-second throughput. It is
 * what a self-contained link carries and what a comparison file holds; opening either recomputes
 * every figure with the same SQL, so the numbers are the original's.
 *
 * Comparison file (JSON, `format: "benchlens-comparison"`, `version: 1`):
 *   runs[]: { key, label, clients[{client, files[]}], target, threadsPerClient, db, workload,
 *             properties, startEpochMs, endEpochMs, durationS, throughput, totalOps,
 *             throughputPerSecond: {startEpochS, bucketS?, ok[], failed[]} | null  (bucketS: seconds per
 *               entry, default 1; wider only for runs longer than 100,000 s),
 *             ops: { <OP>: { histogram: "HISTF…" (HdrHistogram V2 compressed, base64) |
 *                            exact: [[value, count], …] (raw samples, exact values),
 *                            unit, naive: {maxClientP95, maxClientP99, meanClientP99} } } }
 * Values are in the op's unit (µs for YCSB).
 */

export const SNAPSHOT_FORMAT = 'benchlens-comparison';
export const SNAPSHOT_VERSION = 1;
/** Self-contained links must stay below this many characters of fragment data. */
export const MAX_LINK_BYTES = 32 * 1024;

export interface SnapshotOp {
  unit: string;
  /** Histogram runs: the merged HdrHistogram. */
  histogram?: DecodedHistogram;
  /** Raw-sample runs: exact (value, count) pairs in ascending value order. */
  exact?: [number, number][];
  naive: OpSummary['naive'];
}

/** A run's own figures as summarised; its latency data travels in `ops`. */
export type SnapshotRun = Omit<RunSummary, 'id' | 'dir' | 'paths' | 'ops'> & {
  key: string;
  throughputPerSecond: ThroughputSeries | null;
  ops: Record<string, SnapshotOp>;
};

export interface Snapshot {
  runs: SnapshotRun[];
}

export class SnapshotError extends Error {}

// ---- JSON form (comparison file) -------------------------------------------------------------

type JsonOp = Omit<SnapshotOp, 'histogram'> & { histogram?: string };
type JsonRun = Omit<SnapshotRun, 'ops'> & { ops: Record<string, JsonOp> };
interface JsonDoc {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
  runs: JsonRun[];
}

function toJsonDoc(s: Snapshot, histogram: (h: DecodedHistogram) => string): JsonDoc {
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    runs: s.runs.map((r) => ({
      ...r,
      ops: Object.fromEntries(
        Object.entries(r.ops).map(([op, o]) => [op, { unit: o.unit, naive: o.naive, ...(o.histogram ? { histogram: histogram(o.histogram) } : {}), ...(o.exact ? { exact: o.exact } : {}) }]),
      ),
    })),
  };
}

export function snapshotToComparisonFile(s: Snapshot): string {
  return JSON.stringify(toJsonDoc(s, encodeHistogramV2Compressed), null, 1);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const numOrNull = (v: unknown): v is number | null => v === null || (typeof v === 'number' && Number.isFinite(v));
const isNumArray = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x) && x >= 0);

/** Version upgraders: a v(n) document becomes v(n+1). None yet; v1 is the first. */
const UPGRADERS: Record<number, (doc: Record<string, unknown>) => Record<string, unknown>> = {};

function fromJsonDoc(raw: unknown, histogram: (v: unknown, where: string) => DecodedHistogram): Snapshot {
  if (!isObject(raw) || raw.format !== SNAPSHOT_FORMAT) throw new SnapshotError('not a benchlens comparison');
  let doc = raw;
  const version = doc.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1 || version > SNAPSHOT_VERSION) {
    throw new SnapshotError(`comparison version ${String(version)} is not supported (this benchlens reads up to ${SNAPSHOT_VERSION})`);
  }
  for (let v = version; v < SNAPSHOT_VERSION; v++) doc = UPGRADERS[v]?.(doc) ?? doc;
  if (!Array.isArray(doc.runs)) throw new SnapshotError('comparison has no runs');
  return {
    runs: doc.runs.map((r: unknown, i: number): SnapshotRun => {
      const where = `run ${i + 1}`;
      if (!isObject(r) || typeof r.key !== 'string' || typeof r.label !== 'string' || !isObject(r.ops)) throw new SnapshotError(`${where} is malformed`);
      for (const f of ['target', 'threadsPerClient', 'startEpochMs', 'endEpochMs', 'durationS', 'throughput'] as const) {
        if (!numOrNull(r[f])) throw new SnapshotError(`${where}: ${f} must be a number or null`);
      }
      if (typeof r.totalOps !== 'number') throw new SnapshotError(`${where}: totalOps must be a number`);
      const tps = r.throughputPerSecond;
      if (
        tps !== null &&
        !(
          isObject(tps) &&
          typeof tps.startEpochS === 'number' &&
          (tps.bucketS === undefined || (Number.isSafeInteger(tps.bucketS) && (tps.bucketS as number) >= 1)) &&
          isNumArray(tps.ok) &&
          isNumArray(tps.failed)
        )
      ) {
        throw new SnapshotError(`${where}: throughputPerSecond is malformed`);
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
        if (o.histogram !== undefined) entry.histogram = histogram(o.histogram, `${where} ${op}`);
        else if (Array.isArray(o.exact) && o.exact.every((p) => Array.isArray(p) && p.length === 2 && isNumArray(p))) entry.exact = o.exact as [number, number][];
        else throw new SnapshotError(`${where} ${op}: needs a histogram or exact values`);
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
        throughputPerSecond: tps as SnapshotRun['throughputPerSecond'],
        ops,
      };
    }),
  };
}

export function comparisonFileToSnapshot(text: string): Snapshot {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new SnapshotError('the comparison file is not valid JSON');
  }
  return fromJsonDoc(raw, (v, where) => {
    if (typeof v !== 'string') throw new SnapshotError(`${where}: histogram must be a base64 string`);
    try {
      return decodeHistogram(v);
    } catch (e) {
      throw new SnapshotError(`${where}: ${(e as Error).message}`);
    }
  });
}

/** Cheap check on the head of a dropped file. */
export function looksLikeComparisonFile(head: string): boolean {
  return /^\s*\{\s*"format"\s*:\s*"benchlens-comparison"/.test(head);
}

// ---- Link form ----------------------------------------------------------------------------------

/**
 * Link payload: one deflate stream over [u32 JSON length][JSON][u32 n][n × (u32 length, bytes)],
 * where histograms are HdrHistogram V2 *uncompressed* encodings referenced by index from the JSON —
 * compressing once over everything beats base64 strings of separately compressed blobs.
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

export function snapshotToLinkData(s: Snapshot): string {
  const blobs: Uint8Array[] = [];
  const doc = toJsonDoc(s, (h) => {
    blobs.push(encodeHistogramV2(h));
    return String(blobs.length - 1);
  });
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
  return fromJsonDoc(raw, (v, where) => {
    const blob = typeof v === 'string' && /^\d+$/.test(v) ? blobs[Number(v)] : undefined;
    if (!blob) throw new SnapshotError(`${where}: histogram missing from the link`);
    try {
      return decodeHistogramBytes(blob);
    } catch (e) {
      throw new SnapshotError(`${where}: ${(e as Error).message}`);
    }
  });
}

/** Bucket arrays of a snapshot op, for loading into the engine. */
export function snapshotBuckets(o: SnapshotOp): { lo: Float64Array; width: Float64Array; count: Float64Array; raw: boolean; precision: HdrPrecision | null } {
  if (o.histogram) return { ...o.histogram.histogram, raw: false, precision: o.histogram.precision };
  const pairs = o.exact ?? [];
  return { lo: Float64Array.from(pairs, (p) => p[0]), width: Float64Array.from(pairs, () => 1), count: Float64Array.from(pairs, (p) => p[1]), raw: true, precision: null };
}
