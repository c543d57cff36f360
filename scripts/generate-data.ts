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

/** The HTTP load tools whose per-request files the bench generates (`writeHttpToolRun`). */
export type HttpTool = 'jmeter' | 'k6' | 'gatling' | 'vegeta';

/** An e-shop's five requests, as a test plan names them, with the URL each calls (`{id}` varies). */
const HTTP_REQUESTS = [
  { label: '01 Home', method: 'GET', path: '/', weight: 0.3 },
  { label: '02 Search', method: 'GET', path: '/api/search?q=item{id}', weight: 0.25 },
  { label: '03 Product', method: 'GET', path: '/api/products/{id}', weight: 0.25 },
  { label: '04 Add to cart', method: 'POST', path: '/api/cart/items', weight: 0.12 },
  { label: '05 Checkout', method: 'POST', path: '/api/orders', weight: 0.08 },
] as const;
const HTTP_HOST = 'https://shop.example.com';
const HTTP_THREADS = 50;

/** A response time in ms as a web service gives them: log-normal, median ~80 ms, a tail to ~10 s. */
function httpMillis(rand: () => number): number {
  const u = Math.max(1e-12, rand());
  const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  return Math.min(10_000, Math.exp(4.4 + 0.9 * normal));
}

interface HttpRequest {
  label: string;
  method: string;
  url: string;
  thread: number;
  startMs: number;
  /** Response time, ms with ns precision (k6, vegeta); JMeter and Gatling round it to whole ms. */
  ms: number;
  /** 0 when the connection failed before a response (no status). */
  status: number;
  /** How it failed: an HTTP error status, a timeout, or (JMeter) a duration assertion. */
  failure: 'status' | 'timeout' | 'assertion' | null;
}

/**
 * `rows` requests of 50 threads over `seconds` seconds, ~2 % failed, in start order; URLs name one
 * of `ids` items (vegeta attacks a fixed list of targets: one).
 */
function* httpRequests(rows: number, seconds: number, seed: number, ids: number): Generator<HttpRequest> {
  const rand = prng(seed);
  for (let i = 0; i < rows; i++) {
    let pick = rand();
    const r = HTTP_REQUESTS.find((q) => (pick -= q.weight) < 0) ?? HTTP_REQUESTS[0];
    const ms = Math.round(httpMillis(rand) * 1e6) / 1e6;
    const f = rand();
    const failure = f < 0.015 ? 'status' : f < 0.018 ? 'timeout' : f < 0.02 && ms > 200 ? 'assertion' : null;
    yield {
      label: r.label,
      method: r.method,
      url: HTTP_HOST + r.path.replace('{id}', String(Math.floor(rand() * ids))),
      thread: 1 + (i % HTTP_THREADS),
      startMs: START_MS + Math.floor((i * seconds * 1000) / rows),
      ms: failure === 'timeout' ? 10_000 + Math.round(rand() * 1e6) / 1e6 : ms,
      status: failure === 'status' ? (rand() < 0.7 ? 500 : 503) : failure === 'timeout' ? 0 : 200,
      failure,
    };
  }
}

/** A CSV field as JMeter's CSVSaveService and Go's encoding/csv write it: quoted when it holds a comma, quote or line end. */
const csvField = (s: string): string => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

const JTL_HEADER = 'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect';

function jtlRow(q: HttpRequest): string {
  const elapsed = Math.max(1, Math.round(q.ms));
  const reason = q.status === 500 ? 'Internal Server Error' : 'Service Unavailable';
  const [code, message, failure] =
    q.failure === 'status'
      ? [String(q.status), reason, '']
      : q.failure === 'timeout'
        ? ['Non HTTP response code: java.net.SocketTimeoutException', 'Non HTTP response message: Read timed out', '']
        : // JMeter's Duration Assertion, its numbers formatted with grouping commas: a quoted field.
          q.failure === 'assertion'
          ? ['200', 'OK', `The operation lasted too long: It took ${elapsed.toLocaleString('en-US')} milliseconds, but should not have lasted longer than 200 milliseconds.`]
          : ['200', 'OK', ''];
  const latency = q.failure === 'timeout' ? 0 : Math.max(1, Math.round(elapsed * 0.8));
  const connect = q.thread % 7 === 0 ? 3 : 0;
  return `${q.startMs},${elapsed},${q.label},${csvField(code)},${message},Thread Group 1-${q.thread},text,${q.failure ? 'false' : 'true'},${csvField(failure)},${q.failure ? 231 : 5120 + (q.thread % 97)},${q.method === 'POST' ? 412 : 187},${HTTP_THREADS},${HTTP_THREADS},${q.url},${latency},0,${connect}\n`;
}

const K6_HEADER = 'metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata';

/** The rows k6 0.54's CSV output writes for one request and the iteration it ends (one request an iteration). */
function k6Rows(q: HttpRequest, vusEverySecond: boolean): string {
  const sec = Math.floor((q.startMs + q.ms) / 1000);
  const ok = q.failure === null || q.failure === 'assertion';
  const errorCode = q.failure === 'timeout' ? '1050' : ok ? '' : '1500';
  const error = q.failure === 'timeout' ? 'request timeout' : '';
  // k6 sets the name tag to the URL; the script names the request by its label (tags: { name }).
  const tags = (expected: string) => `,,${error},${errorCode},${expected},,${q.method},${q.label},HTTP/1.1,default,,${q.status},,tls1.3,${q.url},,`;
  const t = tags(ok ? 'true' : 'false');
  const v = (x: number) => x.toFixed(6);
  const waiting = q.ms * 0.85;
  let out = vusEverySecond ? `vus,${sec},${HTTP_THREADS}.000000,,,,,,,,,,,,,,,,\n` : '';
  out += `http_reqs,${sec},1.000000${t}\nhttp_req_duration,${sec},${v(q.ms)}${t}\nhttp_req_blocked,${sec},${v(0.004)}${t}\nhttp_req_connecting,${sec},0.000000${t}\n`;
  out += `http_req_tls_handshaking,${sec},0.000000${t}\nhttp_req_sending,${sec},${v(0.031)}${t}\nhttp_req_waiting,${sec},${v(waiting)}${t}\nhttp_req_receiving,${sec},${v(q.ms - waiting - 0.031)}${t}\n`;
  out += `http_req_failed,${sec},${ok ? '0' : '1'}.000000${t}\n`;
  const it = `,,,,,,,,,default,,,,,,,`;
  out += `data_sent,${sec},${q.method === 'POST' ? 412 : 187}.000000${it}\ndata_received,${sec},${ok ? 5120 : 231}.000000${it}\niteration_duration,${sec},${v(q.ms + 1000.5)}${it}\niterations,${sec},1.000000${it}\n`;
  return out;
}

/** Base64 of a response body and headers, as vegeta's CSV encoder writes them (a few kinds, cycled). */
const VEGETA_BODIES = ['{"status":"ok","items":[{"id":1,"name":"item"}]}', '{"error":"internal"}'].map((b) => Buffer.from(b).toString('base64'));
const VEGETA_HEADERS = Buffer.from('Content-Type: application/json\r\nDate: Wed, 25 Nov 2026 00:05:41 GMT\r\nServer: nginx/1.24.0\r\n\r\n').toString('base64');

function vegetaRow(q: HttpRequest, seq: number): string {
  const ns = Math.round(q.ms * 1e6);
  const ok = q.failure === null || q.failure === 'assertion';
  const error = q.failure === 'timeout' ? `Get "${q.url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)` : ok ? '' : q.status === 500 ? '500 Internal Server Error' : '503 Service Unavailable';
  const code = ok ? 200 : q.status;
  return `${BigInt(q.startMs) * 1_000_000n + BigInt(seq % 1_000_000)},${code},${ns},0,${ok ? 5120 : q.failure === 'timeout' ? 0 : 21},${csvField(error)},${q.failure === 'timeout' ? '' : VEGETA_BODIES[ok ? 0 : 1]},shop,${seq},${q.method},${q.url},${q.failure === 'timeout' ? '' : VEGETA_HEADERS}\n`;
}

/**
 * A per-request file of `tool` holding `rows` requests over `seconds` seconds (for k6, `rows`
 * lines of its CSV: it writes about 13 a request), laid out as the tool writes it: JMeter's CSV
 * JTL with the default 17 columns, k6 0.54's `--out csv`, Gatling 3.9's `simulation.log`, vegeta's
 * `encode --to csv`. Returns what benchlens shows for it: each operation's count.
 */
export async function writeHttpToolRun(tool: HttpTool, rows: number, seconds: number, file: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const count = (op: string) => (counts[op] = (counts[op] ?? 0) + 1);
  const out = createWriteStream(file);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  let chunk = '';
  const flush = async (force = false) => {
    if (!force && chunk.length < 1 << 20) return;
    await write(chunk);
    chunk = '';
  };
  if (tool === 'jmeter') chunk += `${JTL_HEADER}\n`;
  if (tool === 'k6') chunk += `${K6_HEADER}\n`;
  if (tool === 'gatling') chunk += `RUN\tshop.CheckoutSimulation\tcheckoutsimulation\t${START_MS}\t \t3.9.5\n`;
  // k6: 13 lines a request, and a vus gauge line every 50 requests.
  const requests = tool === 'k6' ? Math.floor((rows - 1) / (13 + 1 / HTTP_THREADS)) : rows;
  let seq = 0;
  for (const q of httpRequests(requests, seconds, 28, tool === 'vegeta' ? 1 : 5000)) {
    const failed = q.failure !== null && !(tool !== 'jmeter' && q.failure === 'assertion');
    const op = tool === 'vegeta' ? `${q.method} ${q.url}` : q.label;
    if (tool === 'jmeter') {
      chunk += jtlRow(q);
      if (!failed) count(`${op} (first byte)`);
    } else if (tool === 'k6') {
      const vus = seq % HTTP_THREADS === 0;
      chunk += k6Rows(q, vus);
      if (!failed) count(`${op} (first byte)`);
    } else if (tool === 'gatling') {
      // Gatling: a user starts, sends its request and ends; the check on the status fails a 5xx or a timeout.
      const start = q.startMs;
      const end = start + Math.max(0, Math.round(q.ms));
      const ko = q.failure === 'timeout' ? `KO\tRequest timeout to shop.example.com/10.0.0.5:443 after 10000 ms` : failed ? `KO\tstatus.find.in([200, 209], 304), found ${q.status}` : 'OK\t ';
      chunk += `USER\tCheckout\tSTART\t${start}\nREQUEST\t\t${q.label}\t${start}\t${end}\t${ko}\nUSER\tCheckout\tEND\t${end}\n`;
    } else {
      chunk += vegetaRow(q, seq);
    }
    count(failed ? `${op}-FAILED` : op);
    seq++;
    await flush();
  }
  await flush(true);
  await new Promise<void>((resolve) => out.end(resolve));
  return counts;
}
