/// <reference lib="webworker" />
import { Engine } from '../engine/engine.ts';
import { parseHere, ParsePool } from '../engine/parse-pool.ts';
import type { WorkerEvent, WorkerRequest } from '../engine/protocol.ts';
import { RequestQueue } from '../engine/request-queue.ts';

/**
 * The engine worker: a message adapter over one Engine (src/engine/engine.ts), which reads the
 * files, parses them (on parse workers), keeps them and answers queries, so the UI thread only
 * renders. Each request becomes a call; its progress, summary, result or error a message. An entry
 * point like the CLI's, it may put the engine and the report together.
 */

declare const self: DedicatedWorkerGlobalScope;

const post = (e: WorkerEvent): void => self.postMessage(e);

/**
 * DuckDB starts only when something needs it: SQL (the SQL box taking the focus asks for it ahead
 * of the query, `start-db`), a report, a link carrying the runs. Never at page load nor behind a
 * load, where its download, compiling and linking (some 2 s of CPU on this thread and V8's, and
 * ~170 MB) would take the cores from a load's parse workers and add to its peak memory. The
 * figures, timelines and charts do not need it (../engine/engine.ts).
 */
const engine = new Engine(
  () => {
    post({ id: 0, type: 'db-starting' });
    const t0 = performance.now();
    // DuckDB's JavaScript (some 1.1 MB, over half of this worker's) is loaded with it, not with
    // the worker: the worker, and a load's parse workers, start that much sooner.
    const db = import('../engine/browser-db.ts').then(({ openBrowserDb }) => openBrowserDb());
    db.then(
      () => post({ id: 0, type: 'ready', startupMs: performance.now() - t0 }),
      (e: unknown) => post({ id: 0, type: 'fatal', message: `the query engine failed to start: ${String(e)}` }),
    );
    return db;
  },
  { parsePool: (size) => new ParsePool(size, parseHere) },
);

async function handle(req: Exclude<WorkerRequest, { type: 'cancel' | 'start-db' }>, signal: AbortSignal): Promise<unknown> {
  switch (req.type) {
    case 'load': {
      const { id, files, replace, window, regroup } = req;
      return engine.load(
        { files, replace, window, regroup },
        { signal, onProgress: (progress) => post({ id, type: 'progress', progress }), onSummary: (analysis) => post({ id, type: 'summary', analysis }) },
      );
    }
    case 'regroup':
      return engine.regroup(req.regroup, req.window);
    case 'clear':
      return engine.clear();
    case 'analyse':
      return engine.analyse(req.window);
    case 'chart':
      return engine.chart(req.query);
    case 'compare':
      return engine.compare(req.request);
    case 'history':
      return engine.history(req.request);
    case 'snapshot':
      return engine.snapshot(req.runKeys);
    case 'report': {
      // Loaded on first use: React, Recharts and the charts are not needed for anything else here.
      const { buildReport } = await import('../report/build-report.ts');
      const { type: _, id: _id, window, ...options } = req;
      return buildReport(await engine.queryStore(), engine.analyse(window), { ...options, parsed: engine.files });
    }
    case 'query':
      return engine.query(req.sql, { limit: req.limit, window: req.window, labels: req.labels, signal });
    case 'query-rows':
      return engine.queryRows();
    case 'load-snapshot':
      return engine.loadSnapshot(req.snapshot);
  }
}

/** Requests run one after another; a cancel acts at once on the request it names (see RequestQueue). */
const requests = new RequestQueue();

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const req = event.data;
  if (req.type === 'cancel') {
    post({ id: req.id, type: 'result', value: requests.cancel(req.target), elapsedMs: 0 });
    return;
  }
  // Not queued: DuckDB starts while the requests before it run (a failure reaches the status line as `fatal`).
  if (req.type === 'start-db') {
    engine.startDb().catch(() => {});
    post({ id: req.id, type: 'result', value: true, elapsedMs: 0 });
    return;
  }
  requests.enqueue(req.id, (signal) => {
    const t0 = performance.now();
    return handle(req, signal).then(
      (value) => post({ id: req.id, type: 'result', value, elapsedMs: performance.now() - t0 }),
      (e: unknown) => post({ id: req.id, type: 'error', message: e instanceof Error ? e.message : String(e) }),
    );
  });
};
