import type { DuckDBBindings, DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';
import { tableFromIPC, tableToIPC, type Table } from 'apache-arrow';

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
export class CancelledQueryError extends Error {}

/** How long a cancellable query runs before the event loop gets a turn. */
const YIELD_MS = 50;

/**
 * The folder registered input files are named under: the one place DuckDB may read once external
 * access is off. The names exist only in DuckDB-WASM's own file table (a dropped File, a path for
 * the CLI, a URL the page was given), not on any real file system the page can reach.
 */
export const INPUT_DIR = '/input/';

/** What a registered input is read from, in place: a dropped File (browser), a path (CLI), a URL. */
export type InputHandle = { file: File } | { path: string } | { url: string };

/** DuckDB-WASM's DuckDBDataProtocol values (the enum lives in a module the browser build imports under another name). */
const PROTOCOL = { NODE_FS: 1, BROWSER_FILEREADER: 2, HTTP: 4 } as const;

/**
 * Settings that keep every query — the app's and the user's, which a link may carry — inside the
 * loaded data: no extension is loaded or installed (no httpfs), no file outside INPUT_DIR is read
 * or written, no URL is fetched except through an input registered by the app, and the
 * configuration is locked so no query can undo this.
 */
const LOCKDOWN_SQL = [
  'SET autoload_known_extensions = false',
  'SET autoinstall_known_extensions = false',
  'SET allow_community_extensions = false',
  `SET allowed_directories = ['${INPUT_DIR}']`,
  'SET enable_external_access = false',
  'SET lock_configuration = true',
];

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
    for (const sql of LOCKDOWN_SQL) this.conn.query(sql);
  }

  /** Makes an input readable by DuckDB as `name` (under INPUT_DIR), read where it lies: nothing is copied. */
  registerInput(name: string, handle: InputHandle): void {
    if (!name.startsWith(INPUT_DIR)) throw new RangeError(`${name} is not under ${INPUT_DIR}`);
    if ('file' in handle) this.bindings.registerFileHandle(name, handle.file, PROTOCOL.BROWSER_FILEREADER, true);
    else if ('path' in handle) this.bindings.registerFileURL(name, handle.path, PROTOCOL.NODE_FS, false);
    else this.bindings.registerFileURL(name, handle.url, PROTOCOL.HTTP, false);
  }

  /**
   * Runs one statement, giving the event loop a turn every YIELD_MS so that a cancel message can
   * arrive; `signal` aborted stops DuckDB's query. The result as an Arrow table.
   */
  async queryCancellable(sql: string, signal: AbortSignal): Promise<Table> {
    return this.conn.useUnsafe(async (bindings, conn) => {
      let header = bindings.startPendingQuery(conn, sql, false);
      let turn = performance.now();
      while (header === null) {
        if (performance.now() - turn > YIELD_MS) {
          await new Promise((resolve) => setTimeout(resolve, 0));
          turn = performance.now();
        }
        if (signal.aborted) {
          bindings.cancelPendingQuery(conn);
          throw new CancelledQueryError('query cancelled');
        }
        header = bindings.pollPendingQuery(conn);
      }
      // The result's schema, then its batches, as Arrow IPC messages (what DuckDB-WASM's own send() reads).
      const messages: Uint8Array[] = [header];
      for (;;) {
        let batch = bindings.fetchQueryResults(conn);
        while (batch === null) batch = bindings.fetchQueryResults(conn);
        if (batch.length === 0) break;
        messages.push(batch);
      }
      return tableFromIPC(messages);
    });
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
    this.insertIPC(table, tableToIPC(data, 'stream'), create);
  }

  /** Append an Arrow IPC stream to `table` (created on first use when `create`). */
  insertIPC(table: string, ipc: Uint8Array, create = false): void {
    this.conn.insertArrowFromIPCStream(ipc, { name: table, create });
  }

  /** Ask DuckDB to stop the running query (called from another task, e.g. a cancel message). */
  cancel(): void {
    this.conn.cancelSent();
  }

  close(): void {
    this.conn.close();
  }
}
