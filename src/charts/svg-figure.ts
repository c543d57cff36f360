/**
 * A chart component drawn into one standalone SVG document, in a DOM of its own (static-dom.ts), not
 * read back from the page: its title and note, its legend, and the charts' own SVG, in the theme's
 * colours (src/display/theme.ts). The one way a chart becomes a file: the app's SVG and PNG export,
 * the `chart` CLI and the report, so a chart looks the same wherever it is drawn.
 */
import { createElement, type ReactElement } from 'react';
import type { ChartSvg } from '../display/export.ts';
import { resolveColours, type Theme } from '../display/theme.ts';
import { StaticChartSize, type StaticLegendItem } from './ChartContainer.tsx';
import { descendants, renderStatic, StaticElement, StaticText, SVG_NS, type StaticNode } from './static-dom.ts';

export const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
export const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, '&quot;');

/** `fontSize` → `font-size`, as in a style attribute. */
const cssName = (property: string) => (property.startsWith('--') ? property : property.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));

/** Attributes that only matter to a live page (keyboard focus, ARIA roles of the interactive chart). */
const DROPPED_ATTRIBUTES = new Set(['tabindex', 'role']);

/** SVG markup of a subtree; HTML inside it (there is none in Recharts' SVG) is left out. */
function serialize(node: StaticNode, theme: Theme, rootAttributes?: Record<string, string | number>): string {
  if (node instanceof StaticText) return escapeText(node.textContent);
  if (!(node instanceof StaticElement) || node.namespaceURI !== SVG_NS) return '';
  // Recharts leaves the chart's <title> and <desc> empty; the document has its own.
  if ((node.localName === 'title' || node.localName === 'desc') && node.textContent === '') return '';
  const attributes = new Map(node.attributes);
  const style = Object.entries(node.style)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
    .map(([k, v]) => `${cssName(k)}:${String(v)}`)
    .join(';');
  if (style) attributes.set('style', style);
  if (rootAttributes) {
    attributes.delete('style');
    for (const [k, v] of Object.entries(rootAttributes)) attributes.set(k, String(v));
  }
  const attrs = [...attributes]
    .filter(([k]) => !DROPPED_ATTRIBUTES.has(k))
    .map(([k, v]) => ` ${k}="${escapeAttribute(resolveColours(v, theme))}"`)
    .join('');
  const children = node.childNodes.map((c) => serialize(c, theme)).join('');
  return `<${node.localName}${attrs}>${children}</${node.localName}>`;
}

interface Panel {
  /** The chart's <svg> element, laid out later. */
  surface: StaticElement;
  /** A heading the app shows above this chart (the cost chart's distribution), or ''. */
  heading: string;
  legend: StaticLegendItem[];
  legendAlign: 'top' | 'bottom';
}

export interface Figure {
  title: string;
  note: string;
  warnings: string[];
  empty: string | null;
  panels: Panel[];
}

/** The parts of a rendered ChartFrame (see its class names) and of each ChartContainer in it. */
function readFigure(container: StaticElement): Figure {
  const all = descendants(container);
  const figure = all.find((e) => e.localName === 'figure');
  if (!figure) throw new Error('the chart component rendered no figure');
  const inFigure = descendants(figure);
  const text = (cls: string) => inFigure.find((e) => e.hasClass(cls))?.textContent.trim() ?? '';
  const emptyElement = inFigure.find((e) => e.hasClass('chart-empty'));
  const panels = inFigure
    .filter((e) => e.hasAttribute('data-static-chart'))
    .map((e): Panel | null => {
      const surface = descendants(e).find((d) => d.localName === 'svg' && d.hasClass('recharts-surface'));
      if (!surface) return null;
      const siblings = e.parentNode?.childNodes ?? [];
      const before = siblings[siblings.indexOf(e) - 1];
      const heading = before instanceof StaticElement && before.localName === 'div' && !descendants(before).some((d) => d.localName === 'svg') ? before.textContent.trim() : '';
      return {
        surface,
        heading,
        legend: JSON.parse(e.getAttribute('data-legend') ?? '[]') as StaticLegendItem[],
        legendAlign: e.getAttribute('data-legend-align') === 'bottom' ? 'bottom' : 'top',
      };
    })
    .filter((p): p is Panel => p !== null);
  return {
    title: text('chart-title'),
    note: text('chart-note'),
    warnings: inFigure.filter((e) => e.hasClass('warn')).map((e) => e.textContent.trim()),
    empty: emptyElement ? emptyElement.textContent.trim() : null,
    panels,
  };
}

const PAD = 12;
const TITLE_SIZE = 15;
const NOTE_SIZE = 12;
const LEGEND_SIZE = 13;
const LEGEND_ROW = LEGEND_SIZE + 9;
const LINE_GAP = 5;
const HEADING_HEIGHT = 22;
const EMPTY_HEIGHT = 120;

/** A rough width of text in the app's sans-serif: no font metrics without a browser. */
const textWidth = (text: string, size: number) => text.length * size * 0.58;

function wrap(text: string, width: number, size: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, size) > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

const ICON_WIDTH = 22;

/** Coordinates to a hundredth of a pixel: finer only lengthens the file. */
const px = (v: number) => String(Math.round(v * 100) / 100);

/** Legend entries in rows that fit the width, each row centred as Recharts centres its legend. */
function legendRows(items: readonly StaticLegendItem[], width: number): { item: StaticLegendItem; x: number }[][] {
  const rows: { item: StaticLegendItem; x: number; w: number }[][] = [];
  let row: { item: StaticLegendItem; x: number; w: number }[] = [];
  let x = 0;
  for (const item of items) {
    const w = ICON_WIDTH + 6 + textWidth(item.name, LEGEND_SIZE);
    if (row.length > 0 && x + w > width) {
      rows.push(row);
      row = [];
      x = 0;
    }
    row.push({ item, x, w });
    x += w + 18;
  }
  if (row.length > 0) rows.push(row);
  return rows.map((r) => {
    const used = (r.at(-1)?.x ?? 0) + (r.at(-1)?.w ?? 0);
    return r.map(({ item, x: at }) => ({ item, x: at + Math.max(0, (width - used) / 2) }));
  });
}

function legendMarkup(rows: { item: StaticLegendItem; x: number }[][], x0: number, y0: number, theme: Theme): string {
  return rows
    .flatMap((row, r) =>
      row.map(({ item, x }) => {
        const colour = escapeAttribute(resolveColours(item.colour || 'var(--text)', theme));
        const cy = px(y0 + (r + 0.5) * LEGEND_ROW);
        const left = x0 + x;
        const icon =
          item.icon === 'rect'
            ? `<rect x="${px(left + 5)}" y="${px(Number(cy) - 6)}" width="12" height="12" fill="${colour}"/>`
            : `<line x1="${px(left)}" y1="${cy}" x2="${px(left + ICON_WIDTH)}" y2="${cy}" stroke="${colour}" stroke-width="2"${item.dash ? ` stroke-dasharray="${escapeAttribute(item.dash)}"` : ''}/>`;
        return `<g class="legend-item">${icon}<text x="${px(left + ICON_WIDTH + 6)}" y="${cy}" dy="0.35em" font-size="${LEGEND_SIZE}" fill="${colour}">${escapeText(item.name)}</text></g>`;
      }),
    )
    .join('');
}

interface HeaderLine {
  text: string;
  size: number;
  colour: string;
  bold?: boolean;
}

function headerLines(figure: Figure, width: number): HeaderLine[] {
  const inner = width - 2 * PAD;
  return [
    { text: figure.title, size: TITLE_SIZE, colour: 'var(--text)', bold: true },
    ...wrap(figure.note, inner, NOTE_SIZE).map((text) => ({ text, size: NOTE_SIZE, colour: 'var(--muted)' })),
    ...figure.warnings.flatMap((w) => wrap(w, inner, NOTE_SIZE).map((text) => ({ text, size: NOTE_SIZE, colour: 'var(--warn)' }))),
  ].filter((l) => l.text !== '');
}

/** One entry per name: the cost chart's panels each list the same three options. */
function uniqueLegend(figure: Figure): StaticLegendItem[] {
  const seen = new Set<string>();
  return figure.panels.flatMap((p) => p.legend).filter((item) => !seen.has(item.name) && (seen.add(item.name), true));
}

/** Everything around the charts, and the height it takes. */
interface Frame {
  header: HeaderLine[];
  legend: { item: StaticLegendItem; x: number }[][];
  legendHeight: number;
  legendAtBottom: boolean;
  headings: boolean;
  /** The document's height less the charts' (or the empty chart's message). */
  height: number;
}

function frameOf(figure: Figure, width: number): Frame {
  const header = headerLines(figure, width);
  const legend = legendRows(uniqueLegend(figure), width - 2 * PAD);
  const legendHeight = legend.length > 0 ? legend.length * LEGEND_ROW + LINE_GAP : 0;
  const headings = figure.panels.some((p) => p.heading);
  const headerHeight = header.reduce((h, l) => h + l.size + LINE_GAP, LINE_GAP);
  return {
    header,
    legend,
    legendHeight,
    legendAtBottom: figure.panels[0]?.legendAlign === 'bottom',
    headings,
    height: 2 * PAD + headerHeight + legendHeight + (headings ? HEADING_HEIGHT : 0),
  };
}

/** The charts' size in the document; null height: each chart as tall as in the app. */
interface Layout {
  width: number;
  panelWidth: number;
  panelHeight: number | null;
}

function layoutFor(figure: Figure, width: number, height: number | null): Layout {
  const panels = Math.max(1, figure.panels.length);
  const panelHeight = height === null ? null : Math.max(100, height - frameOf(figure, width).height);
  return { width, panelWidth: Math.floor((width - 2 * PAD) / panels), panelHeight };
}

function svgDocument(figure: Figure, layout: Layout, theme: Theme): ChartSvg {
  const { width } = layout;
  const frame = frameOf(figure, width);
  const colour = (name: string) => resolveColours(`var(--${name})`, theme);
  const parts: string[] = [];
  let y = PAD;
  for (const line of frame.header) {
    y += line.size;
    parts.push(`<text x="${PAD}" y="${y}" font-size="${line.size}"${line.bold ? ' font-weight="600"' : ''} fill="${resolveColours(line.colour, theme)}">${escapeText(line.text)}</text>`);
    y += LINE_GAP;
  }
  y += LINE_GAP;
  if (!frame.legendAtBottom) {
    parts.push(legendMarkup(frame.legend, PAD, y, theme));
    y += frame.legendHeight;
  }
  if (figure.empty !== null || figure.panels.length === 0) {
    const height = layout.panelHeight ?? EMPTY_HEIGHT;
    const lines = wrap(figure.empty ?? 'Nothing to draw.', width - 2 * PAD, 14);
    const top = y + (height - lines.length * 20) / 2;
    lines.forEach((line, i) => parts.push(`<text x="${px(width / 2)}" y="${px(top + 15 + i * 20)}" text-anchor="middle" fill="${colour('muted')}">${escapeText(line)}</text>`));
    y += height;
  } else {
    if (frame.headings) {
      figure.panels.forEach((panel, i) => {
        const centre = PAD + (i + 0.5) * layout.panelWidth;
        parts.push(`<text x="${px(centre)}" y="${px(y + 15)}" text-anchor="middle" font-weight="600" fill="${colour('text')}">${escapeText(panel.heading)}</text>`);
      });
      y += HEADING_HEIGHT;
    }
    let tallest = 0;
    figure.panels.forEach((panel, i) => {
      const w = Number(panel.surface.getAttribute('width'));
      const h = Number(panel.surface.getAttribute('height'));
      parts.push(serialize(panel.surface, theme, { x: PAD + i * layout.panelWidth, y, width: w, height: h }));
      tallest = Math.max(tallest, h);
    });
    y += tallest;
  }
  if (frame.legendAtBottom) {
    parts.push(legendMarkup(frame.legend, PAD, y + LINE_GAP, theme));
    y += frame.legendHeight;
  }
  const height = Math.ceil(y + PAD);
  const svg = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${escapeAttribute(theme.fontFamily)}" font-size="14">`,
    `<title>${escapeText(figure.title)}</title>`,
    `<rect x="0.5" y="0.5" width="${width - 1}" height="${height - 1}" rx="8" fill="${colour('panel')}" stroke="${colour('border')}"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
  return { svg, width, height };
}


/**
 * Draws the chart twice: first to learn what surrounds it (title, note, legend, how many charts side
 * by side), then at the size that leaves it.
 */
export async function renderSvg(element: ReactElement, width: number, height: number | null, theme: Theme): Promise<ChartSvg & { figure: Figure }> {
  const at = (layout: Layout) => createElement(StaticChartSize.Provider, { value: { width: layout.panelWidth, ...(layout.panelHeight !== null ? { height: layout.panelHeight } : {}) } }, element);
  const first = await renderStatic(at({ width, panelWidth: width - 2 * PAD, panelHeight: null }), readFigure);
  const layout = layoutFor(first, width, height);
  return renderStatic(at(layout), (container) => {
    const figure = readFigure(container);
    return { ...svgDocument(figure, layout, theme), figure };
  });
}
