import { encodeState, type ChartId, type ViewState } from '../state/view-state.ts';
import type { RunView } from './run-views.ts';
import { PERCENTILE_KEYS } from '../model/percentiles.ts';
import { ALL_REQUESTS, type Bound, type Figures } from '../model/figures.ts';
import type { CompareResult } from '../model/comparison.ts';
import type { CapacityRow, SizingRow } from '../analysis/capacity.ts';

/**
 * Exports for use outside the page: tables as CSV and Markdown, a chart's SVG as PNG, and the
 * snippet that embeds one chart in an `<iframe>`. Labels come from
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

// ---------------------------------------------------------------------------------------------
// In the browser: a chart's SVG to PNG, downloads.

/** A drawn chart (src/charts/svg-figure.ts): the SVG document and its size in pixels. */
export interface ChartSvg {
  svg: string;
  width: number;
  height: number;
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
