import { useEffect, useMemo, useState } from 'react';
import { DEFAULT_ORDER, formatOrder, labelsFromRunFile, ORDER_LABELS, orderRuns, parseOrder, type HistoryChange, type HistoryOrder } from '../analysis/history.ts';
import { dirName, normalisePath } from '../model/naming.ts';
import type { InputFile } from '../engine/protocol.ts';
import { isManifest } from '../state/folder-listing.ts';
import { ERROR_RATE, THROUGHPUT } from '../analysis/compare.ts';
import type { EngineClient } from '../engine/client.ts';
import { DEFAULT_HISTORY_STATS, type HistoryRequest, type HistoryResult } from '../engine/history-queries.ts';
import type { ViewState } from '../state/view-state.ts';
import { formatHistoryValue, HistoryChart } from '../charts/HistoryChart.tsx';
import { historyRunsOf, type RunView } from '../display/run-views.ts';

/**
 * History: the loaded runs as repeats of one test, in an order the user picks (start time, name,
 * a label, a pattern on folder names), one figure of one operation per run with its interval, and
 * the change points, each of which opens Compare on the runs before against the runs after. The
 * engine worker computes the series (src/engine/history-queries.ts); order and selection live in
 * the link (`history=`).
 */

export interface HistoryViewProps {
  client: EngineClient | null;
  /** The files loaded, by path: a run's `benchlens.json` among them gives its labels. */
  inputs: ReadonlyMap<string, InputFile>;
  /** Changes when the dataset does. */
  version: unknown;
  views: RunView[];
  state: ViewState;
  update: (patch: Partial<ViewState>) => void;
}

const STAT_TEXT: Record<string, string> = { [THROUGHPUT]: 'throughput', [ERROR_RATE]: 'error rate' };

function orderOf(text: string | undefined): HistoryOrder {
  try {
    return text ? parseOrder(text) : DEFAULT_ORDER;
  } catch {
    return DEFAULT_ORDER;
  }
}

/** The largest `benchlens.json` read: labels take a few hundred bytes. */
const MAX_MANIFEST_BYTES = 64 * 1024;

/** Labels of each run (by key: its folder) from the `benchlens.json` files among the inputs; unreadable ones said. */
async function runFileLabels(inputs: ReadonlyMap<string, InputFile>): Promise<{ labels: Record<string, Record<string, string>>; problems: string[] }> {
  const labels: Record<string, Record<string, string>> = {};
  const problems: string[] = [];
  for (const input of inputs.values()) {
    if (!isManifest(input.path)) continue;
    try {
      const text = input.file ? (input.file.size <= MAX_MANIFEST_BYTES ? await input.file.text() : null) : input.url ? await (await fetch(input.url)).text() : null;
      if (text === null || text.length > MAX_MANIFEST_BYTES) {
        problems.push(`${input.path}: larger than ${MAX_MANIFEST_BYTES / 1024} KB, not read`);
        continue;
      }
      const read = labelsFromRunFile(text);
      if ('error' in read) problems.push(`${input.path}: ${read.error}`);
      else labels[dirName(normalisePath(input.path))] = read.labels;
    } catch (e) {
      problems.push(`${input.path}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return { labels, problems };
}

export function HistoryView({ client, inputs, version, views, state, update }: HistoryViewProps) {
  const [fileLabels, setFileLabels] = useState<{ labels: Record<string, Record<string, string>>; problems: string[] }>({ labels: {}, problems: [] });
  useEffect(() => {
    let live = true;
    // Read again with every new dataset (the inputs map is the page's, filled as files load).
    void runFileLabels(inputs).then((read) => live && setFileLabels(read));
    return () => {
      live = false;
    };
  }, [inputs, version]);
  const runs = useMemo(() => historyRunsOf(views, state, fileLabels.labels), [views, state, fileLabels.labels]);
  const order = orderOf(state.history?.order);
  const ordered = useMemo(() => orderRuns(runs, order), [runs, order]);
  const [patternText, setPatternText] = useState(order.kind === 'pattern' ? order.pattern : '');
  const [outcome, setOutcome] = useState<{ key: string; result: HistoryResult | null; error: string | null }>({ key: '', result: null, error: null });
  const request = useMemo((): HistoryRequest => ({ runKeys: ordered.runs.map((r) => r.key), stats: DEFAULT_HISTORY_STATS, window: state.window }), [ordered, state.window]);
  const requestKey = JSON.stringify(request);

  useEffect(() => {
    if (!client || request.runKeys.length === 0) return;
    let live = true;
    client.history(request).then(
      (result) => live && setOutcome({ key: requestKey, result, error: null }),
      (e: unknown) => live && setOutcome({ key: requestKey, result: null, error: e instanceof Error ? e.message : String(e) }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the request's content, not its identity
  }, [client, version, requestKey]);

  const result = outcome.result;
  const busy = outcome.key !== requestKey && request.runKeys.length > 0;
  const ops = [...new Set(result?.series.map((s) => s.op) ?? [])];
  const op = state.history?.op && ops.includes(state.history.op) ? state.history.op : (ops[0] ?? '');
  const stats = result?.series.filter((s) => s.op === op).map((s) => s.stat) ?? [];
  const stat = state.history?.stat && stats.includes(state.history.stat) ? state.history.stat : stats.includes('p99') ? 'p99' : (stats[0] ?? '');
  const series = result?.series.find((s) => s.op === op && s.stat === stat) ?? null;
  const labelKeys = [...new Set([...ORDER_LABELS, ...runs.flatMap((r) => Object.keys(r.labels))])].filter((k) => k !== 'system' && runs.some((r) => Object.hasOwn(r.labels, k)));
  const setHistory = (patch: Partial<NonNullable<ViewState['history']>>) => update({ history: { ...state.history, ...patch } });
  const keyOf = new Map(result?.runs.map((r) => [r.label, r.key]) ?? []);

  const openCompare = (change: HistoryChange) => {
    if (!result || !series) return;
    const starts = series.changes.map((c) => c.index);
    const at = starts.indexOf(change.index);
    const from = at > 0 ? (starts[at - 1] as number) : 0;
    const to = at + 1 < starts.length ? (starts[at + 1] as number) : result.runs.length;
    const keys = (a: number, b: number) => JSON.stringify(result.runs.slice(a, b).map((r) => r.key));
    update({ compare: { baseline: keys(from, change.index), candidate: keys(change.index, to) } });
    document.getElementById('compare')?.scrollIntoView({ behavior: 'smooth' });
  };

  return (
    <div className="history" data-testid="history-view">
      <div className="controls">
        <label>
          order{' '}
          <select
            value={order.kind === 'pattern' ? 'pattern' : formatOrder(order)}
            onChange={(e) => setHistory({ order: e.target.value === 'pattern' ? (patternText ? `pattern:${patternText}` : undefined) : e.target.value })}
            aria-label="history order"
          >
            <option value="time">start time</option>
            <option value="name">name (build-9 before build-10)</option>
            {labelKeys.map((k) => (
              <option key={k} value={`label:${k}`}>
                label {k}
              </option>
            ))}
            <option value="pattern">pattern on the folder name</option>
          </select>
        </label>{' '}
        <label>
          pattern{' '}
          <input
            value={patternText}
            placeholder="nightly-*-{}"
            size={14}
            aria-label="folder-name pattern"
            onChange={(e) => setPatternText(e.target.value)}
            onBlur={() => {
              if (!patternText) return;
              try {
                parseOrder(`pattern:${patternText}`);
                setHistory({ order: `pattern:${patternText}` });
              } catch {
                /* said below */
              }
            }}
          />
        </label>{' '}
        <label>
          operation{' '}
          <select value={op} onChange={(e) => setHistory({ op: e.target.value })} aria-label="history operation">
            {ops.map((o) => (
              <option key={o}>{o}</option>
            ))}
          </select>
        </label>{' '}
        <label>
          figure{' '}
          <select value={stat} onChange={(e) => setHistory({ stat: e.target.value })} aria-label="history figure">
            {stats.map((s) => (
              <option key={s} value={s}>
                {STAT_TEXT[s] ?? s}
              </option>
            ))}
          </select>
        </label>
        {busy && <span className="muted small"> computing intervals…</span>}
      </div>
      {patternText && (() => {
        try {
          parseOrder(`pattern:${patternText}`);
          return null;
        } catch (e) {
          return <p className="warn small">{(e as Error).message}</p>;
        }
      })()}
      {[...fileLabels.problems, ...ordered.problems, ...(result?.problems ?? [])].map((p) => (
        <p key={p} className="muted small">
          {p}
        </p>
      ))}
      {outcome.error && <p className="warn">history: {outcome.error}</p>}
      {series && <HistoryChart series={series} onChange={openCompare} />}
      {series && (
        <table className="history-changes" data-testid="history-changes">
          <thead>
            <tr>
              <th>change starts at</th>
              <th>run #</th>
              <th>before</th>
              <th>after</th>
              <th>ratio</th>
              <th>p-value</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {series.changes.length === 0 && (
              <tr>
                <td colSpan={7} className="muted">
                  no change point in {op} {STAT_TEXT[stat] ?? stat} over these {series.points.length} runs
                </td>
              </tr>
            )}
            {series.changes.map((c) => (
              <tr key={c.index} data-testid="history-change" data-run={c.run} data-index={c.index} data-key={keyOf.get(c.run) ?? ''}>
                <td>{c.run}</td>
                <td>{c.index + 1}</td>
                <td>{formatHistoryValue(stat, c.before)}</td>
                <td>{formatHistoryValue(stat, c.after)}</td>
                <td>×{c.ratio.toFixed(3)}</td>
                <td>{c.pValue.toFixed(3)}</td>
                <td>
                  <button type="button" onClick={() => openCompare(c)}>
                    compare before vs after
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
