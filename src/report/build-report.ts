import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { parseSlaRule } from '../analysis/sla.ts';
import type { Analysis } from '../engine/analyse.ts';
import { buildSnapshot } from '../engine/snapshot-build.ts';
import type { Store } from '../engine/store.ts';
import type { ParsedFile } from '../model/types.ts';
import { CHART_KINDS, ChartInputError, chartSpec, type ChartKind } from '../render/chart-specs.ts';
import { firstView } from '../display/page-views.ts';
import { renderSvg } from '../charts/svg-figure.ts';
import { THEMES } from '../display/theme.ts';
import { bestLink, snapshotToFile } from '../state/snapshot.ts';
import { encodeState, type ViewState } from '../state/view-state.ts';
import { decisionFragment } from '../state/decisions.ts';
import { buildRunViews, type RunView } from '../display/run-views.ts';
import { capacityAtSla, sizingTable } from '../analysis/capacity.ts';
import { DEFAULT_PERCENTILES } from '../analysis/compare.ts';
import { runCompare } from '../engine/compare-queries.ts';
import type { CompareResult } from '../model/comparison.ts';
import { capacityPoints, pricingOf, resolveSelection, sizedOps, slaRulesOf } from '../display/decide.ts';
import type { FileProvenance } from '../model/file-tally.ts';
import { ReportDocument, type ReportChart, type ReportDecisions, type ReportProps, type RunProvenance } from './ReportDocument.tsx';

/**
 * The report file: the view's runs, figures and charts as one self-contained HTML document, built
 * the same way by the `report` CLI (Node) and the app's *Download report* (in the engine worker).
 */

export interface ReportOptions {
  state: ViewState;
  /** Every file read, with its size and hash. */
  files: FileProvenance[];
  /** What the parsers read from the files (command lines, tool settings). */
  parsed: readonly Pick<ParsedFile, 'path' | 'producer' | 'commandLine'>[];
  /** Where the app is: the *Open in benchlens* link goes there. */
  appUrl: string;
  /** Attach the snapshot file even when a link carries every histogram (the app's address is a guess). */
  alwaysAttach?: boolean;
  title?: string;
  generatedAt: string;
  version: string;
  /** Chart width in pixels. */
  width?: number;
}

const CHART_WIDTH = 1000;

/** Base64 of a string's UTF-8 bytes, in Node and in browsers alike. */
function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function defaultTitle(labels: readonly string[]): string {
  if (labels.length === 0) return 'benchlens report';
  const shown = labels.slice(0, 3).join(', ');
  return `benchlens report — ${shown}${labels.length > 3 ? ` … (${labels.length} runs)` : ''}`;
}

function provenance(store: Store, parsed: ReportOptions['parsed']): RunProvenance[] {
  const byPath = new Map(parsed.map((f) => [f.path, f]));
  return store.runs.map((run) => {
    const commands: RunProvenance['commands'] = [];
    for (const c of run.clients) if (c.commandLine) commands.push({ who: `${c.name} (YCSB command line)`, text: c.commandLine.raw });
    for (const path of run.paths) {
      const p = byPath.get(path)?.producer;
      if (p?.command) commands.push({ who: `${path} (${p.tool}${p.version ? ` ${p.version}` : ''})`, text: p.command });
    }
    return { key: run.key, commands };
  });
}

/** The view's A/B comparison (when one is chosen and both sides hold runs), capacity at its SLA and the sizing table. */
function decisions(store: Store, analysis: Analysis, views: readonly RunView[], state: ViewState): ReportDecisions {
  let comparison: CompareResult | null = null;
  if (state.compare) {
    const baseline = resolveSelection(views, state, state.compare.baseline);
    const candidate = resolveSelection(views, state, state.compare.candidate);
    if (!('error' in baseline) && !('error' in candidate)) {
      const { notes: baselineNotes, ...b } = baseline;
      const { notes: candidateNotes, ...c } = candidate;
      const result = runCompare(store, analysis, { baseline: b, candidate: c, percentiles: state.compare.percentiles ?? [...DEFAULT_PERCENTILES], window: state.window });
      comparison = { ...result, notes: [...baselineNotes, ...candidateNotes, ...result.notes] };
    }
  }
  const { rules } = slaRulesOf(state.sla);
  const points = capacityPoints(views);
  const pricing = pricingOf(state);
  const sizingOps = sizedOps(views);
  return {
    comparison,
    capacity: capacityAtSla(points, rules, pricing),
    sizing: sizingTable(points, rules, state.sizingPercentile, sizingOps, pricing),
    sizingOps,
    sizingPercentile: state.sizingPercentile,
  };
}

/**
 * The charts a report draws, as the page opens: a single run's overview first (its throughput
 * and latency over time, then its percentiles; one run is no sweep to draw against load, nor a
 * database to price), every chart otherwise.
 */
function reportCharts(views: readonly RunView[], state: ViewState): readonly ChartKind[] {
  return firstView(views, state) === 'overview' ? ['throughput', 'latency-over-time', 'percentiles'] : CHART_KINDS;
}

export async function buildReport(store: Store, analysis: Analysis, o: ReportOptions): Promise<string> {
  const views = buildRunViews(analysis, o.state);
  const visible = views.filter((v) => !v.hidden);
  const charts: ReportChart[] = [];
  if (visible.length > 0) {
    for (const id of reportCharts(views, o.state)) {
      let spec;
      try {
        spec = chartSpec(id, store, views, o.state);
      } catch (e) {
        // A chart the view cannot draw (a cost model with a zero item size) is left out, not the report.
        if (e instanceof ChartInputError) continue;
        throw e;
      }
      const { svg, figure } = await renderSvg(spec.element, o.width ?? CHART_WIDTH, null, THEMES.light);
      if (figure.empty === null) charts.push({ id, svg });
    }
  }

  const decided = visible.length > 0 ? decisions(store, analysis, views, o.state) : null;
  let link: ReportProps['link'] = null;
  let attachment: ReportProps['attachment'] = null;
  if (visible.length > 0) {
    const { snapshot } = buildSnapshot(store, analysis, new Set(visible.map((v) => v.key)));
    if (decided?.comparison) {
      const { carried: _, ...shown } = decided.comparison;
      snapshot.comparison = shown;
    }
    if (snapshot.runs.length > 0) {
      const best = bestLink(snapshot);
      if (best.level !== null) {
        const fragment = encodeState({ ...o.state, files: [], regroup: {}, embed: null, data: best.data });
        link = { url: `${o.appUrl}#${fragment}`, level: best.level };
      }
      // Figures only, or nothing, fit in a link: the whole comparison rides along as a file.
      if (best.level !== 'histograms' || o.alwaysAttach) {
        attachment = { name: 'snapshot.benchlens.json', dataUrl: `data:application/json;base64,${base64(snapshotToFile({ ...snapshot, view: decisionFragment(o.state) }))}` };
      }
    }
  }

  let sla = null;
  try {
    sla = o.state.sla.trim() ? parseSlaRule(o.state.sla) : null;
  } catch {
    // An SLA the view could not read is shown nowhere in the app either.
  }
  const props: ReportProps = {
    title: o.title ?? defaultTitle(visible.map((v) => v.label)),
    generatedAt: o.generatedAt,
    analysis,
    views,
    sla,
    files: o.files,
    runs: provenance(store, o.parsed),
    charts,
    link,
    attachment,
    version: o.version,
    decisions: decided,
  };
  return `<!doctype html>\n${renderToStaticMarkup(createElement(ReportDocument, props))}\n`;
}
