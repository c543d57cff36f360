import type { Table } from 'apache-arrow';
import { CancelledQueryError, type Db } from './db.ts';
import { quoteIdent, type QueryContext, type QueryTables } from './query-tables.ts';

/**
 * A query the user typed (or a link carried) over the query tables (src/engine/query-tables.ts).
 * It runs as the subquery of a SELECT, so it can only read: one statement (DuckDB refuses to
 * prepare several), and no DDL or DML fits inside `SELECT * FROM ( … )`. Whatever it reads, the
 * Db's locked settings keep it inside the loaded files (src/engine/db.ts). Errors are DuckDB's own
 * messages, with the line and position it gives.
 */

export type CellValue = number | string | boolean | null;

/** How a result column can be charted: numbers, instants, categories. */
export type ColumnKind = 'number' | 'time' | 'text' | 'boolean';

export interface ResultColumn {
  name: string;
  /** DuckDB's type name. */
  type: string;
  kind: ColumnKind;
}

export interface QueryResult {
  columns: ResultColumn[];
  /** The first rows (at most the limit asked for); `totalRows` says how many there are. */
  rows: CellValue[][];
  totalRows: number;
  elapsedMs: number;
}

const NUMBER_TYPES = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL.*)$/;
const TIME_TYPES = /^(TIMESTAMP.*|DATE)$/;

function kindOf(type: string): ColumnKind {
  if (NUMBER_TYPES.test(type)) return 'number';
  if (TIME_TYPES.test(type)) return 'time';
  if (type === 'BOOLEAN') return 'boolean';
  return 'text';
}

/**
 * How a column leaves DuckDB: integers and doubles as they are (BigInt made a number where exact),
 * DECIMAL and HUGEINT as DOUBLE, instants and everything else (lists, structs, intervals) as
 * DuckDB writes them as text.
 */
function selectExpression(name: string, type: string): string {
  const id = quoteIdent(name);
  if (/^(DECIMAL.*|HUGEINT|UHUGEINT)$/.test(type)) return `${id}::DOUBLE AS ${id}`;
  if (NUMBER_TYPES.test(type) || type === 'BOOLEAN' || type === 'VARCHAR') return id;
  return `${id}::VARCHAR AS ${id}`;
}

function plain(value: unknown): CellValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  return String(value);
}

/** Rows `from`..`to`-1 of a result table, as plain values. */
export function resultRows(table: Table, from = 0, to = table.numRows): CellValue[][] {
  const columns = table.schema.fields.map((_, i) => table.getChildAt(i));
  const out: CellValue[][] = [];
  for (let r = from; r < Math.min(to, table.numRows); r++) out.push(columns.map((c) => plain(c?.get(r))));
  return out;
}

const SUBQUERY = 'SELECT * FROM (';

/** The user's text as a subquery: a trailing `;` (or several) dropped, a final comment ended by the line break. */
function asSubquery(sql: string): string {
  return `${SUBQUERY}${sql.replace(/[\s;]+$/, '')}\n)`;
}

/**
 * DuckDB's message about `prefix` + the user's text, as if about the user's text: the echo of its
 * first line without the prefix, and the caret under it moved as far. Line numbers are the user's already.
 */
function userMessage(message: string, prefix: string): string {
  const echo = `LINE 1: ${prefix}`;
  return message.replace(new RegExp(`${echo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(.*)\n( *)\\^`, 'g'), (_, rest: string, pad: string) => `LINE 1: ${rest}\n${pad.slice(prefix.length)}^`);
}

/** Runs `run`, its DuckDB error reworded by userMessage. */
async function asUser<T>(prefix: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof Error && !(e instanceof CancelledQueryError)) throw new Error(userMessage(e.message, prefix), { cause: e });
    throw e;
  }
}

/**
 * Runs `sql` over the query tables of `ctx` (built or refreshed first), giving the first `limit`
 * rows; the whole result is returned too, for export.
 */
export async function runUserQuery(db: Db, tables: QueryTables, ctx: QueryContext, sql: string, limit: number, signal: AbortSignal): Promise<{ result: QueryResult; table: Table }> {
  const t0 = performance.now();
  if (sql.trim() === '') throw new Error('no query given');
  await tables.prepare(ctx, sql, signal);
  const query = asSubquery(sql);
  const described = await asUser(`DESCRIBE ${SUBQUERY}`, () => db.query(`DESCRIBE ${query}`));
  const columns: ResultColumn[] = described.map((d) => ({ name: d.column_name as string, type: d.column_type as string, kind: kindOf(d.column_type as string) }));
  // Columns that leave DuckDB as they are need no outer SELECT (which would show in its messages).
  const expressions = columns.map((c) => selectExpression(c.name, c.type));
  const plainColumns = expressions.every((e, i) => e === quoteIdent(columns[i]?.name ?? ''));
  const outer = plainColumns ? '' : `SELECT ${expressions.join(', ')} FROM (`;
  const table = await asUser(outer + SUBQUERY, () => db.queryCancellable(plainColumns ? query : `${outer}${query})`, signal));
  return { result: { columns, rows: resultRows(table, 0, limit), totalRows: table.numRows, elapsedMs: performance.now() - t0 }, table };
}
