import { useState } from 'react';
import type { ViewState } from '../state/view-state.ts';

type Window = ViewState['window'];

/** Restrict every figure to seconds N–M after each run's own start (e.g. skip warm-up). */
export function WindowControl({
  window,
  onChange,
  queryMs,
  wholeRunOnly,
}: {
  window: Window;
  onChange: (w: Window) => void;
  queryMs: number | null;
  /** Runs opened from a comparison: their latency data has no time, so they keep whole-run figures. */
  wholeRunOnly: readonly string[];
}) {
  const [from, setFrom] = useState(window?.fromS?.toString() ?? '');
  const [to, setTo] = useState(window?.toS?.toString() ?? '');
  const parse = (t: string): number | null => (t.trim() === '' || !(Number(t) >= 0) ? null : Number(t));
  const apply = () => {
    const fromS = parse(from);
    const toS = parse(to);
    onChange(fromS === null && toS === null ? null : fromS !== null && toS !== null && toS <= fromS ? window : { fromS, toS });
  };
  return (
    <form
      className="window"
      data-testid="window-control"
      onSubmit={(e) => {
        e.preventDefault();
        apply();
      }}
    >
      time window: from <input aria-label="window from (s)" value={from} onChange={(e) => setFrom(e.target.value)} size={5} inputMode="decimal" /> s to{' '}
      <input aria-label="window to (s)" value={to} onChange={(e) => setTo(e.target.value)} size={5} inputMode="decimal" /> s after each run's start <button type="submit">apply</button>{' '}
      {window && (
        <button
          type="button"
          onClick={() => {
            setFrom('');
            setTo('');
            onChange(null);
          }}
        >
          whole runs
        </button>
      )}
      {queryMs !== null && <span className="muted small"> re-queried in {queryMs.toFixed(0)} ms</span>}
      {window && wholeRunOnly.length > 0 && (
        <p className="notice small" data-testid="window-not-applied">
          The window does not apply to {wholeRunOnly.join(', ')}: opened from a comparison, which carries whole-run latency only — these rows show the whole run.
        </p>
      )}
    </form>
  );
}
