import type { Snapshot } from '../state/snapshot.ts';
import type { Analysis } from './analyse.ts';
import type { AnalysisWindow, InputFile, LoadProgress, Regrouping, ReportRequest, ResponseOf, WorkerEvent, WorkerRequest } from './protocol.ts';
import type { CompareRequest } from './compare-queries.ts';
import type { HistoryRequest } from './history-queries.ts';
import type { RunLabels } from '../state/view-state.ts';

type RequestBody = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;
type ResultOf<T extends RequestBody['type']> = ResponseOf[T];

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  onProgress?: (p: LoadProgress) => void;
  onSummary?: (a: Analysis) => void;
}

/** Typed access to the engine worker from the UI thread. */
export class EngineClient {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Settles when DuckDB is asked to start: only when a question needs it, or `startDb`. */
  readonly starting: Promise<void>;
  /** DuckDB's start-up time (ms), once it has started. */
  readonly ready: Promise<number>;

  constructor() {
    this.worker = new Worker(new URL('../workers/engine-worker.ts', import.meta.url), { type: 'module', name: 'benchlens-engine' });
    let resolveReady: (ms: number) => void = () => {};
    let rejectReady: (e: Error) => void = () => {};
    let resolveStarting: () => void = () => {};
    this.starting = new Promise((res) => (resolveStarting = res));
    this.ready = new Promise((res, rej) => {
      resolveReady = res;
      rejectReady = rej;
    });
    this.worker.onmessage = (event: MessageEvent<WorkerEvent>) => {
      const e = event.data;
      if (e.type === 'db-starting') return resolveStarting();
      if (e.type === 'ready') return resolveReady(e.startupMs);
      if (e.type === 'fatal') return rejectReady(new Error(e.message));
      const p = this.pending.get(e.id);
      if (!p) return;
      if (e.type === 'progress') p.onProgress?.(e.progress);
      else if (e.type === 'summary') p.onSummary?.(e.analysis);
      else {
        this.pending.delete(e.id);
        if (e.type === 'result') p.resolve(e.value);
        else p.reject(new Error(e.message));
      }
    };
    this.worker.onerror = (e) => rejectReady(new Error(e.message || 'the engine worker failed to start'));
  }

  private request<T extends RequestBody['type']>(
    body: Extract<RequestBody, { type: T }>,
    events: Pick<Pending, 'onProgress' | 'onSummary'> = {},
  ): { id: number; result: Promise<ResultOf<T>> } {
    const id = this.nextId++;
    const result = new Promise<ResultOf<T>>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, ...events });
    });
    this.worker.postMessage({ ...body, id } as WorkerRequest);
    return { id, result };
  }

  /**
   * Load files; `cancel()` on the returned handle stops reading (what was read stays loaded).
   * `onSummary` gets the figures before the result, which adds the throughput timelines.
   */
  load(files: InputFile[], replace: boolean, window: AnalysisWindow, regroup: Regrouping, onProgress: (p: LoadProgress) => void, onSummary?: (a: Analysis) => void) {
    const { id, result } = this.request<'load'>({ type: 'load', files, replace, window, regroup }, { onProgress, ...(onSummary ? { onSummary } : {}) });
    return { result, cancel: () => void this.request<'cancel'>({ type: 'cancel', target: id }) };
  }

  regroup(regroup: Regrouping, window: AnalysisWindow) {
    return this.request<'regroup'>({ type: 'regroup', regroup, window }).result;
  }

  snapshot(runKeys: string[] | null) {
    return this.request<'snapshot'>({ type: 'snapshot', runKeys }).result;
  }

  loadSnapshot(snapshot: Snapshot) {
    return this.request<'load-snapshot'>({ type: 'load-snapshot', snapshot }).result;
  }

  /** Starts DuckDB ahead of a question that will need it (SQL being written). */
  startDb() {
    return this.request<'start-db'>({ type: 'start-db' }).result;
  }

  clear() {
    return this.request<'clear'>({ type: 'clear' }).result;
  }

  analyse(window: AnalysisWindow) {
    return this.request<'analyse'>({ type: 'analyse', window }).result;
  }

  chart(query: Extract<WorkerRequest, { type: 'chart' }>['query']) {
    return this.request<'chart'>({ type: 'chart', query }).result;
  }

  /** An A/B comparison with confidence intervals, computed in the worker (src/engine/compare-queries.ts). */
  compare(request: CompareRequest) {
    return this.request<'compare'>({ type: 'compare', request }).result;
  }

  /** A history's series with intervals and change points, computed in the worker (src/engine/history-queries.ts). */
  history(request: HistoryRequest) {
    return this.request<'history'>({ type: 'history', request }).result;
  }

  /** The report file of the data loaded, as the view shows it. */
  report(window: AnalysisWindow, request: ReportRequest) {
    return this.request<'report'>({ type: 'report', window, ...request }).result;
  }

  /** SQL over the loaded results; `cancel()` on the handle stops DuckDB's query. */
  query(sql: string, limit: number, window: AnalysisWindow, labels: Record<string, RunLabels>) {
    const { id, result } = this.request<'query'>({ type: 'query', sql, limit, window, labels });
    return { result, cancel: () => void this.request<'cancel'>({ type: 'cancel', target: id }) };
  }

  /** Every row of the last query's result (the page shows the first ones only). */
  queryRows() {
    return this.request<'query-rows'>({ type: 'query-rows' }).result;
  }

  terminate(): void {
    this.worker.terminate();
  }
}
