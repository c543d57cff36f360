/**
 * `benchlens history [--json] [--order time|name|label:KEY|pattern:P] [--stat p50,p99,...]
 * [--op OP] <folders…>`: the runs of one test in order, each figure per run with its confidence
 * interval, and the change points of each series — the same code as the app's History view.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_HISTORY_STATS, statPercentile } from '../engine/history-queries.ts';
import { historyOf } from './history-runs.ts';
import { loadOnDisk } from '../engine/node-inputs.ts';
import { reportProblems } from './run-main.ts';
import { orderOption, parseOrSay, UsageError } from './usage.ts';

export const USAGE = `usage: benchlens history [--json] [--order time|name|label:KEY|pattern:PATTERN] [--stat p50,p99,...] [--op OP] <folders>...

Reads runs of one test (one folder each: one per build, commit, night), puts them in order and
prints, per operation, each figure per run with its 95% confidence interval (a block bootstrap of
the run's seconds) and the change points: the run where a figure moved for real, the levels before
and after, their ratio and its p-value (a permutation test).
  --order    time (the runs' start, default), name (natural order: build-9 before build-10),
             label:KEY (a label of the runs' benchlens.json, {"labels": {"build": "123"}}), or
             pattern:PATTERN (the part of the folder name at {} in PATTERN; * is any text)
  --stat     figures: p50, p99, p99.9 (any pXX), throughput, errors (default ${DEFAULT_HISTORY_STATS.join(',')})
  --op       one operation only

Exit code: 0 all read, 1 something was skipped or the runs could not be put in order (see errors
and problems), 2 bad usage, 3 internal error.`;


function parse(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, order: { type: 'string' }, stat: { type: 'string' }, op: { type: 'string' } },
  });
  if (positionals.length === 0) throw new UsageError('no result folders given');
  const order = orderOption(values.order);
  const stats = values.stat === undefined ? [...DEFAULT_HISTORY_STATS] : values.stat.split(',').map((s) => s.trim());
  const bad = stats.filter((s) => s !== 'throughput' && s !== 'errors' && !((statPercentile(s) ?? 0) > 0 && (statPercentile(s) ?? 0) <= 100));
  if (stats.length === 0 || bad.length) throw new UsageError(`--stat ${values.stat}: expected pXX (0 < XX ≤ 100), throughput or errors`);
  return { json: values.json ?? false, order, stats, op: values.op, paths: positionals };
}

const fmt = (v: number | null, digits = 1) => (v === null ? '–' : v.toLocaleString('en-US', { maximumFractionDigits: digits }));

export async function main(args: string[]): Promise<number> {
  const options = parseOrSay(parse, args, USAGE);
  if (options === null) return 2;
  const { engine, analysis } = await loadOnDisk(options.paths);
  const store = await engine.queryStore();
  const history = historyOf(store, analysis, { ...options, ...(options.op ? { op: options.op } : {}), window: null });
  const series = history.result.series.map((s) => ({
    op: s.op,
    stat: s.stat,
    points: s.points.map((p) => ({ run: p.run, value: p.value, ciLow: p.ciLow, ciHigh: p.ciHigh, ...(p.note ? { note: p.note } : {}) })),
    changes: s.changes,
    ...(s.note ? { note: s.note } : {}),
  }));
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ series, order: history.order, problems: history.problems, errors: analysis.errors }, null, 2)}\n`);
  } else {
    console.log(`${history.order.runs.length} runs in ${history.order.by} order: ${history.order.runs.join(', ')}`);
    for (const s of series) {
      const unit = s.stat === 'throughput' ? 'ops/s' : s.stat === 'errors' ? 'share failed' : 'µs';
      console.log(`\n${s.op} ${s.stat} (${unit})`);
      for (const p of s.points) console.log(`  ${p.run.padEnd(24)} ${fmt(p.value, 4).padStart(12)}  ${p.ciLow === null ? '' : `[${fmt(p.ciLow, 4)}, ${fmt(p.ciHigh, 4)}]`}`);
      for (const c of s.changes) console.log(`  change at ${c.run} (#${c.index}): ${fmt(c.before, 4)} → ${fmt(c.after, 4)}, ×${c.ratio.toFixed(3)}, p = ${c.pValue.toFixed(3)}`);
      if (s.note) console.log(`  ${s.note}`);
    }
    for (const p of history.problems) console.log(`  ${p}`);
  }
  reportProblems(analysis.errors);
  return analysis.errors.length > 0 || history.problems.length > 0 ? 1 : 0;
}

