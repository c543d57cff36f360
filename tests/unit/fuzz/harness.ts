import { appendFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { afterAll, it } from 'vitest';
import type { FailedFile, FileOutcome, ReadOptions } from '../../../src/formats/read-file.ts';
import { HdrLayout } from '../../../src/model/hdr-layout.ts';
import { FORMAT_IDS, type FormatId, type LatencySeries, type ParsedFile } from '../../../src/model/types.ts';
import { sampleRecords } from '../../helpers/raw-samples.ts';

/**
 * Shared machinery of the fuzz suite: how many cases to run, a reader that runs `readFile` in a
 * worker so that a hang is reported instead of freezing the run, and the invariants every outcome
 * of every input must satisfy.
 *
 * FUZZ_RUNS sets the cases per property (CI keeps the default; `npm run fuzz` runs thousands).
 * FUZZ_SEED replays a run. FUZZ_STATS names a file that receives one JSON line per property run,
 * which scripts/fuzz.ts sums into cases per format.
 */

export const FUZZ_RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? '') || 10);
// CI (FUZZ_RUNS unset) runs one fixed seed so a red build can be replayed; the long campaign
// (`npm run fuzz`) explores with fresh seeds, and FUZZ_SEED replays any run.
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : process.env.FUZZ_RUNS ? undefined : 20261121;

/** A format module's id, or the byte layer under all of them. */
export type FormatTag = FormatId | 'input';

/** Cases of a property: FUZZ_RUNS × weight, at most `max` (for cases that each cost megabytes). */
export interface Runs {
  weight?: number;
  max?: number;
}

/** One property of the suite; failures are recorded for the campaign. */
export function fuzz<T>(format: FormatTag, name: string, arb: fc.Arbitrary<T>, predicate: (value: T) => Promise<void> | void, runs: Runs = {}): void {
  const numRuns = Math.min(runs.max ?? Infinity, Math.max(1, Math.round(FUZZ_RUNS * (runs.weight ?? 1))));
  it(
    name,
    async () => {
      const details = await fc.check(
        fc.asyncProperty(arb, async (value) => {
          await predicate(value);
        }),
        { numRuns, ...(SEED !== undefined ? { seed: SEED } : {}) },
      );
      const report = details.failed ? ((await fc.asyncDefaultReportMessage(details)) ?? 'failed') : null;
      if (process.env.FUZZ_STATS) {
        const line = { format, property: name, planned: numRuns, runs: details.numRuns, shrinks: details.numShrinks, failed: details.failed, seed: details.seed, report: report?.slice(0, 3000) ?? null };
        appendFileSync(process.env.FUZZ_STATS, `${JSON.stringify(line)}\n`);
      }
      if (report !== null) {
        // Counterexamples can hold megabyte strings: the error first, the seed and path (which replay it), then a clipped case.
        const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
        throw new Error(`${cause.slice(0, 3000)}\n--- FUZZ_SEED=${details.seed} (path ${details.counterexamplePath})\n${report.slice(0, 5000)}`);
      }
    },
    Math.max(60_000, numRuns * 400),
  );
}

// ---------------------------------------------------------------------------------------------
// Reading in a worker

export interface ReadCase {
  path: string;
  bytes: Uint8Array;
  /** Sizes of the chunks the bytes arrive in, cycled; empty = one chunk. */
  chunkSizes?: number[];
  options?: Pick<ReadOptions, 'format' | 'formatId'>;
  timeoutMs?: number;
}

export interface Reading {
  outcome: FileOutcome;
  ms: number;
}

interface Reply {
  id?: number;
  ready?: boolean;
  outcome?: FileOutcome;
  error?: { name: string; className: string; message: string; stack?: string };
  ms?: number;
}

class Sandbox {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private readonly waiting = new Map<number, { resolve: (r: Reading) => void; reject: (e: Error) => void }>();
  private nextId = 1;

  private start(): Promise<void> {
    if (this.ready) return this.ready;
    // The heap limit turns a parser's runaway allocation into a reported failure, not a dead test run.
    const worker = new Worker(new URL('./read-worker.mjs', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: 1024 } });
    this.worker = worker;
    this.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (m: Reply) => {
        if (m.ready) return resolve();
        const w = m.id !== undefined ? this.waiting.get(m.id) : undefined;
        if (!w || m.id === undefined) return;
        this.waiting.delete(m.id);
        if (m.error) {
          const e = new Error(`readFile threw ${m.error.className}: ${m.error.message}\n${m.error.stack ?? ''}`);
          e.name = m.error.className;
          w.reject(e);
        } else w.resolve({ outcome: m.outcome as FileOutcome, ms: m.ms ?? 0 });
      });
      const crash = (e: Error) => {
        reject(e);
        for (const w of this.waiting.values()) w.reject(new Error(`the reading worker died: ${e.message}`));
        this.waiting.clear();
        this.worker = null;
        this.ready = null;
      };
      worker.on('error', crash);
      worker.on('exit', (code) => {
        if (this.worker === worker) crash(new Error(`exit code ${code}`));
      });
    });
    return this.ready;
  }

  async read(c: ReadCase): Promise<Reading> {
    await this.start();
    const worker = this.worker as Worker;
    const id = this.nextId++;
    const timeoutMs = c.timeoutMs ?? 5000 + c.bytes.length / 1024;
    return new Promise<Reading>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        // terminate() is the only way to stop a synchronous loop; the next read starts a fresh worker.
        this.worker = null;
        this.ready = null;
        void worker.terminate();
        reject(new Error(`reading ${c.path} (${c.bytes.length} bytes) did not finish within ${timeoutMs} ms: an endless loop or super-linear parsing`));
      }, timeoutMs);
      this.waiting.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      worker.postMessage({ id, path: c.path, bytes: c.bytes, chunkSizes: c.chunkSizes ?? [], options: c.options ?? {} });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.ready = null;
    if (w) await w.terminate();
  }
}

/** A worker-backed reader for one test file, stopped after its tests. */
export function sandboxReader(): (c: ReadCase) => Promise<Reading> {
  const sandbox = new Sandbox();
  afterAll(() => sandbox.close());
  return (c) => sandbox.read(c);
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

// ---------------------------------------------------------------------------------------------
// Invariants

export function isFailedOutcome(o: FileOutcome): o is FailedFile {
  return 'failed' in o;
}

export function parsedOf(o: FileOutcome): ParsedFile {
  if (isFailedOutcome(o)) throw new Error(`expected a parse, got a failure: ${o.errors.map((e) => e.message).join('; ')}`);
  return o;
}

class InvariantError extends Error {}

function must(cond: boolean, message: string): asserts cond {
  if (!cond) throw new InvariantError(message);
}

const finiteOrNull = (v: unknown) => v === null || (typeof v === 'number' && Number.isFinite(v));
const count = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
/** readFile's catch-all; it must never be reached, a parser bug hides behind it. */
const INTERNAL = /internal error/;
/** IssueLog's cap, its "further errors" line, and what readFile itself appends. */
const MAX_ERRORS = 100 + 1 + 1;

/** Everything a file keeps in memory, counted: buckets separately (they may legitimately exceed lines). */
export function sizeOf(f: ParsedFile): { buckets: number; items: number } {
  let buckets = 0;
  let items = (f.status?.length ?? 0) + (f.commandLine ? 1 + f.commandLine.workloadFiles.length + Object.keys(f.commandLine.properties).length : 0);
  for (const p of f.status ?? []) items += Object.keys(p.ops).length;
  for (const s of f.series) {
    items++;
    if (s.kind === 'histogram') {
      items += s.intervals.length;
      for (const i of s.intervals) buckets += i.histogram.count.length;
    } else if (s.kind === 'raw') items += s.counts.value.length;
    else if (s.kind === 'distribution') items += s.rows.length;
    else if (s.kind === 'intervals') for (const r of s.rows) items += 1 + Object.keys(r.percentiles).length;
    else items += Object.keys(s.percentiles).length + Object.keys(s.returns).length;
  }
  return { buckets, items };
}

/** Per-file bucket budget of the HdrHistogram log parser (src/formats/hdr-log.ts). */
export const bucketBudget = (chars: number) => (1 << 18) + 8 * chars;

function checkSeries(s: LatencySeries, where: string): void {
  must(typeof s.op === 'string' && s.op.trim().length > 0, `${where}: empty op name`);
  must(['ns', 'us', 'ms', 's'].includes(s.unit), `${where}: unit ${s.unit}`);
  if (s.kind === 'histogram') {
    const layout = new HdrLayout(s.precision);
    for (const i of s.intervals) {
      must(Number.isSafeInteger(i.startUs) && Number.isSafeInteger(i.lengthUs) && i.lengthUs >= 0, `${where}: interval start/length ${i.startUs}/${i.lengthUs} at line ${i.line}`);
      const h = i.histogram;
      must(h.index.length === h.count.length, `${where}: bucket arrays differ in length`);
      let total = 0;
      for (let j = 0; j < h.index.length; j++) {
        const index = h.index[j] as number;
        must(count(h.count[j]) && (h.count[j] as number) > 0, `${where}: bucket count ${h.count[j]}`);
        must(j === 0 || index > (h.index[j - 1] as number), `${where}: buckets out of order`);
        must(index >= 0 && index < layout.exactIndexLimit, `${where}: ${index} is not a bucket index`);
        total += h.count[j] as number;
      }
      must(total === h.totalCount && count(total), `${where}: totalCount ${h.totalCount} ≠ Σ ${total}`);
    }
  } else if (s.kind === 'raw') {
    const { secs, starts, value, n } = s.counts;
    must(value.length === n.length && starts.length === secs.length + 1 && starts[0] === 0 && starts[secs.length] === value.length, `${where}: count columns differ in length`);
    for (let k = 0; k < secs.length; k++) {
      const t = secs[k] as number;
      must(Number.isNaN(t) ? k === secs.length - 1 : Number.isInteger(t) && Math.abs(t) * 1e6 <= Number.MAX_SAFE_INTEGER, `${where}: second ${t}`);
      must(k === 0 || t > (secs[k - 1] as number) || Number.isNaN(t), `${where}: second ${t} after ${secs[k - 1]}`);
      must((starts[k + 1] as number) > (starts[k] as number), `${where}: second ${t} without cells`);
    }
    let total = 0;
    for (let j = 0; j < value.length; j++) {
      must(count(value[j]), `${where}: latency ${value[j]}`);
      must(count(n[j]) && (n[j] as number) > 0, `${where}: count ${n[j]}`);
      total += n[j] as number;
    }
    must(total === s.samples, `${where}: samples ${s.samples} ≠ Σ ${total}`);
    // The engine keeps times as integer µs below 2^53.
    for (const t of [s.firstMs, s.lastMs]) must(t === null || (Number.isFinite(t) && Math.abs(t) * 1000 <= Number.MAX_SAFE_INTEGER), `${where}: time ${t}`);
    must((s.firstMs === null) === (s.lastMs === null) && (s.firstMs === null || s.firstMs <= (s.lastMs as number)), `${where}: extent ${s.firstMs}..${s.lastMs}`);
  } else if (s.kind === 'distribution') {
    let prev: (typeof s.rows)[number] | undefined;
    for (const r of s.rows) {
      must(Number.isFinite(r.value) && r.value >= 0 && r.percentile >= 0 && r.percentile <= 1 && count(r.totalCount), `${where}: row ${JSON.stringify(r)}`);
      must(!prev || (r.value >= prev.value && r.percentile >= prev.percentile && r.totalCount >= prev.totalCount), `${where}: rows go backwards`);
      prev = r;
    }
    must(s.totalCount === prev?.totalCount, `${where}: totalCount ${s.totalCount}`);
    // Latencies and their spread are never negative; a footer saying so is damaged.
    must([s.mean, s.stddev, s.max].every((v) => v === null || (Number.isFinite(v) && v >= 0)), `${where}: footer figures ${s.mean}/${s.stddev}/${s.max}`);
  } else if (s.kind === 'intervals') {
    for (const r of s.rows) {
      const at = `${where}: interval at line ${r.line}`;
      must(Number.isSafeInteger(r.startUs) && Number.isSafeInteger(r.lengthUs) && r.lengthUs >= 0, `${at}: start/length ${r.startUs}/${r.lengthUs}`);
      must(count(r.count), `${at}: count ${r.count}`);
      // Latencies and their spread are never negative.
      must([r.mean, r.stddev, r.min, r.max].every((v) => v === null || (Number.isFinite(v) && v >= 0)), `${at}: mean/stddev/min/max`);
      must(Object.values(r.percentiles).every((v) => Number.isFinite(v) && v >= 0), `${at}: percentiles`);
    }
  } else {
    must(count(s.count), `${where}: count ${s.count}`);
    must(finiteOrNull(s.mean) && finiteOrNull(s.min) && finiteOrNull(s.max), `${where}: mean/min/max`);
    must(Object.values(s.percentiles).every((v) => Number.isFinite(v)), `${where}: percentiles`);
    must(Object.values(s.returns).every(count), `${where}: returns`);
  }
}

export interface CheckOptions {
  /** Characters of decoded text (gzip: after inflating); bounds what may be kept. */
  textChars: number;
}

/**
 * What must hold for any input whatsoever: a parse or a failure that names the file, errors with
 * valid line numbers, no internal error, well-formed series, and kept data bounded by the input.
 */
export function checkOutcome(path: string, outcome: FileOutcome, { textChars }: CheckOptions): void {
  must(outcome.path === path, `outcome path ${outcome.path}`);
  const errors = outcome.errors;
  must(Array.isArray(errors) && errors.length <= MAX_ERRORS, `${errors.length} errors`);
  for (const e of errors) {
    must(e.file === path, `error names ${e.file}, not ${path}`);
    must(typeof e.message === 'string' && e.message.length > 0 && e.message.length <= 600, `error message of ${e.message.length} chars`);
    must(!INTERNAL.test(e.message), `internal error: ${e.message}`);
    must(e.field === undefined || (typeof e.field === 'string' && e.field.length <= 600), 'field name');
  }
  if (isFailedOutcome(outcome)) {
    must(outcome.failed === true && errors.length >= 1 && errors.every((e) => e.line === 0), 'a failed file has file-level errors only');
    return;
  }
  must((FORMAT_IDS as readonly string[]).includes(outcome.format), `format ${outcome.format}`);
  must(count(outcome.lines) && count(outcome.skippedLines) && outcome.skippedLines <= outcome.lines, `lines ${outcome.lines}, skipped ${outcome.skippedLines}`);
  for (const e of errors) must(Number.isInteger(e.line) && e.line >= 0 && e.line <= outcome.lines, `error at line ${e.line} of ${outcome.lines}`);
  outcome.series.forEach((s, i) => checkSeries(s, `series ${i} (${s.op})`));
  for (const p of outcome.status ?? []) {
    must(Number.isSafeInteger(p.elapsedS) && count(p.operations) && finiteOrNull(p.currentOpsPerS) && finiteOrNull(p.localTimeMs), `status point ${JSON.stringify(p).slice(0, 200)}`);
    for (const f of Object.values(p.ops)) {
      must(count(f.count) && finiteOrNull(f.max) && finiteOrNull(f.min) && finiteOrNull(f.avg) && Object.values(f.percentiles).every(Number.isFinite), 'status figures');
    }
  }
  if (outcome.overall) must(finiteOrNull(outcome.overall.runTimeMs) && finiteOrNull(outcome.overall.throughputOpsPerS), 'overall');
  const { buckets, items } = sizeOf(outcome);
  // Every kept sample, row, point or figure consumed at least one character of its own.
  must(items <= textChars + 1, `${items} items kept from ${textChars} characters`);
  must(buckets <= bucketBudget(textChars), `${buckets} buckets kept from ${textChars} characters`);
}

/**
 * Canonical records of a parse, one string per sample / interval / row / figure, for comparing two
 * parses regardless of how the data was split into objects.
 */
export function records(o: FileOutcome): string[] {
  if (isFailedOutcome(o)) return [];
  const out: string[] = [];
  for (const s of o.series) {
    const id = `${s.client ?? ''}|${s.op}|${s.unit}`;
    if (s.kind === 'histogram') {
      for (const i of s.intervals) out.push(`H|${id}|${s.timeBase}|${i.startUs}|${i.lengthUs}|${Array.from(i.histogram.index).join()}|${Array.from(i.histogram.count).join()}`);
    } else if (s.kind === 'raw') {
      for (const r of sampleRecords(s)) out.push(`R|${id}|${r}`);
    } else if (s.kind === 'distribution') {
      for (const r of s.rows) out.push(`D|${id}|${r.value}|${r.percentile}|${r.totalCount}`);
      out.push(`DF|${id}|${s.mean}|${s.stddev}|${s.max}|${JSON.stringify(s.precision)}`);
    } else if (s.kind === 'intervals') {
      for (const r of s.rows) out.push(`I|${id}|${s.timeBase}|${r.startUs}|${r.lengthUs}|${r.count}|${r.mean}|${r.stddev}|${r.min}|${r.max}|${JSON.stringify(r.percentiles)}`);
    } else {
      out.push(`S|${id}|${s.count}|${s.mean}|${s.stddev ?? null}|${s.min}|${s.max}`);
      for (const [k, v] of Object.entries(s.percentiles)) out.push(`SP|${id}|${k}|${v}`);
      for (const [k, v] of Object.entries(s.returns)) out.push(`SR|${id}|${k}|${v}`);
    }
  }
  for (const p of o.status ?? []) out.push(`T|${JSON.stringify(p)}`);
  if (o.commandLine) out.push(`C|${JSON.stringify(o.commandLine)}`);
  if (o.overall) out.push(`O|${JSON.stringify(o.overall)}`);
  if (o.clientHint !== undefined) out.push(`CH|${o.clientHint}`);
  if (o.producer) out.push(`P|${JSON.stringify(o.producer)}`);
  return out;
}

/** Records in one list and not the other, counted with multiplicity. */
export function recordDifference(a: string[], b: string[]): { onlyA: string[]; onlyB: string[] } {
  const counts = new Map<string, number>();
  for (const r of a) counts.set(r, (counts.get(r) ?? 0) + 1);
  const onlyB: string[] = [];
  for (const r of b) {
    const n = counts.get(r) ?? 0;
    if (n > 0) counts.set(r, n - 1);
    else onlyB.push(r);
  }
  const onlyA = [...counts].flatMap(([r, n]) => Array<string>(n).fill(r));
  return { onlyA, onlyB };
}

export type Reader = ReturnType<typeof sandboxReader>;
