import { useEffect, useMemo, useState } from 'react';
import { DEFAULT_PERCENTILES } from '../analysis/compare.ts';
import type { EngineClient } from '../engine/client.ts';
import type { CompareRequest } from '../engine/compare-queries.ts';
import type { CompareResult } from '../model/comparison.ts';
import type { ViewState } from '../state/view-state.ts';
import { resolveSelection, selectionChoices } from '../display/decide.ts';
import { ComparisonTable } from './DecideTables.tsx';
import type { RunView } from '../display/run-views.ts';

/**
 * Compare: pick a baseline and a candidate (a run, or every run with a label), and the
 * percentiles; the engine worker computes the table (src/engine/compare-queries.ts), so a bootstrap
 * of an hour of seconds never holds up the page. The choice lives in the link.
 */

export interface ComparePanelProps {
  client: EngineClient | null;
  /** Changes when the dataset does. */
  version: unknown;
  views: RunView[];
  state: ViewState;
  update: (patch: Partial<ViewState>) => void;
  /** The table shown (or null), for sharing it. */
  onResult: (result: CompareResult | null) => void;
  /** The comparison an opened snapshot file or link carried: shown until sides are chosen. */
  carried: CompareResult | null;
}

function parsePercentiles(text: string): number[] | null {
  const values = text
    .split(/[,\s]+/)
    .filter((p) => p.length > 0)
    .map((p) => Number(p.replace(/^p/i, '')));
  return values.length > 0 && values.every((p) => p > 0 && p <= 100) ? values : null;
}

export function ComparePanel({ client, version, views, state, update, onResult, carried }: ComparePanelProps) {
  const choices = useMemo(() => selectionChoices(views, state), [views, state]);
  const compare = state.compare;
  const percentiles = useMemo(() => compare?.percentiles ?? [...DEFAULT_PERCENTILES], [compare]);
  const [percentileText, setPercentileText] = useState(percentiles.join(', '));
  const [outcome, setOutcome] = useState<{ result: CompareResult | null; error: string | null; ms: number | null; busy: boolean }>({ result: null, error: null, ms: null, busy: false });

  const sides = useMemo(() => {
    if (!compare) return null;
    const baseline = resolveSelection(views, state, compare.baseline);
    const candidate = resolveSelection(views, state, compare.candidate);
    return { baseline, candidate };
  }, [compare, views, state]);
  const request = useMemo((): CompareRequest | null => {
    if (!sides || 'error' in sides.baseline || 'error' in sides.candidate) return null;
    const { notes: _b, ...baseline } = sides.baseline;
    const { notes: _c, ...candidate } = sides.candidate;
    return { baseline, candidate, percentiles, window: state.window };
  }, [sides, percentiles, state.window]);
  const key = JSON.stringify(request);

  useEffect(() => {
    if (!client || !request) {
      // A snapshot file carries its comparison but not the page's choice of sides: show it as it came.
      const shown = !compare && carried ? { ...carried, carried: true } : null;
      setOutcome({ result: shown, error: null, ms: null, busy: false });
      onResult(shown);
      return;
    }
    let live = true;
    const t0 = performance.now();
    setOutcome((o) => ({ ...o, busy: true }));
    const groupNotes = sides && !('error' in sides.baseline) && !('error' in sides.candidate) ? [...sides.baseline.notes, ...sides.candidate.notes] : [];
    client.compare(request).then(
      (r) => {
        if (!live) return;
        const result = { ...r, notes: [...groupNotes, ...r.notes] };
        setOutcome({ result, error: null, ms: performance.now() - t0, busy: false });
        onResult(result);
      },
      (e: unknown) => {
        if (!live) return;
        setOutcome({ result: null, error: e instanceof Error ? e.message : String(e), ms: null, busy: false });
        onResult(null);
      },
    );
    return () => {
      live = false;
    };
    // `key` stands for `request`'s content; `version` changes when the dataset does (and with it what a comparison carried).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, key, version]);

  const pick = (side: 'baseline' | 'candidate', value: string) => {
    if (!value) {
      update({ compare: null });
      return;
    }
    // The other side starts as a different run, so one choice already compares something.
    const other = side === 'baseline' ? compare?.candidate : compare?.baseline;
    const fallback = choices.find((c) => c.value !== value)?.value ?? value;
    const next = { baseline: side === 'baseline' ? value : (other ?? fallback), candidate: side === 'candidate' ? value : (other ?? fallback) };
    update({ compare: { ...next, ...(compare?.percentiles ? { percentiles: compare.percentiles } : {}) } });
  };
  const setPercentiles = (text: string) => {
    setPercentileText(text);
    const parsed = parsePercentiles(text);
    if (parsed && compare) {
      const same = parsed.length === DEFAULT_PERCENTILES.length && parsed.every((p, i) => p === DEFAULT_PERCENTILES[i]);
      const { percentiles: _, ...rest } = compare;
      update({ compare: same ? rest : { ...rest, percentiles: parsed } });
    }
  };
  const sideError = sides ? [sides.baseline, sides.candidate].flatMap((s) => ('error' in s ? [s.error] : [])) : [];

  const select = (side: 'baseline' | 'candidate') => (
    <label>
      {side}{' '}
      <select aria-label={side} data-testid={`compare-${side}`} value={compare?.[side] ?? ''} onChange={(e) => pick(side, e.target.value)}>
        <option value="">choose…</option>
        {compare && !choices.some((c) => c.value === compare[side]) && <option value={compare[side]}>{compare[side]} (not loaded)</option>}
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.text}
          </option>
        ))}
      </select>
    </label>
  );

  if (!compare && !carried && views.filter((v) => !v.hidden).length < 2) {
    return (
      <p className="compare-panel muted folded" data-testid="compare-panel" data-folded="">
        Needs two runs, or two groups of runs by label: load another run to compare with this one.
      </p>
    );
  }

  return (
    <div className="compare-panel" data-testid="compare-panel">
      <div className="controls">
        {select('baseline')}
        {select('candidate')}
        <label>
          percentiles{' '}
          <input aria-label="compared percentiles" value={percentileText} size={14} onChange={(e) => setPercentiles(e.target.value)} />
        </label>
        {!parsePercentiles(percentileText) && <span className="warn small">percentiles must be numbers above 0 and at most 100, e.g. 50, 99, 99.9</span>}
        {outcome.busy && <span className="muted small">computing…</span>}
        {!outcome.busy && outcome.ms !== null && (
          <span className="muted small" data-testid="compare-ms" data-ms={outcome.ms.toFixed(0)}>
            {outcome.ms.toFixed(0)} ms
          </span>
        )}
      </div>
      {!compare && !carried && (
        <p className="muted small">
          Choose a baseline and a candidate — two runs, or two groups of runs by label (system, workload, distribution, load level, nodes, repeat) — to see, per operation and percentile and for throughput, the ratio, its 95% confidence interval and
          whether the difference is real.
        </p>
      )}
      {sideError.map((e) => (
        <p key={e} className="warn">
          {e}
        </p>
      ))}
      {outcome.error && <p className="warn">the comparison failed: {outcome.error}</p>}
      {outcome.result && <ComparisonTable result={outcome.result} />}
    </div>
  );
}
