import { useContext, useRef, type ReactNode } from 'react';
import { ChartExportMenu, ExportContext } from './ExportMenu.tsx';
import { middleEllipsis } from '../display/format.ts';
import { LEGEND_NAME_CHARS } from './ChartContainer.tsx';

/**
 * The frame every chart renders in: title, a one-line note on how the numbers were computed,
 * export controls, and data attributes (`data-testid="chart-<id>"`, `data-series`) that tests and
 * tools read. `csv` gives the rows the chart draws, for its CSV download.
 */
export function ChartFrame(props: { id: string; title: string; note?: ReactNode; seriesCount: number; children: ReactNode; empty?: string | null; csv?: () => string }) {
  const { id, title, note, seriesCount, children, empty, csv } = props;
  const frame = useRef<HTMLElement>(null);
  const { embedded } = useContext(ExportContext);
  return (
    <figure ref={frame} className="chart" data-testid={`chart-${id}`} data-series={seriesCount}>
      <figcaption>
        <span className="chart-title">{title}</span>
        {note && <span className="chart-note">{note}</span>}
        {!embedded && <ChartExportMenu frame={frame} chart={() => <ChartFrame {...props} />} id={id} title={title} csv={csv} disabled={Boolean(empty)} />}
      </figcaption>
      {empty ? <p className="chart-empty">{empty}</p> : <div className="chart-body">{children}</div>}
    </figure>
  );
}

/** Axis colours that follow the theme (CSS variables resolve inside SVG too). */
export const AXIS = { stroke: 'var(--axis)', tick: { fill: 'var(--muted)', fontSize: 12 } } as const;
export const GRID = { stroke: 'var(--grid)', strokeDasharray: '3 3' } as const;
export const TOOLTIP_STYLE = { background: 'var(--panel)', border: '1px solid var(--border)', color: 'var(--text)' } as const;

/** A legend entry's text: long names (URLs, grouped requests) shortened in the middle; the tooltip keeps them whole. */
export const legendName = (value: unknown): string => middleEllipsis(String(value), LEGEND_NAME_CHARS);
