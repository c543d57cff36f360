/**
 * Browser benchmark: the built app's engine worker and chart in headless Chromium (Debian's
 * /usr/bin/chromium through Playwright; never a downloaded browser), on data generated here:
 * raw CSV ingest (rows/s, MB/s), HdrHistogram interval logs in YCSB 0.17's V1 encoding
 * (histograms decoded per second), merged p99 over everything, a re-query over another time
 * window, time to first chart and peak memory. The same CSV load and p99 query run in native
 * DuckDB (python duckdb, the duckdb CLI, or @duckdb/node-api, the first available) for a
 * browser ÷ native ratio.
 *
 *   npm run bench [-- --json] [--rows N[,N…]] [--histograms N] [--port P]
 *
 * The user's time (scripts/bench-app.ts): the built app itself, files handed to its file input with
 * the sample data on screen, or a #files= link on a cold page, to the final figures in the summary
 * table, on one-hour wide-spread raw runs (one file and four), the narrow run and the HdrHistogram
 * set, beside native DuckDB answering the same question (counts, nearest-rank p50/p99/p99.9); and
 * the cold start (first paint, sample summary on screen).
 *
 *   npm run bench [-- --json] [--app-rows N] [--app-seconds S]
 *
 * The HTTP load tools' per-request files (scripts/bench-http.ts): JMeter's CSV JTL, k6's CSV
 * output, Gatling's simulation.log and vegeta's CSV, generated at each size, handed to the app
 * and answered natively, back to back, several times; `--only http` runs them alone.
 *
 *   npm run bench [-- --only http] [--http-tools jmeter,k6,gatling,vegeta] [--http-rows N[,N…]] [--http-reps R] [--peers]
 *
 * `--peers` adds, once per JMeter and Gatling case, the tool's own report generator on the same
 * file (JMeter's `-g` dashboard, Gatling's `-ro` reports, from Maven Central: ./bench-peers.ts).
 *
 * Peak memory is the Chromium renderer's peak resident set (Linux VmHWM, reset before each phase;
 * renderer pids from CDP SystemInfo.getProcessInfo): the page, the engine worker and DuckDB's
 * WebAssembly memory live in that process.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import type { BenchResult } from '../src/bench/main.tsx';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.ts';
import { appEarlyDrop, appQuery, appWithFiles, appWithLink, coldStart, vmHwmMB, type AppMeasurement, type ShownFigures } from './bench-app.ts';
import { javaReference, type JavaRun } from './bench-java.ts';
import { httpPeers } from './bench-peers.ts';
import { writeHdrLogs, writeRawCsv, writeRealHdrLogs, writeRealisticRawRun, writeRequestCsv, type HttpTool } from './generate-data.ts';
import { FIGURES_SQL, httpToolCases, parseCpuSeconds, printHttpCases } from './bench-http.ts';

/** The part of @duckdb/node-api the native reference uses. */
interface NodeApi {
  version(): string;
  DuckDBInstance: {
    create(path: string): Promise<{
      connect(): Promise<{ run(sql: string): Promise<unknown>; runAndReadAll(sql: string): Promise<{ getRows(): unknown[][] }>; closeSync(): void }>;
      closeSync(): void;
    }>;
  };
}

const BENCH_CHROMIUM_ARGS = [
  ...CHROMIUM_ARGS,
  // measureUserAgentSpecificMemory answers at once instead of at the next GC (up to 20 s later).
  '--enable-blink-features=ForceEagerMeasureMemory',
];
const HDR_CLIENTS = 12;
/** Real YCSB 0.17 interval logs, re-timed into a long run for the real-histogram case. */
const CORPUS_HDR = 'tests/fixtures/corpus';
const HDR_OPS = ['READ', 'UPDATE', 'INSERT', 'SCAN'];
/** Values per interval histogram: YCSB's 1-s intervals at ~1,000 ops/s per client and operation. */
const HDR_VALUES_PER_S = 1000;

function usage(message: string): never {
  console.error(`${message}\nusage: npm run bench -- [--json] [--rows N[,N…]] [--histograms N] [--app-rows N] [--app-seconds S] [--port P] [--only requests|http|raw-run|hdr] [--app-reps R] [--hdr-reps R] [--http-tools jmeter,k6,gatling,vegeta] [--http-rows N[,N…]] [--http-reps R] [--peers]`);
  process.exit(2);
}

function option(name: string): string | null {
  const i = process.argv.indexOf(name);
  if (i < 0) return null;
  const v = process.argv[i + 1];
  if (v === undefined) usage(`${name} needs a value`);
  return v;
}

function positive(name: string, text: string): number {
  const v = Number(text);
  if (!Number.isSafeInteger(v) || v <= 0) usage(`${name} needs positive integers, not "${text}"`);
  return v;
}

const json = process.argv.includes('--json');
const rowSizes = (option('--rows') ?? '1000000,5000000,20000000').split(',').map((t) => positive('--rows', t));
const histograms = positive('--histograms', option('--histograms') ?? '170000');
const port = positive('--port', option('--port') ?? '4195');
/** The user's-time cases: a run of this many raw rows over this many seconds (the issue's one-hour case). */
const appRows = positive('--app-rows', option('--app-rows') ?? '20000000');
const appRunSeconds = positive('--app-seconds', option('--app-seconds') ?? '3600');
const appReps = positive('--app-reps', option('--app-reps') ?? '3');
/** Rows of the raw per-request CSV the `requests` SQL case queries. */
const queryRows = positive('--query-rows', option('--query-rows') ?? '20000000');
const log = (s: string): void => {
  if (json) console.error(s);
  else console.log(s);
};

// ---- Native DuckDB reference -----------------------------------------------------------------

const COLUMNS = "columns={'op': 'VARCHAR', 'ts': 'BIGINT', 'latency': 'BIGINT'}";
/** YCSB's per-block header lines do not parse as rows of these columns; they are skipped. */
const loadSql = (files: readonly string[]): string =>
  `CREATE TABLE t AS SELECT * FROM read_csv([${files.map((f) => `'${f.replace(/'/g, "''")}'`).join(', ')}], ${COLUMNS}, header=false, ignore_errors=true)`;
/** Nearest-rank p99 per operation from counts, as the app computes it. */
const P99_SQL = `WITH c AS (SELECT op, latency, count(*) AS n FROM t GROUP BY op, latency),
r AS (SELECT op, latency, sum(n) OVER (PARTITION BY op ORDER BY latency) AS cum, sum(n) OVER (PARTITION BY op) AS total FROM c)
SELECT op, min(latency)::BIGINT AS p99 FROM r WHERE cum >= ceil(total * 0.99) GROUP BY op ORDER BY op`;
interface NativeRun {
  loadSeconds: number | null;
  querySeconds: number | null;
  seconds: number;
  /** The query's rows, values as numbers (op names as strings). */
  rows: (string | number)[][];
}

interface Native {
  engine: string;
  /** Loads `files` into a fresh database (by `load`, YCSB raw rows by default) and runs `query` on them, timed. */
  run(files: readonly string[], query: string, load?: string): Promise<NativeRun>;
}

const cellValue = (v: unknown): string | number => (typeof v === 'string' ? v : Number(v));
const p99Of = (r: NativeRun): Record<string, number> => Object.fromEntries(r.rows.map(([op, v]) => [String(op), Number(v)]));

const PYTHON_SCRIPT = `
import duckdb, json, sys, time
con = duckdb.connect()
# A session setting: DuckDB 2 refuses it as a connect-time global option. The answer is read from
# the last line anyway, should a version print a progress bar regardless.
con.execute("SET enable_progress_bar = false")
t = time.perf_counter(); con.execute(sys.argv[1]); load = time.perf_counter() - t
t = time.perf_counter(); rows = con.execute(sys.argv[2]).fetchall(); query = time.perf_counter() - t
print(json.dumps({"engine": "python duckdb " + duckdb.__version__, "load": load, "query": query, "rows": [list(r) for r in rows]}, default=str))
`;

async function findNative(): Promise<Native | null> {
  if (spawnSync('python3', ['-c', 'import duckdb'], { stdio: 'ignore' }).status === 0) {
    const version = spawnSync('python3', ['-c', 'import duckdb; print(duckdb.__version__)'], { encoding: 'utf8' }).stdout.trim();
    return {
      engine: `python duckdb ${version}`,
      async run(files, query, load = loadSql(files)) {
        const r = spawnSync('python3', ['-c', PYTHON_SCRIPT, load, query], { encoding: 'utf8', maxBuffer: 1 << 24 });
        if (r.status !== 0) throw new Error(`python duckdb failed: ${r.stderr}`);
        // The answer is the last line: anything DuckDB prints before it (a progress bar, where a
        // version ignores the setting) is not JSON.
        const last = r.stdout.trim().split('\n').pop() ?? '';
        const out = JSON.parse(last) as { load: number; query: number; rows: unknown[][] };
        return { loadSeconds: out.load, querySeconds: out.query, seconds: out.load + out.query, rows: out.rows.map((row) => row.map(cellValue)) };
      },
    };
  }
  const cli = spawnSync('duckdb', ['--version'], { encoding: 'utf8' });
  if (cli.status === 0) {
    return {
      engine: `duckdb CLI ${cli.stdout.trim()}`,
      async run(files, query, load = loadSql(files)) {
        // One process for load and query: its wall time (start-up included, ~10 ms) is the figure.
        const t0 = performance.now();
        const r = spawnSync('duckdb', ['-json', ':memory:', '-c', `${load}; ${query};`], { encoding: 'utf8', maxBuffer: 1 << 24 });
        const seconds = (performance.now() - t0) / 1000;
        if (r.status !== 0) throw new Error(`duckdb CLI failed: ${r.stderr}`);
        const rows = JSON.parse(r.stdout.slice(r.stdout.indexOf('['))) as Record<string, unknown>[];
        return { loadSeconds: null, querySeconds: null, seconds, rows: rows.map((row) => Object.values(row).map(cellValue)) };
      },
    };
  }
  try {
    // Not a dependency: its lock entries would name every platform's binary, which a registry
    // mirror may lack. `npm install --no-save @duckdb/node-api` provides it (.ci/run does).
    const nodeApi = '@duckdb/node-api';
    const { DuckDBInstance, version } = (await import(/* @vite-ignore */ nodeApi)) as NodeApi;
    return {
      engine: `@duckdb/node-api (DuckDB ${version()})`,
      async run(files, query, load = loadSql(files)) {
        const instance = await DuckDBInstance.create(':memory:');
        const con = await instance.connect();
        try {
          let t = performance.now();
          await con.run(load);
          const loadSeconds = (performance.now() - t) / 1000;
          t = performance.now();
          const rows = (await con.runAndReadAll(query)).getRows();
          const querySeconds = (performance.now() - t) / 1000;
          return { loadSeconds, querySeconds, seconds: loadSeconds + querySeconds, rows: rows.map((row) => row.map(cellValue)) };
        } finally {
          con.closeSync();
          instance.closeSync();
        }
      },
    };
  } catch {
    return null;
  }
}

// ---- The app in Chromium -----------------------------------------------------------------------

interface BrowserRun {
  result: BenchResult;
  startupMs: number;
  peakMemoryMB: number | null;
  /** performance.measureUserAgentSpecificMemory at the end of the phase (current, not peak). */
  pageMemoryMB: number | null;
  /** Decode alone, on the page's main thread (same V8 as the worker): histograms, ms, renderer CPU seconds. */
  decodeOnly: { histograms: number; ms: number; cpuSeconds: number } | null;
}

/** Chromium's renderer processes: their pids and CPU seconds used so far. */
async function renderers(browser: Browser): Promise<{ pids: number[]; cpuSeconds: number }> {
  const cdp = await browser.newBrowserCDPSession();
  const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number; cpuTime: number }[] };
  await cdp.detach();
  const list = processInfo.filter((p) => p.type === 'renderer');
  return { pids: list.map((p) => p.id), cpuSeconds: list.reduce((sum, p) => sum + p.cpuTime, 0) };
}

async function inBrowser(baseUrl: string, files: string[], decodeOnly: boolean): Promise<BrowserRun & { chromium: string }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: BENCH_CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${baseUrl}/bench.html`);
    await page.waitForFunction(() => window.benchReady !== undefined || window.benchError !== undefined, null, { timeout: 60_000 });
    const startupMs = await page.evaluate(() => {
      if (window.benchError) throw new Error(window.benchError);
      return window.benchReady ?? 0;
    });
    const { pids } = await renderers(browser);
    // Peak RSS from here on: writing 5 to clear_refs resets VmHWM (Linux ≥ 4.0).
    for (const pid of pids) {
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, '5');
      } catch {
        /* not ours to reset: the peak then includes start-up */
      }
    }
    await page.setInputFiles('input[type=file]', files);
    await page.waitForFunction(() => window.benchResult !== undefined || window.benchError !== undefined, null, { timeout: 0, polling: 250 });
    const result = await page.evaluate(() => {
      if (window.benchError) throw new Error(window.benchError);
      return window.benchResult as BenchResult;
    });
    const peaks = pids.map(vmHwmMB).filter((v): v is number => v !== null);
    const pageMemoryMB = await page.evaluate(async () => {
      const measure = (performance as unknown as { measureUserAgentSpecificMemory?: () => Promise<{ bytes: number }> }).measureUserAgentSpecificMemory;
      if (!crossOriginIsolated || !measure) return null;
      return (await measure.call(performance)).bytes / 2 ** 20;
    });
    let decoded: BrowserRun['decodeOnly'] = null;
    if (decodeOnly) {
      // Renderer CPU time as well as wall time: on a shared machine the wall clock counts other processes too.
      await page.evaluate(() => window.benchPrepare?.());
      const before = (await renderers(browser)).cpuSeconds;
      const r = await page.evaluate(() => window.benchDecode?.() ?? null);
      if (r) decoded = { ...r, cpuSeconds: (await renderers(browser)).cpuSeconds - before };
    }
    if (pageErrors.length) throw new Error(`page errors: ${pageErrors.join('; ')}`);
    return { result, startupMs, peakMemoryMB: peaks.length ? Math.max(...peaks) : null, pageMemoryMB, decodeOnly: decoded, chromium: browser.version() };
  } finally {
    await browser.close();
  }
}

function portFree(p: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(p, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

async function serve(dist: string): Promise<{ url: string; stop: () => void }> {
  // Another server on the port would answer our requests with its own pages.
  if (!(await portFree(port))) throw new Error(`port ${port} is in use: choose another with --port`);
  const server = spawn('npx', ['vite', 'preview', '--outDir', dist, '--port', String(port), '--strictPort', '--host', '127.0.0.1'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
    // Links to the generated data go to it as to a static host (vite.config.ts, benchData).
    env: { ...process.env, BENCHLENS_BENCH_DATA: path.join(dist, 'bench-data') },
  });
  const stop = (): void => {
    try {
      if (server.pid) process.kill(-server.pid);
    } catch {
      /* already gone */
    }
  };
  process.on('exit', stop);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const page = await fetch(`${url}/bench.html`);
      if (page.ok && (await page.text()).includes('bench-input')) return { url, stop };
    } catch {
      /* not up yet */
    }
    if (server.exitCode !== null || Date.now() > deadline) {
      stop();
      throw new Error(`vite preview did not start on port ${port} (in use? choose another with --port)`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

// ---- The run ---------------------------------------------------------------------------------

interface AppRow {
  case: string;
  files: number;
  rows?: number;
  histograms?: number;
  appSeconds: number;
  engineSeconds: number | null;
  nativeSeconds: number | null;
  nativeRatio: number | null;
  peakMemoryMB: number | null;
  /** The figures on screen equal native DuckDB's count and nearest-rank p50/p99/p99.9; null without native. */
  figuresMatch: boolean | null;
  /** CPU seconds of the renderer processes from the action to the figures (the real-histogram case). */
  rendererCpuSeconds?: number;
  /** HdrHistogram logs: the Java reference's time for the same question, and app ÷ Java. */
  javaSeconds?: number;
  javaRatio?: number;
  javaFiguresMatch?: boolean;
}

/** Native rows (op, count, p50, p99, p999) against what the app's summary table showed. */
function sameFigures(shown: ShownFigures, n: NativeRun): boolean {
  return n.rows.every(([op, count, p50, p99, p999]) => {
    const s = shown[String(op)];
    return s !== undefined && s.count === count && s.p50 === p50 && s.p99 === p99 && s['p99.9'] === p999;
  });
}

function appRow(name: string, files: number, size: { rows: number } | { histograms: number }, m: AppMeasurement, engine: number | null, n: NativeRun | null): AppRow {
  return {
    case: name,
    files,
    ...size,
    appSeconds: round(m.appSeconds),
    engineSeconds: engine === null ? null : round(engine),
    nativeSeconds: n ? round(n.seconds) : null,
    nativeRatio: n ? round(m.appSeconds / n.seconds, 2) : null,
    peakMemoryMB: m.peakMemoryMB === null ? null : Math.round(m.peakMemoryMB),
    figuresMatch: n ? sameFigures(m.figures, n) : null,
  };
}

const round = (v: number, digits = 3): number => Number(v.toFixed(digits));

/** The SQL the `requests` case asks, in the app and natively: per operation and status, count, mean and max. */
const REQUESTS_SQL = `SELECT op, status, count(*) AS requests, round(avg(latency_us), 3) AS mean_us, max(latency_us) AS max_us
FROM requests GROUP BY op, status ORDER BY op, status`;

/**
 * SQL over `requests` of a raw per-request CSV of `rows` rows: the app's Query view (Run pressed →
 * rows on screen; DuckDB-WASM reading the dropped File in place) against native DuckDB answering
 * the same SQL on the same file (@duckdb/node-api; `requests` a view of the file as the app's is).
 */
async function requestsQueryCase(baseUrl: string, rows: number) {
  const dir = path.join(work, 'requests');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'requests.csv');
  const counts = await writeRequestCsv(rows, file);
  const mb = statSync(file).size / 1e6;
  try {
    const app = await appQuery(baseUrl, file, counts, REQUESTS_SQL);
    let native: { engine: string; seconds: number; text: string } | null = null;
    try {
      const nodeApi = '@duckdb/node-api';
      const { DuckDBInstance, version } = (await import(/* @vite-ignore */ nodeApi)) as NodeApi;
      const instance = await DuckDBInstance.create(':memory:');
      const con = await instance.connect();
      try {
        await con.run(`CREATE VIEW requests AS SELECT op, timestamp_ms::DOUBLE AS time_ms, latency_us::DOUBLE AS latency_us, status::VARCHAR AS status,
          coalesce(TRY_CAST(status AS INTEGER) < 400, true) AS ok FROM read_csv('${file.replace(/'/g, "''")}')`);
        const t = performance.now();
        const result = (await con.runAndReadAll(REQUESTS_SQL)).getRows();
        native = { engine: `@duckdb/node-api (DuckDB ${version()})`, seconds: (performance.now() - t) / 1000, text: result.map((r) => r.map((v) => String(v)).join('\t')).join('\n') };
      } finally {
        con.closeSync();
        instance.closeSync();
      }
    } catch (e) {
      log(`native DuckDB not available for the requests case: ${e instanceof Error ? e.message : String(e)}`);
    }
    return {
      case: `SQL over requests of a ${rows.toLocaleString('en-US')}-row raw CSV`,
      rows,
      mb: round(mb, 1),
      sql: REQUESTS_SQL,
      appSeconds: round(app.appSeconds),
      workerSeconds: round(app.workerMs / 1000),
      againSeconds: round(app.againSeconds),
      againWorkerSeconds: round(app.againWorkerMs / 1000),
      nativeSeconds: native ? round(native.seconds) : null,
      nativeEngine: native?.engine ?? null,
      nativeRatio: native ? round(app.appSeconds / native.seconds, 2) : null,
      againNativeRatio: native ? round(app.againSeconds / native.seconds, 2) : null,
      sameRows: native ? native.text === app.text : null,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const work = mkdtempSync(path.join(tmpdir(), 'benchlens-bench-'));
let stopServer = (): void => {};

/** Builds the app for the bench and serves it. */
async function buildAndServe(): Promise<{ dist: string; url: string }> {
  const dist = path.join(work, 'dist');
  const build = spawnSync('npx', ['vite', 'build', '--logLevel', 'error', '--outDir', dist, '--emptyOutDir'], {
    stdio: ['ignore', 2, 2],
    env: { ...process.env, BENCHLENS_BENCH: '1' },
  });
  if (build.status !== 0) throw new Error('vite build failed');
  const server = await serve(dist);
  stopServer = server.stop;
  return { dist, url: server.url };
}

/** Seconds of each HdrHistogram log: `--histograms` spread over the clients and operations. */
const hdrSeconds = Math.max(1, Math.round(histograms / (HDR_CLIENTS * HDR_OPS.length)));

/** The app beside the Java reference on the same logs: its row, with javaSeconds and javaRatio. */
function withJava(java: ReturnType<typeof javaReference>, row: AppRow, files: readonly string[], shown: AppMeasurement): AppRow {
  const javaRun: JavaRun | null = 'run' in java ? java.run(files) : null;
  if (!javaRun) return row;
  log(`Java reference: ${javaRun.seconds.toFixed(2)} s (${javaRun.jvmSeconds.toFixed(2)} s in the JVM)`);
  return {
    ...row,
    javaSeconds: round(javaRun.seconds),
    javaRatio: round(shown.appSeconds / javaRun.seconds, 2),
    javaFiguresMatch: Object.entries(javaRun.ops).every(([op, j]) => {
      const f = shown.figures[op];
      return f !== undefined && f.count === j.count && f.p50 === j.p50 && f.p99 === j.p99 && f['p99.9'] === j['p99.9'];
    }),
  };
}

/**
 * Real YCSB 0.17 interval histograms (the corpus's), re-timed one a second into logs of
 * HDR_CLIENTS clients × HDR_OPS, `seconds` long: handed to the app's file input, then read by the
 * Java reference, `reps` times back to back (app and Java of one repetition side by side).
 */
async function realHdrCase(baseUrl: string, seconds: number, java: ReturnType<typeof javaReference>, reps: number): Promise<AppRow[]> {
  const realDir = path.join(work, 'hdr-real', 'run');
  const sources = readdirSync(CORPUS_HDR, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /^client\d+-(READ|UPDATE)\.hdr$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
  const real = writeRealHdrLogs(sources, HDR_CLIENTS, HDR_OPS, seconds, realDir);
  const realFiles = HDR_OPS.flatMap((op) => Array.from({ length: HDR_CLIENTS }, (_, c) => path.join(realDir, `client${c + 1}-${op}.hdr`)));
  const rows: AppRow[] = [];
  try {
    for (let r = 0; r < reps; r++) {
      const realApp = await appWithFiles(baseUrl, realFiles, real.counts);
      const row = withJava(java, appRow(`HdrHistogram V1 logs of real YCSB 0.17 histograms, ${HDR_CLIENTS} clients × ${HDR_OPS.length} ops`, realFiles.length, { histograms: real.histograms }, realApp, null, null), realFiles, realApp);
      rows.push({ ...row, ...(realApp.rendererCpuSeconds != null ? { rendererCpuSeconds: round(realApp.rendererCpuSeconds) } : {}) });
      log(`app: real HdrHistogram logs: ${realApp.appSeconds.toFixed(2)} s on screen, renderer CPU ${realApp.rendererCpuSeconds?.toFixed(2) ?? '–'} s, peak ${realApp.peakMemoryMB?.toFixed(0) ?? '–'} MB${row.javaSeconds !== undefined ? `; Java ${row.javaSeconds} s (${row.javaRatio}×), figures equal Java: ${row.javaFiguresMatch}` : ''}`);
    }
  } finally {
    rmSync(path.join(work, 'hdr-real'), { recursive: true, force: true });
  }
  return rows;
}

const HTTP_TOOLS: readonly HttpTool[] = ['jmeter', 'k6', 'gatling', 'vegeta'];
const httpTools = (option('--http-tools') ?? HTTP_TOOLS.join(',')).split(',').map((t) => (HTTP_TOOLS.includes(t as HttpTool) ? (t as HttpTool) : usage(`--http-tools: no tool "${t}"`)));
const httpRows = (option('--http-rows') ?? '1000000,5000000').split(',').map((t) => positive('--http-rows', t));
const httpReps = positive('--http-reps', option('--http-reps') ?? '3');
/** JMeter's and Gatling's own report generators beside the app (./bench-peers.ts): minutes of JVM time, so only when asked. */
const withPeers = process.argv.includes('--peers');

/** The HTTP tools' cases (scripts/bench-http.ts), and YCSB raw's parse on one core beside them. */
async function httpCases(baseUrl: string, native: Awaited<ReturnType<typeof findNative>>) {
  const dir = path.join(work, 'http');
  const peers = withPeers ? httpPeers(path.join('.bench-data', 'peers')) : undefined;
  const cases = await httpToolCases({ baseUrl, dir, tools: httpTools, rows: httpRows, reps: httpReps, native, ...(peers ? { peers } : {}), log });
  const raw = path.join(dir, 'client1-raw.csv');
  await writeRealisticRawRun(1_000_000, 3600, [raw]);
  const ycsbRawMbPerCoreSecond = Math.round(statSync(raw).size / 1e6 / (await parseCpuSeconds(raw)));
  rmSync(dir, { recursive: true, force: true });
  return { cases, ycsbRawMbPerCoreSecond };
}

/** A `--only` case: the built app served, `run` given its folder and address, then everything stopped and removed. */
async function onlyCase(run: (served: { dist: string; url: string }) => Promise<void>): Promise<never> {
  try {
    await run(await buildAndServe());
  } finally {
    stopServer();
    rmSync(work, { recursive: true, force: true });
  }
  process.exit(0);
}

const only = option('--only');

// `--only http`: the HTTP tools' cases alone.
if (only === 'http') {
  await onlyCase(async ({ url }) => {
    const http = await httpCases(url, await findNative());
    if (json) console.log(JSON.stringify(http, null, 2));
    else printHttpCases(http.cases, http.ycsbRawMbPerCoreSecond);
  });
}

// `--only requests`: that case alone (its figures, without the rest of the bench).
if (only === 'requests') {
  await onlyCase(async ({ url }) => {
    const q = await requestsQueryCase(url, queryRows);
    if (json) console.log(JSON.stringify(q, null, 2));
    else {
      log(`${q.case} (${q.mb} MB): app ${q.appSeconds} s (worker ${q.workerSeconds} s), again ${q.againSeconds} s (worker ${q.againWorkerSeconds} s); native ${q.nativeSeconds ?? '–'} s`);
      log(`  ratio ${q.nativeRatio ?? '–'}× (first query of the page), ${q.againNativeRatio ?? '–'}× (again); same rows: ${q.sameRows ?? '–'}`);
    }
  });
}

// `--only hdr`: the real-histogram case alone, the app beside the Java reference, `--hdr-reps` times.
if (only === 'hdr') {
  await onlyCase(async ({ url }) => {
    const rows = await realHdrCase(url, hdrSeconds, javaReference(path.join('.bench-data', 'java')), positive('--hdr-reps', option('--hdr-reps') ?? '3'));
    if (json) console.log(JSON.stringify(rows, null, 2));
  });
}

// `--only raw-run`: four files of the one-hour raw run by a #files= link on a cold page, dropped as
// soon as the page shows, and dropped on the page showing the sample data, each beside native
// DuckDB in the same repetition: the cases where nothing may wait for DuckDB to start, and the
// parse alone. `--app-reps R` repetitions.
if (only === 'raw-run') {
  await onlyCase(async ({ dist, url }) => {
    const dir = path.join(dist, 'bench-data', 'four');
    mkdirSync(dir, { recursive: true });
    const files = ['client1-raw.csv', 'client2-raw.csv', 'client3-raw.csv', 'client4-raw.csv'].map((f) => path.join(dir, f));
    await writeRealisticRawRun(appRows, appRunSeconds, files);
    const perOp = Math.floor(appRows / 4 / 2) * 4;
    const expected = { READ: perOp, UPDATE: perOp };
    const native = await findNative();
    const rows = [];
    for (let rep = 1; rep <= appReps; rep++) {
      const cases = [
        { name: `raw, ${appRunSeconds} s wide-spread run, 4 files, #files= link on a cold page`, measure: () => appWithLink(url, files.map((f) => path.relative(dist, f).split(path.sep).join('/')), expected) },
        { name: `raw, ${appRunSeconds} s wide-spread run, 4 files, dropped as soon as the page shows`, measure: () => appEarlyDrop(url, files, expected) },
        { name: `raw, ${appRunSeconds} s wide-spread run, 4 files, dropped on the page showing the sample data`, measure: () => appWithFiles(url, files, expected) },
      ];
      for (const c of cases) {
        const m = await c.measure();
        const n = native ? await native.run(files, FIGURES_SQL) : null;
        const row = { ...appRow(c.name, files.length, { rows: appRows }, m, null, n), rep, settledPeakMemoryMB: m.settledPeakMemoryMB == null ? null : Math.round(m.settledPeakMemoryMB) };
        rows.push(row);
        if (!json) log(`#${rep} ${row.case}: ${m.appSeconds.toFixed(2)} s on screen${n ? `, native ${n.seconds.toFixed(2)} s (${row.nativeRatio}×), figures equal native: ${row.figuresMatch}` : ''}, peak ${row.peakMemoryMB ?? '–'} MB at the figures, ${row.settledPeakMemoryMB ?? '–'} MB once SQL has started DuckDB`);
      }
    }
    if (json) console.log(JSON.stringify(rows, null, 2));
  });
}

try {
  const { dist, url } = await buildAndServe();
  const server = { url };
  const native = await findNative();
  let chromiumVersion = '';

  const rawRuns = [];
  for (const rows of rowSizes) {
    const dir = path.join(work, 'raw');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'client1-raw.csv');
    await writeRawCsv(rows, file);
    const mb = statSync(file).size / 1e6;
    const b = await inBrowser(server.url, [file], false);
    chromiumVersion = b.chromium;
    const seconds = b.result.loadedMs / 1000;
    const n = native ? await native.run([file], P99_SQL) : null;
    const nativeP99 = n ? p99Of(n) : null;
    rmSync(dir, { recursive: true, force: true });
    const p99Match = nativeP99 ? Object.entries(nativeP99).every(([op, v]) => b.result.p99[op] === v) : null;
    rawRuns.push({
      rows,
      mb: round(mb, 1),
      seconds: round(seconds),
      rowsPerS: Math.round(rows / seconds),
      mbPerS: round(mb / seconds, 1),
      parseSeconds: round(b.result.parsedMs / 1000),
      requeryMs: round(b.result.requeryMs, 1),
      firstChartMs: round(b.result.firstChartMs, 1),
      peakMemoryMB: b.peakMemoryMB === null ? null : Math.round(b.peakMemoryMB),
      ingestLongTasks: b.result.ingestLongTasks,
      nativeSeconds: n ? round(n.seconds) : null,
      nativeLoadSeconds: n?.loadSeconds != null ? round(n.loadSeconds) : null,
      nativeQuerySeconds: n?.querySeconds != null ? round(n.querySeconds) : null,
      nativeRatio: n ? round(seconds / n.seconds, 2) : null,
      p99: b.result.p99,
      nativeP99,
      p99Match,
    });
    log(`raw CSV ${rows.toLocaleString('en-US')} rows: ${seconds.toFixed(2)} s in the browser${n ? `, ${n.seconds.toFixed(2)} s native` : ''}`);
  }

  // ---- The user's time on the built app: wide-spread one-hour runs, one file and four, and a link.
  const cold = await coldStart(server.url);
  log(`cold start: first paint ${cold.firstPaintMs?.toFixed(0) ?? '–'} ms, sample summary on screen ${cold.sampleSummaryMs.toFixed(0)} ms`);
  const app: AppRow[] = [];
  const dataDir = path.join(dist, 'bench-data');
  const layouts = { one: ['client1-raw.csv'], four: ['client1-raw.csv', 'client2-raw.csv', 'client3-raw.csv', 'client4-raw.csv'] };
  const perFileOp = (files: number) => Math.floor(appRows / files / 2);
  for (const [name, names] of Object.entries(layouts)) {
    mkdirSync(path.join(dataDir, name), { recursive: true });
    await writeRealisticRawRun(appRows, appRunSeconds, names.map((f) => path.join(dataDir, name, f)));
  }
  const narrow = path.join(dataDir, 'narrow', 'client1-raw.csv');
  mkdirSync(path.dirname(narrow), { recursive: true });
  await writeRawCsv(appRows, narrow);
  const cases: { name: string; files: string[]; expected: Record<string, number>; link: boolean }[] = [
    ...Object.entries(layouts).map(([name, names]) => ({
      name: `raw, ${appRunSeconds} s wide-spread run, ${names.length} file(s)`,
      files: names.map((f) => path.join(dataDir, name, f)),
      expected: { READ: perFileOp(names.length) * names.length, UPDATE: perFileOp(names.length) * names.length },
      link: false,
    })),
    { name: `raw, ${appRunSeconds} s wide-spread run, 4 files, #files= link on a cold page`, files: layouts.four.map((f) => path.join(dataDir, 'four', f)), expected: { READ: perFileOp(4) * 4, UPDATE: perFileOp(4) * 4 }, link: true },
    { name: 'raw, narrow spread (90,000 ops/s, ~100 µs), 1 file', files: [narrow], expected: { READ: Math.ceil(appRows / 2), UPDATE: Math.floor(appRows / 2) }, link: false },
  ];
  const engineSeconds = new Map<string, number>();
  for (const c of cases) {
    const m: AppMeasurement = c.link
      ? await appWithLink(server.url, c.files.map((f) => path.relative(dist, f).split(path.sep).join('/')), c.expected)
      : await appWithFiles(server.url, c.files, c.expected);
    const key = c.files.join();
    if (!engineSeconds.has(key)) engineSeconds.set(key, (await inBrowser(server.url, c.files, false)).result.loadedMs / 1000);
    const n = native ? await native.run(c.files, FIGURES_SQL) : null;
    app.push(appRow(c.name, c.files.length, { rows: appRows }, m, engineSeconds.get(key) ?? null, n));
    log(`app: ${c.name}: ${m.appSeconds.toFixed(2)} s on screen${n ? `, native ${n.seconds.toFixed(2)} s` : ''}`);
  }
  rmSync(dataDir, { recursive: true, force: true });

  const hdrDir = path.join(work, 'hdr', 'run');
  const seconds = hdrSeconds;
  const written = writeHdrLogs(HDR_CLIENTS, HDR_OPS, seconds, hdrDir, HDR_VALUES_PER_S, 'v1');
  const hdrFiles = HDR_OPS.flatMap((op) => Array.from({ length: HDR_CLIENTS }, (_, c) => path.join(hdrDir, `client${c + 1}-${op}.hdr`)));
  const hdrMb = hdrFiles.reduce((sum, f) => sum + statSync(f).size, 0) / 1e6;
  const h = await inBrowser(server.url, hdrFiles, true);
  chromiumVersion = h.chromium;
  const perOp = HDR_CLIENTS * seconds * HDR_VALUES_PER_S;
  const hdrApp = await appWithFiles(server.url, hdrFiles, Object.fromEntries(HDR_OPS.map((op) => [op, perOp])));
  const java = javaReference(path.join('.bench-data', 'java'));
  app.push(withJava(java, appRow(`HdrHistogram V1 logs, ${HDR_CLIENTS} clients × ${HDR_OPS.length} ops`, hdrFiles.length, { histograms: written }, hdrApp, h.result.loadedMs / 1000, null), hdrFiles, hdrApp));
  log(`app: HdrHistogram logs: ${hdrApp.appSeconds.toFixed(2)} s on screen`);
  app.push(...(await realHdrCase(server.url, seconds, java, 1)));
  rmSync(path.join(work, 'hdr'), { recursive: true, force: true });
  log(`HdrHistogram logs: ${written.toLocaleString('en-US')} histograms decoded in ${(h.result.parsedMs / 1000).toFixed(2)} s`);

  const peaks = [...rawRuns.map((r) => r.peakMemoryMB), h.peakMemoryMB, ...app.map((a) => a.peakMemoryMB)].filter((v): v is number => v !== null);
  const largest = rawRuns[rawRuns.length - 1]!;
  const doc = {
    machine: { cpus: cpus().length, node: process.version, chromium: chromiumVersion, native: native?.engine ?? null },
    rawCsv: largest,
    rawCsvRuns: rawRuns,
    hdr: {
      encoding: 'V1 (HISTgg, YCSB 0.17)',
      clients: HDR_CLIENTS,
      ops: HDR_OPS.length,
      intervalSeconds: seconds,
      mb: round(hdrMb, 1),
      histograms: written,
      seconds: round(h.result.parsedMs / 1000),
      histogramsPerS: Math.round(written / (h.result.parsedMs / 1000)),
      loadSeconds: round(h.result.loadedMs / 1000),
      decodeOnly: h.decodeOnly
        ? {
            histograms: h.decodeOnly.histograms,
            seconds: round(h.decodeOnly.ms / 1000),
            histogramsPerS: Math.round(h.decodeOnly.histograms / (h.decodeOnly.ms / 1000)),
            rendererCpuSeconds: round(h.decodeOnly.cpuSeconds),
            histogramsPerCpuS: h.decodeOnly.cpuSeconds > 0 ? Math.round(h.decodeOnly.histograms / h.decodeOnly.cpuSeconds) : null,
          }
        : null,
      peakMemoryMB: h.peakMemoryMB === null ? null : Math.round(h.peakMemoryMB),
      ingestLongTasks: h.result.ingestLongTasks,
    },
    // The load's result is the merged figures of every run over everything: its time is the time to the merged p99.
    mergedP99: { ms: round(h.result.loadedMs, 1) },
    requery: { ms: round(h.result.requeryMs, 1) },
    firstChart: { ms: round(h.result.firstChartMs, 1), afterLoadMs: round(h.result.chartMs, 1) },
    engineStartupMs: round(h.startupMs, 1),
    peakMemoryMB: peaks.length ? Math.max(...peaks) : null,
    pageMemoryMB: h.pageMemoryMB === null ? null : Math.round(h.pageMemoryMB),
    memorySource: 'Chromium renderer peak RSS: /proc/<pid>/status VmHWM, reset per phase, pids from CDP SystemInfo.getProcessInfo',
    app,
    requestsQuery: await requestsQueryCase(server.url, queryRows),
    http: await httpCases(server.url, native),
    coldStart: { firstPaintMs: cold.firstPaintMs === null ? null : round(cold.firstPaintMs, 1), sampleSummaryMs: round(cold.sampleSummaryMs, 1) },
    java: 'run' in java ? { reference: 'HdrHistogram 2.2.2 (Maven Central): HistogramLogReader + Histogram.add per operation, one JVM, start-up included; per case in app[].javaSeconds' } : { missing: java.missing },
  };

  if (json) console.log(JSON.stringify(doc, null, 2));
  else {
    printTable(doc);
    printHttpCases(doc.http.cases, doc.http.ycsbRawMbPerCoreSecond);
  }
} finally {
  stopServer();
  rmSync(work, { recursive: true, force: true });
}

type LongTasks = { count: number; longestMs: number };

function longTasks(t: LongTasks): string {
  return t.count === 0 ? 'none' : `${t.count} (${t.longestMs} ms)`;
}

function printTable(doc: {
  machine: { cpus: number; chromium: string; native: string | null };
  rawCsvRuns: { rows: number; mb: number; seconds: number; rowsPerS: number; mbPerS: number; nativeSeconds: number | null; nativeRatio: number | null; requeryMs: number; firstChartMs: number; peakMemoryMB: number | null; ingestLongTasks: LongTasks; p99Match: boolean | null }[];
  hdr: { histograms: number; seconds: number; histogramsPerS: number; loadSeconds: number; decodeOnly: { histogramsPerS: number; histogramsPerCpuS: number | null } | null; peakMemoryMB: number | null; ingestLongTasks: LongTasks; intervalSeconds: number };
  mergedP99: { ms: number };
  requery: { ms: number };
  firstChart: { ms: number; afterLoadMs: number };
  peakMemoryMB: number | null;
  app: AppRow[];
  coldStart: { firstPaintMs: number | null; sampleSummaryMs: number };
}): void {
  const n = (v: number | null, digits = 0): string => (v === null ? '–' : v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));
  const pad = (cells: string[], widths: number[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\nbenchlens in headless Chromium ${doc.machine.chromium} (${CHROMIUM}), ${doc.machine.cpus} cores; native reference: ${doc.machine.native ?? 'none found'}\n`);
  const widths = [12, 7, 9, 11, 7, 9, 8, 10, 10, 8, 12, 5];
  console.log(pad(['raw CSV rows', 'MB', 'browser s', 'rows/s', 'MB/s', 'native s', 'ratio', 'requery ms', 'chart ms', 'peak MB', 'UI tasks≥50', 'p99='], widths));
  for (const r of doc.rawCsvRuns) {
    console.log(
      pad(
        [n(r.rows), n(r.mb), n(r.seconds, 2), n(r.rowsPerS), n(r.mbPerS, 1), n(r.nativeSeconds, 2), r.nativeRatio === null ? '–' : `${n(r.nativeRatio, 1)}×`, n(r.requeryMs), n(r.firstChartMs), n(r.peakMemoryMB), longTasks(r.ingestLongTasks), r.p99Match === null ? '–' : r.p99Match ? 'yes' : 'NO'],
        widths,
      ),
    );
  }
  const h = doc.hdr;
  console.log(`\nHdrHistogram logs, V1 (YCSB 0.17), ${HDR_CLIENTS} clients × ${HDR_OPS.length} ops × ${n(h.intervalSeconds)} s: ${n(h.histograms)} interval histograms`);
  console.log(`  read + decoded            ${n(h.seconds, 2)} s = ${n(h.histogramsPerS)} histograms/s (decode alone: ${h.decodeOnly ? `${n(h.decodeOnly.histogramsPerS)} histograms/s, ${n(h.decodeOnly.histogramsPerCpuS)} per renderer CPU-second` : '–'})`);
  console.log(`  merged p99, everything    ${n(doc.mergedP99.ms)} ms from files handed over (loaded + analysed)`);
  console.log(`  re-query, other window    ${n(doc.requery.ms)} ms`);
  console.log(`  first chart               ${n(doc.firstChart.ms)} ms from files handed over (${n(doc.firstChart.afterLoadMs)} ms after load)`);
  console.log(`  peak memory               ${n(h.peakMemoryMB)} MB`);
  console.log(`  UI tasks ≥ 50 ms, ingest  ${longTasks(h.ingestLongTasks)}`);
  console.log(`\nThe built app, from the user's action to the final figures on screen (cold start: first paint ${n(doc.coldStart.firstPaintMs)} ms, sample summary ${n(doc.coldStart.sampleSummaryMs)} ms)`);
  const aw = [62, 9, 9, 9, 7, 9, 7, 8, 8];
  console.log(pad(['case', 'app s', 'engine s', 'native s', 'ratio', 'Java s', 'ratio', 'peak MB', 'equal'], aw));
  for (const a of doc.app) {
    const equal = a.javaFiguresMatch ?? a.figuresMatch;
    console.log(
      pad(
        [a.case, n(a.appSeconds, 2), n(a.engineSeconds, 2), n(a.nativeSeconds, 2), a.nativeRatio === null ? '–' : `${n(a.nativeRatio, 2)}×`, n(a.javaSeconds ?? null, 2), a.javaRatio === undefined ? '–' : `${n(a.javaRatio, 2)}×`, n(a.peakMemoryMB), equal === null ? '–' : equal ? 'yes' : 'NO'],
        aw,
      ),
    );
  }
  console.log(`\npeak memory over all phases: ${n(doc.peakMemoryMB)} MB (Chromium renderer peak RSS, VmHWM)`);
  console.log('UI tasks≥50 = main-thread long tasks while files were read and loaded: count (longest ms)');
  console.log('browser s = files handed over → loaded with merged p99 of every operation; ratio = browser ÷ native (load + p99 query); p99= : browser p99 equals native p99 for every operation');
}
