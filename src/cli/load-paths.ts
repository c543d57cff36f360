import { createReadStream, statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { isFailed, isUnrecognised, readFile, type FileOutcome, type ReadOptions } from '../formats/read-file.ts';
import type { ParsedFile, ParseIssue } from '../model/types.ts';
import { analyseStore } from '../engine/analyse.ts';
import { openNodeDb } from '../engine/node-db.ts';
import { Store } from '../engine/store.ts';
import type { SummaryOptions } from '../engine/summary.ts';
import { groupIntoRuns } from '../model/grouping.ts';
import { isManifest } from '../state/folder-listing.ts';
import { fileRandomAccess } from './random-access.ts';
import { fileTally } from '../model/file-tally.ts';
import { QueryTables, type QueryContext } from '../engine/query-tables.ts';
import { runUserQuery } from '../engine/user-query.ts';

/**
 * Reading files and folders from disk for the CLI and tests. Inside a folder, files that are not
 * benchmark results at all (READMEs, JSON) are listed as ignored rather than as errors, except a
 * run folder's benchlens.json, which `history` reads for its labels; a file named explicitly must
 * be readable.
 */

export interface LoadedPaths {
  files: ParsedFile[];
  errors: ParseIssue[];
  ignored: string[];
}

export async function* streamFile(file: string): AsyncIterable<Uint8Array> {
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) yield chunk as Uint8Array;
}

export async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const out: string[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith('.')) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(full)));
    else if (e.isFile()) out.push(full);
  }
  return out;
}

/** Paths are reported relative to the working directory, with `/` separators. */
export function display(file: string): string {
  return path.relative(process.cwd(), file).split(path.sep).join('/') || file;
}

export async function loadPaths(inputs: readonly string[], options: Pick<ReadOptions, 'csvMappings'> = {}): Promise<LoadedPaths> {
  const result: LoadedPaths = { files: [], errors: [], ignored: [] };
  for (const input of inputs) {
    let info;
    try {
      info = await stat(input);
    } catch {
      result.errors.push({ file: input, line: 0, message: 'no such file or folder' });
      continue;
    }
    const fromWalk = info.isDirectory();
    const files = fromWalk ? await walk(input) : [input];
    for (const file of files) {
      const shown = display(file);
      const size = (await stat(file)).size;
      const outcome: FileOutcome = await readFile(shown, streamFile(file), { ...options, totalBytes: size, randomAccess: fileRandomAccess(file, size) });
      if (isFailed(outcome)) {
        if (fromWalk && isUnrecognised(outcome)) {
          if (!isManifest(shown)) result.ignored.push(shown);
        } else result.errors.push(...outcome.errors);
      } else {
        result.files.push(outcome);
        result.errors.push(...outcome.errors);
      }
    }
  }
  return result;
}

/** Reads the paths and analyses them as the app would: the parsed files, the store and the figures. */
export async function loadAndAnalyse(paths: readonly string[], window: SummaryOptions['window'] = null) {
  const loaded = await loadPaths(paths);
  const store = new Store(await openNodeDb());
  store.addRuns(groupIntoRuns(loaded.files));
  // A link's time window applies to the figures, as it does in the app.
  const analysis = analyseStore(store, loaded.errors, loaded.ignored, { window });
  return { loaded, store, analysis };
}

/**
 * Reads the paths for SQL over them (the `query` command and its tests): the query tables over
 * what was read, each CSV-shaped file readable in place by DuckDB from its path, and every file
 * readable again by its parser for `requests`.
 */
export async function openQuery(paths: readonly string[], options: Pick<ReadOptions, 'csvMappings'> & { window?: SummaryOptions['window'] } = {}) {
  const { window = null, ...readOptions } = options;
  const loaded = await loadPaths(paths, readOptions);
  const db = await openNodeDb();
  const store = new Store(db);
  store.addRuns(groupIntoRuns(loaded.files));
  const analysis = analyseStore(store, loaded.errors, loaded.ignored, { window }, loaded.files.map(fileTally));
  const tables = new QueryTables(db);
  const files = loaded.files.map((f) => {
    const file = path.resolve(f.path);
    const reread = { chunks: () => streamFile(file), options: { ...(readOptions.csvMappings ? { csvMappings: readOptions.csvMappings } : {}), totalBytes: statSync(file).size, randomAccess: fileRandomAccess(file, statSync(file).size) } };
    return { path: f.path, format: f.format, handle: { path: file }, perRequest: f.series.some((s) => s.kind === 'raw'), reread, ...(f.producer ? { producer: f.producer } : {}) };
  });
  const ctx: QueryContext = { store, analysis, window, labels: {}, files };
  const never = new AbortController().signal;
  return { loaded, analysis, run: (sql: string, limit = Infinity) => runUserQuery(db, tables, ctx, sql, limit, never) };
}
