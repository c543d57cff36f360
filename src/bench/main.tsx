/**
 * The browser benchmark's page (bench.html, built only for `npm run bench`): the app's own engine
 * worker and chart component, driven by scripts/bench.ts through Playwright. Files arrive as real
 * File objects on the input; every figure is timed here, in the page, and left on `window` for
 * the script to collect.
 */
import { useEffect, useLayoutEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { ThroughputOverTimeChart } from '../charts/ThroughputOverTime.tsx';
import type { Analysis } from '../engine/analyse.ts';
import { EngineClient } from '../engine/client.ts';
import { decodeIndexedHistogram } from '../model/hdr-codec.ts';
import type { ChartResult } from '../engine/chart-queries.ts';
import { DEFAULT_STATE } from '../state/view-state.ts';
import { MAX_POINTS } from '../display/page-views.ts';
import { buildRunViews } from '../display/run-views.ts';
import { NO_NAME_RULES } from '../model/name-rules.ts';
import '../styles.css';

export interface BenchResult {
  files: number;
  bytes: number;
  /** Files handed over → the engine's last per-file `done` progress event (read + parse + decode). */
  parsedMs: number;
  /** Files handed over → the load's result: every file in DuckDB and every run's merged figures (p99 …) over everything. */
  loadedMs: number;
  /** Merged percentiles over the second half of each run only (a window the engine has not computed yet). */
  requeryMs: number;
  /** Load finished → throughput chart drawn (its SQL, then React and Recharts). */
  chartMs: number;
  /** Files handed over → throughput chart drawn. */
  firstChartMs: number;
  /** Merged p99 of each operation of the first run, µs (checked against native DuckDB). */
  p99: Record<string, number | null>;
  errors: number;
  /** Main-thread tasks of 50 ms or more (the Long Tasks API) while files were read and loaded: the page's responsiveness. */
  ingestLongTasks: { count: number; longestMs: number };
}

/** Long tasks on the page's main thread, as the browser reports them. */
const longTasks: { start: number; duration: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) longTasks.push({ start: e.startTime, duration: e.duration });
}).observe({ type: 'longtask', buffered: true });

declare global {
  interface Window {
    benchReady?: number;
    benchResult?: BenchResult;
    benchError?: string;
    benchPrepare?: () => Promise<number>;
    benchDecode?: () => { histograms: number; ms: number };
  }
}

let blobs: string[] = [];

/** Reads the chosen interval logs' histograms for benchDecode, and decodes a slice to warm up. */
window.benchPrepare = async () => {
  blobs = [];
  for (const file of document.querySelector<HTMLInputElement>('input[type=file]')?.files ?? []) {
    for (const line of (await file.text()).split('\n')) if (/^\d/.test(line)) blobs.push(line.slice(line.lastIndexOf(',') + 1));
  }
  // So that the optimising compiler has seen the loops before timing starts.
  for (const blob of blobs.slice(0, 2000)) decodeIndexedHistogram(blob);
  return blobs.length;
};

/** Decode alone, without reading, parsing or loading. */
window.benchDecode = () => {
  const t0 = performance.now();
  for (const blob of blobs) decodeIndexedHistogram(blob);
  return { histograms: blobs.length, ms: performance.now() - t0 };
};

const client = new EngineClient();
// The harness times loads with DuckDB started, as before it started only when needed.
void client.startDb();
client.ready.then(
  (startupMs) => (window.benchReady = startupMs),
  (e: unknown) => (window.benchError = String(e)),
);

type ThroughputResult = Extract<ChartResult, { kind: 'throughput-over-time' }>;

/** Calls `onDrawn` once the chart's SVG has been laid out and painted. */
function Chart({ analysis, result, onDrawn }: { analysis: Analysis; result: ThroughputResult; onDrawn: () => void }) {
  const views = buildRunViews(analysis, DEFAULT_STATE);
  useLayoutEffect(() => {
    let frame = 0;
    const check = () => {
      if (document.querySelector('.recharts-surface .recharts-area')) requestAnimationFrame(() => onDrawn());
      else frame = requestAnimationFrame(check);
    };
    frame = requestAnimationFrame(check);
    return () => cancelAnimationFrame(frame);
  }, [onDrawn]);
  return (
    <div style={{ width: 1200 }}>
      <ThroughputOverTimeChart result={result} views={views} events={[]} />
    </div>
  );
}

function Bench() {
  const [chart, setChart] = useState<{ analysis: Analysis; result: ThroughputResult; onDrawn: () => void } | null>(null);
  useEffect(() => {
    const input = document.querySelector<HTMLInputElement>('input[type=file]');
    if (!input) return;
    input.onchange = () => {
      const files = [...(input.files ?? [])];
      setChart(null);
      run(files, setChart).then(
        (r) => (window.benchResult = r),
        (e: unknown) => (window.benchError = e instanceof Error ? e.message : String(e)),
      );
    };
  }, []);
  return chart ? <Chart {...chart} /> : null;
}

async function run(files: File[], show: (c: { analysis: Analysis; result: ThroughputResult; onDrawn: () => void }) => void): Promise<BenchResult> {
  await client.ready;
  const t0 = performance.now();
  let parsedAt = t0;
  const inputs = files.map((file) => ({ path: `run/${file.name}`, file }));
  const { result } = client.load(inputs, true, null, { runs: {}, names: NO_NAME_RULES }, (p) => {
    if (p.done) parsedAt = performance.now();
  });
  const { analysis } = await result;
  const loadedAt = performance.now();
  // Reported after a tick: an entry is delivered once its task has ended.
  await new Promise((resolve) => setTimeout(resolve, 0));
  // Tasks that start during the load. The task in which the browser hands over the chosen files
  // (and runs this handler) starts before t0: with 48 files, Playwright's setInputFiles spends
  // ~30 ms of it building the file list before the change event fires.
  const during = longTasks.filter((e) => e.start >= t0 && e.start <= loadedAt);
  const first = analysis.runs[0];
  if (!first) throw new Error('the engine found no run in the files');

  const chartResult = (await client.chart({ kind: 'throughput-over-time', runIds: [first.id], maxPoints: MAX_POINTS })) as ThroughputResult;
  const drawnAt = await new Promise<number>((resolve) => show({ analysis, result: chartResult, onDrawn: () => resolve(performance.now()) }));

  const t = performance.now();
  await client.analyse({ fromS: (first.durationS ?? 0) / 2, toS: null });
  const requeryMs = performance.now() - t;

  return {
    files: files.length,
    bytes: files.reduce((sum, f) => sum + f.size, 0),
    parsedMs: parsedAt - t0,
    loadedMs: loadedAt - t0,
    requeryMs,
    chartMs: drawnAt - loadedAt,
    firstChartMs: drawnAt - t0,
    p99: Object.fromEntries(Object.entries(first.ops).map(([op, s]) => [op, s.p99])),
    errors: analysis.errors.length,
    ingestLongTasks: { count: during.length, longestMs: Math.round(Math.max(0, ...during.map((e) => e.duration))) },
  };
}

const root = document.getElementById('root');
if (root) createRoot(root).render(<Bench />);
