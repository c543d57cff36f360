import { Children, cloneElement, createContext, isValidElement, useContext, type ReactElement, type ReactNode } from 'react';
import { Area, Bar, Legend, Line, ResponsiveContainer, Tooltip } from 'recharts';

/**
 * A fixed size for charts drawn without a browser (the CLI's SVG export). ResponsiveContainer
 * measures its DOM box and draws nothing until it has one; with this context the chart is given
 * explicit pixels instead. Without `height`, each chart keeps the height it has in the app.
 */
export const StaticChartSize = createContext<{ width: number; height?: number } | null>(null);

/** One legend entry of a statically drawn chart, as the SVG export draws it. */
export interface StaticLegendItem {
  name: string;
  colour: string;
  /** SVG stroke-dasharray; '' = solid. */
  dash: string;
  icon: 'line' | 'rect';
}

/** Characters of a legend entry before it is shortened (ChartFrame's legendName). */
export const LEGEND_NAME_CHARS = 48;

/** Height of one row of a chart's legend. */
const LEGEND_ROW_PX = 24;
/** Width a legend has on the narrowest chart (two side by side at 1280 px), and per character and icon of an entry. */
const LEGEND_WIDTH_PX = 540;
const LEGEND_CHAR_PX = 7.5;
const LEGEND_ICON_PX = 40;

/** Rows a legend of these names takes (names shortened as legendName does), at least one. */
function legendRows(names: readonly string[]): number {
  if (names.length === 0) return 1;
  const longest = Math.max(...names.map((n) => Math.min(n.length, LEGEND_NAME_CHARS)));
  const perRow = Math.max(1, Math.floor(LEGEND_WIDTH_PX / (longest * LEGEND_CHAR_PX + LEGEND_ICON_PX)));
  return Math.ceil(names.length / perRow);
}

type ChartElement = ReactElement<{ children?: ReactNode }>;

/** Entries of the series a legend would list: Recharts builds its own from the same props. */
function legendItems(children: readonly ReactNode[]): StaticLegendItem[] {
  const items: StaticLegendItem[] = [];
  for (const child of children) {
    if (!isValidElement<Record<string, unknown>>(child) || child.props.legendType === 'none') continue;
    const { name, dataKey, stroke, fill, strokeDasharray } = child.props;
    const label = typeof name === 'string' ? name : typeof dataKey === 'string' ? dataKey : null;
    if (label === null) continue;
    if (child.type === Line || child.type === Area) {
      items.push({ name: label, colour: String(stroke ?? ''), dash: typeof strokeDasharray === 'string' ? strokeDasharray : '', icon: 'line' });
    } else if (child.type === Bar) {
      items.push({ name: label, colour: String(fill ?? ''), dash: '', icon: 'rect' });
    }
  }
  return items;
}

/**
 * The box every chart is drawn in: ResponsiveContainer in the browser; with StaticChartSize, the
 * chart itself at that size. Statically, Recharts' legend (HTML outside the SVG, laid out by
 * measuring it) and tooltip (interactive) are left out; the legend's entries and place are passed
 * on as data attributes for the exporter to draw in SVG.
 */
export function ChartContainer({ height, legend: legendNames = [], children }: { height: number; legend?: readonly string[]; children: ChartElement }) {
  const size = useContext(StaticChartSize);
  if (!size) {
    // The legend is drawn inside the box: room for the rows it takes on a half-width chart is
    // added, so it never takes the plot's place.
    return (
      <ResponsiveContainer width="100%" height={height + (legendRows(legendNames) - 1) * LEGEND_ROW_PX}>
        {children}
      </ResponsiveContainer>
    );
  }
  const parts = Children.toArray(children.props.children);
  const legend = parts.find((c): c is ReactElement<{ verticalAlign?: string }> => isValidElement(c) && c.type === Legend);
  const drawn = parts.filter((c) => !(isValidElement(c) && (c.type === Legend || c.type === Tooltip)));
  return (
    <div data-static-chart="" data-legend={JSON.stringify(legendItems(drawn))} data-legend-align={legend?.props.verticalAlign === 'bottom' ? 'bottom' : 'top'}>
      {cloneElement(children as ReactElement<{ children?: ReactNode; width?: number; height?: number }>, { width: size.width, height: size.height ?? height }, ...drawn)}
    </div>
  );
}
