import { formatLatency, formatNumber, formatOps, formatPct } from '../display/format.ts';
import type { RunView } from '../display/run-views.ts';
import { headlineOf, type HeadlineFigure } from '../model/headline.ts';

/**
 * A run's headline figures in one row: requests, throughput, error %, and p50/p95/p99 of all its
 * requests merged (a bound where only bounds are known). The page's overview and the report
 * show the same row; each figure carries `data-stat` and `data-value` (the exact number).
 */
export function Headline({ view }: { view: RunView }) {
  const figures = headlineOf(view.run);
  return (
    <dl className="headline" data-testid="headline" data-run={view.run.label}>
      {figures.map((f) => (
        <div key={f.stat} className={f.bound ? 'headline-figure bound' : 'headline-figure'} data-stat={f.stat} {...(f.value !== null ? { 'data-value': f.value } : {})} title={f.title}>
          <dt>{f.name}</dt>
          <dd>{text(f)}</dd>
        </div>
      ))}
    </dl>
  );
}

function text(f: HeadlineFigure): string {
  if (f.kind === 'latency') return f.bound ? (f.bound.min === f.bound.max ? formatLatency(f.bound.min) : `${formatLatency(f.bound.min)} – ${formatLatency(f.bound.max)}`) : formatLatency(f.value);
  if (f.kind === 'rate') return f.value === null ? '–' : `${formatOps(f.value)}/s`;
  if (f.kind === 'pct') return formatPct(f.value, f.value !== null && f.value > 0 && f.value < 0.1 ? 3 : 1);
  return f.value === null ? '–' : formatNumber(f.value);
}
