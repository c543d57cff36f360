import * as duckdb from 'duckdb-browser-blocking';
import ehWasm from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import mvpWasm from '@duckdb/duckdb-wasm/dist/duckdb-mvp.wasm?url';
import { Db } from './db.ts';

/**
 * DuckDB-WASM inside our own Web Worker, through its synchronous bindings: parsing, loading and
 * querying then share one thread that is not the UI's, with no second message hop to DuckDB's own
 * worker. The module files are bundled by Vite and served by the app itself (no CDN).
 */
export async function openBrowserDb(): Promise<Db> {
  const bindings = await duckdb.createDuckDB(
    { mvp: { mainModule: new URL(mvpWasm, self.location.href).href, mainWorker: '' }, eh: { mainModule: new URL(ehWasm, self.location.href).href, mainWorker: '' } },
    new duckdb.VoidLogger(),
    duckdb.BROWSER_RUNTIME,
  );
  await bindings.instantiate(() => {});
  bindings.open({});
  return new Db(bindings);
}
