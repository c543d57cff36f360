/**
 * `benchlens check [--json] [--junit FILE] [--markdown FILE] [--sla RULE]...
 * [--baseline SIDE --candidate SIDE [--max-regression PCT]] [--history [--order O]] <files-or-folders>`:
 * a gate for CI. Exit 0 when every check holds, 1 when one fails (or a file could not be read),
 * 2 on bad usage, 3 on an internal error. The checks are the app's own: SLA rules as the summary
 * and capacity evaluate them, the A/B comparison of `compare`, the change points of `history`.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { evaluateSla, formatSlaRule } from '../analysis/sla.ts';
import { newestAgainst, DEFAULT_ALPHA } from '../analysis/changepoint.ts';
import { checkMarkdown, junitXml, type CheckCase, type CheckSuite } from '../analysis/check.ts';
import { DEFAULT_PERCENTILES, THROUGHPUT } from '../analysis/compare.ts';
import type { HistorySeries } from '../analysis/history.ts';
import { runCompare } from '../engine/compare-queries.ts';
import { DEFAULT_HISTORY_STATS } from '../engine/history-queries.ts';
import { DEFAULT_STATE } from '../state/view-state.ts';
import { capacityPoints, slaRulesOf } from '../display/decide.ts';
import { buildRunViews } from '../display/run-views.ts';
import { historyOf } from './history-runs.ts';
import { loadOnDisk } from '../engine/node-inputs.ts';
import { resolveSides } from './sides.ts';
import { reportProblems } from './run-main.ts';
import { orderOption, parseOrSay, UsageError } from './usage.ts';

export const USAGE = `usage: benchlens check [--json] [--junit FILE] [--markdown FILE] [--sla RULE]...
         [--baseline SIDE --candidate SIDE [--max-regression PCT]] [--history [--order ORDER]] <files-or-folders>...

A gate for CI: exit 0 when every check holds, 1 when one fails.
  --sla RULE        e.g. "p99 of READ <= 10 ms"; repeat it (or separate rules with ;): every run must meet every rule
  --baseline SIDE --candidate SIDE
                    compare as the compare command does (a run's folder or label, a folder of runs, LABEL=VALUE);
                    fails when a figure of an operation (p50, p99, p99.9, throughput) is worse and its 95%
                    interval lies wholly beyond --max-regression percent (default 0: any significant regression)
  --history         the runs as a history (see the history command): fails when the newest run is
                    significantly worse than the runs since the last change point (latency or errors up,
                    throughput down) — a regression that starts at the newest run fails at once
  --order ORDER     the history's order: time (default), name, label:KEY, pattern:PATTERN
  --junit FILE      JUnit XML for GitLab, Jenkins, GitHub test reporters: a testsuite per run, comparison or
                    history, a testcase per rule or operation × statistic, a failure with the figures
  --markdown FILE   a short Markdown table for a CI job summary (e.g. >> $GITHUB_STEP_SUMMARY)
  --json            the verdicts as JSON on standard output

Exit code: 0 every check holds, 1 a check failed or a file could not be read, 2 bad usage, 3 internal error.`;


function parse(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      junit: { type: 'string' },
      markdown: { type: 'string' },
      sla: { type: 'string', multiple: true },
      baseline: { type: 'string' },
      candidate: { type: 'string' },
      'max-regression': { type: 'string' },
      history: { type: 'boolean' },
      order: { type: 'string' },
    },
  });
  if (positionals.length === 0) throw new UsageError('no result files or folders given');
  if ((values.baseline === undefined) !== (values.candidate === undefined)) throw new UsageError('--baseline and --candidate go together');
  if (values['max-regression'] !== undefined && values.baseline === undefined) throw new UsageError('--max-regression needs --baseline and --candidate');
  if (values.order !== undefined && !values.history) throw new UsageError('--order is for --history');
  const sla = slaRulesOf((values.sla ?? []).join(';'));
  if (sla.errors.length) throw new UsageError(`--sla: ${sla.errors.join('; ')}`);
  if (sla.rules.length === 0 && values.baseline === undefined && !values.history) throw new UsageError('nothing to check: give --sla, --baseline and --candidate, or --history');
  const maxRegression = values['max-regression'] === undefined ? 0 : Number(values['max-regression']);
  if (!(Number.isFinite(maxRegression) && maxRegression >= 0)) throw new UsageError(`--max-regression ${values['max-regression']} must be a percentage ≥ 0`);
  const order = orderOption(values.order);
  return { json: values.json ?? false, junit: values.junit, markdown: values.markdown, rules: sla.rules, baseline: values.baseline, candidate: values.candidate, maxRegression, history: values.history ?? false, order, paths: positionals };
}

const fmt = (v: number | null, digits = 1) => (v === null ? '–' : v.toLocaleString('en-US', { maximumFractionDigits: digits }));
const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)}%`;
/** Latency and errors regress upwards, throughput downwards. */
const worseIsHigher = (stat: string) => stat !== THROUGHPUT;

/** The history's newest run against the runs since each series' last change point, one case per series. */
function newestRunCases(series: readonly HistorySeries[]): CheckCase[] {
  // Bonferroni over the series tested: the job fails by chance in about DEFAULT_ALPHA of steady histories, not that times the series.
  const tested = series.filter((s) => s.points.length >= 3 && s.points.every((p) => p.value !== null));
  const alpha = DEFAULT_ALPHA / Math.max(1, tested.length);
  return series.map((s): CheckCase => {
    const name = `${s.op} ${s.stat}`;
    const newest = s.points[s.points.length - 1];
    if (!tested.includes(s) || !newest) return { name, passed: true, message: s.note ?? `too few runs with a ${s.stat} to test the newest` };
    const from = s.changes.length ? (s.changes[s.changes.length - 1] as { index: number }).index : 0;
    const offset = s.stat === 'errors' ? 0.0001 : 0;
    const check = newestAgainst(
      s.points.map((p) => ({ value: (p.value as number) + offset, ciLow: p.ciLow === null ? null : p.ciLow + offset, ciHigh: p.ciHigh === null ? null : p.ciHigh + offset })),
      Math.min(from, s.points.length - 2),
      worseIsHigher(s.stat) ? 1 : -1,
    );
    if (!check) return { name, passed: true, message: `${s.stat} could not be tested (a value of 0)` };
    const since = s.points[Math.min(from, s.points.length - 2)]?.run ?? '';
    const passed = check.pValue >= alpha;
    const figures = `${newest.run}: ${fmt(check.after - offset, 4)} against ${fmt(check.before - offset, 4)} since ${since} (${pct(check.ratio)}), p = ${check.pValue.toPrecision(2)} (fails below ${alpha.toPrecision(2)})`;
    return { name, passed, message: passed ? figures : `newest run worse: ${figures}` };
  });
}

export async function main(args: string[]): Promise<number> {
  const options = parseOrSay(parse, args, USAGE);
  if (options === null) return 2;
  const { engine, analysis } = await loadOnDisk(options.paths);
  const store = await engine.queryStore();
  const state = structuredClone(DEFAULT_STATE);
  const views = buildRunViews(analysis, state);
  const suites: CheckSuite[] = [];
  const problems: string[] = [];

  if (options.rules.length) {
    for (const point of capacityPoints(views)) {
      suites.push({
        name: `SLA: ${point.label}`,
        cases: options.rules.map((rule) => {
          const text = formatSlaRule(rule);
          if (point.throughput === null) return { name: text, passed: false, message: 'the run has no throughput' };
          const verdict = evaluateSla(rule, { throughputOpsPerS: point.throughput, percentileUs: point.percentileUs });
          return { name: text, passed: verdict.pass === true, message: verdict.pass === null ? `cannot tell: ${verdict.reason}` : verdict.reason };
        }),
      });
    }
  }

  if (options.baseline !== undefined && options.candidate !== undefined) {
    const sides = resolveSides(views, state, options.baseline, options.candidate);
    if ('errors' in sides) {
      process.stderr.write(`error: ${sides.errors.join('\n')}\n`);
      return 2;
    }
    const { baseline, candidate } = sides;
    const result = runCompare(store, analysis, { baseline, candidate, percentiles: [...DEFAULT_PERCENTILES], window: null });
    problems.push(...result.problems);
    const limit = options.maxRegression / 100;
    suites.push({
      name: `${result.candidate.label} against ${result.baseline.label}`,
      cases: result.rows.map((r): CheckCase => {
        const name = `${r.op} ${r.stat}`;
        const figures = `${fmt(r.baseline)} → ${fmt(r.candidate)}${r.ratio !== null ? ` (${pct(r.ratio)}` : ''}${r.ciLow !== null && r.ciHigh !== null ? `, 95% interval ×${r.ciLow.toFixed(3)}–×${r.ciHigh.toFixed(3)})` : r.ratio !== null ? ')' : ''}`;
        if (r.ciLow === null || r.ciHigh === null) return { name, passed: true, message: `${figures}; no interval: ${r.note ?? 'unknown'}` };
        const worse = worseIsHigher(r.stat) ? r.ciLow > 1 + limit : r.ciHigh < 1 - limit;
        return { name, passed: !worse, message: worse ? `worse beyond ${options.maxRegression}%: ${figures}` : `${r.verdict}: ${figures}` };
      }),
    });
  }

  if (options.history) {
    const history = historyOf(store, analysis, { order: options.order, stats: DEFAULT_HISTORY_STATS, window: null });
    problems.push(...history.problems);
    const newest = history.order.runs[history.order.runs.length - 1] ?? 'none';
    suites.push({ name: `history: newest run ${newest}`, cases: newestRunCases(history.result.series) });
  }

  if (analysis.errors.length) suites.push({ name: 'reading the results', cases: analysis.errors.map((e) => ({ name: `${e.file}${e.line ? `:${e.line}` : ''}`, passed: false, message: e.message })) });
  const failed = suites.flatMap((s) => s.cases.filter((c) => !c.passed).map((c) => ({ suite: s.name, ...c })));
  if (options.junit) writeFileSync(options.junit, junitXml(suites));
  if (options.markdown) writeFileSync(options.markdown, checkMarkdown(suites));
  if (options.json) process.stdout.write(`${JSON.stringify({ passed: failed.length === 0, suites, problems, errors: analysis.errors }, null, 2)}\n`);
  else {
    for (const s of suites) {
      console.log(`\n${s.name}`);
      for (const c of s.cases) console.log(`  ${c.passed ? 'ok  ' : 'FAIL'}  ${c.name}: ${c.message}`);
    }
    for (const p of problems) console.log(`  note: ${p}`);
    console.log(failed.length ? `\n${failed.length} check(s) failed` : '\nall checks passed');
  }
  reportProblems(analysis.errors);
  return failed.length > 0 ? 1 : 0;
}

