import type { DuckDBBindings, DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';
import { tableToIPC, type Table } from 'apache-arrow';

/**
 * The one way the rest of the code talks to DuckDB. It wraps the synchronous DuckDB-WASM bindings,
 * which exist both for Node (CLI, tests) and for a browser Web Worker, so every query in
 * src/engine runs the same SQL in both places.
 *
 * Values from files never become SQL text: queries take `?` parameters, and tables are filled
 * from Arrow IPC streams.
 */

export type SqlValue = number | string | boolean | null;
export type Row = Record<string, number | string | boolean | null>;

export class QueryError extends Error {}

function toPlain(value: unknown): number | string | boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') {
    const n = Number(value);
    if (!Number.isSafeInteger(n)) throw new QueryError(`integer ${value} exceeds 2^53; cast it in SQL`);
    return n;
  }
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  throw new QueryError(`unsupported result value of type ${typeof value}; cast it in SQL`);
}

export class Db {
  private readonly conn: DuckDBConnection;

  constructor(readonly bindings: DuckDBBindings) {
    this.conn = bindings.connect();
  }

  /** Run a statement with `?` parameters and return plain rows (BigInt converted to number). */
  query(sql: string, params: readonly SqlValue[] = []): Row[] {
    const table: Table = params.length === 0 ? this.conn.query(sql) : this.runPrepared(sql, params);
    const names = table.schema.fields.map((f) => f.name);
    const columns = names.map((_, i) => table.getChildAt(i));
    const rows: Row[] = new Array(table.numRows);
    for (let r = 0; r < table.numRows; r++) {
      const row: Row = {};
      for (let c = 0; c < names.length; c++) row[names[c] as string] = toPlain(columns[c]?.get(r));
      rows[r] = row;
    }
    return rows;
  }

  /**
   * Run a query whose columns are all DOUBLE and return them as typed arrays, in column order: for
   * results of many rows, which as row objects would cost more than the query.
   */
  queryColumns(sql: string, params: readonly SqlValue[] = []): Float64Array[] {
    const table: Table = params.length === 0 ? this.conn.query(sql) : this.runPrepared(sql, params);
    return table.schema.fields.map((field, i) => {
      const values = table.getChildAt(i)?.toArray();
      if (!(values instanceof Float64Array)) throw new QueryError(`column ${field.name} must be DOUBLE; cast it in SQL`);
      return values;
    });
  }

  exec(sql: string): void {
    this.conn.query(sql);
  }

  private runPrepared(sql: string, params: readonly SqlValue[]): Table {
    const stmt = this.conn.prepare(sql);
    try {
      return stmt.query(...params);
    } finally {
      stmt.close();
    }
  }

  /** Append an Arrow table to `table` (created on first use). IPC bytes avoid Arrow-instance mismatches. */
  insert(table: string, data: Table, create: boolean): void {
    if (data.numRows === 0 && !create) return;
    this.conn.insertArrowFromIPCStream(tableToIPC(data, 'stream'), { name: table, create });
  }

  /** Ask DuckDB to stop the running query (called from another task, e.g. a cancel message). */
  cancel(): void {
    this.conn.cancelSent();
  }

  close(): void {
    this.conn.close();
  }
}
