/**
 * `benchlens query [--json|--csv] --sql 'SQL' <files-or-folders>...`: SQL over the loaded results —
 * the tables of docs/query.md, the same code and tables as the app's Query view.
 */
import { parseArgs } from 'node:util';
import { toCsv } from '../display/export.ts';
import type { CellValue } from '../engine/user-query.ts';
import { loadOnDisk } from '../engine/node-inputs.ts';
import { reportProblems } from './run-main.ts';
import { parseOrSay, UsageError } from './usage.ts';

export const USAGE = `usage: benchlens query [--json|--csv] --sql 'SQL' <files-or-folders>...

Reads the result files as summarize does and runs one SQL query (DuckDB) over them. Tables:
  runs             one row per run: run, dir, tool, start_ms, end_ms, clients, labels
  ops              the summary: run, op, kind, count, failed, ops_per_s, mean_us, p50_us … p99_99_us, max_us, exact
  seconds          run, op, kind, second (NULL: clients with no time), count, failed
  latency_buckets  merged distributions: run, op, lo_us, hi_us, count, raw
  requests         one row per request: run, client, file, op, time_ms, latency_us, ok, status, message, thread, url
  files, file_<n>  the input files, and each one's own columns (DuckDB reads it) or its parser's rows
  bl_percentile(hi_us, count, raw, q)  the summary's percentile rule over latency_buckets, e.g.
      SELECT run, op, bl_percentile(hi_us, count, raw, 0.99) AS p99 FROM latency_buckets GROUP BY ALL
The query only reads; it reaches nothing but the files given. See docs/query.md.
  --json   {"columns": [...], "rows": [[...], ...]} (integers beyond 2^53 as text)
  --csv    RFC 4180 CSV with a header row
Exit code: 0 all read, 1 something was skipped (see standard error), 2 bad usage or a query
DuckDB refused (its message on standard error), 3 internal error.`;


function parse(args: string[]) {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' }, csv: { type: 'boolean' }, sql: { type: 'string' } } });
  if (values.json && values.csv) throw new UsageError('--json and --csv exclude each other');
  if (values.sql === undefined || values.sql.trim() === '') throw new UsageError('no --sql given');
  if (positionals.length === 0) throw new UsageError('no result files or folders given');
  return { format: values.json ? ('json' as const) : values.csv ? ('csv' as const) : ('table' as const), sql: values.sql, paths: positionals };
}

const text = (v: CellValue) => (v === null ? 'NULL' : String(v));

function table(columns: readonly string[], rows: readonly CellValue[][]): string {
  const cells = [columns, ...rows.map((r) => r.map(text))];
  const widths = columns.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length)));
  const numeric = columns.map((_, c) => rows.every((r) => typeof r[c] === 'number' || r[c] === null));
  return cells.map((r) => r.map((x, c) => (numeric[c] ? x.padStart(widths[c] ?? 0) : x.padEnd(widths[c] ?? 0))).join('  ').trimEnd()).join('\n');
}

export async function main(args: string[]): Promise<number> {
  const options = parseOrSay(parse, args, USAGE);
  if (options === null) return 2;
  const { engine, analysis } = await loadOnDisk(options.paths);
  reportProblems(analysis.errors);
  let result;
  try {
    result = await engine.query(options.sql);
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  const columns = result.columns.map((c) => c.name);
  if (options.format === 'json') process.stdout.write(`${JSON.stringify({ columns, rows: result.rows })}\n`);
  else if (options.format === 'csv') process.stdout.write(toCsv(columns, result.rows.map((r) => r.map((v) => (typeof v === 'boolean' ? String(v) : v)))));
  else process.stdout.write(`${table(columns, result.rows)}\n(${result.totalRows} row${result.totalRows === 1 ? '' : 's'})\n`);
  return analysis.errors.length > 0 ? 1 : 0;
}
