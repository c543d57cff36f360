/**
 * Benchmark of the core under Node (same parsers, same DuckDB-WASM build and SQL as the browser):
 * raw CSV ingest (rows/s, MB/s), HdrHistogram interval logs (histograms decoded and loaded per
 * second), merged percentiles over everything, and a re-query over a new time window.
 *
 *   npm run bench [-- --json] [--rows N] [--histograms N]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadPaths } from '../src/cli/load-paths.ts';
import { analyseLoaded } from '../src/engine/analyse.ts';
import { openNodeDb } from '../src/engine/node-db.ts';
import { summarizeRuns } from '../src/engine/summary.ts';
import { Store } from '../src/engine/store.ts';
import { groupIntoRuns } from '../src/model/grouping.ts';
import { writeHdrLogs, writeRawCsv } from './generate-data.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} needs a positive number`);
  return v;
}

const json = process.argv.includes('--json');
const rows = arg('--rows', 1_000_000);
const histograms = arg('--histograms', 12_000);
const work = mkdtempSync(path.join(tmpdir(), 'benchlens-bench-'));
const log = (s: string) => !json && console.log(s);

try {
  const csv = path.join(work, 'raw', 'run', 'client1-raw.csv');
  await import('node:fs').then((fs) => fs.mkdirSync(path.dirname(csv), { recursive: true }));
  await writeRawCsv(rows, csv);
  const mb = statSync(csv).size / 1e6;

  let t0 = performance.now();
  const rawLoaded = await loadPaths([path.dirname(csv)]);
  const rawParseS = (performance.now() - t0) / 1000;
  const rawDb = await openNodeDb();
  t0 = performance.now();
  const rawStore = new Store(rawDb);
  rawStore.addRuns(groupIntoRuns(rawLoaded.files));
  const rawInsertS = (performance.now() - t0) / 1000;
  t0 = performance.now();
  summarizeRuns(rawStore);
  const rawQueryMs = performance.now() - t0;
  const rawSeconds = rawParseS + rawInsertS;

  const clients = 12;
  const ops = ['READ', 'UPDATE', 'INSERT', 'SCAN'];
  const seconds = Math.max(1, Math.round(histograms / (clients * ops.length)));
  const hdrDir = path.join(work, 'hdr', 'run');
  const written = writeHdrLogs(clients, ops, seconds, hdrDir, 200);
  t0 = performance.now();
  const hdrLoaded = await loadPaths([hdrDir]);
  const hdrParseS = (performance.now() - t0) / 1000;
  const hdrDb = await openNodeDb();
  t0 = performance.now();
  const analysis = analyseLoaded(hdrDb, hdrLoaded);
  const hdrAnalyseS = (performance.now() - t0) / 1000;
  const run = analysis.runs[0];
  const store = new Store(await openNodeDb());
  store.addRuns(groupIntoRuns(hdrLoaded.files));
  const half = run?.durationS ? run.durationS / 2 : null;
  t0 = performance.now();
  summarizeRuns(store, { window: { fromS: half, toS: null } });
  const requeryMs = performance.now() - t0;

  const result = {
    machine: { node: process.version, cpus: (await import('node:os')).cpus().length },
    rawCsv: { rows, mb, seconds: rawSeconds, parseSeconds: rawParseS, insertSeconds: rawInsertS, rowsPerS: rows / rawSeconds, mbPerS: mb / rawSeconds, mergedPercentilesMs: rawQueryMs },
    hdr: { histograms: written, seconds: hdrParseS, histogramsPerS: written / hdrParseS, loadAndAnalyseSeconds: hdrAnalyseS },
    requery: { ms: requeryMs },
  };
  if (json) console.log(JSON.stringify(result, null, 2));
  else {
    log(`Node ${process.version}, DuckDB-WASM (same build as the browser), ${result.machine.cpus} cores`);
    log(`raw CSV   ${rows.toLocaleString('en-US')} rows (${mb.toFixed(0)} MB): parse ${rawParseS.toFixed(2)} s + load ${rawInsertS.toFixed(2)} s = ${(rows / rawSeconds).toFixed(0)} rows/s, ${(mb / rawSeconds).toFixed(1)} MB/s; merged percentiles ${rawQueryMs.toFixed(0)} ms`);
    log(`hdr logs  ${written.toLocaleString('en-US')} interval histograms: read+decoded ${hdrParseS.toFixed(2)} s = ${(written / hdrParseS).toFixed(0)} histograms/s; load + full analysis ${hdrAnalyseS.toFixed(2)} s`);
    log(`re-query  merged percentiles over a new time window: ${requeryMs.toFixed(0)} ms`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
