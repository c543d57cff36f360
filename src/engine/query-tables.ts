import { Bool, Float64, Int32, makeVector, Table, Utf8, vectorFromArray, type Vector } from 'apache-arrow';
import { sumDistributions } from '../model/distribution.ts';
import { Float64Column } from '../formats/growable.ts';
import { HdrLayout } from '../model/hdr-layout.ts';
import { baseName, opKind } from '../model/naming.ts';
import { toMicros } from '../model/numbers.ts';
import type { FormatId, ProducerInfo } from '../model/types.ts';
import type { RunLabels } from '../state/view-state.ts';
import type { Analysis } from './analyse.ts';
import { INPUT_DIR, type Db, type InputHandle } from './db.ts';
import { mergeHistograms } from './group-merge.ts';
export { QUERY_TABLES } from './query-schema.ts';
import { fixedLayout, requestSelect, type FileColumn, type RequestSelect } from './request-columns.ts';
import { materialiseParserRows, type Reread } from './request-rows.ts';
import type { Store } from './store.ts';
import { dbBacked, mergeGroups, windowBounds, type AnalysisWindow } from './summary.ts';

/**
 * The tables a user's SQL sees (docs/query.md): documented names over what is loaded, kept in step
 * with the data, the time window and the grouping. Built when a query asks for them, not on load:
 *
 * - `runs`, `ops`, `files`: a row per run, per run and operation (the summary's figures), per input
 *   file — small tables, rebuilt from the analysis.
 * - `seconds`: a view over the engine's own per-second counts (`intervals`, `raw_seconds`) of the
 *   series the summary merges, through a small table of those series and their window (and the
 *   counts of series with no time, in a NULL second): nothing copied.
 * - `latency_buckets`: each run and operation's merged histogram in µs — the very sum the summary
 *   reads its percentiles from — and the percentile tables it reads exactly, materialised (one row
 *   per bucket or distinct raw value).
 * - `file_<n>`, `requests`: views reading each delimited input in place (DuckDB's `read_csv` on the
 *   registered file), created the first time a query names them, each query reading the file
 *   again; an input DuckDB cannot read (XML, JSON, Parquet, binary) is read again by its parser
 *   into a table on the first query that names `requests` or its `file_<n>` (request-rows.ts).
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
  /** The parser read per-request samples from it (raw series). */
  perRequest: boolean;
  /** What the parser found about the tool's settings (a pgbench log's extra columns). */
  producer?: ProducerInfo;
  /** How to read it again, for its parser's rows; absent where it cannot be. */
  reread?: Reread;
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

/** One input, the same across loads: its path and what it is read from. */
function inputKey(path: string, handle: InputHandle | null): string {
  return `${path}\u0000${handle === null ? '' : 'file' in handle ? `${handle.file.name}:${handle.file.size}:${handle.file.lastModified}` : 'path' in handle ? handle.path : handle.url}`;
}

/** `requests` from an input's parser rows (request-rows.ts): its operations and their failures, each once. */
const PARSER_ROWS: RequestSelect = {
  op: `CASE WHEN t.kind = 'failed' THEN regexp_replace(t.op, '-FAILED$', '', 'i') ELSE t.op END`,
  client: 't.client',
  timeMs: 't.time_ms',
  latencyUs: 't.latency_us',
  ok: `t.kind <> 'failed'`,
  status: 'NULL',
  message: 'NULL',
  thread: 'NULL',
  url: 'NULL',
  where: `t.kind IN ('op', 'failed')`,
};

/** The query tables of one Db: built for a state (data version, window, labels) when a query needs them. */
export class QueryTables {
  private builtFor = '';
  private dataVersion = -1;
  private bucketsBuiltFor = '';
  private filesBuiltFor = '';
  /** Registered name of each input, once registered (a handle is registered once). */
  private readonly registered = new Map<string, string>();
  /** Table of each input's parser rows (inputKey → name), and those made for the current data. */
  private readonly parserTables = new Map<string, string>();
  private readonly materialised = new Set<string>();
  /** Files (by n) whose `requests` rows come from their parser but are not read yet. */
  private pending = new Set<number>();

  constructor(private readonly db: Db) {
    for (const sql of MACRO_SQL) db.exec(sql);
  }

  /** Makes sure the tables `sql` may read reflect `ctx`. */
  async prepare(ctx: QueryContext, sql: string, signal: AbortSignal): Promise<void> {
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
    if (ctx.store.version !== this.dataVersion) {
      // New data: rows read from parsers before are of files that may be gone or changed.
      for (const table of this.materialised) this.db.exec(`DROP TABLE IF EXISTS ${table}`);
      this.materialised.clear();
      this.dataVersion = ctx.store.version;
    }
    // Views are remade when a query names a table of files; parser rows are read for the files it names.
    if (mentions(sql, /\b(requests|files|file_\d+)\b/i) && (this.filesBuiltFor !== key || this.needsParserRows(sql))) {
      await this.buildFileViews(ctx, sql, signal);
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
      // A series with no time (a whole-run summary, a percentile table): its count, in no second.
      untimed: num(members.map((x) => (x.s.source === 'summary' ? (x.s.summary?.count ?? null) : x.s.source === 'distribution' ? (x.s.distribution?.totalCount ?? null) : null))),
    });
    this.db.exec(`CREATE OR REPLACE VIEW seconds AS
      WITH m AS (SELECT * FROM bl_members),
      x AS (
        SELECT m.run, m.op, m.kind, i.start_us // 1000000 AS second, i.n, m.from_s, m.to_s FROM m JOIN intervals i USING (series_id)
        UNION ALL
        SELECT m.run, m.op, m.kind, r.sec, r.n, m.from_s, m.to_s FROM m JOIN raw_seconds r USING (series_id)
        UNION ALL
        SELECT m.run, m.op, m.kind, NULL, m.untimed, NULL, NULL FROM m WHERE m.untimed IS NOT NULL
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
      requests_from: str(files.map(() => null)),
    });
  }

  /**
   * `latency_buckets`: the merged histograms exactly as the summary reads them — the same groups,
   * series and window — and, where the summary's percentiles are exact from percentile tables
   * that list every bucket (sysbench's histogram, memtier's per-command HdrHistogram), those rows.
   */
  private buildLatencyBuckets({ store, analysis, window }: QueryContext): void {
    const groups = mergeGroups(store);
    const mergeable = groups.map((m, g) => ({ m, g })).filter(({ m }) => m.refusal === null && m.series.every(dbBacked));
    const sel = mergeable.flatMap(({ m, g }) => m.series.map((s) => ({ s, g })));
    const windowOf = windowBounds(
      store,
      sel.map((x) => x.s),
      window,
    );
    const merged = mergeHistograms(store, { seriesIds: sel.map((x) => x.s.id), groups: sel.map((x) => x.g), ...windowOf });
    const b = { run: [] as string[], op: [] as string[], lo: new Float64Column(), hi: new Float64Column(), n: new Float64Column(), raw: [] as boolean[] };
    for (const h of merged) {
      const group = groups[h.g];
      if (!group) continue;
      const unit = group.series[0]?.unit ?? 'us';
      const { lo, width, count } = h.histogram;
      for (let i = 0; i < lo.length; i++) {
        b.run.push(group.run.label);
        b.op.push(group.op);
        b.lo.push(toMicros(lo[i] as number, unit));
        b.hi.push(toMicros((lo[i] as number) + (width[i] as number) - 1, unit));
        b.n.push(count[i] as number);
        b.raw.push(h.raw);
      }
    }
    // Percentile tables the summary reads exactly: one row per table row, its value the bucket's
    // highest, summed across clients as the summary sums them (no window: they have no time).
    for (const m of groups) {
      const exact = analysis.runs.find((r) => r.id === m.run.id)?.ops[m.op]?.exact === true;
      const tables = m.series.map((s) => s.distribution);
      if (!exact || m.refusal !== null || tables.length === 0 || !tables.every((d) => d !== undefined)) continue;
      const d = tables.length === 1 ? tables[0] : sumDistributions(tables);
      if (!d) continue;
      const unit = m.series[0]?.unit ?? 'us';
      const layout = d.precision ? new HdrLayout(d.precision) : null;
      let below = 0;
      for (const row of d.rows) {
        if (row.totalCount <= below) continue;
        b.run.push(m.run.label);
        b.op.push(m.op);
        b.lo.push(toMicros(layout && Number.isInteger(row.value) ? layout.lowestEquivalentValue(row.value) : row.value, unit));
        b.hi.push(toMicros(row.value, unit));
        b.n.push(row.totalCount - below);
        b.raw.push(false);
        below = row.totalCount;
      }
    }
    this.replaceTable('latency_buckets', { run: vectorFromArray(b.run, new Utf8()), op: vectorFromArray(b.op, new Utf8()), lo_us: makeVector(b.lo.finish()), hi_us: makeVector(b.hi.finish()), count: makeVector(b.n.finish()), raw: vectorFromArray(b.raw, new Bool()) });
    this.db.exec(`ALTER TABLE latency_buckets ALTER count TYPE BIGINT`);
  }

  /**
   * `file_<n>` and `requests`. Each input DuckDB can read in place gets its view over the file (no
   * copy). An input with per-request rows that DuckDB cannot read, or whose columns `requests`
   * cannot take, is read again by its parser on the first query that names `requests` or its
   * `file_<n>` (src/engine/request-rows.ts), into a table kept until the data change.
   */
  private async buildFileViews({ store, files }: QueryContext, sql: string, signal: AbortSignal): Promise<void> {
    for (const row of this.db.query(`SELECT view_name AS t FROM duckdb_views() WHERE NOT internal AND regexp_matches(view_name, '^file_[0-9]+$')`)) {
      this.db.exec(`DROP VIEW IF EXISTS ${quoteIdent(row.t as string)}`);
    }
    const everyFile = mentions(sql, /\brequests\b/i);
    const named = new Set([...sql.matchAll(/\bfile_(\d+)\b/gi)].map((m) => Number(m[1])));
    // The files the summary counts: of two holding the same client's requests (a test saved as
    // CSV and as JSON), it takes one, and so does `requests`.
    const counted = new Set(mergeGroups(store).flatMap((m) => m.series.map((x) => `${x.runId}\u0000${x.file}`)));
    const isCounted = (path: string) => {
      const run = store.runs.find((r) => r.paths.includes(path));
      return run !== undefined && counted.has(`${run.id}\u0000${baseName(path)}`);
    };
    const selects: string[] = [];
    this.pending.clear();
    for (const [i, f] of files.entries()) {
      const n = i + 1;
      const reader = f.handle ? this.inPlaceReader(f, f.handle) : null;
      if (reader) this.db.exec(`CREATE VIEW file_${n} AS SELECT * FROM ${reader.sql}`);
      const select = reader && isCounted(f.path) ? requestSelect(f.format, reader.columns) : null;
      let from: 'file' | 'parser' | null = select ? 'file' : null;
      let source = `file_${n}`;
      if (!select && f.perRequest && f.reread && isCounted(f.path)) {
        from = 'parser';
        source = this.parserRowsTable(f);
        if (!this.materialised.has(source) && (everyFile || named.has(n))) await this.materialise(source, f, f.reread, signal);
        if (!this.materialised.has(source)) {
          this.pending.add(n);
          source = '';
        }
        else if (!reader) this.db.exec(`CREATE VIEW file_${n} AS SELECT * FROM ${source}`);
      }
      this.db.query(`UPDATE files SET queryable = ?, requests_from = ? WHERE n = ?`, [reader !== null || (from === 'parser' && source !== ''), from, n]);
      if (!source || !from) continue;
      // The file's run and client as scalar subqueries, read once per query (a join per row cost more).
      const of = (column: string) => `(SELECT ${column} FROM files WHERE n = ${n})`;
      const s = select ?? PARSER_ROWS;
      selects.push(`SELECT ${of('run')} AS run, ${s.client ? `coalesce(${s.client}, ${of('client')})` : of('client')} AS client, ${n} AS file, ${s.op}::VARCHAR AS op, (${s.timeMs})::DOUBLE AS time_ms,
          (${s.latencyUs})::DOUBLE AS latency_us, (${s.ok})::BOOLEAN AS ok, (${s.status})::VARCHAR AS status,
          (${s.message})::VARCHAR AS message,
          (${s.thread})::VARCHAR AS thread, (${s.url})::VARCHAR AS url
        FROM ${source} AS t${s.where ? ` WHERE ${s.where}` : ''}`);
    }
    this.db.exec('DROP VIEW IF EXISTS requests');
    this.db.exec(
      selects.length
        ? `CREATE VIEW requests AS ${selects.join('\nUNION ALL\n')}`
        : `CREATE VIEW requests AS SELECT NULL::VARCHAR AS run, NULL::VARCHAR AS client, NULL::INTEGER AS file, NULL::VARCHAR AS op, NULL::DOUBLE AS time_ms,
             NULL::DOUBLE AS latency_us, NULL::BOOLEAN AS ok, NULL::VARCHAR AS status, NULL::VARCHAR AS message, NULL::VARCHAR AS thread, NULL::VARCHAR AS url WHERE false`,
    );
  }

  /** Whether `sql` names a table whose rows are still to be read from a parser. */
  private needsParserRows(sql: string): boolean {
    if (this.pending.size === 0) return false;
    if (mentions(sql, /\brequests\b/i)) return true;
    return [...sql.matchAll(/\bfile_(\d+)\b/gi)].some((m) => this.pending.has(Number(m[1])));
  }

  /** How DuckDB reads an input in place, or null where it cannot (not CSV-shaped, not a file). */
  private inPlaceReader(f: QueryFile, handle: InputHandle): { sql: string; columns: FileColumn[] } | null {
    const fixed = fixedLayout(f.format, f.producer, f.perRequest);
    if (fixed) {
      const { delim, columns, project } = fixed;
      // Delimiter and column names are ours; lines that do not fit the columns are left out.
      const options = `auto_detect = false, header = false, delim = ${sqlString(delim)}, quote = '', escape = '', ignore_errors = true,
        columns = {${columns.map((c) => `${sqlString(c.name)}: ${sqlString(c.type)}`).join(', ')}}`;
      const read = `read_csv('${this.register(f.path, handle)}', ${options})`;
      return project ? { sql: `(SELECT ${project.select} FROM ${read})`, columns: project.view } : { sql: read, columns };
    }
    if (!CSV_FORMATS.has(f.format)) return null;
    const reader = this.sniffedReader(this.register(f.path, handle));
    // Not CSV after all (a JTL in XML, k6's or vegeta's JSON output, split into nonsense): no view.
    if (!reader || reader.columns.length < 3 || /^[[{<]/.test(reader.columns[0]?.name ?? '')) return null;
    return reader;
  }

  /** The table of an input's rows as its parser reads them: one per input, kept while the data are. */
  private parserRowsTable(f: QueryFile): string {
    const key = inputKey(f.path, f.handle);
    let table = this.parserTables.get(key);
    if (!table) {
      table = `bl_parser_rows_${this.parserTables.size + 1}`;
      this.parserTables.set(key, table);
    }
    return table;
  }

  private async materialise(table: string, f: QueryFile, reread: Reread, signal: AbortSignal): Promise<void> {
    await materialiseParserRows(this.db, table, f.path, f.format, reread, signal);
    this.materialised.add(table);
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
    const key = inputKey(path, handle);
    let name = this.registered.get(key);
    if (!name) {
      name = `${INPUT_DIR}${this.registered.size + 1}.csv${/\.gz$/i.test(path) ? '.gz' : ''}`;
      this.db.registerInput(name, handle);
      this.registered.set(key, name);
    }
    return name;
  }
}
