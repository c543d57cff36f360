import { DEFAULT_ITEM_BYTES } from '../analysis/cost.ts';
import type { CapacityPoint, Pricing } from '../analysis/capacity.ts';
import { parseSlaRules, type SlaRule } from '../analysis/sla.ts';
import type { CompareSelection } from '../engine/compare-queries.ts';
import { PERCENTILE_KEYS, PERCENTILES, type PercentileKey } from '../model/percentiles.ts';
import type { ViewState } from '../state/view-state.ts';
import { DEFAULT_STORAGE_GB, dynamoDbPrices } from './cost-rows.ts';
import type { RunView } from './run-views.ts';

/**
 * What the Compare and Capacity panels, the report and the `compare` CLI share: which runs a side
 * of a comparison stands for, the runs as points of a capacity sweep, prices from the view, and
 * SLA rules checked against the figures the summary has.
 *
 * A side is written as the CLI takes it: a run (its folder, or its label), a folder of runs (all of
 * them), or `<label>=<value>` for every run with that label — system, workload, distribution,
 * loadLevel, nodes or repeat.
 */

export interface GroupLabel {
  name: string;
  /** As the page shows it. */
  title: string;
  of: (v: RunView, state: Pick<ViewState, 'runs'>) => string | null;
}

export const GROUP_LABELS: readonly GroupLabel[] = [
  { name: 'system', title: 'system', of: (v) => v.system || null },
  { name: 'workload', title: 'workload', of: (v) => v.workload || null },
  { name: 'distribution', title: 'distribution', of: (v) => v.distribution || null },
  { name: 'loadLevel', title: 'load level', of: (v) => v.loadLevel || null },
  { name: 'nodes', title: 'nodes', of: (v) => (v.nodes === null ? null : String(v.nodes)) },
  { name: 'repeat', title: 'repeat', of: (v, state) => state.runs[v.key]?.repeat?.trim() || null },
];

/** Names the CLI and links accept for a label, beside its own. */
const LABEL_ALIASES: Record<string, string> = { load: 'loadLevel', 'load-level': 'loadLevel', loadlevel: 'loadLevel' };

function labelNamed(name: string): GroupLabel | undefined {
  const canonical = LABEL_ALIASES[name.toLowerCase()] ?? name;
  return GROUP_LABELS.find((l) => l.name.toLowerCase() === canonical.toLowerCase());
}

const trimSlashes = (path: string) => path.replace(/\/+$/, '');

/** The runs a side stands for, what to call it, and what to know about it; or why it selects nothing. */
/** A side given as a list of run keys: a JSON array of strings (the History view's runs before or after a change). */
export function runList(text: string): string[] | null {
  if (!text.startsWith('[')) return null;
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string') ? (v as string[]) : null;
  } catch {
    return null;
  }
}

export function resolveSelection(views: readonly RunView[], state: Pick<ViewState, 'runs'>, text: string): (CompareSelection & { notes: string[] }) | { error: string } {
  const shown = views.filter((v) => !v.hidden);
  const eq = text.indexOf('=');
  const label = eq > 0 ? labelNamed(text.slice(0, eq).trim()) : undefined;
  if (label) {
    const value = text.slice(eq + 1).trim();
    const runs = shown.filter((v) => label.of(v, state) === value);
    if (runs.length === 0) {
      const values = [...new Set(shown.map((v) => label.of(v, state)).filter((x): x is string => x !== null))];
      return { error: `no run has ${label.title} "${value}" (${values.length ? `there are: ${values.join(', ')}` : `no run has a ${label.title} label`})` };
    }
    return { label: `${label.title} = ${value}`, runKeys: runs.map((v) => v.key), notes: mixedConfigurations(runs, label, `${label.title} = ${value}`, state) };
  }
  const listed = runList(text);
  if (listed) {
    const runs = listed.map((key) => shown.find((v) => v.key === key));
    const missing = listed.filter((_, i) => !runs[i]);
    if (missing.length || runs.length === 0) return { error: `no run ${missing.join(', ') || 'listed'} (runs: ${shown.map((v) => v.label).join(', ')})` };
    const found = runs as RunView[];
    const first = found[0] as RunView;
    const last = found[found.length - 1] as RunView;
    return { label: found.length === 1 ? first.label : `${first.label} … ${last.label} (${found.length} runs)`, runKeys: found.map((v) => v.key), notes: [] };
  }
  const ref = trimSlashes(text.trim()).replace(/^(\.\/)+/, '');
  const run = shown.find((v) => trimSlashes(v.key) === ref) ?? shown.find((v) => v.label === ref) ?? shown.find((v) => trimSlashes(v.key).endsWith(`/${ref}`));
  if (run) return { label: run.label, runKeys: [run.key], notes: [] };
  // A folder holding several runs: all of them, as a group.
  const inside = shown.filter((v) => trimSlashes(v.key).startsWith(`${ref}/`) || trimSlashes(v.key).includes(`/${ref}/`) || v.label.startsWith(`${ref}/`));
  if (inside.length > 0) return { label: ref, runKeys: inside.map((v) => v.key), notes: mixedConfigurations(inside, null, `folder ${ref}`, state) };
  return { error: `no run "${text}" (runs: ${shown.map((v) => v.label).join(', ')})` };
}

/** Runs of a group that differ in another label are compared as repeats all the same: say so. */
function mixedConfigurations(runs: readonly RunView[], by: GroupLabel | null, group: string, state: Pick<ViewState, 'runs'>): string[] {
  if (runs.length < 2) return [];
  const differing = GROUP_LABELS.filter((l) => l !== by && l.name !== 'repeat' && new Set(runs.map((v) => l.of(v, state))).size > 1);
  if (differing.length === 0) return [];
  const list = differing.map((l) => `${l.title} (${[...new Set(runs.map((v) => l.of(v, state) ?? 'none'))].join(', ')})`).join('; ');
  return [`the runs of ${group} differ in ${list}: they are taken as repeats of one configuration`];
}

export interface SelectionChoice {
  value: string;
  text: string;
}

/** Every run, and every label value held by a visible run, as the sides a comparison can take. */
export function selectionChoices(views: readonly RunView[], state: Pick<ViewState, 'runs'>): SelectionChoice[] {
  const shown = views.filter((v) => !v.hidden);
  const choices: SelectionChoice[] = shown.map((v) => ({ value: v.key, text: `run ${v.label}` }));
  for (const label of GROUP_LABELS) {
    const counts = new Map<string, number>();
    for (const v of shown) {
      const value = label.of(v, state);
      if (value !== null) counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    for (const [value, n] of counts) choices.push({ value: `${label.name}=${value}`, text: `${label.title} = ${value} (${n} run${n === 1 ? '' : 's'})` });
  }
  return choices;
}

/** The runs as points of their systems' sweeps (hidden ones left out). */
export function capacityPoints(views: readonly RunView[]): CapacityPoint[] {
  return views
    .filter((v) => !v.hidden)
    .map((v) => {
      const run = v.run;
      const durationS = run.durationS;
      return {
        label: v.label,
        system: v.system,
        sweep: `${v.workload} · ${v.distribution}`,
        nodes: v.nodes,
        throughput: run.throughput,
        utilisationPct: v.utilisationPct,
        utilisationSource: v.utilisationSource,
        percentileUs: (op, p) => {
          const o = run.ops[op];
          const key = `p${p}` as PercentileKey;
          if (!o || !(PERCENTILE_KEYS as readonly string[]).includes(key)) return null;
          return o[key] ?? o.bounds?.[key] ?? null;
        },
        opsPerS: durationS ? Object.fromEntries(Object.entries(run.ops).map(([op, o]) => [op, o.count / durationS])) : {},
      };
    });
}

/** Prices from the view: each system's, and DynamoDB's model from the cost chart's parameters. */
export function pricingOf(state: Pick<ViewState, 'pricing' | 'cost'>): Pricing {
  return {
    prices: state.pricing,
    dynamodb: {
      itemBytes: state.cost.itemBytes ?? DEFAULT_ITEM_BYTES,
      storageGb: state.cost.storageGb ?? DEFAULT_STORAGE_GB,
      consistency: state.cost.consistency ?? 'strong',
      prices: dynamoDbPrices(state.cost),
    },
  };
}

/**
 * The SLA rules of the view (several, separated by ';' or line breaks), with an error for each one
 * that cannot be read, and for a percentile the runs' figures do not hold.
 */
export function slaRulesOf(text: string): { rules: SlaRule[]; errors: string[] } {
  const { rules, errors } = parseSlaRules(text);
  const known = rules.filter((r) => (PERCENTILES as readonly number[]).includes(r.percentile));
  for (const r of rules) if (!known.includes(r)) errors.push(`p${r.percentile} is not among the percentiles the runs' figures hold (${PERCENTILES.map((p) => `p${p}`).join(', ')})`);
  return { rules: known, errors };
}

/** The operations a sizing table shows: real operations, not failures, intended twins or cleanup. */
export function sizedOps(views: readonly RunView[]): string[] {
  const ops = new Set<string>();
  for (const v of views) if (!v.hidden) for (const op of Object.keys(v.run.ops)) if (!/-FAILED$|^Intended-|^CLEANUP$/i.test(op)) ops.add(op);
  return [...ops];
}
