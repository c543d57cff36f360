import type { Analysis } from '../engine/analyse.ts';
import { loadOnDisk } from '../engine/node-inputs.ts';
import { describeKept, fileNotes, problemsByFile } from '../model/file-tally.ts';
import { MappingError, parseMapSpec } from '../formats/csv-mapping.ts';
import { PERCENTILE_KEYS } from '../model/percentiles.ts';
import { ALL_REQUESTS, type Figures } from '../model/figures.ts';
import { formatEpochMs, formatOps } from '../display/format.ts';
import { timeSplits } from '../model/time-splits.ts';
import { checkRules, parseRuleSpec, type NameRules } from '../model/name-rules.ts';

export const USAGE = `usage: benchlens summarize [--json] [--map time=col,latency=col:ms,op=col,ok=col,client=col]
    [--group 'REGEX=>NAME']... [--group-ids] <file-or-folder>...

Reads benchmark result files (HdrHistogram logs, .hgrm, YCSB output and raw CSV, per-operation CSV,
the outputs of the load tools in the README, gzipped or not), groups them into runs (one folder =
one run) and prints merged figures per run and operation. --map reads every CSV that has the mapped
latency column with that mapping (units: ns, us, ms, s). --group renames every operation whose name
matches REGEX to NAME ($1… are its groups; the first matching rule wins) and --group-ids groups the
IDs in names (numbers, UUIDs, hex, query values); renamed operations are merged exactly. Exit code: 0 all read, 1 something was
skipped (see errors), 2 bad usage, 3 internal error.`;

function fmt(v: number | null | undefined, digits = 0): string {
  if (v === null || v === undefined) return '–';
  return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

function cell(o: Figures, key: (typeof PERCENTILE_KEYS)[number]): string {
  const v = o[key];
  if (v !== null) return fmt(v);
  const b = o.bounds?.[key];
  return b ? `[${fmt(b.min)}, ${fmt(b.max)}]` : '–';
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  return rows.map((r) => r.map((x, c) => (c === 0 ? x.padEnd(widths[c] ?? 0) : x.padStart(widths[c] ?? 0))).join('  ')).join('\n');
}

function printReadable(analysis: Analysis): void {
  for (const run of analysis.runs) {
    const clients = run.clients.map((c) => c.client).join(', ');
    const target = run.target !== null ? `target ${fmt(run.target)} ops/s per client` : 'no target';
    console.log(`\n${run.label}${run.partial ? '  [PARTIAL: some lines could not be read]' : ''}  (${run.clients.length} clients: ${clients}; ${target})`);
    console.log(`  duration ${fmt(run.durationS, 3)} s, throughput ${formatOps(run.throughput)} ops/s, ${fmt(run.totalOps)} ops`);
    const rows = [['op', 'source', 'count', 'mean', 'min', ...PERCENTILE_KEYS, 'max', 'max-of-clients p99', 'error']];
    for (const [op, o] of Object.entries(run.ops)) {
      const naive = o.naive.maxClientP99;
      const error = naive !== null && o.p99 ? `${fmt(((naive - o.p99) / o.p99) * 100, 1)}%` : '–';
      rows.push([op, o.exact ? o.source : `${o.source} (bounds)`, fmt(o.count), fmt(o.mean, 1), fmt(o.min), ...PERCENTILE_KEYS.map((k) => cell(o, k)), fmt(o.max), fmt(naive), error]);
    }
    const all = run.allRequests;
    if (all && all.ops > 1) rows.push([ALL_REQUESTS, all.exact ? 'merged' : 'merged (bounds)', fmt(all.count), fmt(all.mean, 1), fmt(all.min), ...PERCENTILE_KEYS.map((k) => cell(all, k)), fmt(all.max), '–', '–']);
    console.log(
      table(rows)
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n'),
    );
  }
  const noted = analysis.files.filter((f) => fileNotes(f).length > 0);
  if (noted.length > 0) {
    console.log('\nRead with a note:');
    for (const f of noted) console.log(`  ${f.path}: ${fileNotes(f).join('; ')}`);
  }
  // As the page offers to split them (src/model/time-splits.ts): here, the folders to make.
  const spans = new Map(analysis.files.flatMap((f) => (f.span ? [[f.path, f.span] as const] : [])));
  const splits = timeSplits(analysis.runs.map((r) => ({ key: r.dir, paths: r.paths })), spans);
  if (splits.length > 0) {
    console.log("\nRan at separate times, read as the clients of one run (put each time's files in a folder of its own to read them as runs):");
    for (const split of splits) {
      const label = analysis.runs.find((r) => r.dir === split.runKey)?.label ?? split.runKey;
      console.log(`  ${label}: ${split.parts.map((p) => `${p.paths.length} file(s) from ${formatEpochMs(p.span.startMs)}`).join('; ')}`);
    }
  }
  if (analysis.errors.length > 0) {
    console.log(`\n${analysis.errors.length} problem(s); runs built on these files are marked partial:`);
    for (const [file, list] of problemsByFile(analysis.errors)) {
      const tally = analysis.files.find((f) => f.path === file);
      console.log(`  ${file}${tally ? ` (${describeKept(tally)})` : ''}`);
      for (const e of list) console.log(`    ${e.line ? `line ${e.line}` : 'file'}${e.field ? ` [${e.field}]` : ''}: ${e.message}`);
    }
  }
  console.log('\nLatencies in µs. Merged percentiles come from summed histogram buckets or all raw samples.');
}

export async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const mapAt = argv.indexOf('--map');
  const map = mapAt >= 0 ? argv[mapAt + 1] : undefined;
  const names: NameRules = { ids: argv.includes('--group-ids'), rules: [] };
  const taken = new Set<number>();
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== '--group') continue;
    taken.add(i).add(i + 1);
    const rule = parseRuleSpec(argv[i + 1] ?? '');
    if ('error' in rule) {
      console.error(`--group: ${rule.error}\n${USAGE}`);
      return 2;
    }
    names.rules.push(rule);
  }
  const { problems } = checkRules(names);
  if (problems.length > 0) {
    console.error(`--group: ${problems.join('; ')}\n${USAGE}`);
    return 2;
  }
  const paths = argv.filter((a, i) => a !== '--json' && a !== '--group-ids' && !taken.has(i) && (mapAt < 0 || (i !== mapAt && i !== mapAt + 1)));
  const unknown = paths.filter((a) => a.startsWith('-'));
  if (paths.length === 0 || unknown.length > 0 || (mapAt >= 0 && map === undefined)) {
    console.error(unknown.length ? `unknown option ${unknown.join(', ')}\n${USAGE}` : USAGE);
    return 2;
  }
  if (map !== undefined) {
    try {
      parseMapSpec(map);
    } catch (e) {
      if (!(e instanceof MappingError)) throw e;
      console.error(`--map ${map}: ${e.message}\n${USAGE}`);
      return 2;
    }
  }
  const { analysis } = await loadOnDisk(paths, { names, ...(map !== undefined ? { csvMappings: { any: map } } : {}) });
  if (json) process.stdout.write(`${JSON.stringify(analysis, null, 2)}\n`);
  else printReadable(analysis);
  return analysis.errors.length > 0 ? 1 : 0;
}
