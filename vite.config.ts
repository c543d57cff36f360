import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/**
 * Cross-origin isolation lets DuckDB-WASM use threads where the browser allows it; the page's CSP
 * allows only the app's own scripts and WebAssembly (no inline script, no eval, no remote code).
 * The engine worker alone also needs 'unsafe-eval': DuckDB-WASM's Emscripten glue builds its
 * bindings with `new Function`. The worker has no DOM, and no file content is ever evaluated.
 * The parse workers it starts only read and parse files: their own scripts and fetches, nothing else.
 */
const PAGE_CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self' https: http:; " +
  "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors *";
const WORKER_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' 'unsafe-eval'; connect-src 'self' https: http:";
const PARSE_WORKER_CSP = "default-src 'self'; script-src 'self'; connect-src 'self' https: http:";

export const SECURITY_HEADERS: Record<string, string> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/**
 * Every worker and its policy, by its entry module. The build names each worker's script after its
 * entry here (assets/<name>-<hash>.js) and fails on a worker not listed, and a request gets a
 * worker's policy only for that worker's script: a worker renamed or added cannot run under another
 * worker's policy, or the page's, without this table saying so.
 */
export const WORKERS: Readonly<Record<string, { name: string; csp: string }>> = {
  'src/workers/engine-worker.ts': { name: 'engine-worker', csp: WORKER_CSP },
  'src/engine/parse-worker.ts': { name: 'parse-worker', csp: PARSE_WORKER_CSP },
};

/** The worker whose entry is `moduleId` (an absolute path, as the bundler gives it); throws for a worker not in WORKERS. */
export function workerOf(moduleId: string | null): { name: string; csp: string } {
  const entry = moduleId ? path.relative(import.meta.dirname, moduleId).split(path.sep).join('/') : '(unknown)';
  const worker = WORKERS[entry];
  if (!worker) throw new Error(`worker ${entry} has no security policy: add it to WORKERS in vite.config.ts`);
  return worker;
}

/** What may run nowhere: the policy of a worker script the table does not know. */
const UNKNOWN_WORKER_CSP = "default-src 'none'";

/**
 * A worker's own policy comes from its script's response: built (assets/<name>-<hash>.js, named by
 * `workerOf`) or from the dev server (/<entry>?worker_file); null for a request that is no worker's.
 */
export function workerCsp(url: string): string | null {
  const [pathname = '', query = ''] = url.split('?');
  if (/(?:^|&)worker_file(?:&|=|$)/.test(query)) return WORKERS[pathname.replace(/^\//, '')]?.csp ?? UNKNOWN_WORKER_CSP;
  const built = /\/assets\/([a-z-]+)-[\w-]{8}\.js$/.exec(pathname);
  return Object.values(WORKERS).find((w) => w.name === built?.[1])?.csp ?? null;
}
/**
 * The dev server's page also runs @vitejs/plugin-react's inline Fast Refresh preamble, which the
 * page policy blocks (the app then fails to start: "can't detect preamble"). Dev only: the build,
 * `vite preview` and `_headers` keep the strict policy, which the browser tests check.
 */
const DEV_PAGE_CSP = PAGE_CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'");
const cspFor = (url: string, page: string): string => workerCsp(url) ?? page;

/** The same headers for dev, preview and (as `_headers`) static hosts that read that file. */
function securityHeaders(): Plugin {
  const middleware =
    (page: string) =>
    (req: { url?: string }, res: { setHeader(k: string, v: string): void }, next: () => void): void => {
      for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
      res.setHeader('Content-Security-Policy', cspFor(req.url ?? '', page));
      next();
    };
  return {
    name: 'benchlens-security-headers',
    configureServer: (server) => void server.middlewares.use(middleware(DEV_PAGE_CSP)),
    configurePreviewServer: (server) => void server.middlewares.use(middleware(PAGE_CSP)),
    generateBundle() {
      const common = Object.entries(SECURITY_HEADERS).map(([k, v]) => `  ${k}: ${v}`).join('\n');
      this.emitFile({
        type: 'asset',
        fileName: '_headers',
        source:
          `/*\n${common}\n  Content-Security-Policy: ${PAGE_CSP}\n` +
          Object.values(WORKERS)
            .map((w) => `/assets/${w.name}-*\n  ! Content-Security-Policy\n  Content-Security-Policy: ${w.csp}\n`)
            .join(''),
      });
    },
  };
}

/**
 * The sample data's analysis, computed by the CLI (the same parsers and SQL as the app) so that a
 * first visit shows the sample's summary before DuckDB-WASM has even started; the engine's own
 * analysis of the files replaces it when it arrives. Throws with the command's exit and standard
 * error when it cannot be computed: a build without it would ship a page that waits for DuckDB.
 */
function sampleAnalysis(): string {
  const project = import.meta.dirname;
  const r = spawnSync(path.join(project, 'node_modules', '.bin', 'tsx'), ['src/cli/benchlens.ts', 'summarize', '--json', 'sample-results'], { cwd: project, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  // 1: something in the sample was skipped, and the analysis says so, as the app's would.
  if ((r.status === 0 || r.status === 1) && r.stdout.startsWith('{')) return r.stdout;
  const exit = r.error ? r.error.message : r.signal ? `signal ${r.signal}` : `exit ${r.status}`;
  throw new Error(`the sample's analysis (benchlens summarize --json sample-results) failed (${exit}):\n${r.stderr}`);
}

/**
 * sample-results/ is served at /sample-results/ in dev and copied into the build, with an index
 * and its analysis (`sampleAnalysis`).
 */
function sampleResults(): Plugin {
  const root = path.resolve(import.meta.dirname, 'sample-results');
  let analysis: string | undefined;
  const list = (): string[] => {
    const out: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir).sort()) {
        const full = path.join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else out.push(path.relative(root, full).split(path.sep).join('/'));
      }
    };
    if (existsSync(root)) walk(root);
    return out;
  };
  let outDir = path.resolve(import.meta.dirname, 'dist');
  return {
    name: 'benchlens-sample-results',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    configureServer(server) {
      server.middlewares.use('/sample-results/index.json', (_req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify(list()));
      });
      server.middlewares.use('/sample-results/analysis.json', (_req, res, next) => {
        try {
          analysis ??= sampleAnalysis();
        } catch (error) {
          // The dev page still works without it (the engine analyses the sample); say why it is missing.
          server.config.logger.error(error instanceof Error ? error.message : String(error));
          return next();
        }
        res.setHeader('Content-Type', 'application/json');
        res.end(analysis);
      });
      server.middlewares.use('/sample-results/', (req, res, next) => {
        const rel = decodeURIComponent((req.url ?? '').split('?')[0] ?? '').replace(/^\/+/, '');
        const full = path.resolve(root, rel);
        if (!full.startsWith(root + path.sep) || !existsSync(full) || !statSync(full).isFile()) return next();
        res.setHeader('Content-Type', 'application/octet-stream');
        cpStream(full, res);
      });
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'sample-results/index.json', source: JSON.stringify(list()) });
      analysis ??= sampleAnalysis();
      this.emitFile({ type: 'asset', fileName: 'sample-results/analysis.json', source: analysis });
    },
    closeBundle() {
      if (existsSync(root)) cpSync(root, path.join(outDir, 'sample-results'), { recursive: true });
    },
  };
}

/**
 * DuckDB's .wasm is 34–39 MB: the build writes brotli and gzip copies beside it (6.2 / 7.7 MB),
 * and `vite preview` serves them to browsers that accept them, as static hosts do with
 * `brotli_static` / `gzip_static` (see README). Always as application/wasm, which streaming
 * compilation requires.
 */
function precompressedWasm(): Plugin {
  let outDir = path.resolve(import.meta.dirname, 'dist');
  const encodings = [
    { name: 'br', suffix: '.br', compress: (b: Buffer) => promisify(brotliCompress)(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } }) },
    { name: 'gzip', suffix: '.gz', compress: (b: Buffer) => promisify(gzip)(b, { level: 9 }) },
  ];
  return {
    name: 'benchlens-precompressed-wasm',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async writeBundle(_options, bundle) {
      const wasm = Object.keys(bundle).filter((f) => f.endsWith('.wasm'));
      await Promise.all(
        wasm.flatMap((f) => {
          const full = path.join(outDir, f);
          return encodings.map(async (e) => writeFileSync(full + e.suffix, await e.compress(readFileSync(full))));
        }),
      );
    },
    configurePreviewServer(server) {
      server.middlewares.use((req, res, next) => {
        const url = (req.url ?? '').split('?')[0] ?? '';
        if (!url.endsWith('.wasm')) return next();
        const full = path.resolve(outDir, `.${decodeURIComponent(url)}`);
        if (!full.startsWith(outDir + path.sep)) return next();
        const accepted = String(req.headers['accept-encoding'] ?? '')
          .split(',')
          .map((token) => token.split(';')[0]?.trim());
        const encoding = encodings.find((e) => accepted.includes(e.name) && existsSync(full + e.suffix));
        if (!encoding) return next();
        res.setHeader('Content-Type', 'application/wasm');
        res.setHeader('Content-Encoding', encoding.name);
        res.setHeader('Vary', 'Accept-Encoding');
        res.setHeader('Content-Length', String(statSync(full + encoding.suffix).size));
        res.setHeader('Cache-Control', 'no-cache');
        cpStream(full + encoding.suffix, res);
      });
    },
  };
}

function cpStream(file: string, res: NodeJS.WritableStream): void {
  // 1 MiB reads: at the default 64 KiB, sending the bench's 480 MB took the server ~1 CPU-second
  // of the two cores the app is timed on.
  import('node:fs').then((fs) => fs.createReadStream(file, { highWaterMark: 1 << 20 }).pipe(res));
}

/**
 * `npm run bench` only: its generated data at /bench-data/, streamed from disk as a static host
 * sends files. `vite preview`'s own file server sends a 120 MB file at ~60 MB/s here (a stream
 * at ~1 GB/s), so a #files= link to the bench's data would time the server, not the app.
 */
function benchData(dir: string | undefined): Plugin[] {
  if (!dir) return [];
  return [
    {
      name: 'benchlens-bench-data',
      configurePreviewServer(server) {
        server.middlewares.use('/bench-data/', (req, res, next) => {
          const file = path.join(dir, decodeURIComponent((req.url ?? '').split('?')[0] ?? ''));
          if (!file.startsWith(dir + path.sep) || !existsSync(file) || !statSync(file).isFile()) return next();
          res.setHeader('Content-Type', 'text/plain');
          res.setHeader('Content-Length', String(statSync(file).size));
          cpStream(file, res);
        });
      },
    },
  ];
}

export default defineConfig({
  plugins: [react(), securityHeaders(), sampleResults(), precompressedWasm(), ...benchData(process.env.BENCHLENS_BENCH_DATA)],
  base: './',
  resolve: {
    // The package's export map omits its browser-blocking build; point at the file itself.
    alias: { 'duckdb-browser-blocking': path.resolve(import.meta.dirname, 'node_modules/@duckdb/duckdb-wasm/dist/duckdb-browser-blocking.mjs') },
  },
  // Each worker's script is named after its entry in WORKERS, which gives its policy.
  worker: { format: 'es', rolldownOptions: { output: { entryFileNames: (chunk) => `assets/${workerOf(chunk.facadeModuleId).name}-[hash].js` } } },
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
    // bench.html (npm run bench's page) is built only for the benchmark, never shipped.
    ...(process.env.BENCHLENS_BENCH ? { rolldownOptions: { input: { index: path.resolve(import.meta.dirname, 'index.html'), bench: path.resolve(import.meta.dirname, 'bench.html') } } } : {}),
  },
  optimizeDeps: { exclude: ['@duckdb/duckdb-wasm'] },
});
