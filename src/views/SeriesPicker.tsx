import { useId, useState } from 'react';
import { MAX_SERIES } from '../state/view-state.ts';
import { nameFilter } from './name-filter.ts';

/**
 * Which operations the charts draw, when there are more than a chart shows by default: the
 * busiest MAX_SERIES (or fewer, when each is drawn once per run) unless the user ticks others.
 * The choice is in the link (`series=`).
 */
export function SeriesPicker({ ranked, shown, picked, onPick }: { ranked: readonly string[]; shown: readonly string[]; picked: readonly string[]; onPick: (ops: string[]) => void }) {
  const [filter, setFilter] = useState('');
  const id = useId();
  if (ranked.length <= shown.length && picked.length === 0) return null;
  const match = nameFilter(filter);
  const listed = ranked.filter((op) => match.test(op));
  const toggle = (op: string, on: boolean) => {
    const base = picked.length ? picked : shown;
    onPick(on ? [...base, op] : base.filter((o) => o !== op));
  };
  return (
    <details className="series-picker" data-testid="series-picker">
      <summary>
        series: {shown.length} of {ranked.length} operations{picked.length === 0 ? `, the busiest` : ', as chosen'}
      </summary>
      <div className="series-picker-body">
        <label htmlFor={`${id}-filter`}>filter</label>{' '}
        <input id={`${id}-filter`} type="search" value={filter} placeholder="text or /regex/" onChange={(e) => setFilter(e.target.value)} />
        {match.error && <span className="warn"> {match.error}</span>}
        {picked.length > 0 && (
          <button type="button" className="link" onClick={() => onPick([])}>
            back to the busiest {MAX_SERIES}
          </button>
        )}
        <ul>
          {listed.map((op) => (
            <li key={op}>
              <label title={op}>
                <input type="checkbox" checked={shown.includes(op)} onChange={(e) => toggle(op, e.target.checked)} /> {op}
              </label>
            </li>
          ))}
        </ul>
      </div>
    </details>
  );
}
