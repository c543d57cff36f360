import { useCallback, useEffect, useRef, useState } from 'react';
import type { Analysis } from '../engine/analyse.ts';
import { EngineClient } from '../engine/client.ts';
import type { AnalysisWindow, InputFile, LoadProgress, Regrouping } from '../engine/protocol.ts';
import type { CsvPreview } from '../formats/csv-mapping.ts';
import type { Snapshot } from '../state/snapshot.ts';
import { ProgressFeed } from './progress-feed.ts';

export interface EngineState {
  client: EngineClient | null;
  /** DuckDB has been asked to start (SQL, a report or a share link needs it): the page says so. */
  dbStarting: boolean;
  ready: boolean;
  startupMs: number | null;
  fatal: string | null;
  analysis: Analysis | null;
  /**
   * Bumped when the dataset changes (a load, a regrouping, a clear, an opened comparison) but not
   * for a new time window: chart queries read the whole runs, so only this re-runs them.
   */
  dataVersion: number;
  loading: boolean;
  cancelled: boolean;
  /** Time the last load took in the worker. */
  lastLoadMs: number | null;
  /** Time the last re-query (e.g. a new time window) took, as the UI saw it. */
  lastQueryMs: number | null;
  /** Loaded tables no format claims, waiting for the user to map their columns. */
  unmapped: CsvPreview[];
}

/**
 * How often a load's progress is drawn, at most. Each drawing costs the main thread ~10 ms of
 * rendering and painting, taken from the parse workers on a 2-core machine: four a second still
 * move the bar smoothly enough.
 */
const PROGRESS_RENDER_MS = 250;

/** The engine worker's lifecycle and the current dataset, for the whole app. */
export function useEngine(window: AnalysisWindow, regroup: Regrouping) {
  const [state, setState] = useState<EngineState>({
    client: null,
    dbStarting: false,
    ready: false,
    startupMs: null,
    fatal: null,
    analysis: null,
    dataVersion: 0,
    loading: false,
    cancelled: false,
    lastLoadMs: null,
    lastQueryMs: null,
    unmapped: [],
  });
  const [progressFeed] = useState(() => new ProgressFeed());
  const cancelRef = useRef<(() => void) | null>(null);
  /** The running load has sent its figures: what remains of it is its throughput timelines. */
  const summarisedRef = useRef(false);
  /** Bumped by a clear: a load started before it (and cancelled by it) no longer shows its result. */
  const generation = useRef(0);
  // Loads use the window in force without re-creating the load callback when it changes.
  const windowRef = useRef(window);
  const regroupRef = useRef(regroup);
  useEffect(() => {
    windowRef.current = window;
    regroupRef.current = regroup;
  }, [window, regroup]);

  useEffect(() => {
    // Created after the first paint; DuckDB-WASM starts later still, when something needs it (src/engine/engine.ts).
    const client = new EngineClient();
    setState((s) => ({ ...s, client }));
    void client.starting.then(() => setState((s) => ({ ...s, dbStarting: true })));
    client.ready.then(
      (startupMs) => setState((s) => ({ ...s, ready: true, startupMs })),
      (e: unknown) => setState((s) => ({ ...s, fatal: e instanceof Error ? e.message : String(e) })),
    );
    return () => client.terminate();
  }, []);

  const load = useCallback(
    async (files: InputFile[], replace: boolean) => {
      const client = state.client;
      if (!client || files.length === 0) return;
      const t0 = performance.now();
      // A load still running is superseded when this one replaces its data, or once its figures
      // are in (only its throughput timelines pending): its result would show nothing this one's
      // does not, and it need not hold this one back.
      if (cancelRef.current && (replace || summarisedRef.current)) {
        generation.current++;
        cancelRef.current();
      }
      const started = generation.current;
      setState((s) => ({ ...s, loading: true, cancelled: false }));
      progressFeed.set({
        progress: Object.fromEntries(files.map((f) => [f.path, { path: f.path, bytesRead: 0, totalBytes: f.file?.size ?? null, lines: 0, done: false }])),
        elapsedMs: 0,
      });
      // Progress events come per file, dozens a second for a folder of files: the page shows them
      // at most every PROGRESS_RENDER_MS, so drawing it takes little from the parse workers.
      const unshown = new Map<string, LoadProgress>();
      let shownAt: ReturnType<typeof setTimeout> | null = null;
      const show = (): void => {
        if (shownAt !== null) clearTimeout(shownAt);
        shownAt = null;
        if (unshown.size === 0) return;
        const batch = Object.fromEntries(unshown);
        unshown.clear();
        const elapsed = performance.now() - t0;
        progressFeed.set({ progress: { ...progressFeed.get().progress, ...batch }, elapsedMs: elapsed });
      };
      const onProgress = (p: LoadProgress) => {
        unshown.set(p.path, p);
        shownAt ??= setTimeout(show, PROGRESS_RENDER_MS);
      };
      // The figures come first, and show while the engine adds the throughput timelines. The data
      // is all in by then: charts query it from now (their queries wait in the worker behind the
      // timelines), and the full analysis that follows does not make them query again.
      let summarised = false;
      summarisedRef.current = false;
      const onSummary = (analysis: Analysis) => {
        if (generation.current !== started) return;
        summarised = true;
        summarisedRef.current = true;
        setState((s) => ({ ...s, analysis, dataVersion: s.dataVersion + 1 }));
      };
      const handle = client.load(files, replace, windowRef.current, regroupRef.current, onProgress, onSummary);
      cancelRef.current = handle.cancel;
      try {
        const result = await handle.result.finally(show);
        if (generation.current !== started) return;
        // A file read again (with a mapping now) leaves the list; what this load could not read joins it.
        const reread = new Set(files.map((f) => f.path));
        setState((s) => ({
          ...s,
          analysis: result.analysis,
          dataVersion: summarised ? s.dataVersion : s.dataVersion + 1,
          loading: false,
          cancelled: result.cancelled,
          lastLoadMs: performance.now() - t0,
          unmapped: [...(replace ? [] : s.unmapped.filter((p) => !reread.has(p.path))), ...result.unmapped],
        }));
      } catch (e) {
        setState((s) => ({ ...s, loading: false, fatal: e instanceof Error ? e.message : String(e) }));
      } finally {
        // Unless a later load has put its own cancel here already.
        if (cancelRef.current === handle.cancel) cancelRef.current = null;
      }
    },
    [state.client, progressFeed],
  );

  const cancel = useCallback(() => cancelRef.current?.(), []);

  /** Recompute every run's figures over a time window (seconds after each run's start). */
  const reanalyse = useCallback(
    async (window: AnalysisWindow) => {
      if (!state.client) return;
      const t0 = performance.now();
      const analysis = await state.client.analyse(window);
      setState((s) => ({ ...s, analysis, lastQueryMs: performance.now() - t0 }));
    },
    [state.client],
  );

  const clear = useCallback(async () => {
    generation.current++;
    cancelRef.current?.();
    await state.client?.clear();
    progressFeed.set({ progress: {}, elapsedMs: 0 });
    setState((s) => ({ ...s, analysis: null, dataVersion: s.dataVersion + 1, unmapped: [] }));
  }, [state.client, progressFeed]);

  /** Move files between runs and recompute. */
  const regroupRuns = useCallback(
    async (overrides: Regrouping, window: AnalysisWindow) => {
      if (!state.client) return;
      const t0 = performance.now();
      const analysis = await state.client.regroup(overrides, window);
      setState((s) => ({ ...s, analysis, dataVersion: s.dataVersion + 1, lastQueryMs: performance.now() - t0 }));
    },
    [state.client],
  );

  /** Open a comparison (from a self-contained link or a snapshot file) instead of result files. */
  const openSnapshot = useCallback(
    async (snapshot: Snapshot) => {
      if (!state.client) return;
      cancelRef.current?.();
      progressFeed.set({ progress: {}, elapsedMs: 0 });
      setState((s) => ({ ...s, loading: true, unmapped: [] }));
      try {
        const analysis = await state.client.loadSnapshot(snapshot);
        setState((s) => ({ ...s, analysis, dataVersion: s.dataVersion + 1, loading: false }));
      } catch (e) {
        setState((s) => ({ ...s, loading: false, fatal: e instanceof Error ? e.message : String(e) }));
      }
    },
    [state.client, progressFeed],
  );

  /**
   * An analysis computed ahead of time (the sample data's, at build time, by the same code), shown
   * until the engine's own arrives: nothing replaces an analysis the engine has given.
   */
  const showPrecomputed = useCallback((analysis: Analysis) => {
    setState((s) => (s.analysis ? s : { ...s, analysis }));
  }, []);

  return { ...state, progressFeed, load, cancel, clear, reanalyse, regroupRuns, openSnapshot, showPrecomputed };
}
