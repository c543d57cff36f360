import { encodeState, type ChartId, type ViewState } from '../state/view-state.ts';
import type { RunView } from './run-views.ts';
import { PERCENTILE_KEYS } from '../model/percentiles.ts';
import { ALL_REQUESTS, type Bound, type Figures } from '../model/figures.ts';
import type { CompareResult } from '../model/comparison.ts';
import type { CapacityRow, SizingRow } from '../analysis/capacity.ts';

/**
 * Exports for use outside the page: tables as CSV and Markdown, a chart as a standalone SVG (and
 * PNG drawn from it), and the snippet that embeds one chart in an `<iframe>`. Labels come from
 * file names and links, so every format escapes them for its own syntax and nothing is ever
 * interpreted as markup or as a spreadsheet formula.
 */

/** A table cell: text from files, a number written exactly, a bound, or nothing known. */
export type Cell = string | number | Bound | null;

export interface Table {
  header: string[];
  /** Per column: numbers align right in Markdown. */
  numeric: boolean[];
  rows: Cell[][];
}

const boundText = (b: Bound): string => `[${b.min}, ${b.max}]`;

/**
 * Spreadsheets run a cell that starts like a formula (OWASP's list, tab and CR included); the
 * leading apostrophe makes it text. Numbers are never guarded: a negative number stays a number.
 */
export function guardFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** One RFC 4180 field: quoted when it holds a separator, a quote, a line break or edge spaces. */
export function csvCell(cell: Cell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : '';
  const text = typeof cell === 'string' ? guardFormula(cell) : boundText(cell);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/**
 * Text for a GFM table cell. Pipes would split the cell, line breaks end the table, and the
 * other characters escaped could start emphasis, code, links or raw HTML.
 */
export function markdownText(text: string): string {
  return text.replace(/[\\`*_[\]<>|~&]/g, (c) => `\\${c}`).replace(/\r\n|\r|\n/g, ' ');
}

function markdownCell(cell: Cell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : '';
  return typeof cell === 'string' ? markdownText(cell) : boundText(cell);
}

export function toMarkdown(table: Table): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(table.header.map(markdownText)),
    line(table.numeric.map((n) => (n ? '---:' : '---'))),
    ...table.rows.map((row) => line(row.map(markdownCell))),
  ].join('\n') + '\n';
}

const figure = (o: Figures, key: keyof NonNullable<Figures['bounds']>): Cell => o[key] ?? o.bounds?.[key] ?? null;

/** The summary table as shown (hidden runs left out): merged figures in µs, exactly as computed. */
export function summaryTable(views: readonly RunView[]): Table {
  const header = ['run', 'op', 'count', 'ops/s', 'mean (µs)', ...PERCENTILE_KEYS.map((k) => `${k} (µs)`), 'max (µs)', 'max-of-clients p95 (µs)', 'max-of-clients p99 (µs)'];
  const rows: Cell[][] = [];
  for (const v of views) {
    if (v.hidden) continue;
    const run = v.run;
    const all = run.allRequests;
    // As the table shows it: the run's all-requests row first, where it merges several operations.
    if (all && all.ops > 1) {
      rows.push([v.label, ALL_REQUESTS, all.count, run.durationS ? all.count / run.durationS : null, figure(all, 'mean'), ...PERCENTILE_KEYS.map((k) => figure(all, k)), all.max, null, null]);
    }
    for (const [op, o] of Object.entries(run.ops)) {
      rows.push([
        v.label,
        op,
        o.count,
        run.durationS ? o.count / run.durationS : null,
        figure(o, 'mean'),
        ...PERCENTILE_KEYS.map((k) => figure(o, k)),
        o.max,
        o.naive.maxClientP95,
        o.naive.maxClientP99,
      ]);
    }
  }
  return { header, numeric: header.map((_, i) => i >= 2), rows };
}

export const summaryCsv = (views: readonly RunView[]): string => {
  const t = summaryTable(views);
  return toCsv(t.header, t.rows);
};

export const summaryMarkdown = (views: readonly RunView[]): string => toMarkdown(summaryTable(views));

/** An A/B comparison as the Compare panel shows it: µs and ops/s exactly as computed, the interval and the verdict. */
export function comparisonTable(result: CompareResult): Table {
  const header = ['op', 'stat', 'baseline', 'candidate', 'ratio', 'ci low', 'ci high', 'delta', 'verdict', 'method', 'note'];
  const rows: Cell[][] = result.rows.map((r) => [r.op, r.stat, r.baseline, r.candidate, r.ratio, r.ciLow, r.ciHigh, r.delta, r.verdict, r.method, r.note ?? null]);
  return { header, numeric: header.map((h) => ['baseline', 'candidate', 'ratio', 'ci low', 'ci high'].includes(h)), rows };
}

/** Capacity at the SLA per system, ranked, as the Capacity panel shows it. */
export function capacityTable(rows: readonly CapacityRow[]): Table {
  const header = ['rank', 'system', 'configuration', 'sla', 'max ops/s', 'run', 'breaks at ops/s', 'breaking run', 'estimate ops/s', 'utilisation %', 'monthly cost ($)', '$ per 1,000 ops/s-month', 'priced as', 'notes'];
  const body: Cell[][] = rows.map((r) => [
    r.rank,
    r.system,
    r.sweep,
    r.sla,
    r.maxOpsPerS,
    r.maxRun,
    r.failsAtOpsPerS,
    r.failsAtRun,
    r.estimateOpsPerS,
    r.utilisationPct,
    r.monthlyCost,
    r.costPerKops,
    r.pricing,
    r.notes.join('; ') || null,
  ]);
  return { header, numeric: header.map((h) => !['system', 'configuration', 'sla', 'run', 'breaking run', 'priced as', 'notes'].includes(h)), rows: body };
}

/** The sizing table: per system and cluster size, ops/s, pXX per operation (µs), cost per node and in total. */
export function sizingTableOf(rows: readonly SizingRow[], ops: readonly string[], percentile: number): Table {
  const header = ['system', 'configuration', 'nodes', 'run', 'basis', 'ops/s', ...ops.map((op) => `p${percentile} ${op} (µs)`), '$ per node-month', '$ per month', '$ per 1,000 ops/s-month'];
  const body: Cell[][] = rows.map((r) => [r.system, r.sweep, r.nodes, r.run, r.basis, r.opsPerS, ...ops.map((op) => r.latency[op] ?? null), r.costPerNode, r.monthlyCost, r.costPerKops]);
  return { header, numeric: header.map((h) => !['system', 'configuration', 'run', 'basis'].includes(h)), rows: body };
}

/** Text safe inside a double- or single-quoted HTML/XML attribute, or as element content. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** The page's address showing one chart alone, with the rest of the view as it is. */
export function embedUrl(pageUrl: string, state: ViewState, id: ChartId): string {
  const url = new URL(pageUrl);
  // The chart too, so the link without `&embed=` opens the dashboard on the same chart.
  url.hash = encodeState({ ...state, chart: id, embed: id });
  return url.href;
}

export function embedSnippet(src: string, title: string): string {
  return `<iframe src="${escapeXml(src)}" width="100%" height="460" style="border:0" loading="lazy" title="${escapeXml(`benchlens: ${title}`)}"></iframe>`;
}

/** A CSS colour as SVG 1.1 understands it: `#rrggbb` plus a separate opacity. */
export interface Colour {
  hex: string;
  alpha: number;
}

/**
 * Parses the colour forms browsers compute: `rgb()`, `rgba()`, `#hex`, `transparent`, and
 * `color(srgb …)` (what `color-mix(in srgb, …)` computes to). Null for any other form.
 */
export function parseColour(css: string): Colour | null {
  const s = css.trim().toLowerCase();
  if (s === 'transparent') return { hex: '#000000', alpha: 0 };
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/.exec(s)?.[1];
  if (hex) return { hex: `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}`, alpha: 1 };
  const m =
    /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)\s*(?:[,/]\s*([\d.]+)(%?))?\s*\)$/.exec(s) ??
    /^color\(srgb\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*(?:\/\s*([\d.]+)(%?))?\s*\)$/.exec(s);
  if (!m) return null;
  const scale = s.startsWith('color(') ? 255 : 1;
  const channel = (v: string | undefined) => Math.max(0, Math.min(255, Math.round(Number(v) * scale))).toString(16).padStart(2, '0');
  const alpha = m[4] === undefined ? 1 : Number(m[4]) / (m[5] ? 100 : 1);
  return { hex: `#${channel(m[1])}${channel(m[2])}${channel(m[3])}`, alpha: Math.max(0, Math.min(1, alpha)) };
}

// ---------------------------------------------------------------------------------------------
// In the browser: the rendered chart to a standalone SVG file, PNG, downloads.

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Not part of the picture: controls, the hover tooltip, and anything marked to be left out. */
const SKIP = 'button, input, select, textarea, label, [data-export-skip], .recharts-tooltip-wrapper';

/**
 * Presentation properties that decide how a chart looks. They are read from computed styles, so
 * CSS variables and stylesheet rules arrive as concrete values.
 */
const INHERITED = [
  'fill',
  'fill-opacity',
  'fill-rule',
  'stroke',
  'stroke-width',
  'stroke-opacity',
  'stroke-dasharray',
  'stroke-dashoffset',
  'stroke-linecap',
  'stroke-linejoin',
  'font-family',
  'font-size',
  'font-weight',
  'font-style',
  'text-anchor',
  'dominant-baseline',
  'visibility',
] as const;

const round = (v: number): string => String(Math.round(v * 100) / 100);

/** A computed colour for SVG 1.1; syntaxes parseColour does not know (oklch, lab …) are painted on one pixel and read back. */
function colourOf(css: string, canvas: CanvasRenderingContext2D): Colour | null {
  const direct = parseColour(css);
  if (direct) return direct;
  if (!CSS.supports('color', css)) return null;
  canvas.clearRect(0, 0, 1, 1);
  canvas.fillStyle = css;
  canvas.fillRect(0, 0, 1, 1);
  const [r = 0, g = 0, b = 0, a = 0] = canvas.getImageData(0, 0, 1, 1).data;
  return parseColour(`rgba(${r}, ${g}, ${b}, ${a / 255})`);
}

/** An element's presentation, normalised to what SVG 1.1 renderers read. */
function presentation(el: Element, canvas: CanvasRenderingContext2D): Map<string, string> {
  const cs = getComputedStyle(el);
  const out = new Map<string, string>();
  for (const prop of INHERITED) out.set(prop, cs.getPropertyValue(prop).trim());
  for (const prop of ['fill', 'stroke'] as const) {
    const value = out.get(prop) ?? '';
    if (value === 'none' || value === '') continue;
    if (value.startsWith('url(')) {
      // Only references inside the file itself (clip paths, gradients) survive.
      const local = /#[^"')]+/.exec(value)?.[0];
      out.set(prop, local ? `url(${local})` : 'none');
      continue;
    }
    const colour = colourOf(value, canvas);
    if (!colour || colour.alpha === 0) {
      out.set(prop, 'none');
      continue;
    }
    out.set(prop, colour.hex);
    if (colour.alpha < 1) out.set(`${prop}-opacity`, round(Number(out.get(`${prop}-opacity`) || 1) * colour.alpha));
  }
  for (const prop of ['stroke-width', 'stroke-dasharray', 'stroke-dashoffset', 'font-size']) out.set(prop, (out.get(prop) ?? '').replace(/(\d)px/g, '$1'));
  const opacity = cs.opacity;
  if (opacity !== '1') out.set('opacity', opacity);
  return out;
}

/** Attributes that could run code or fetch something, or that only made sense inside the page. */
function unsafeAttribute(el: Element, name: string, value: string): boolean {
  const n = name.toLowerCase();
  if (n.startsWith('on') || n === 'style' || value.includes('var(')) return true;
  if (n === 'href' || n.endsWith(':href')) return !value.startsWith('#') && !(el.localName === 'image' && value.startsWith('data:image/'));
  return false;
}

/** A live `<svg>` as a nested, self-contained `<svg>` placed at (x, y) in the export. */
function standaloneSvg(svg: SVGSVGElement, x: number, y: number, width: number, height: number, canvas: CanvasRenderingContext2D): string {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const pairs: [Element, Element][] = [[svg, clone]];
  const sources = svg.querySelectorAll('*');
  const copies = clone.querySelectorAll('*');
  sources.forEach((s, i) => {
    const c = copies[i];
    if (c) pairs.push([s, c]);
  });
  const styles = new Map<Element, Map<string, string>>();
  for (const [source, copy] of pairs) {
    if (getComputedStyle(source).display === 'none' || ['script', 'style', 'foreignObject', 'iframe'].includes(source.localName)) {
      copy.remove();
      continue;
    }
    for (const { name, value } of [...copy.attributes]) if (unsafeAttribute(copy, name, value)) copy.removeAttribute(name);
    const own = presentation(source, canvas);
    styles.set(source, own);
    // Only what differs from the parent: inheritance inside the file does the rest.
    const parent = source === svg ? null : (source.parentElement && styles.get(source.parentElement)) ?? null;
    for (const [prop, value] of own) if (value !== '' && parent?.get(prop) !== value) copy.setAttribute(prop, value);
  }
  clone.setAttribute('x', round(x));
  clone.setAttribute('y', round(y));
  clone.setAttribute('width', round(width));
  clone.setAttribute('height', round(height));
  if (!clone.hasAttribute('viewBox')) clone.setAttribute('viewBox', `0 0 ${round(width)} ${round(height)}`);
  return new XMLSerializer().serializeToString(clone);
}

/** A text node as one `<text>` per rendered line, at the position the browser laid it out. */
function textElements(node: Text, cs: CSSStyleDeclaration, origin: DOMRect, bottom: number, canvas: CanvasRenderingContext2D): string[] {
  const range = document.createRange();
  const lines: { start: number; end: number; left: number; top: number }[] = [];
  for (const m of node.data.matchAll(/\S+/g)) {
    range.setStart(node, m.index);
    range.setEnd(node, m.index + m[0].length);
    const r = range.getBoundingClientRect();
    if (r.width === 0 || r.top >= bottom) continue;
    const line = lines.at(-1);
    if (line && Math.abs(line.top - r.top) < r.height / 2) line.end = m.index + m[0].length;
    else lines.push({ start: m.index, end: m.index + m[0].length, left: r.left, top: r.top });
  }
  if (lines.length === 0) return [];
  const font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  canvas.font = font;
  // A text box's top is the font's ascent above its baseline, which is where SVG places text.
  const ascent = canvas.measureText(node.data).fontBoundingBoxAscent;
  const colour = colourOf(cs.color, canvas) ?? { hex: '#000000', alpha: 1 };
  const attrs = `font-family="${escapeXml(cs.fontFamily)}" font-size="${cs.fontSize.replace('px', '')}" font-weight="${escapeXml(cs.fontWeight)}" font-style="${escapeXml(cs.fontStyle)}" fill="${colour.hex}"${colour.alpha < 1 ? ` fill-opacity="${round(colour.alpha)}"` : ''}`;
  return lines.map(
    (l) => `<text x="${round(l.left - origin.left)}" y="${round(l.top - origin.top + ascent)}" ${attrs}>${escapeXml(node.data.slice(l.start, l.end).replace(/\s+/g, ' '))}</text>`,
  );
}

export interface ChartSvg {
  svg: string;
  width: number;
  height: number;
}

/**
 * The chart frame as drawn, as one standalone SVG: the chart's own `<svg>`s with their computed
 * styles inlined, and the HTML around them that belongs to the picture (title, note, Recharts'
 * HTML legend, swatches, headings) redrawn as SVG text and rectangles. It ends below the last
 * chart, leaving out tables and controls further down the frame.
 */
export function chartSvg(frame: HTMLElement, title: string): ChartSvg {
  const origin = frame.getBoundingClientRect();
  const charts = [...frame.querySelectorAll('.recharts-wrapper')].map((w) => w.getBoundingClientRect().bottom);
  const bottom = charts.length ? Math.max(...charts) + 8 : origin.bottom;
  const pixel = document.createElement('canvas');
  pixel.width = pixel.height = 1;
  // Read back pixel by pixel (colourOf): the hint keeps that off the GPU.
  const canvas = pixel.getContext('2d', { willReadFrequently: true });
  if (!canvas) throw new Error('this browser has no 2D canvas to resolve colours');
  const parts: string[] = [];

  const visit = (el: Element): void => {
    if (el.matches(SKIP)) return;
    const cs = getComputedStyle(el);
    if (cs.display === 'none') return;
    const rect = el.getBoundingClientRect();
    if (rect.top >= bottom) return;
    if (el instanceof SVGSVGElement) {
      if (rect.width > 0 && rect.height > 0) parts.push(standaloneSvg(el, rect.left - origin.left, rect.top - origin.top, rect.width, rect.height, canvas));
      return;
    }
    // A leaf with a background is a colour key (a legend swatch) in these frames.
    const background = el !== frame && el.children.length === 0 && rect.width > 0 ? colourOf(cs.backgroundColor, canvas) : null;
    if (background && background.alpha > 0) {
      const radius = parseFloat(cs.borderTopLeftRadius) || 0;
      parts.push(
        `<rect x="${round(rect.left - origin.left)}" y="${round(rect.top - origin.top)}" width="${round(rect.width)}" height="${round(rect.height)}" rx="${round(radius)}" fill="${background.hex}"${background.alpha < 1 ? ` fill-opacity="${round(background.alpha)}"` : ''}/>`,
      );
    }
    for (const child of el.childNodes) {
      if (child instanceof Text && cs.visibility !== 'hidden') parts.push(...textElements(child, cs, origin, bottom, canvas));
      else if (child instanceof Element) visit(child);
    }
  };
  visit(frame);

  const width = Math.ceil(origin.width);
  const height = Math.ceil(bottom - origin.top);
  const frameStyle = getComputedStyle(frame);
  const background = colourOf(frameStyle.backgroundColor, canvas);
  const svg = [
    `<svg xmlns="${SVG_NS}" version="1.1" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${escapeXml(frameStyle.fontFamily)}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="${background && background.alpha > 0 ? background.hex : '#ffffff'}"/>`,
    ...parts,
    '</svg>',
  ].join('\n');
  return { svg, width, height };
}

/** Draws an SVG at `scale`× onto a canvas; a blob: URL keeps it within the page's img-src policy. */
export async function svgToPng({ svg, width, height }: ChartSvg, scale = 2): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    const image = new Image(width, height);
    image.src = url;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('this browser has no 2D canvas to draw the PNG on');
    context.scale(scale, scale);
    context.drawImage(image, 0, 0, width, height);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the browser could not encode the PNG'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Text files for spreadsheets carry a byte-order mark: without it Excel reads UTF-8 (µs) as ANSI. */
export const textBlob = (text: string, type: 'text/csv' | 'text/markdown'): Blob => new Blob(type === 'text/csv' ? ['\uFEFF', text] : [text], { type: `${type};charset=utf-8` });

export function download(data: Blob, filename: string): void {
  const url = URL.createObjectURL(data);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  // Revoking at once can cancel a download the browser has not started reading yet.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
