/**
 * `npm run --silent chart -- --chart <id> [--out fig.svg] [--json] <file-or-folder>...`: one of the
 * dashboard's charts as a standalone SVG document, drawn by the app's own chart components, or the
 * chart's data as JSON; for CI jobs and reports.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createElement, type ReactElement } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { Global } from 'recharts';
import { parseSlaRule, type SlaRule } from '../analysis/sla.ts';
import { percentileKey } from '../charts/ByScenario.tsx';
import { StaticChartSize, type StaticLegendItem } from '../charts/ChartContainer.tsx';
import { CostChart, costRows } from '../charts/Cost.tsx';
import { LatencyOverTimeChart } from '../charts/LatencyOverTime.tsx';
import { LatencyVsLoadChart, latencyVsLoadSeries } from '../charts/LatencyVsLoad.tsx';
import { PercentileDistributionChart } from '../charts/PercentileDistribution.tsx';
import { ThroughputOverTimeChart } from '../charts/ThroughputOverTime.tsx';
import { analyseStore } from '../engine/analyse.ts';
import { runChartQuery, type ChartQuery, type ChartResult } from '../engine/chart-queries.ts';
import { openNodeDb } from '../engine/node-db.ts';
import { Store } from '../engine/store.ts';
import { groupIntoRuns } from '../model/grouping.ts';
import { DEFAULT_STATE, type CostParams, type ViewState } from '../state/view-state.ts';
import { MAX_POINTS, mainOps } from '../views/ChartArea.tsx';
import { buildRunViews, colourMap, type RunView } from '../views/run-views.ts';
import { loadPaths } from './load-paths.ts';

const CHARTS = ['latency-vs-load', 'throughput', 'latency-over-time', 'percentiles', 'cost'] as const;
type Chart = (typeof CHARTS)[number];

const COST_NUMBERS = ['itemBytes', 'storageGb', 'clusterMonthly', 'nodes', 'nodeHourly', 'wcuHourly', 'rcuHourly', 'wruPerMillion', 'rruPerMillion', 'storagePerGbMonth'] as const satisfies readonly (keyof CostParams)[];
const CONSISTENCIES = ['strong', 'eventual', 'transactional'] as const;
/** `clusterMonthly` → `cluster-monthly`: the cost flags are the view state's own names. */
const flagOf = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const USAGE = `usage: npm run --silent chart -- --chart <${CHARTS.join('|')}> [--out FILE.svg] [--json]
         [--percentile P] [--op OP] [--focus RUN,...] [--sla RULE] [--width W] [--height H]
         [--theme light|dark] [cost options] <file-or-folder>...

Draws one of the dashboard's charts as a standalone SVG document, from the same files summarize reads.
  --out FILE      write the SVG there (default: standard output, unless --json is given)
  --json          print the chart's data as JSON (with --out: the data here, the SVG in the file)
  --percentile P  percentile of the latency charts (default ${DEFAULT_STATE.percentile})
  --op OP         only this operation (default: every operation but failures, Intended-* and CLEANUP)
  --focus RUN     runs of the time charts, by label or folder (default: the first run)
  --sla RULE      SLA line of the latency charts, e.g. "p99 of READ <= 10 ms"
  --width W       width of the document in pixels (default 960)
  --height H      height of the document in pixels (default: each chart as tall as in the app)
  --theme T       light (default) or dark colours
cost options, named as the cost chart's fields (prices in US$):
  ${COST_NUMBERS.map((k) => `--${flagOf(k)}`).join(' ')}
  --consistency ${CONSISTENCIES.join('|')}

Exit code: 0 all read, 1 something was skipped (see errors; the chart is still drawn), 2 bad usage,
3 internal error.`;

const DEFAULT_WIDTH = 960;

class UsageError extends Error {}

interface Options {
  chart: Chart;
  out: string | null;
  json: boolean;
  width: number;
  height: number | null;
  paths: string[];
  focus: string[];
  state: ViewState;
}

const DECIMAL = /^\d+(\.\d+)?$/;

function parseCommandLine(args: string[]): Options | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        chart: { type: 'string' },
        out: { type: 'string' },
        json: { type: 'boolean' },
        percentile: { type: 'string' },
        op: { type: 'string' },
        focus: { type: 'string' },
        sla: { type: 'string' },
        width: { type: 'string' },
        height: { type: 'string' },
        theme: { type: 'string' },
        consistency: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries(COST_NUMBERS.map((k) => [flagOf(k), { type: 'string' as const }])),
      },
    });
  } catch (error) {
    // parseArgs reports unknown flags and missing values as TypeErrors.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const text = (flag: string): string | undefined => {
    const v = (values as Record<string, unknown>)[flag];
    return typeof v === 'string' ? v : undefined;
  };
  const decimal = (flag: string): number | undefined => {
    const v = text(flag);
    if (v === undefined) return undefined;
    if (!DECIMAL.test(v.trim())) throw new UsageError(`--${flag} needs a non-negative number, got '${v}'`);
    return Number(v);
  };
  const pixels = (flag: string): number | undefined => {
    const v = decimal(flag);
    if (v !== undefined && (!Number.isInteger(v) || v < 200)) throw new UsageError(`--${flag} needs a whole number of pixels, at least 200`);
    return v;
  };

  const chart = values.chart;
  if (chart === undefined) throw new UsageError('--chart is required');
  if (!(CHARTS as readonly string[]).includes(chart)) throw new UsageError(`--chart must be one of ${CHARTS.join(', ')}, got '${chart}'`);
  if (positionals.length === 0) throw new UsageError('no file or folder given');

  const percentile = decimal('percentile') ?? DEFAULT_STATE.percentile;
  if (percentile <= 0 || percentile >= 100) throw new UsageError(`--percentile must lie between 0 and 100, got ${percentile}`);
  // The other latency charts query any percentile; this one reads the run summaries' fixed set.
  if (chart === 'latency-vs-load' && percentileKey(percentile) === null) throw new UsageError(`--percentile ${percentile} is not among the summarised percentiles of latency-vs-load`);
  const theme = values.theme ?? 'light';
  if (theme !== 'light' && theme !== 'dark') throw new UsageError(`--theme must be light or dark, got '${theme}'`);
  const consistency = values.consistency;
  if (consistency !== undefined && !(CONSISTENCIES as readonly string[]).includes(consistency)) throw new UsageError(`--consistency must be one of ${CONSISTENCIES.join(', ')}, got '${consistency}'`);
  const cost: CostParams = {};
  for (const key of COST_NUMBERS) {
    const v = decimal(flagOf(key));
    if (v !== undefined) cost[key] = v;
  }
  if (consistency !== undefined) cost.consistency = consistency as CostParams['consistency'];
  if (values.sla !== undefined) {
    try {
      parseSlaRule(values.sla);
    } catch (error) {
      throw new UsageError(`--sla: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return {
    chart: chart as Chart,
    out: values.out ?? null,
    json: values.json ?? false,
    width: pixels('width') ?? DEFAULT_WIDTH,
    height: pixels('height') ?? null,
    paths: positionals,
    focus: values.focus?.split(',').filter((f) => f.length > 0) ?? [],
    state: { ...DEFAULT_STATE, percentile, op: values.op ?? '', theme, sla: values.sla ?? '', cost },
  };
}

/** What to draw and its data, chosen as ChartArea chooses them for the same view state. */
interface ChartSpec {
  element: ReactElement;
  data: unknown;
}

/** runChartQuery's result for the kind of query asked (as useChartQuery narrows it in the app). */
function query<K extends ChartQuery['kind']>(store: Store, q: Extract<ChartQuery, { kind: K }>): Extract<ChartResult, { kind: K }> {
  return runChartQuery(store, q) as Extract<ChartResult, { kind: K }>;
}

function chartSpec(chart: Chart, store: Store, views: RunView[], state: ViewState): ChartSpec {
  const visible = views.filter((v) => !v.hidden);
  const colours = colourMap(views.map((v) => v.system));
  const sla: SlaRule | null = state.sla ? parseSlaRule(state.sla) : null;
  const ops = state.op ? [state.op] : mainOps(visible);
  const focusIds = (state.focus.length ? visible.filter((v) => state.focus.includes(v.key)) : visible.slice(0, 1)).map((v) => v.run.id);
  switch (chart) {
    case 'throughput': {
      const result = query(store, { kind: 'throughput-over-time', runIds: focusIds, maxPoints: MAX_POINTS });
      return { element: createElement(ThroughputOverTimeChart, { result, views: visible, events: [] }), data: result };
    }
    case 'latency-over-time': {
      const result = query(store, { kind: 'latency-over-time', runIds: focusIds, ops, percentile: state.percentile, maxPoints: MAX_POINTS });
      return { element: createElement(LatencyOverTimeChart, { result, views: visible, colours, sla }), data: result };
    }
    case 'percentiles': {
      const result = query(store, { kind: 'percentile-distribution', runIds: visible.map((v) => v.run.id), ops, window: state.window });
      return { element: createElement(PercentileDistributionChart, { result, views: visible, colours }), data: result };
    }
    case 'cost': {
      let rows;
      try {
        rows = costRows(visible, state.cost);
      } catch (error) {
        // The cost model's RangeErrors (a zero item size, a zero-cost cluster) are bad arguments.
        if (error instanceof RangeError) throw new UsageError(`cannot price: ${error.message}`);
        throw error;
      }
      return { element: createElement(CostChart, { views: visible, params: state.cost, onChange: () => {} }), data: { params: state.cost, rows } };
    }
    case 'latency-vs-load': {
      const series = [...latencyVsLoadSeries(visible, state.percentile, ops, state.xAxis)].map(([name, s]) => ({ name, ...s }));
      return {
        element: createElement(LatencyVsLoadChart, { views: visible, colours, percentile: state.percentile, ops, xAxis: state.xAxis, sla }),
        data: { percentile: state.percentile, ops, xAxis: state.xAxis, series },
      };
    }
  }
}

/*
 * A document object model just large enough for react-dom to render the charts into. Recharts 3
 * draws nothing through react-dom/server: its charts register their parts with a store in effects,
 * which server rendering never runs. Rendering for real needs a DOM, and Node has none; this one
 * only builds the tree, with no layout (ChartContainer gives the charts fixed sizes, and Recharts
 * is told it is server-side so that it does not measure text).
 */

const SVG_NS = 'http://www.w3.org/2000/svg';
const HTML_NS = 'http://www.w3.org/1999/xhtml';

/** Changes to any tree, to tell when React has stopped updating it. */
let mutations = 0;

class StaticNode {
  parentNode: StaticNode | null = null;
  childNodes: StaticNode[] = [];
  constructor(
    readonly nodeType: number,
    readonly nodeName: string,
    readonly ownerDocument: StaticDocument | null,
  ) {}
  get firstChild(): StaticNode | null {
    return this.childNodes[0] ?? null;
  }
  get lastChild(): StaticNode | null {
    return this.childNodes.at(-1) ?? null;
  }
  get nextSibling(): StaticNode | null {
    const siblings = this.parentNode?.childNodes ?? [];
    return siblings[siblings.indexOf(this) + 1] ?? null;
  }
  appendChild<T extends StaticNode>(child: T): T {
    return this.insertBefore(child, null);
  }
  insertBefore<T extends StaticNode>(child: T, before: StaticNode | null): T {
    child.parentNode?.removeChild(child);
    const at = before ? this.childNodes.indexOf(before) : -1;
    this.childNodes.splice(at < 0 ? this.childNodes.length : at, 0, child);
    child.parentNode = this;
    mutations++;
    return child;
  }
  removeChild<T extends StaticNode>(child: T): T {
    this.childNodes.splice(this.childNodes.indexOf(child), 1);
    child.parentNode = null;
    mutations++;
    return child;
  }
  // React delegates events to the root; nothing here is ever clicked.
  addEventListener(): void {}
  removeEventListener(): void {}
  get textContent(): string {
    return this.childNodes.map((c) => c.textContent).join('');
  }
  set textContent(text: string) {
    for (const c of [...this.childNodes]) this.removeChild(c);
    if (text) this.appendChild(new StaticText(text, this.ownerDocument));
  }
}

class StaticText extends StaticNode {
  constructor(
    private data: string,
    doc: StaticDocument | null,
  ) {
    super(3, '#text', doc);
  }
  get nodeValue(): string {
    return this.data;
  }
  set nodeValue(text: string) {
    this.data = text;
    mutations++;
  }
  override get textContent(): string {
    return this.data;
  }
  override set textContent(text: string) {
    this.nodeValue = text;
  }
}

/** react-dom assigns camel-case properties and sets custom properties with setProperty. */
class StaticStyle {
  [property: string]: unknown;
  setProperty(name: string, value: string): void {
    this[name] = value;
  }
  removeProperty(name: string): void {
    delete this[name];
  }
}

class StaticElement extends StaticNode {
  readonly attributes = new Map<string, string>();
  readonly style = new StaticStyle();
  constructor(
    readonly localName: string,
    readonly namespaceURI: string,
    doc: StaticDocument,
  ) {
    super(1, namespaceURI === HTML_NS ? localName.toUpperCase() : localName, doc);
  }
  get tagName(): string {
    return this.nodeName;
  }
  setAttribute(name: string, value: unknown): void {
    this.attributes.set(name, String(value));
    mutations++;
  }
  setAttributeNS(_ns: string | null, name: string, value: unknown): void {
    this.setAttribute(name, value);
  }
  removeAttribute(name: string): void {
    this.attributes.delete(name);
    mutations++;
  }
  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }
  hasAttribute(name: string): boolean {
    return this.attributes.has(name);
  }
  hasClass(name: string): boolean {
    return (this.attributes.get('class') ?? '').split(/\s+/).includes(name);
  }
  /** No layout: every box is empty, which Recharts reads as "nothing to adjust". */
  getBoundingClientRect() {
    return { x: 0, y: 0, top: 0, left: 0, right: 0, bottom: 0, width: 0, height: 0 };
  }
  /** Recharts looks up an axis' tick labels by class to measure them. */
  getElementsByClassName(name: string): StaticElement[] {
    return descendants(this).filter((e) => e.hasClass(name));
  }
  /** react-dom selects the `<select>`'s option by value. */
  get options(): StaticElement[] {
    return descendants(this).filter((e) => e.localName === 'option');
  }
}

class StaticDocument extends StaticNode {
  readonly body: StaticElement;
  /** What react-dom reads from the document's window (focus, the current event). */
  readonly defaultView = {
    document: this as StaticDocument,
    event: undefined,
    HTMLIFrameElement: class {},
    getComputedStyle: () => ({ fontSize: '', letterSpacing: '' }),
  };
  readonly activeElement = null;
  constructor() {
    super(9, '#document', null);
    this.body = this.appendChild(this.createElement('body'));
  }
  createElement(tag: string): StaticElement {
    return new StaticElement(tag.toLowerCase(), HTML_NS, this);
  }
  createElementNS(ns: string, tag: string): StaticElement {
    return new StaticElement(tag, ns, this);
  }
  createTextNode(text: string): StaticText {
    return new StaticText(text, this);
  }
}

function descendants(node: StaticNode): StaticElement[] {
  return node.childNodes.flatMap((c) => (c instanceof StaticElement ? [c, ...descendants(c)] : []));
}

/**
 * Resolves once React has left the DOM alone for a few turns of the event loop: effects register the
 * charts' parts in their store, and each registration renders again, on React's own schedule.
 */
async function settled(): Promise<void> {
  let quietRounds = 0;
  for (let round = 0, last = -1; quietRounds < 3; round++) {
    if (round > 2000) throw new Error('the chart did not stop updating');
    await new Promise((resolve) => setTimeout(resolve, 0));
    quietRounds = mutations === last ? quietRounds + 1 : 0;
    last = mutations;
  }
}

/** Renders `element` into a fresh static DOM, waits until React has stopped changing it, and reads it. */
async function renderStatic<T>(element: ReactElement, read: (container: StaticElement) => T): Promise<T> {
  const doc = new StaticDocument();
  const container = doc.body.appendChild(doc.createElement('div'));
  const errors: unknown[] = [];
  const root = createRoot(container as unknown as HTMLElement, {
    onUncaughtError: (error) => errors.push(error),
    onCaughtError: (error) => errors.push(error),
  });
  // react-dom reads `window.event` while scheduling. Set only while rendering: code that looks for
  // a global window would otherwise take Node for a browser.
  const hadWindow = 'window' in globalThis;
  const previous: unknown = Reflect.get(globalThis, 'window');
  Reflect.set(globalThis, 'window', doc.defaultView);
  const wasSsr = Global.isSsr;
  Global.isSsr = true;
  try {
    flushSync(() => root.render(element));
    await settled();
    if (errors.length > 0) throw errors[0];
    return read(container);
  } finally {
    root.unmount();
    await settled();
    Global.isSsr = wasSsr;
    if (hadWindow) Reflect.set(globalThis, 'window', previous);
    else Reflect.deleteProperty(globalThis, 'window');
  }
}

/* The SVG document: the chart's title and note, its legend, and the charts' own SVG. */

interface Theme {
  vars: Record<string, string>;
  fontFamily: string;
}

/** The app's theme colours, read from its stylesheet so that the export follows any change there. */
function loadTheme(name: 'light' | 'dark'): Theme {
  const css = readFileSync(new URL('../styles.css', import.meta.url), 'utf8');
  const block = (selector: RegExp) => selector.exec(css)?.[1] ?? '';
  const light = block(/:root\s*\{([^}]*)\}/);
  const dark = block(/:root\[data-theme='dark'\]\s*\{([^}]*)\}/);
  const vars: Record<string, string> = {};
  for (const text of name === 'dark' ? [light, dark] : [light]) {
    for (const m of text.matchAll(/--([\w-]+)\s*:\s*([^;]+);/g)) vars[m[1] as string] = (m[2] as string).trim();
  }
  return { vars, fontFamily: /font-family\s*:\s*([^;]+);/.exec(light)?.[1]?.trim() ?? 'sans-serif' };
}

function hex(colour: string): [number, number, number] | null {
  const m = /^#([0-9a-f]{6})$/i.exec(colour.trim());
  if (!m) return null;
  const n = parseInt(m[1] as string, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/**
 * CSS variables to the theme's values, and `color-mix(in srgb, A, B p%)` (how the charts shade runs)
 * to the colour it names: an SVG file has no stylesheet, and SVG viewers know no color-mix.
 */
function resolveColours(value: string, theme: Theme): string {
  const substituted = value.replace(/var\(--([\w-]+)\)/g, (m, name: string) => theme.vars[name] ?? m);
  return substituted.replace(/color-mix\(in srgb,\s*([^,()]+),\s*([^,()]+?)\s+([\d.]+)%\)/g, (m, a: string, b: string, pct: string) => {
    const from = hex(a);
    const to = hex(b);
    if (!from || !to) return m;
    const f = Number(pct) / 100;
    return `#${from.map((c, i) => Math.round(c * (1 - f) + (to[i] as number) * f).toString(16).padStart(2, '0')).join('')}`;
  });
}

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, '&quot;');

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

interface Figure {
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

function svgDocument(figure: Figure, layout: Layout, theme: Theme): string {
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
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${escapeAttribute(theme.fontFamily)}" font-size="14">`,
    `<title>${escapeText(figure.title)}</title>`,
    `<rect x="0.5" y="0.5" width="${width - 1}" height="${height - 1}" rx="8" fill="${colour('panel')}" stroke="${colour('border')}"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}

/**
 * Draws the chart twice: first to learn what surrounds it (title, note, legend, how many charts side
 * by side), then at the size that leaves it.
 */
async function renderSvg(element: ReactElement, width: number, height: number | null, theme: Theme): Promise<{ svg: string; figure: Figure }> {
  const at = (layout: Layout) => createElement(StaticChartSize.Provider, { value: { width: layout.panelWidth, ...(layout.panelHeight !== null ? { height: layout.panelHeight } : {}) } }, element);
  const first = await renderStatic(at({ width, panelWidth: width - 2 * PAD, panelHeight: null }), readFigure);
  const layout = layoutFor(first, width, height);
  return renderStatic(at(layout), (container) => {
    const figure = readFigure(container);
    return { svg: svgDocument(figure, layout, theme), figure };
  });
}

async function main(args: string[]): Promise<number> {
  let options;
  try {
    options = parseCommandLine(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`error: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }

  const loaded = await loadPaths(options.paths);
  const store = new Store(await openNodeDb());
  store.addRuns(groupIntoRuns(loaded.files));
  // A link's time window applies to the figures, as it does in the app.
  const analysis = analyseStore(store, loaded.errors, loaded.ignored, { window: options.state.window });
  const views = buildRunViews(analysis, options.state);

  const unknownFocus = options.focus.filter((f) => !views.some((v) => v.key === f || v.label === f));
  const ops = new Set(views.flatMap((v) => Object.keys(v.run.ops)));
  let spec;
  try {
    if (unknownFocus.length > 0) throw new UsageError(`--focus: no run ${unknownFocus.join(', ')}; runs: ${views.map((v) => v.label).join(', ')}`);
    if (options.state.op && !ops.has(options.state.op)) throw new UsageError(`--op: no operation ${options.state.op}; operations: ${[...ops].join(', ')}`);
    const focus = options.focus.map((f) => views.find((v) => v.key === f || v.label === f)?.key ?? f);
    spec = chartSpec(options.chart, store, views, { ...options.state, focus });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }

  if (options.json) {
    const runs = views.map((v) => ({ id: v.run.id, key: v.key, label: v.label, system: v.system }));
    process.stdout.write(`${JSON.stringify({ chart: options.chart, runs, data: spec.data }, null, 2)}\n`);
  }
  if (options.out !== null || !options.json) {
    const { svg, figure } = await renderSvg(spec.element, options.width, options.height, loadTheme(options.state.theme));
    if (options.out !== null) writeFileSync(options.out, svg);
    else process.stdout.write(svg);
    if (figure.empty !== null) process.stderr.write(`the chart is empty: ${figure.empty}\n`);
  }
  for (const e of analysis.errors) process.stderr.write(`${e.file}${e.line ? `:${e.line}` : ''}: ${e.message}\n`);
  return analysis.errors.length > 0 ? 1 : 0;
}

// process.exitCode rather than process.exit: exiting at once would cut off output still being
// written to a pipe.
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 3;
  },
);
