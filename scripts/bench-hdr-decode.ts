/**
 * Decode throughput of src/model/hdr-codec.ts on every histogram of the test corpus
 * (`npx tsx scripts/bench-hdr-decode.ts [seconds]`). Prints histograms decoded per second, for the
 * logs as YCSB wrote them (V1: fixed 8-byte counts, a large inflated payload) and for the same
 * histograms re-encoded as V2 (LEB128 counts, as HdrHistogram 2.2.2 writes them).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeHistogram, decodeIndexedHistogram, encodeHistogramV2Compressed } from '../src/model/hdr-codec.ts';

const corpus = join(import.meta.dirname, '..', 'tests', 'fixtures', 'corpus');

function logFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return logFiles(path);
    return /\.(hdr|hlog)$/.test(entry.name) ? [path] : [];
  });
}

const blobs: string[] = [];
for (const file of logFiles(corpus)) {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '' || line.startsWith('#') || line.startsWith('"')) continue;
    blobs.push(line.slice(line.lastIndexOf(',') + 1));
  }
}
const values = blobs.reduce((sum, blob) => sum + decodeIndexedHistogram(blob).histogram.totalCount, 0);
console.log(`${blobs.length} histograms, ${(values / blobs.length).toFixed(0)} values each on average`);

const seconds = Number(process.argv[2] ?? 5);

function bench(label: string, set: string[]): void {
  // Warm-up passes so that the optimising compiler has seen the hot loops before timing starts.
  for (let i = 0; i < 3; i++) for (const blob of set) decodeIndexedHistogram(blob);
  let decoded = 0;
  let buckets = 0;
  const start = performance.now();
  // CPU time as well as wall time: on a shared machine the wall clock also counts other processes.
  const cpuStart = process.cpuUsage().user;
  let elapsed = 0;
  while (elapsed < seconds * 1000) {
    for (const blob of set) buckets += decodeIndexedHistogram(blob).histogram.count.length;
    decoded += set.length;
    elapsed = performance.now() - start;
  }
  const cpuMs = (process.cpuUsage().user - cpuStart) / 1000;
  console.log(
    `${label}: ${Math.round(decoded / (elapsed / 1000))} histograms/s wall, ${Math.round(decoded / (cpuMs / 1000))} per CPU-second ` +
      `(${((elapsed * 1000) / decoded).toFixed(1)} µs each, ${(buckets / decoded).toFixed(0)} non-empty buckets each)`,
  );
}

bench('as written', blobs);
bench('re-encoded V2', blobs.map((blob) => encodeHistogramV2Compressed(decodeHistogram(blob))));
