/**
 * Synthetic benchmark output in the formats real producers write, for benchmarks and scale tests:
 * YCSB raw CSV (`measurementtype=raw`) with N rows, and HdrHistogram interval logs for C clients ×
 * O operations × S seconds, in the V1 compressed encoding YCSB 0.17 writes (`HISTgg…`, HdrHistogram
 * 2.1.4: fixed 8-byte counts up to the maximum's bucket, zlib level 9) or the V2 one HdrHistogram
 * 2.2.2's HistogramLogWriter writes (`HISTF…`). Deterministic (seeded) so runs compare.
 *
 *   npx tsx scripts/generate-data.ts raw <rows> <out.csv>
 *   npx tsx scripts/generate-data.ts hdr <clients> <ops> <seconds> <out-dir> [v1|v2]
 */
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compressedEnvelope, decodeIndexedHistogram, encodeHistogramV2Compressed, type DecodedHistogram } from '../src/model/hdr-codec.ts';
import { HdrLayout } from '../src/model/hdr-layout.ts';
import type { HdrPrecision } from '../src/model/types.ts';

/** Mulberry32: small, fast, good enough for test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A latency in µs: log-normal body around ~100 µs with a rare slow tail, like the corpus runs. */
export function latencyUs(rand: () => number): number {
  const u = Math.max(1e-12, rand());
  const v = rand();
  const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  const body = Math.exp(4.6 + 0.5 * normal);
  return Math.max(1, Math.round(rand() < 0.002 ? body * (20 + 200 * rand()) : body));
}

const START_MS = 1_795_000_000_000;

/**
 * A latency in µs shaped like a real run's wide spread: log-normal from ~150 µs to ~1 s (median
 * ~0.6 ms), so each second holds hundreds of distinct values — far more (second, value) cells than
 * the narrow `latencyUs`.
 */
export function wideLatencyUs(rand: () => number): number {
  const u = Math.max(1e-12, rand());
  const v = rand();
  const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  return Math.min(1_000_000, Math.max(150, Math.round(Math.exp(6.4 + 1.3 * normal))));
}

/**
 * One run of `rows` YCSB raw rows over `seconds` seconds, split over the client files given, each a
 * READ block then an UPDATE block (as YCSB writes them), with wide-spread latencies.
 */
export async function writeRealisticRawRun(rows: number, seconds: number, files: readonly string[]): Promise<number> {
  let total = 0;
  for (const [k, file] of files.entries()) {
    const out = createWriteStream(file);
    const rand = prng(1000 + k);
    const write = (s: string) => {
      total += s.length;
      return out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r()));
    };
    const perOp = Math.floor(rows / files.length / 2);
    for (const op of ['READ', 'UPDATE']) {
      await write(`${op} latency raw data: op, timestamp(ms), latency(us)\n`);
      let chunk = '';
      for (let i = 0; i < perOp; i++) {
        chunk += `${op},${START_MS + Math.floor((i * seconds * 1000) / perOp)},${wideLatencyUs(rand)}\n`;
        if (chunk.length > 1 << 20) {
          await write(chunk);
          chunk = '';
        }
      }
      await write(chunk);
    }
    await new Promise<void>((resolve) => out.end(resolve));
  }
  return total;
}

/** Writes a YCSB raw CSV: READ block then UPDATE block (blocks are not in time order, as YCSB writes). */
export async function writeRawCsv(rows: number, file: string, opsPerS = 90_000): Promise<number> {
  const out = createWriteStream(file);
  const rand = prng(42);
  let bytes = 0;
  const write = (s: string) => {
    bytes += s.length;
    return out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r()));
  };
  const blocks: [string, number][] = [
    ['READ', Math.ceil(rows / 2)],
    ['UPDATE', Math.floor(rows / 2)],
  ];
  for (const [op, n] of blocks) {
    await write(`${op} latency raw data: op, timestamp(ms), latency(us)\n`);
    let chunk = '';
    for (let i = 0; i < n; i++) {
      chunk += `${op},${START_MS + Math.floor((i * 1000 * 2) / opsPerS)},${latencyUs(rand)}\n`;
      if (chunk.length > 1 << 20) {
        await write(chunk);
        chunk = '';
      }
    }
    await write(chunk);
  }
  await new Promise<void>((resolve) => out.end(resolve));
  return bytes;
}

export type HdrEncoding = 'v1' | 'v2';

/**
 * HdrHistogram 2.1.4's encodeIntoCompressedByteBuffer, as YCSB 0.17 calls it: a V1 header (cookie
 * 0x1c849381: V1, 8-byte words), one big-endian count per bucket from index 0 to the maximum's,
 * deflated at level 9 behind the compressed cookie 0x1c849382.
 */
export function encodeHistogramV1Compressed(decoded: DecodedHistogram, layout: HdrLayout): string {
  const { lo, count } = decoded.histogram;
  const words = lo.length > 0 ? layout.countsArrayIndex(lo[lo.length - 1]!) + 1 : 1;
  const inner = new Uint8Array(40 + 8 * words);
  const view = new DataView(inner.buffer);
  view.setInt32(0, 0x1c849381);
  view.setInt32(4, 8 * words);
  view.setInt32(8, 0);
  view.setInt32(12, decoded.precision.significantDigits);
  view.setBigInt64(16, BigInt(decoded.precision.lowestDiscernibleValue));
  view.setBigInt64(24, BigInt(decoded.highestTrackableValue));
  view.setFloat64(32, decoded.integerToDoubleConversionRatio);
  for (let j = 0; j < lo.length; j++) view.setBigInt64(40 + 8 * layout.countsArrayIndex(lo[j]!), BigInt(count[j]!));
  return Buffer.from(compressedEnvelope(inner, 0x1c849382, 9)).toString('base64');
}

/**
 * Writes C × O interval logs of S one-second intervals; returns the number of interval histograms.
 * V1 logs carry YCSB's header (log format 1.1), V2 logs HdrHistogram 2.2.2's (1.3).
 */
export function writeHdrLogs(clients: number, ops: readonly string[], seconds: number, dir: string, opsPerSecond = 1000, encoding: HdrEncoding = 'v1'): number {
  mkdirSync(dir, { recursive: true });
  const precision: HdrPrecision = { significantDigits: 3, lowestDiscernibleValue: 1 };
  const layout = new HdrLayout(precision);
  const rand = prng(7);
  let histograms = 0;
  for (let c = 1; c <= clients; c++) {
    for (const op of ops) {
      const startS = START_MS / 1000 + c * 0.013;
      const lines = [
        `#[Logging for: ${op}]`,
        `#[Histogram log format version ${encoding === 'v1' ? '1.1' : '1.3'}]`,
        `#[StartTime: ${startS.toFixed(3)} (seconds since epoch), generated]`,
        '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"',
      ];
      for (let s = 0; s < seconds; s++) {
        const counts = new Map<number, number>();
        let max = 0;
        for (let i = 0; i < opsPerSecond; i++) {
          const v = latencyUs(rand);
          const lo = layout.lowestEquivalentValue(v);
          counts.set(lo, (counts.get(lo) ?? 0) + 1);
          max = Math.max(max, v);
        }
        const los = [...counts.keys()].sort((a, b) => a - b);
        const histogram = {
          lo: Float64Array.from(los),
          width: Float64Array.from(los, (lo) => layout.sizeOfEquivalentValueRange(lo)),
          count: Float64Array.from(los, (lo) => counts.get(lo) ?? 0),
          totalCount: opsPerSecond,
        };
        // V1: YCSB's auto-resizing histogram declares the power of two above its maximum, less one.
        const highest = encoding === 'v1' ? 2 ** Math.ceil(Math.log2(layout.highestEquivalentValue(max) + 1)) - 1 : 2 * layout.highestEquivalentValue(max);
        const decoded = { precision, highestTrackableValue: Math.max(highest, 2 * precision.lowestDiscernibleValue), integerToDoubleConversionRatio: 1, histogram };
        const blob = encoding === 'v1' ? encodeHistogramV1Compressed(decoded, layout) : encodeHistogramV2Compressed(decoded);
        lines.push(`${s}.000,1.000,${(layout.highestEquivalentValue(max) / 1e6).toFixed(3)},${blob}`);
        histograms++;
      }
      writeFileSync(path.join(dir, `client${c}-${op}.hdr`), `${lines.join('\n')}\n`);
    }
  }
  return histograms;
}

/**
 * Interval logs of `clients` × `ops` × `seconds` made of real interval histograms: the V1 lines of
 * `sources` (YCSB 0.17 logs, such as the corpus's), taken in turn and re-timed one a second, so the
 * set has the shape of a long real run (real bucket spreads, real encoder output) without anything
 * generated inside a histogram. Returns the histograms written and each operation's total count.
 */
export function writeRealHdrLogs(sources: readonly string[], clients: number, ops: readonly string[], seconds: number, dir: string): { histograms: number; counts: Record<string, number> } {
  mkdirSync(dir, { recursive: true });
  const pools = sources.map((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /^[\d.]+,[\d.]+,[\d.]+,HIST/.test(l))
      .map((l) => {
        const [, , max = '0', blob = ''] = l.split(',');
        return { max, blob, count: decodeIndexedHistogram(blob).histogram.totalCount };
      }),
  ).filter((pool) => pool.length > 0);
  if (pools.length === 0) throw new Error('no interval histograms in the source logs');
  const counts: Record<string, number> = Object.fromEntries(ops.map((op) => [op, 0]));
  let histograms = 0;
  for (let c = 1; c <= clients; c++) {
    ops.forEach((op, o) => {
      const pool = pools[((c - 1) * ops.length + o) % pools.length] as (typeof pools)[number];
      const startS = START_MS / 1000 + c * 0.013;
      const lines = [`#[Logging for: ${op}]`, '#[Histogram log format version 1.1]', `#[StartTime: ${startS.toFixed(3)} (seconds since epoch), re-timed real histograms]`, '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"'];
      for (let s = 0; s < seconds; s++) {
        const h = pool[s % pool.length] as (typeof pool)[number];
        lines.push(`${s}.000,1.000,${h.max},${h.blob}`);
        counts[op]! += h.count;
        histograms++;
      }
      writeFileSync(path.join(dir, `client${c}-${op}.hdr`), `${lines.join('\n')}\n`);
    });
  }
  return { histograms, counts };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [kind, ...args] = process.argv.slice(2);
  if (kind === 'raw' && args.length === 2) {
    const bytes = await writeRawCsv(Number(args[0]), args[1] as string);
    console.log(`${args[1]}: ${args[0]} rows, ${(bytes / 1e6).toFixed(1)} MB`);
  } else if (kind === 'hdr' && (args.length === 4 || (args.length === 5 && (args[4] === 'v1' || args[4] === 'v2')))) {
    const ops = ['READ', 'UPDATE', 'INSERT', 'SCAN'].slice(0, Number(args[1]));
    const n = writeHdrLogs(Number(args[0]), ops, Number(args[2]), args[3] as string, 1000, (args[4] ?? 'v1') as HdrEncoding);
    console.log(`${args[3]}: ${n} interval histograms`);
  } else {
    console.error('usage: generate-data.ts raw <rows> <out.csv> | hdr <clients> <ops> <seconds> <out-dir> [v1|v2]');
    process.exit(2);
  }
}

/**
 * A per-request CSV of `rows` rows (header `op,timestamp_ms,latency_us,status`): READ and UPDATE
 * alternating at 90,000 ops/s, one request in 200 answered 500 — the shape of the `requests` query
 * case of the bench. Returns the count per operation as the summary shows them (failed as `<op>-FAILED`).
 */
export async function writeRequestCsv(rows: number, file: string, opsPerS = 90_000): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const out = createWriteStream(file);
  const rand = prng(7);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  await write('op,timestamp_ms,latency_us,status\n');
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    const op = i % 2 === 0 ? 'READ' : 'UPDATE';
    const latency = latencyUs(rand);
    const failed = rand() < 0.005;
    const shown = failed ? `${op}-FAILED` : op;
    counts[shown] = (counts[shown] ?? 0) + 1;
    chunk += `${op},${START_MS + Math.floor((i * 1000) / opsPerS)},${latency},${failed ? 500 : 200}\n`;
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  await new Promise<void>((resolve) => out.end(resolve));
  return counts;
}
