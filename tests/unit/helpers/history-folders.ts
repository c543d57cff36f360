import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeHistogram, encodeHistogramV2Compressed } from '../../../src/model/hdr-codec.ts';
import { HdrLayout } from '../../../src/model/hdr-layout.ts';
import { Rng } from '../../../src/analysis/rng.ts';

/**
 * Histories of runs made of real corpus data, for the history and check tests (CLI and browser):
 * `runs` folders `build-1` … `build-N`, each a run of one test an hour after the previous one,
 * whose latencies are multiplied by `factor` from run `stepAt` (0-based) on. Nothing inside a
 * histogram or a row is invented: every run is real seconds of a real run, drawn again in blocks
 * (seeded), so runs differ as the real run's seconds do.
 *
 * - HdrHistogram: the interval histograms of sweep-uniform-a/target-1000 (YCSB 0.17, 3 clients ×
 *   READ/UPDATE, 25 one-second intervals), each run 25 intervals drawn in blocks of 5 from the
 *   client's own log, re-timed, values × factor re-bucketed at the log's precision, written as V2
 *   compressed logs (`HISTF…`) as HdrHistogram 2.2.2's HistogramLogWriter writes them.
 * - Raw: YCSB raw rows of raw-csv-b/target-unthrottled (9 s, 300k rows), each run 12 seconds drawn
 *   in blocks of 2 from its 5 steady seconds, one row in `thin` kept, latencies × factor rounded to
 *   whole µs.
 */

export interface HistoryFolderOptions {
  runs: number;
  stepAt?: number;
  factor?: number;
  seed?: number;
}

const HDR_SOURCE = 'tests/fixtures/corpus/sweep-uniform-a/target-1000';
const RAW_SOURCE = 'tests/fixtures/corpus/raw-csv-b/target-unthrottled/client1-raw.csv';
const START_S = 1_800_000_000;
const HOUR = 3600;

const factorOf = (o: HistoryFolderOptions, run: number) => (o.stepAt !== undefined && run >= o.stepAt ? (o.factor ?? 1.3) : 1);

/** Indices 0..n-1 drawn in blocks of `block` consecutive ones, `length` in all. */
function blocks(rng: Rng, n: number, length: number, block: number): number[] {
  const out: number[] = [];
  while (out.length < length) {
    const start = rng.below(n - block + 1);
    for (let i = 0; i < block && out.length < length; i++) out.push(start + i);
  }
  return out;
}

export function writeHdrHistory(dir: string, o: HistoryFolderOptions): string[] {
  const rng = new Rng(o.seed ?? 1);
  const folders: string[] = [];
  const sources = ['client1', 'client2', 'client3'].flatMap((client) =>
    ['READ', 'UPDATE'].map((op) => ({
      client,
      op,
      lines: readFileSync(path.join(HDR_SOURCE, `${client}-${op}.hdr`), 'utf8')
        .split('\n')
        .filter((l) => /^[\d.]+,[\d.]+,[\d.]+,HIST/.test(l))
        .map((l) => l.split(',')[3] as string),
    })),
  );
  for (let run = 0; run < o.runs; run++) {
    const folder = path.join(dir, `build-${run + 1}`);
    mkdirSync(folder, { recursive: true });
    folders.push(folder);
    const factor = factorOf(o, run);
    for (const { client, op, lines } of sources) {
      const out = [`#[Logging for: ${op}]`, '#[Histogram log format version 1.3]', `#[StartTime: ${START_S + run * HOUR}.000 (seconds since epoch)]`, '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"'];
      blocks(rng, lines.length, lines.length, 5).forEach((i, s) => {
        const decoded = decodeHistogram(lines[i] as string);
        const layout = new HdrLayout(decoded.precision);
        const counts = new Map<number, number>();
        const { lo, width, count } = decoded.histogram;
        let max = 0;
        for (let j = 0; j < lo.length; j++) {
          // The bucket's highest value, scaled, into the bucket that holds it.
          const v = Math.round(((lo[j] as number) + (width[j] as number) - 1) * factor);
          const bucket = layout.lowestEquivalentValue(v);
          counts.set(bucket, (counts.get(bucket) ?? 0) + (count[j] as number));
          max = Math.max(max, layout.highestEquivalentValue(v));
        }
        const los = [...counts.keys()].sort((a, b) => a - b);
        const histogram = {
          lo: Float64Array.from(los),
          width: Float64Array.from(los, (x) => layout.sizeOfEquivalentValueRange(x)),
          count: Float64Array.from(los, (x) => counts.get(x) ?? 0),
          totalCount: decoded.histogram.totalCount,
        };
        const blob = encodeHistogramV2Compressed({ ...decoded, highestTrackableValue: Math.max(decoded.highestTrackableValue, 2 * max), histogram });
        out.push(`${s}.000,1.000,${(max / 1e6).toFixed(3)},${blob}`);
      });
      writeFileSync(path.join(folder, `${client}-${op}.hdr`), `${out.join('\n')}\n`);
    }
  }
  return folders;
}

export function writeRawHistory(dir: string, o: HistoryFolderOptions & { thin?: number; seconds?: number }): string[] {
  const rng = new Rng(o.seed ?? 1);
  const thin = o.thin ?? 16;
  const seconds = o.seconds ?? 12;
  // The real rows by second of the run, per operation block.
  const bySecond = new Map<number, { op: string; ms: number; us: number }[]>();
  for (const line of readFileSync(RAW_SOURCE, 'utf8').split('\n')) {
    const [op, ms, us] = line.split(',');
    if (!op || !/^\d+$/.test(ms ?? '') || !/^\d+$/.test(us ?? '') || op === 'CLEANUP') continue;
    const sec = Math.floor(Number(ms) / 1000);
    const list = bySecond.get(sec) ?? [];
    list.push({ op, ms: Number(ms) % 1000, us: Number(us) });
    bySecond.set(sec, list);
  }
  // Its steady seconds: the first three are warm-up (p99 2.5–4 ms against 0.15 ms after), the last is cut short.
  const secs = [...bySecond.keys()].sort((a, b) => a - b).slice(3, -1);
  const folders: string[] = [];
  for (let run = 0; run < o.runs; run++) {
    const folder = path.join(dir, `build-${run + 1}`);
    mkdirSync(folder, { recursive: true });
    folders.push(folder);
    const factor = factorOf(o, run);
    const rows: Record<string, string[]> = { READ: [], UPDATE: [] };
    blocks(rng, secs.length, seconds, 2).forEach((i, s) => {
      const t0 = (START_S + run * HOUR + s) * 1000;
      (bySecond.get(secs[i] as number) ?? []).forEach((r, k) => {
        if (k % thin === 0 && rows[r.op]) rows[r.op]!.push(`${r.op},${t0 + r.ms},${Math.max(1, Math.round(r.us * factor))}`);
      });
    });
    const text = Object.entries(rows).map(([op, lines]) => `${op} latency raw data: op, timestamp(ms), latency(us)\n${lines.join('\n')}\n`).join('');
    writeFileSync(path.join(folder, 'client1-raw.csv'), text);
  }
  return folders;
}
