import { createRequire } from 'node:module';
import path from 'node:path';
import { Db } from './db.ts';

/**
 * DuckDB-WASM under Node: the same engine build as the browser (not the native Node binding), so
 * the CLI and tests exercise exactly the SQL the app runs.
 */
export async function openNodeDb(): Promise<Db> {
  const require = createRequire(import.meta.url);
  const duckdb = require('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs') as typeof import('@duckdb/duckdb-wasm/blocking');
  const dist = path.dirname(require.resolve('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs'));
  const bindings = await duckdb.createDuckDB(
    {
      mvp: { mainModule: path.join(dist, 'duckdb-mvp.wasm'), mainWorker: path.join(dist, 'duckdb-node-mvp.worker.cjs') },
      eh: { mainModule: path.join(dist, 'duckdb-eh.wasm'), mainWorker: path.join(dist, 'duckdb-node-eh.worker.cjs') },
    },
    new duckdb.VoidLogger(),
    duckdb.NODE_RUNTIME,
  );
  await bindings.instantiate(() => {});
  bindings.open({});
  return new Db(bindings);
}
