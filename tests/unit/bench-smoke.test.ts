import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';

/** A port nobody listens on, so that the smoke run never meets a bench or preview already running. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('npx', ['tsx', 'scripts/bench.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const positive = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v > 0;

// Smoke only: tiny sizes, no timing assertions (the full-size run is `npm run bench`, not CI).
describe.skipIf(!existsSync('/usr/bin/chromium'))('npm run bench -- --json (tiny sizes, in Chromium)', () => {
  it('prints one document with every figure, the browser p99 equal to native DuckDB', { timeout: 240_000 }, async () => {
    const port = await freePort();
    const { status, stdout, stderr } = await run(['--json', '--rows', '20000', '--histograms', '500', '--app-rows', '20000', '--app-seconds', '30', '--http-rows', '3000', '--http-reps', '1', '--port', String(port)]);
    expect(status, stderr).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.rawCsv.rows).toBe(20000);
    for (const v of [doc.rawCsv.seconds, doc.rawCsv.rowsPerS, doc.rawCsv.mbPerS, doc.hdr.histograms, doc.hdr.seconds, doc.hdr.histogramsPerS, doc.requery.ms, doc.firstChart.ms, doc.peakMemoryMB]) {
      expect(positive(v), JSON.stringify(doc)).toBe(true);
    }
    expect(doc.hdr.histograms).toBeGreaterThanOrEqual(480);
    expect(doc.hdr.decodeOnly.histograms).toBe(doc.hdr.histograms);
    // .ci/run installs @duckdb/node-api, so CI always compares with native DuckDB.
    if (nativeAvailable()) {
      expect(positive(doc.rawCsv.nativeSeconds) && positive(doc.rawCsv.nativeRatio)).toBe(true);
      expect(doc.rawCsv.p99Match).toBe(true);
    }
    expect(Object.keys(doc.rawCsv.p99).sort()).toEqual(['READ', 'UPDATE']);
    // The user's time on the built app: every case timed to its final figures, equal to native's.
    expect(doc.app.length).toBe(6);
    for (const a of doc.app) {
      // The engine harness times the generated sets; the real-histogram set is timed in the app only.
      const engine = /real YCSB/.test(a.case) ? a.engineSeconds === null : positive(a.engineSeconds);
      expect(positive(a.appSeconds) && engine && positive(a.peakMemoryMB), JSON.stringify(a)).toBe(true);
      if (nativeAvailable() && a.rows !== undefined) expect(a.figuresMatch, JSON.stringify(a)).toBe(true);
    }
    expect(positive(doc.coldStart.firstPaintMs) && positive(doc.coldStart.sampleSummaryMs)).toBe(true);
    // The HTTP tools' per-request files: each timed on the app, its figures equal to native's.
    expect(doc.http.cases.map((c: { tool: string }) => c.tool)).toEqual(['jmeter', 'k6', 'gatling', 'vegeta']);
    for (const c of doc.http.cases) {
      expect(positive(c.appSeconds[0]) && positive(c.mbPerCoreSecond), JSON.stringify(c)).toBe(true);
      if (nativeAvailable()) expect(c.figuresMatch && positive(c.ratios[0]), JSON.stringify(c)).toBe(true);
    }
    expect(positive(doc.http.ycsbRawMbPerCoreSecond)).toBe(true);
    // The HdrHistogram Java reference runs where Java and Maven are, and gives the app's figures,
    // on the generated logs and on those of real YCSB 0.17 histograms.
    const hdr = doc.app.filter((a: { histograms?: number }) => a.histograms !== undefined);
    expect(hdr.length).toBe(2);
    for (const a of hdr) {
      if (doc.java.missing === undefined) expect(positive(a.javaSeconds) && positive(a.javaRatio) && a.javaFiguresMatch, JSON.stringify(a)).toBe(true);
      else expect(doc.java.missing, JSON.stringify(doc.java)).toMatch(/\S/);
    }
    // Counted, not judged: the page's responsiveness during ingest is a figure of the full run.
    for (const t of [doc.rawCsv.ingestLongTasks, doc.hdr.ingestLongTasks]) {
      expect(Number.isInteger(t.count) && t.count >= 0 && t.longestMs >= (t.count > 0 ? 50 : 0), JSON.stringify(t)).toBe(true);
    }
  });
});

function nativeAvailable(): boolean {
  try {
    createRequire(import.meta.url).resolve('@duckdb/node-api');
    return true;
  } catch {
    return false;
  }
}
