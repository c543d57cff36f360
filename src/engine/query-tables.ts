import { Bool, Float64, Int32, makeVector, Table, Utf8, vectorFromArray, type Vector } from 'apache-arrow';
import { opKind } from '../model/naming.ts';
import { toMicros } from '../model/numbers.ts';
import type { FormatId } from '../model/types.ts';
import type { RunLabels } from '../state/view-state.ts';
import type { Analysis } from './analyse.ts';
import { INPUT_DIR, type Db, type InputHandle } from './db.ts';
import { mergeHistograms } from './group-merge.ts';
export { QUERY_TABLES } from './query-schema.ts';
import { requestSelect, type FileColumn } from './request-columns.ts';
import type { Store } from './store.ts';
import { dbBacked, mergeGroups, windowBounds, type AnalysisWindow } from './summary.ts';

/**
 * The tables a user's SQL sees (docs/query.md): documented names over what is loaded, kept in step
 * with the data, the time window and the grouping. Built when a query asks for them, not on load:
 *
 * - `runs`, `ops`, `files`: a row per run, per run and operation (the summary's figures), per input
 *   file — small tables, rebuilt from the analysis.
 * - `seconds`: a view over the engine's own per-second counts (`intervals`, `raw_seconds`) of the
 *   series the summary merges, through a small table of those series and their window: nothing copied.
 * - `latency_buckets`: each run and operation's merged histogram in µs — the very sum the summary
 *   reads its percentiles from — materialised (one row per bucket or distinct raw value).
 * - `file_<n>`, `requests`: views reading each CSV-shaped input in place (DuckDB's `read_csv` on the
 *   registered file), created the first time a query names them; nothing is materialised, each query
 *   reads the file again.
 *
 * The percentile macro `bl_percentile(hi_us, count, raw, q)` reads a group's value at fraction q by
 * the summary's own rank rule (src/model/percentiles.ts).
 */

/** A loaded input as the query tables know it. */
export interface QueryFile {
  path: string;
  format: FormatId;
  /** Where DuckDB can read the file's own bytes; null where it cannot (not kept, or not a file). */
  handle: InputHandle | null;
}

export interface QueryContext {
  store: Store;
  analysis: Analysis;
  window: AnalysisWindow;
  /** The Runs table's labels by run key (the page's; the CLI has none). */
  labels: Record<string, RunLabels>;
  files: readonly QueryFile[];
}

/** Macros: the rank rule of src/model/percentiles.ts, and the value at that rank over a group's buckets. */
const MACRO_SQL = [
  // HdrHistogram 2.2.2: ⌈nextDown(100q) × count / 100⌉ in doubles; raw samples: ⌈q × count⌉ exact
  // (q as typed is a DECIMAL, so the product is exact).
  `CREATE OR REPLACE MACRO bl_rank(total, q, raw) AS
     CASE WHEN raw THEN greatest(ceil(q * total), 1)
          ELSE greatest(ceil(nextafter((q * 100)::DOUBLE, 0::DOUBLE) * total / 100), 1) END`,
  // The smallest hi whose cumulative count reaches the rank: a fold over the group's buckets in order.
  `CREATE OR REPLACE MACRO bl_percentile(hi, n, raw, q) AS (
     list_reduce(
       list({'h': hi::DOUBLE, 'c': n::BIGINT} ORDER BY hi),
       (acc, x) -> CASE WHEN acc.c >= bl_rank(sum(n), q, bool_and(raw)) THEN acc ELSE {'h': x.h, 'c': acc.c + x.c} END,
       {'h': NULL::DOUBLE, 'c': 0::BIGINT})
   ).h`,
];

/** A DuckDB string literal for any text: quoted, inner quotes doubled. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** A DuckDB identifier for any name (a file's column): quoted, inner quotes doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** File formats whose inputs are CSV-shaped, which DuckDB can read in place as file_<n>. */
const CSV_FORMATS: ReadonlySet<FormatId> = new Set(['generic-csv', 'jmeter', 'k6', 'vegeta', 'locust']);

const mentions = (sql: string, pattern: RegExp) => pattern.test(sql);

/** The query tables of one Db: built for a state (data version, window, labels) when a query needs them. */
export class QueryTables {
  private builtFor = '';
  private bucketsBuiltFor = '';
  private filesBuiltFor = '';
  /** Registered name of each input, once registered (a handle is registered once). */
  private readonly registered = new Map<string, string>();

  constructor(private readonly db: Db) {
    for (const sql of MACRO_SQL) db.exec(sql);
  }

  /** Makes sure the tables `sql` may read reflect `ctx`. */
  prepare(ctx: QueryContext, sql: string): void {
    const key = `${ctx.store.version}\u0000${JSON.stringify(ctx.window)}\u0000${JSON.stringify(ctx.labels)}`;
    if (key !== this.builtFor) {
      this.buildSummaryTables(ctx);
      this.builtFor = key;
      this.bucketsBuiltFor = '';
      this.filesBuiltFor = '';
    }
    // The tables below cost a pass over the data: made when a query names them.
    if (this.bucketsBuiltFor !== key && mentions(sql, /\blatency_buckets\b/i)) {
      this.buildLatencyBuckets(ctx);
      this.bucketsBuiltFor = key;
    }
    if (this.filesBuiltFor !== key && mentions(sql, /\b(requests|files|file_\d+)\b/i)) {
      this.buildFileViews(ctx);
      this.filesBuiltFor = key;
    }
  }

  /** Replaces table `name` (one of ours) by these columns. */
  private replaceTable(name: string, columns: Record<string, Vector>): void {
    this.db.exec(`DROP VIEW IF EXISTS ${name}`);
    this.db.exec(`DROP TABLE IF EXISTS ${name}`);
    this.db.insert(name, new Table(columns), true);
  }

  private buildSummaryTables({ store, analysis, window, labels, files }: QueryContext): void {
    const runLabel = (runId: number) => store.runs[runId]?.label ?? '';
    const formatOf = new Map(files.map((f) => [f.path, f.format]));

    const runs = analysis.runs;
    const str = (values: readonly (string | null | undefined)[]) => vectorFromArray(values.map((v) => v ?? null), new Utf8());
    const num = (values: readonly (number | null | undefined)[]) => vectorFromArray(values.map((v) => v ?? null), new Float64());
    const int = (values: readonly number[]) => vectorFromArray(values, new Int32());
    const bool = (values: readonly boolean[]) => vectorFromArray(values, new Bool());
    const label = (dir: string) => labels[dir] ?? {};
    this.replaceTable('runs', {
      run: str(runs.map((r) => r.label)),
      dir: str(runs.map((r) => r.dir)),
      tool: str(runs.map((r) => [...new Set(r.paths.map((p) => formatOf.get(p)).filter((f) => f !== undefined))].join(', ') || null)),
      start_ms: num(runs.map((r) => r.startEpochMs)),
      end_ms: num(runs.map((r) => r.endEpochMs)),
      relative_time: bool(runs.map((r) => r.relativeTime === true)),
      clients: int(runs.map((r) => r.clients.length)),
      system: str(runs.map((r) => label(r.dir).system)),
      workload: str(runs.map((r) => label(r.dir).workload ?? r.workload)),
      distribution: str(runs.map((r) => label(r.dir).distribution)),
      nodes: num(runs.map((r) => label(r.dir).nodes)),
      load_level: str(runs.map((r) => label(r.dir).loadLevel)),
      utilisation_pct: num(runs.map((r) => label(r.dir).utilisationPct)),
      repeat: str(runs.map((r) => label(r.dir).repeat)),
    });

    const opRows = runs.flatMap((r) => Object.entries(r.ops).map(([op, o]) => ({ r, op, o, kind: opKind(op) })));
    this.replaceTable('ops', {
      run: str(opRows.map((x) => x.r.label)),
      op: str(opRows.map((x) => x.op)),
      kind: str(opRows.map((x) => x.kind)),
      count: num(opRows.map((x) => x.o.count)),
      failed: num(opRows.map((x) => (x.kind === 'failed' ? x.o.count : x.kind === 'op' ? (x.r.ops[`${x.op}-FAILED`]?.count ?? 0) : null))),
      ops_per_s: num(opRows.map((x) => (x.r.durationS ? x.o.count / x.r.durationS : null))),
      mean_us: num(opRows.map((x) => x.o.mean)),
      min_us: num(opRows.map((x) => x.o.min)),
      p50_us: num(opRows.map((x) => x.o.p50)),
      p90_us: num(opRows.map((x) => x.o.p90)),
      p95_us: num(opRows.map((x) => x.o.p95)),
      p99_us: num(opRows.map((x) => x.o.p99)),
      p99_9_us: num(opRows.map((x) => x.o['p99.9'])),
      p99_99_us: num(opRows.map((x) => x.o['p99.99'])),
      max_us: num(opRows.map((x) => x.o.max)),
      exact: bool(opRows.map((x) => x.o.exact)),
    });
    this.db.exec(`ALTER TABLE ops ALTER count TYPE BIGINT`);
    this.db.exec(`ALTER TABLE ops ALTER failed TYPE BIGINT`);

    // The summary's series per run and operation, each with the seconds its figures cover.
    const groups = mergeGroups(store);
    const members = groups.flatMap((m) => m.series.map((s) => ({ m, s })));
    const timed = members.filter((x) => dbBacked(x.s));
    const bounds = windowBounds(
      store,
      timed.map((x) => x.s),
      window,
    );
    const from = new Map(timed.map((x, i) => [x.s.id, bounds.fromS?.[i] ?? null]));
    const to = new Map(timed.map((x, i) => [x.s.id, bounds.toS?.[i] ?? null]));
    this.replaceTable('bl_members', {
      series_id: int(members.map((x) => x.s.id)),
      run: str(members.map((x) => runLabel(x.s.runId))),
      op: str(members.map((x) => x.s.op)),
      kind: str(members.map((x) => x.s.kind)),
      from_s: num(members.map((x) => from.get(x.s.id))),
      to_s: num(members.map((x) => to.get(x.s.id))),
    });
    this.db.exec(`CREATE OR REPLACE VIEW seconds AS
      WITH m AS (SELECT * FROM bl_members),
      x AS (
        SELECT m.run, m.op, m.kind, i.start_us // 1000000 AS second, i.n, m.from_s, m.to_s FROM m JOIN intervals i USING (series_id)
        UNION ALL
        SELECT m.run, m.op, m.kind, r.sec, r.n, m.from_s, m.to_s FROM m JOIN raw_seconds r USING (series_id)
      )
      SELECT run, op, kind, second::BIGINT AS second, sum(n)::BIGINT AS count,
             (CASE WHEN kind = 'failed' THEN sum(n) ELSE 0 END)::BIGINT AS failed
      FROM x WHERE (from_s IS NULL OR second >= from_s) AND (to_s IS NULL OR second < to_s)
      GROUP BY run, op, kind, second`);

    // A run lists its files by path, its clients by base name.
    const runOf = (path: string) => store.runs.find((r) => r.paths.includes(path));
    const clientOf = (path: string) => runOf(path)?.clients.find((c) => c.files.includes(path.slice(path.lastIndexOf('/') + 1)))?.name;
    this.replaceTable('files', {
      n: int(files.map((_, i) => i + 1)),
      path: str(files.map((f) => f.path)),
      run: str(files.map((f) => runOf(f.path)?.label)),
      client: str(files.map((f) => clientOf(f.path))),
      format: str(files.map((f) => f.format)),
      queryable: bool(files.map(() => false)),
    });
  }

  /** `latency_buckets`: the merged histograms exactly as the summary reads them — the same groups, series and window. */
  private buildLatencyBuckets({ store, window }: QueryContext): void {
    const groups = mergeGroups(store);
    const mergeable = groups.map((m, g) => ({ m, g })).filter(({ m }) => m.refusal === null && m.series.every(dbBacked));
    const sel = mergeable.flatMap(({ m, g }) => m.series.map((s) => ({ s, g })));
    const windowOf = windowBounds(
      store,
      sel.map((x) => x.s),
      window,
    );
    const merged = mergeHistograms(store, { seriesIds: sel.map((x) => x.s.id), groups: sel.map((x) => x.g), ...windowOf });
    const rows = merged.reduce((n, h) => n + h.histogram.lo.length, 0);
    const b = { run: new Array<string>(rows), op: new Array<string>(rows), lo: new Float64Array(rows), hi: new Float64Array(rows), n: new Float64Array(rows), raw: new Array<boolean>(rows) };
    let at = 0;
    for (const h of merged) {
      const group = groups[h.g];
      if (!group) continue;
      const unit = group.series[0]?.unit ?? 'us';
      const { lo, width, count } = h.histogram;
      for (let i = 0; i < lo.length; i++, at++) {
        b.run[at] = group.run.label;
        b.op[at] = group.op;
        b.lo[at] = toMicros(lo[i] as number, unit);
        b.hi[at] = toMicros((lo[i] as number) + (width[i] as number) - 1, unit);
        b.n[at] = count[i] as number;
        b.raw[at] = h.raw;
      }
    }
    this.replaceTable('latency_buckets', { run: vectorFromArray(b.run, new Utf8()), op: vectorFromArray(b.op, new Utf8()), lo_us: makeVector(b.lo), hi_us: makeVector(b.hi), count: makeVector(b.n), raw: vectorFromArray(b.raw, new Bool()) });
    this.db.exec(`ALTER TABLE latency_buckets ALTER count TYPE BIGINT`);

  }

  /** `file_<n>` over each CSV-shaped input DuckDB can read, and `requests` over those with per-request rows. */
  private buildFileViews({ files }: QueryContext): void {
    for (const row of this.db.query(`SELECT view_name AS t FROM duckdb_views() WHERE NOT internal AND regexp_matches(view_name, '^file_[0-9]+$')`)) {
      this.db.exec(`DROP VIEW IF EXISTS ${quoteIdent(row.t as string)}`);
    }
    const selects: string[] = [];
    files.forEach((f, i) => {
      const n = i + 1;
      if (!f.handle || !CSV_FORMATS.has(f.format)) return;
      const name = this.register(f.path, f.handle);
      const reader = this.sniffedReader(name);
      // Not CSV after all (a JTL in XML, k6's or vegeta's JSON output, split into nonsense): no view.
      if (!reader || reader.columns.length < 3 || /^[[{<]/.test(reader.columns[0]?.name ?? '')) return;
      this.db.exec(`CREATE VIEW file_${n} AS SELECT * FROM ${reader.sql}`);
      const { columns } = reader;
      this.db.query(`UPDATE files SET queryable = true WHERE n = ?`, [n]);
      const select = requestSelect(f.format, columns);
      if (select) {
        // The file's run and client as scalar subqueries, read once per query (a join per row cost more).
        const of = (column: string) => `(SELECT ${column} FROM files WHERE n = ${n})`;
        selects.push(`SELECT ${of('run')} AS run, ${of('client')} AS client, ${n} AS file, ${select.op}::VARCHAR AS op, (${select.timeMs})::DOUBLE AS time_ms,
            (${select.latencyUs})::DOUBLE AS latency_us, (${select.ok})::BOOLEAN AS ok, (${select.status})::VARCHAR AS status,
            (${select.message})::VARCHAR AS message,
            (${select.thread})::VARCHAR AS thread, (${select.url})::VARCHAR AS url
          FROM file_${n} AS t${select.where ? ` WHERE ${select.where}` : ''}`);
      }
    });
    this.db.exec('DROP VIEW IF EXISTS requests');
    this.db.exec(
      selects.length
        ? `CREATE VIEW requests AS ${selects.join('\nUNION ALL\n')}`
        : `CREATE VIEW requests AS SELECT NULL::VARCHAR AS run, NULL::VARCHAR AS client, NULL::INTEGER AS file, NULL::VARCHAR AS op, NULL::DOUBLE AS time_ms,
             NULL::DOUBLE AS latency_us, NULL::BOOLEAN AS ok, NULL::VARCHAR AS status, NULL::VARCHAR AS message, NULL::VARCHAR AS thread, NULL::VARCHAR AS url WHERE false`,
    );
  }

  /**
   * `read_csv` of a registered input with what DuckDB's sniffer finds in it written out (delimiter,
   * quoting, header, each column's name and type): a view of it then reads the file without
   * sniffing it again on every query, which costs as much as a query of a few million rows. Every
   * value goes in as a quoted literal; null when DuckDB cannot read the file as CSV.
   */
  private sniffedReader(name: string): { sql: string; columns: FileColumn[] } | null {
    let rows;
    try {
      // `name` is ours (INPUT_DIR and a number), never text from a file or the user.
      rows = this.db.query(`SELECT c.name AS name, c.type AS type, Delimiter AS delim, Quote AS quote, Escape AS escape, NewLineDelimiter AS new_line,
          Comment AS comment, SkipRows::INTEGER AS skip, HasHeader AS header, DateFormat AS dateformat, TimestampFormat AS timestampformat
        FROM (SELECT unnest(Columns) AS c, * FROM sniff_csv('${name}'))`);
    } catch {
      return null;
    }
    const first = rows[0];
    if (!first) return null;
    const columns = rows.map((r) => ({ name: String(r.name), type: String(r.type) }));
    if (columns.some((c) => !/^[A-Z][A-Z0-9_]*(\([0-9, ]+\))?(\[\])?$/.test(c.type))) return null;
    // The sniffer writes "(empty)" for no quote, escape or comment character.
    const option = (v: unknown) => sqlString(v === '(empty)' || v === null ? '' : String(v));
    const options = [
      'auto_detect = false',
      `delim = ${option(first.delim)}`,
      `quote = ${option(first.quote)}`,
      `escape = ${option(first.escape)}`,
      `new_line = ${option(first.new_line)}`,
      `comment = ${option(first.comment)}`,
      `skip = ${Number(first.skip)}`,
      `header = ${first.header === true}`,
      `columns = {${columns.map((c) => `${sqlString(c.name)}: ${sqlString(c.type)}`).join(', ')}}`,
      ...(first.dateformat ? [`dateformat = ${sqlString(String(first.dateformat))}`] : []),
      ...(first.timestampformat ? [`timestampformat = ${sqlString(String(first.timestampformat))}`] : []),
    ];
    return { sql: `read_csv('${name}', ${options.join(', ')})`, columns };
  }

  /** The input's name in DuckDB's file table: registered the first time, keeping its compression suffix. */
  private register(path: string, handle: InputHandle): string {
    const key = `${path}\u0000${'file' in handle ? `${handle.file.name}:${handle.file.size}:${handle.file.lastModified}` : 'path' in handle ? handle.path : handle.url}`;
    let name = this.registered.get(key);
    if (!name) {
      name = `${INPUT_DIR}${this.registered.size + 1}.csv${/\.gz$/i.test(path) ? '.gz' : ''}`;
      this.db.registerInput(name, handle);
      this.registered.set(key, name);
    }
    return name;
  }
}
