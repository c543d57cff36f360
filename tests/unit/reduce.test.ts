import { execFile } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { type Analysis } from '../../src/engine/analyse.ts';
import { hdrLayout } from '../../src/model/hdr-layout.ts';
import { largestExactValue } from '../../src/model/interval-recorder.ts';
import { PERCENTILE_KEYS } from '../../src/model/percentiles.ts';

/**
 * `npm run reduce`: raw files become HdrHistogram interval logs whose figures are those of the raw
 * samples within the histograms' precision — checked against bucket arithmetic written here, not
 * the codec's — counts exact, broken lines reported as summarize reports them, and a file several
 * times the heap reduced in constant memory.
 */

const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-reduce-'));

beforeAll(async () => {
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: readonly string[], nodeArgs: readonly string[] = []): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/cli/benchlens.ts', 'reduce', ...args], { maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 3) : 0, stdout, stderr });
    });
  });
}

async function summarize(paths: readonly string[]): Promise<Analysis> {
  return (await loadFiles(paths)).analysis;
}

/** Independent of src/model: a value's HdrHistogram bucket (lowest discernible value 1) as [lo, hi]. */
function bucketOf(value: number, digits: number): [number, number] {
  const subBuckets = 2 ** Math.ceil(Math.log2(2 * 10 ** digits));
  let width = 1;
  while (value >= subBuckets * width) width *= 2;
  const lo = Math.floor(value / width) * width;
  return [lo, lo + width - 1];
}

/** Nearest rank ⌈p/100 · n⌉ in integers (p to two decimals). */
function rank(p: number, n: number): number {
  return Math.max(1, Math.ceil((Math.round(p * 100) * n) / 10000));
}

const P = PERCENTILE_KEYS.map((k) => [k, Number(k.slice(1))] as const);

/** A deterministic pseudo-random sequence. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

interface Sample {
  op: string;
  timeMs: number;
  latency: number;
}

/** A YCSB raw file: mostly in time order with some jitter, a few rows far behind (late), latencies over several bucket widths. */
function ycsbRaw(seed: number, rows: number, startMs: number): { text: string; samples: Sample[] } {
  const next = random(seed);
  const samples: Sample[] = [];
  for (let i = 0; i < rows; i++) {
    const op = next() < 0.7 ? 'READ' : 'UPDATE';
    const late = i > 1000 && next() < 0.002;
    const timeMs = Math.floor(startMs + i * 7 + next() * 400 - (late ? 30_000 : 0));
    const latency = Math.floor(20 + 200 * Math.exp(next() * 7));
    samples.push({ op, timeMs, latency });
  }
  const blocks = ['READ', 'UPDATE'].map((op) => [`${op} latency raw data: op, timestamp(ms), latency(us)`, ...samples.filter((s) => s.op === op).map((s) => `${s.op},${s.timeMs},${s.latency}`)].join('\n'));
  return { text: `${blocks.join('\n')}\n`, samples };
}

describe('precision', () => {
  it('values up to 2^ceil(log2(2·10^d)) - 1 are exact for d significant digits, and the next is not', () => {
    const stated: Record<number, number> = { 0: 1, 1: 31, 2: 255, 3: 2047, 4: 32767, 5: 262143 };
    for (let digits = 0; digits <= 5; digits++) {
      const largest = largestExactValue({ significantDigits: digits, lowestDiscernibleValue: 1 });
      expect(largest, `${digits} digits`).toBe(stated[digits]);
      const layout = hdrLayout({ significantDigits: digits, lowestDiscernibleValue: 1 });
      expect(layout.sizeOfEquivalentValueRange(largest)).toBe(1);
      expect(layout.sizeOfEquivalentValueRange(largest + 1)).toBe(2);
      expect(bucketOf(largest, digits)).toEqual([largest, largest]);
      expect(bucketOf(largest + 1, digits)).toEqual([largest + 1, largest + 2]);
    }
  });
});

describe('reduce', () => {
  it('gives the raw file’s counts, and each percentile in the bucket of the raw nearest-rank value', async () => {
    const runDir = path.join(dir, 'one', 'run');
    mkdirSync(runDir, { recursive: true });
    const { text, samples } = ycsbRaw(1, 20_000, 1_795_255_808_000);
    const rawFile = path.join(runDir, 'client1-raw.csv');
    writeFileSync(rawFile, text);
    const out = path.join(dir, 'one', 'out');
    const result = await run(['--out', out, rawFile]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const log = readFileSync(path.join(out, 'client1.hdr'), 'utf8');
    expect(log).toContain('#[Histogram log format version 1.3]\n');
    expect(log).toMatch(/^#\[StartTime: \d+\.\d{3} \(seconds since epoch\), /m);
    expect(log).toMatch(/^#\[BaseTime: \d+\.\d{3} \(seconds since epoch\)\]$/m);
    expect(log).toContain('"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"\n');
    expect(log).toMatch(/^Tag=READ,\d+\.\d{3},1\.000,\d+\.\d{3},HISTF/m);

    const report = JSON.parse(readFileSync(path.join(out, 'reduce.json'), 'utf8'));
    // Late: more than the 10 s window (10 whole intervals) behind the newest interval of its operation.
    const newest: Record<string, number> = {};
    let late = 0;
    for (const s of samples) {
      const key = Math.floor(s.timeMs / 1000);
      if (key < (newest[s.op] ?? -Infinity) - 10) late++;
      newest[s.op] = Math.max(newest[s.op] ?? -Infinity, key);
    }
    expect(late).toBeGreaterThan(0);
    expect(report.files[0]).toMatchObject({ format: 'ycsb-raw', streamed: true, skippedLines: 0, lateSamples: late });
    expect(report.logs[0].ops).toEqual({ READ: samples.filter((s) => s.op === 'READ').length, UPDATE: samples.filter((s) => s.op === 'UPDATE').length });

    const raw = await summarize([rawFile]);
    const reduced = await summarize([path.join(out, 'client1.hdr')]);
    expect(reduced.errors).toEqual([]);
    const rawRun = raw.runs[0]!;
    const logRun = reduced.runs[0]!;
    expect(logRun.totalOps).toBe(samples.length);
    // Intervals of 1 s start on whole seconds: every second counts what the raw file has in it.
    expect(logRun.throughputPerSecond).toEqual(rawRun.throughputPerSecond);
    for (const op of ['READ', 'UPDATE']) {
      const sorted = samples.filter((s) => s.op === op).map((s) => s.latency).sort((a, b) => a - b);
      const r = rawRun.ops[op]!;
      const l = logRun.ops[op]!;
      expect(l.count).toBe(sorted.length);
      expect(r.count).toBe(sorted.length);
      for (const [key, p] of P) {
        const exact = sorted[rank(p, sorted.length) - 1]!;
        expect(r[key], `raw ${op} ${key}`).toBe(exact);
        const [lo, hi] = bucketOf(exact, 3);
        expect(l[key], `log ${op} ${key}`).toBe(hi);
        expect(l[key]! - exact).toBeLessThanOrEqual(hi - lo);
      }
      expect(l.max).toBe(bucketOf(sorted[sorted.length - 1]!, 3)[1]);
    }
  });

  it('merged logs of several clients give HdrHistogram’s merge: bucket sums of every sample', async () => {
    const runDir = path.join(dir, 'merge', 'run');
    mkdirSync(runDir, { recursive: true });
    const all: Sample[] = [];
    const files: string[] = [];
    for (let c = 1; c <= 3; c++) {
      const { text, samples } = ycsbRaw(10 + c, 6_000 + 1000 * c, 1_795_255_808_000 + 150 * c);
      const file = path.join(runDir, `client${c}-raw.csv`);
      writeFileSync(file, text);
      files.push(file);
      all.push(...samples);
    }
    const out = path.join(dir, 'merge', 'out');
    for (const precision of ['2', '3']) {
      const target = path.join(out, precision);
      const result = await run(['--out', target, '--precision', precision, '--interval', '2', ...files]);
      expect(result.code).toBe(0);
      expect(readdirSync(target).sort()).toEqual(['client1.hdr', 'client2.hdr', 'client3.hdr', 'reduce.json']);
      const merged = await summarize([target]);
      expect(merged.runs).toHaveLength(1);
      expect(merged.runs[0]!.clients.map((c) => c.client)).toEqual(['client1', 'client2', 'client3']);
      for (const op of ['READ', 'UPDATE']) {
        // Bucket sums over every client's samples, walked to each rank.
        const sums = new Map<number, { hi: number; n: number }>();
        for (const s of all) {
          if (s.op !== op) continue;
          const [lo, hi] = bucketOf(s.latency, Number(precision));
          const b = sums.get(lo) ?? { hi, n: 0 };
          b.n++;
          sums.set(lo, b);
        }
        const buckets = [...sums.entries()].sort((a, b) => a[0] - b[0]);
        const total = buckets.reduce((n, [, b]) => n + b.n, 0);
        const o = merged.runs[0]!.ops[op]!;
        expect(o.count).toBe(total);
        expect(o.source).toBe('histogram');
        for (const [key, p] of P) {
          const wanted = rank(p, total);
          let seen = 0;
          const bucket = buckets.find(([, b]) => (seen += b.n) >= wanted)!;
          expect(o[key], `${precision} digits ${op} ${key}`).toBe(bucket[1].hi);
        }
        expect(o.max).toBe(buckets[buckets.length - 1]![1].hi);
      }
    }
  });

  it('reports broken lines exactly as summarize does, and writes the rest', async () => {
    const runDir = path.join(dir, 'broken', 'run');
    mkdirSync(runDir, { recursive: true });
    const file = path.join(runDir, 'loader-1.csv');
    const rows = ['timestamp_ms,latency_us,op,status'];
    for (let i = 0; i < 500; i++) rows.push(`${1_795_255_808_000 + i * 10},${100 + (i % 37)},${i % 3 ? 'READ' : 'WRITE'},${i % 50 === 0 ? 'error' : 'ok'}`);
    rows[17] = `${1_795_255_808_170},12.5,READ,ok`;
    rows[230] = 'garbage';
    rows[301] = `not-a-time,120,READ,ok`;
    writeFileSync(file, `${rows.join('\n')}\n`);
    const shown = path.relative(process.cwd(), file);
    const out = path.join(dir, 'broken', 'out');
    const result = await run(['--out', out, shown]);
    expect(result.code).toBe(1);
    const summarized = await loadFiles([shown]);
    expect(summarized.errors.map((e) => e.line)).toEqual([18, 231, 302]);
    const report = JSON.parse(readFileSync(path.join(out, 'reduce.json'), 'utf8'));
    expect(report.errors).toEqual(summarized.errors);
    expect(report.files[0].skippedLines).toBe(3);
    expect(result.stderr.trim().split('\n')).toEqual(summarized.errors.map((e) => `${e.file}:${e.line}: ${e.message}`));
    const reduced = await summarize([path.join(out, 'loader-1.hdr')]);
    const expected = await summarize([shown]);
    for (const op of ['READ', 'WRITE', 'READ-FAILED', 'WRITE-FAILED']) expect(reduced.runs[0]!.ops[op]!.count, op).toBe(expected.runs[0]!.ops[op]!.count);
    expect(reduced.runs[0]!.totalOps).toBe(500 - 3);
  });

  it('keeps ns samples in ns, says so in the log, and the app reads them as ns', async () => {
    const runDir = path.join(dir, 'ns', 'run');
    mkdirSync(runDir, { recursive: true });
    const file = path.join(runDir, 'gen-1.csv');
    const next = random(5);
    const values: number[] = [];
    const rows = ['time,latency_ns,op'];
    for (let i = 0; i < 3000; i++) {
      const v = Math.floor(500 + next() * 3_000_000);
      values.push(v);
      rows.push(`${1_795_255_808 + i / 1000},${v},GET`);
    }
    writeFileSync(file, `${rows.join('\n')}\n`);
    const out = path.join(dir, 'ns', 'out');
    expect((await run(['--out', out, file])).code).toBe(0);
    const log = readFileSync(path.join(out, 'gen-1-ns.hdr'), 'utf8');
    expect(log).toContain('#[Latency unit: ns]\n');
    const raw = await summarize([file]);
    const reduced = await summarize([path.join(out, 'gen-1-ns.hdr')]);
    const sorted = values.sort((a, b) => a - b);
    const r = raw.runs[0]!.ops.GET!;
    const l = reduced.runs[0]!.ops.GET!;
    expect(l.count).toBe(sorted.length);
    // Figures leave in µs: the log's p99 is the bucket top of the raw p99, in µs as the raw one.
    const exact = sorted[rank(99, sorted.length) - 1]!;
    expect(r.p99).toBeCloseTo(exact / 1000, 6);
    expect(l.p99).toBeCloseTo(bucketOf(exact, 3)[1] / 1000, 6);
  });

  it('refuses bad usage with exit code 2', async () => {
    expect((await run(['tests/fixtures/corpus/raw-csv-b/target-unthrottled/client1-raw.csv'])).code).toBe(2);
    expect((await run(['--out', dir, '--precision', '6', 'x.csv'])).code).toBe(2);
    expect((await run(['--out', dir, '--interval', '0', 'x.csv'])).code).toBe(2);
  });

  it(
    'reduces a file several times the heap in constant memory: four times the rows, the same memory',
    async () => {
      const maxrssFlag = 'data:text/javascript,process.on("exit",()=>process.stderr.write(`maxrss ${process.resourceUsage().maxRSS}\\n`))';
      /** Writes `rows` YCSB raw rows and reduces them in a 64 MB heap: the rows counted and the process's peak RSS (KB). */
      async function reduceRows(name: string, rows: number) {
        const runDir = path.join(dir, name, 'run');
        mkdirSync(runDir, { recursive: true });
        const file = path.join(runDir, 'client1-raw.csv');
        const perChunk = 100_000;
        const counts = { READ: 0, UPDATE: 0 };
        const fd = openSync(file, 'w');
        writeSync(fd, 'READ latency raw data: op, timestamp(ms), latency(us)\n');
        for (let start = 0; start < rows; start += perChunk) {
          const lines: string[] = [];
          for (let i = start; i < start + perChunk; i++) {
            const op = i % 10 < 7 ? 'READ' : 'UPDATE';
            counts[op]++;
            lines.push(`${op},${1_795_255_808_000 + Math.floor(i / 5)},${100 + ((i * 7919) % 50_000)}`);
          }
          writeSync(fd, `${lines.join('\n')}\n`);
        }
        closeSync(fd);
        const out = path.join(dir, name, 'out');
        const result = await run(['--out', out, file], ['--max-old-space-size=64', '--import', maxrssFlag]);
        expect(result.code, result.stderr).toBe(0);
        const report = JSON.parse(readFileSync(path.join(out, 'reduce.json'), 'utf8'));
        rmSync(file);
        return { counts, rows: report.files[0].rows, maxRssKb: Number(/maxrss (\d+)/.exec(result.stderr)?.[1]) };
      }
      // ~62 MB and ~250 MB of rows, both reduced in a 64 MB heap.
      const small = await reduceRows('quarter', 2_500_000);
      const large = await reduceRows('large', 10_000_000);
      expect(small.rows).toEqual(small.counts);
      expect(large.rows).toEqual(large.counts);
      // Node, tsx and the parser's buffers are the same whatever the file's size: 187 MB more input
      // may add at most a fifth of itself (here ~10 MB; the absolute peak varies with the machine,
      // 150 MB alone here and 207 MB on a busy CI run).
      expect(large.maxRssKb).toBeGreaterThan(0);
      expect(large.maxRssKb - small.maxRssKb).toBeLessThan(40 * 1024);
      expect(large.maxRssKb).toBeLessThan(250 * 1024);
    },
    600_000,
  );
});
