import type { CsvMappings } from '../../../src/formats/csv-mapping.ts';
import type { NameRules } from '../../../src/model/name-rules.ts';
import type { Db } from '../../../src/engine/db.ts';
import { openNodeDb } from '../../../src/engine/node-db.ts';
import { loadOnDisk } from '../../../src/engine/node-inputs.ts';
import type { AnalysisWindow } from '../../../src/engine/protocol.ts';

/**
 * One DuckDB for the loads of a test file, as its tests had before the Engine: each load's store
 * replaces the tables of the one before (see Store), and starting DuckDB-WASM takes a second or two.
 */
let db: Promise<Db> | null = null;

/**
 * Files and folders on disk loaded through `Engine.load`, the app's one load path (the Node input
 * adapter gives it the paths): the analysis, the engine and its store with DuckDB, and what the
 * load kept — the parsed files, their errors, the files passed over.
 */
export async function loadFiles(paths: readonly string[], options: { window?: AnalysisWindow; csvMappings?: CsvMappings; names?: NameRules } = {}) {
  const shared = (db ??= openNodeDb());
  const { engine, analysis } = await loadOnDisk(paths, { ...options, db: () => shared });
  const store = await engine.queryStore();
  return { engine, analysis, store, db: store.db, files: engine.files, errors: analysis.errors, ignored: analysis.ignored };
}
