import { memo, useCallback, useDeferredValue, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { parseSlaRules, type SlaRule } from '../analysis/sla.ts';
import type { CompareResult } from '../model/comparison.ts';
import { CapacityPanel } from './CapacityPanel.tsx';
import { ComparePanel } from './ComparePanel.tsx';
import { HistoryView } from './HistoryView.tsx';
import { linkDataToSnapshot, snapshotLevel, type SnapshotLevel } from '../state/snapshot.ts';
import { decodeState, encodeState, shownTheme, type RunLabels, type ViewState } from '../state/view-state.ts';
import { subscribeToSystemTheme, systemPrefersDark } from '../display/system-theme.ts';
import { carriedDecisions } from '../state/decisions.ts';
import { ChartArea } from './ChartArea.tsx';
import { ExportContext, type ExportSettings } from '../charts/ExportMenu.tsx';
import { fileFromReference, filesFromDrop, filesFromFolders, isFolderReference, remoteHosts, sampleAnalysis, sampleReferences } from './file-sources.ts';
import { CsvMappingPanel } from './CsvMappingPanel.tsx';
import { LoadPanel } from './LoadPanel.tsx';
import { buildRunViews, colourMap, pageTitle } from '../display/run-views.ts';
import { RunsPanel } from './RunsPanel.tsx';
import { ReportButton } from './ReportButton.tsx';
import { SharePanel, SnapshotBanner } from './SharePanel.tsx';
import { ErrorsTables } from './ErrorsTable.tsx';
import { NameRulesPanel } from './NameRulesPanel.tsx';
import type { NameRules } from '../model/name-rules.ts';
import { SummaryTable } from './SummaryTable.tsx';
import { QueryView } from './QueryView.tsx';
import { useEngine } from './useEngine.ts';
import { WindowControl } from './WindowControl.tsx';
import { currentView, offeredViews } from '../display/page-views.ts';
import { Overview } from './Overview.tsx';
import { ViewSwitcher } from './ViewSwitcher.tsx';
import { TimeSplitOffer } from './TimeSplitOffer.tsx';
import type { InputFile } from '../engine/protocol.ts';

/**
 * The heavy parts of the page, drawn again only when their own inputs change: the page re-renders
 * on every change of its state (a load starting or ending, a notice, a label typed), and redrawing
 * the summary table and charts each time takes CPU from the parse workers while files load. A
 * load's progress does not re-render the page: only the load panel draws it (progress-feed.ts).
 */
const RunsTable = memo(RunsPanel);
const Summary = memo(SummaryTable);
const Charts = memo(ChartArea);
const RunOverview = memo(Overview);
const Compare = memo(ComparePanel);
const Capacity = memo(CapacityPanel);
const History = memo(HistoryView);

type Source = { kind: 'none' } | { kind: 'sample' } | { kind: 'link'; refs: string[] } | { kind: 'local' } | { kind: 'snapshot'; level?: SnapshotLevel };

function useViewState() {
  const initial = useMemo(() => decodeState(window.location.hash), []);
  const [state, setState] = useState<ViewState>(initial.state);
  const [notices, setNotices] = useState<string[]>(initial.notices);
  useEffect(() => {
    const fragment = encodeState(state);
    const url = `${window.location.pathname}${window.location.search}${fragment ? `#${fragment}` : ''}`;
    window.history.replaceState(null, '', url);
  }, [state]);
  const update = useCallback((patch: Partial<ViewState>) => setState((s) => ({ ...s, ...patch })), []);
  return { state, update, setState, notices, setNotices };
}

/** What a link names: "3 file(s)", "the files of 1 folder(s)", or both joined by "and". */
function describeRefs(refs: readonly string[], base: string): string {
  const folders = refs.filter((r) => isFolderReference(r, base)).length;
  const files = refs.length - folders;
  return [files > 0 ? `${files} file(s)` : '', folders > 0 ? `the files of ${folders} folder(s)` : ''].filter(Boolean).join(' and ');
}

export function App() {
  const { state, update, setState, notices, setNotices } = useViewState();
  const regrouping = useMemo(() => ({ runs: state.regroup, names: state.names }), [state.regroup, state.names]);
  const engine = useEngine(state.window, regrouping);
  const base = window.location.href;
  // A link naming files starts from those; hosts other than the app's own need a yes first.
  const [source, setSource] = useState<Source>(() =>
    state.data ? { kind: 'snapshot' } : state.files.length > 0 ? { kind: 'link', refs: state.files } : { kind: 'none' },
  );
  const [pendingHosts, setPendingHosts] = useState<string[] | null>(() => {
    const hosts = remoteHosts(state.files, base);
    return hosts.length > 0 ? hosts : null;
  });
  const [dragging, setDragging] = useState(false);
  const started = useRef(false);
  /** Every input by path, to read a table again once its columns are mapped. */
  const inputs = useRef(new Map<string, InputFile>());
  const csvMaps = useRef(state.csvMaps);
  csvMaps.current = state.csvMaps;
  /** Hands inputs to the engine with the user's CSV column mappings, keeping them for a re-read. */
  const loadInputs = useCallback(
    (files: InputFile[], replace: boolean) => {
      if (replace) inputs.current.clear();
      for (const f of files) inputs.current.set(f.path, f);
      return engine.load(
        files.map((f) => ({ ...f, csvMaps: csvMaps.current })),
        replace,
      );
    },
    [engine],
  );

  /** How the folders a link names were listed (shown beside the files). */
  const [folderNotes, setFolderNotes] = useState<string[]>([]);
  const loadRefs = useCallback(
    async (refs: string[]) => {
      const folders = refs.filter((r) => isFolderReference(r, base));
      const listed = folders.length > 0 ? await filesFromFolders(folders, base) : null;
      setFolderNotes(listed?.notes ?? []);
      if (listed && listed.problems.length > 0) setNotices((n) => [...n, ...listed.problems]);
      const files = refs.filter((r) => !isFolderReference(r, base)).map((r) => fileFromReference(r, base));
      return loadInputs([...files, ...(listed?.files ?? [])], true);
    },
    [loadInputs, base, setNotices],
  );

  // First load: files named in the link (asking before contacting other hosts), else the sample data.
  useEffect(() => {
    if (!engine.client || started.current) return;
    started.current = true;
    if (source.kind === 'snapshot') {
      try {
        const snapshot = linkDataToSnapshot(state.data);
        setSource({ kind: 'snapshot', level: snapshotLevel(snapshot) });
        void engine.openSnapshot(snapshot);
      } catch (e) {
        setNotices((n) => [...n, `this link's comparison cannot be opened: ${e instanceof Error ? e.message : String(e)}`]);
      }
    } else if (source.kind === 'link') {
      if (!pendingHosts) void loadRefs(source.refs);
    } else {
      void sampleReferences(base).then((refs) => {
        if (refs.length === 0) return;
        setSource({ kind: 'sample' });
        void loadRefs(refs);
      });
      // The sample's summary as computed at build time: on screen while DuckDB starts and the
      // engine reads the same files, whose analysis then replaces it.
      void sampleAnalysis(base).then((analysis) => analysis && engine.showPrecomputed(analysis));
    }
  }, [engine, source, pendingHosts, base, loadRefs, state.data, setNotices]);

  const loadLocal = useCallback(
    (files: InputFile[]) => {
      if (files.length === 0) return;
      const replace = source.kind !== 'local';
      setSource({ kind: 'local' });
      if (state.files.length || state.data) update({ files: [], data: '' });
      void loadInputs(files, replace);
    },
    [loadInputs, source.kind, state.files.length, state.data, update],
  );

  const applyCsvMapping = useCallback(
    (key: string, spec: string) => {
      csvMaps.current = { ...csvMaps.current, [key]: spec };
      update({ csvMaps: csvMaps.current });
      const again = engine.unmapped.filter((p) => p.key === key).flatMap((p) => inputs.current.get(p.path) ?? []);
      void loadInputs(again, false);
    },
    [engine.unmapped, loadInputs, update],
  );

  useEffect(() => {
    const over = (e: DragEvent) => {
      e.preventDefault();
      setDragging(true);
    };
    const leave = (e: DragEvent) => {
      if (e.relatedTarget === null) setDragging(false);
    };
    const drop = (e: DragEvent) => {
      e.preventDefault();
      setDragging(false);
      if (e.dataTransfer) void filesFromDrop(e.dataTransfer).then(loadLocal);
    };
    window.addEventListener('dragover', over);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }, [loadLocal]);

  // A link without a theme shows the colours the reader's system prefers, and follows them.
  const theme = shownTheme(state.theme, useSyncExternalStore(subscribeToSystemTheme, systemPrefersDark, () => false));
  // Before the browser paints: no frame in the other theme's colours.
  useLayoutEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);

  // Changing the window re-queries every run; loads already use the window in force. The view
  // takes the window together with its figures: rendering the whole page for the window before they
  // arrive would only compete with the query for the CPU.
  const setWindow = useCallback(
    (window: ViewState['window']) => {
      void engine.reanalyse(window).then(() => update({ window }));
    },
    [update, engine],
  );

  const views = useMemo(() => buildRunViews(engine.analysis, state), [engine.analysis, state]);
  const title = pageTitle(views);
  useEffect(() => {
    document.title = title;
  }, [title]);
  // A snapshot file dropped in carries what a link would: say which level, as for a link.
  const comparisonLevels = new Set(engine.analysis?.runs.map((r) => r.comparison) ?? []);
  const droppedComparison = comparisonLevels.has('figures') ? 'figures' : comparisonLevels.has('histograms') ? 'histograms' : null;
  const colours = useMemo(() => colourMap(views.map((v) => v.system)), [views]);
  // The figures first: the summary table and the headline take a new analysis in the render it
  // arrives in; the view (overview, charts, history), its charts and the panels below the table
  // take it in a render of their own that follows (deferred), so that the figures are not held
  // back by rendering charts, nor by unmounting those of the data before. Their queries start
  // from that render too.
  const now = useMemo(() => ({ views, colours, version: engine.dataVersion }), [views, colours, engine.dataVersion]);
  const deferred = useDeferredValue(now);
  // With nothing shown before (a first load), the view comes with the figures: there are no charts
  // to unmount, its charts are empty frames until their queries answer, and the page does not shift.
  const later = deferred.views.length > 0 ? deferred : now;
  const view = currentView(later.views, state);
  // Several rules (separated by ;) all hold for capacity; the summary and the charts mark the first.
  const { sla, slaError } = useMemo((): { sla: SlaRule | null; slaError: string | null } => {
    const { rules, errors } = parseSlaRules(state.sla);
    return { sla: rules[0] ?? null, slaError: errors.length ? errors.join('; ') : null };
  }, [state.sla]);
  /** The A/B comparison on screen, which a shared comparison carries. */
  const [comparison, setComparison] = useState<CompareResult | null>(null);
  // A dropped snapshot file carries the SLA, prices, labels and sides it was made with.
  const carriedView = engine.analysis?.carriedView;
  useEffect(() => {
    if (carriedView) setState((s) => ({ ...s, ...carriedDecisions(s, carriedView) }));
  }, [carriedView, setState]);

  const setRunLabels = useCallback(
    (key: string, patch: Partial<RunLabels>) =>
      setState((s) => {
        const merged: Record<string, unknown> = { ...s.runs[key], ...patch };
        for (const k of Object.keys(merged)) if (merged[k] === undefined || merged[k] === false) delete merged[k];
        return { ...s, runs: { ...s.runs, [key]: merged as RunLabels } };
      }),
    [setState],
  );

  const { regroupRuns } = engine;
  /** Files moved to other runs: `moved` maps a file's path to its run's key. */
  const moveFiles = useCallback(
    (moved: Record<string, string>) => {
      const regroup = { ...state.regroup, ...moved };
      update({ regroup });
      void regroupRuns({ runs: regroup, names: state.names }, state.window);
    },
    [state.regroup, state.names, state.window, update, regroupRuns],
  );
  const setNames = useCallback(
    (names: NameRules) => {
      update({ names });
      void regroupRuns({ runs: state.regroup, names }, state.window);
    },
    [state.regroup, state.window, update, regroupRuns],
  );

  const exportSettings = useMemo((): ExportSettings => ({ embedded: state.embed !== null, localData: source.kind === 'local' }), [state.embed, source.kind]);
  // An embed shows its chart whatever tab the link was made on.
  const chartState = useMemo(() => (state.embed ? { ...state, chart: state.embed } : state), [state]);
  const charts = <Charts client={engine.client} version={later.version} views={later.views} colours={later.colours} state={chartState} sla={sla} update={update} />;

  const remoteConfirm = pendingHosts && source.kind === 'link' && (
    <div className="notice" data-testid="remote-confirm">
      This link loads {describeRefs(source.refs, base)} from {pendingHosts.join(', ')}. Nothing is sent to them beyond the requests for these files{source.refs.some((r) => isFolderReference(r, base)) ? ' and their folder listings' : ''}.{' '}
      <button
        type="button"
        onClick={() => {
          setPendingHosts(null);
          void loadRefs(source.refs);
        }}
      >
        Load
      </button>{' '}
      <button type="button" onClick={() => setPendingHosts(null)}>
        Don't load
      </button>
    </div>
  );

  if (state.embed) {
    // For an <iframe>: the chart alone, filling the page. Asking before contacting other hosts still applies.
    return (
      <ExportContext value={exportSettings}>
        <div className="app embed" data-testid="embed">
          {remoteConfirm}
          {views.length > 0 ? (
            charts
          ) : (
            <p className="muted embed-status" data-testid="engine-status">
              {engine.fatal ? `engine error: ${engine.fatal}` : engine.analysis && !engine.loading ? 'no results to show' : 'loading results…'}
              {notices.length > 0 && <span className="warn"> ({notices.join('; ')})</span>}
            </p>
          )}
        </div>
      </ExportContext>
    );
  }

  return (
    <ExportContext value={exportSettings}>
      <div className="app">
        <header>
          <h1>benchlens</h1>
          <span className="tagline">exact percentiles from benchmark results, merged across clients</span>
          <span className="spacer" />
          <span className="muted small" data-testid="engine-status">
            {engine.fatal
              ? `engine error: ${engine.fatal}`
              : !engine.client
                ? 'starting the engine…'
                : engine.ready
                ? `DuckDB ready (${engine.startupMs?.toFixed(0)} ms)`
                : engine.dbStarting
                  ? 'starting DuckDB…'
                  : 'DuckDB not started (figures and charts do not need it; SQL starts it)'}
          </span>
          {/* The name starts with the words shown (axe: label-content-name-mismatch) and says what the button does. */}
          <button type="button" onClick={() => update({ theme: theme === 'dark' ? 'light' : 'dark' })} aria-label={`${theme === 'dark' ? '☀ light' : '☾ dark'} — toggle theme`}>
            {theme === 'dark' ? '☀ light' : '☾ dark'}
          </button>
        </header>
        <main>
        {dragging && <div className="drop-overlay">Drop result files or folders</div>}
        {notices.length > 0 && (
          <div className="notice" role="status">
            {notices.join('; ')} <button type="button" className="link" onClick={() => setNotices([])}>dismiss</button>
          </div>
        )}
        {source.kind === 'sample' && (
          <div className="sample-banner" data-testid="sample-banner">
            This is sample data: real YCSB 0.17 runs from <code>sample-results/</code>. Drop your own result folders to analyse them.{' '}
            <button
              type="button"
              onClick={() => {
                setSource({ kind: 'none' });
                void engine.clear();
              }}
            >
              Clear sample data
            </button>
          </div>
        )}
        {remoteConfirm}
        <LoadPanel onFiles={loadLocal} progressFeed={engine.progressFeed} loading={engine.loading} cancelled={engine.cancelled} onCancel={engine.cancel} analysis={engine.analysis} folderNotes={folderNotes} />
        <CsvMappingPanel previews={engine.unmapped} onApply={applyCsvMapping} />
        {views.length > 0 && (
          <>
            {source.kind === 'snapshot' && source.level && <SnapshotBanner level={source.level} />}
            {source.kind !== 'snapshot' && droppedComparison && <SnapshotBanner level={droppedComparison} />}
            <TimeSplitOffer views={views} files={engine.analysis?.files ?? []} onSplit={moveFiles} />
            <ViewSwitcher offered={offeredViews(later.views, state)} view={view} onChange={(v) => update({ view: v })} />
            {view === 'overview' && <RunOverview client={engine.client} version={later.version} views={later.views} colours={later.colours} figures={views} state={state} sla={sla} update={update} />}
            {view === 'charts' && charts}
            {view === 'history' && (
              <section id="history">
                <h2>History</h2>
                <History client={engine.client} inputs={inputs.current} version={later.version} views={later.views} state={state} update={update} />
              </section>
            )}
            <section>
              <h2>Summary</h2>
              <div className="sla">
                <label>
                  SLA rule{' '}
                  <input value={state.sla} placeholder="p95 of READ <= 10 ms at >= 90000 ops/s" onChange={(e) => update({ sla: e.target.value })} aria-label="SLA rule" size={40} />
                </label>
                {slaError && <span className="warn"> {slaError}</span>}
              </div>
              <NameRulesPanel views={views} names={state.names} onChange={setNames} />
              <WindowControl window={state.window} onChange={setWindow} queryMs={engine.lastQueryMs} wholeRunOnly={views.filter((v) => !v.hidden && v.run.comparison !== null).map((v) => v.label)} />
              <Summary views={views} sla={sla} />
              <p className="muted small">
                Latencies merged across clients from summed HdrHistogram buckets (HdrHistogram 2.2.2 percentile semantics) or exact nearest rank over raw samples. “max-of-clients” is what taking the worst client's own percentile would report; its error is shown against the merged value.
              </p>
            </section>
            <section id="errors">
              <h2>Errors</h2>
              <ErrorsTables views={views} />
            </section>
            <section>
              <h2>Runs</h2>
              <RunsTable views={views} colours={colours} onChange={setRunLabels} onMoveFiles={moveFiles} />
            </section>
            <div className="share-row">
              <SharePanel client={engine.client} state={state} visibleKeys={views.filter((v) => !v.hidden).map((v) => v.key)} comparison={comparison} />
              <ReportButton client={engine.client} state={state} files={engine.analysis?.files ?? []} inputs={inputs.current} />
            </div>
            <section id="compare">
              <h2>Compare</h2>
              <Compare client={engine.client} version={later.version} views={later.views} state={state} update={update} onResult={setComparison} carried={engine.analysis?.carriedComparison ?? null} />
            </section>
            <section>
              <h2>Capacity and price at the SLA</h2>
              <Capacity views={later.views} state={state} update={update} />
            </section>
          </>
        )}
        {/* Outside the block above: a query and its result outlive the data going and coming back during a load. */}
        <section id="query">
          <h2>Query</h2>
          <QueryView client={engine.client} version={engine.dataVersion} state={state} update={update} />
        </section>
        </main>
      </div>
    </ExportContext>
  );
}
