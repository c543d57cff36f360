import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { display, fileRandomAccess, streamFile, walk } from './node-files.ts';
import type { CsvMappings } from '../formats/csv-mapping.ts';
import { CancelledError, isFailed, readFile } from '../formats/read-file.ts';
import type { Db, InputHandle } from './db.ts';
import { NO_NAME_RULES, type NameRules } from '../model/name-rules.ts';
import type { Analysis } from './analyse.ts';
import { Engine } from './engine.ts';
import { openNodeDb } from './node-db.ts';
import type { ParseFile } from './parse-pool.ts';
import type { AnalysisWindow, InputFile } from './protocol.ts';
import type { Reread } from './request-rows.ts';

/**
 * The Engine's inputs under Node (the CLI and the tests): files and folders on disk. A folder is
 * walked, and the files in it that are not benchmark results at all (READMEs, JSON) are listed as
 * ignored rather than as errors, as a dropped folder's are in the app; a file named explicitly
 * must be readable. Files are parsed in this thread (there are no parse workers here).
 */

/**
 * The inputs behind command-line paths, in order: a folder's files (walked, sorted), a file as
 * named. A path that does not exist is still an input, which fails to read with that reason.
 */
export async function nodeInputs(paths: readonly string[]): Promise<InputFile[]> {
  const out: InputFile[] = [];
  for (const given of paths) {
    const info = await stat(given).catch(() => null);
    if (info?.isDirectory()) for (const file of await walk(given)) out.push({ path: display(file), disk: path.resolve(file) });
    else out.push({ path: info ? display(given) : given, disk: path.resolve(given), named: true });
  }
  return out;
}

/**
 * How an input on disk is read: its size, its bytes by range (Parquet), and the CSV mappings —
 * `csvMappings` (the CLI's `--map`) for every file, beside the input's own. Null when the file
 * does not exist.
 */
function diskReadOptions(input: InputFile, csvMappings: CsvMappings): Reread['options'] | null {
  const file = input.disk;
  if (!file) throw new TypeError(`${input.path}: not a file on disk`);
  const info = statSync(file, { throwIfNoEntry: false });
  if (!info) return null;
  const mappings: CsvMappings = { ...csvMappings, ...(input.csvMaps ? { byHeader: { ...csvMappings.byHeader, ...input.csvMaps } } : {}) };
  return { csvMappings: mappings, totalBytes: info.size, randomAccess: fileRandomAccess(file, info.size) };
}

/** Reads and parses an input on disk in this thread, with `diskReadOptions`. */
export function diskParser(csvMappings: CsvMappings = {}): ParseFile {
  return async (input, signal, onProgress) => {
    const options = diskReadOptions(input, csvMappings);
    if (!options) return { path: input.path, failed: true, kind: 'unreadable', errors: [{ file: input.path, line: 0, message: 'no such file or folder' }] };
    const outcome = await readFile(input.path, streamFile(input.disk as string), { ...options, signal, onProgress });
    if (signal.aborted && isFailed(outcome)) throw new CancelledError();
    return outcome;
  };
}

/** An input's bytes from disk. */
async function* diskBytes(input: InputFile): AsyncIterable<Uint8Array> {
  if (!input.disk) throw new TypeError(`${input.path}: not a file on disk`);
  yield* streamFile(input.disk);
}

/** Where DuckDB reads an input on disk in place: its path. */
export const diskHandle = (input: InputFile): InputHandle | null => (input.disk ? { path: input.disk } : null);

/** An Engine under Node reading inputs from disk, over the DuckDB `openDb` starts (one of its own unless given) once a question needs it. */
export function openNodeEngine(csvMappings: CsvMappings = {}, openDb: () => Promise<Db> = openNodeDb): Engine {
  return new Engine(openDb, {
    parseHere: diskParser(csvMappings),
    bytesOf: diskBytes,
    handleOf: diskHandle,
    rereadOptionsOf: (input) => diskReadOptions(input, csvMappings) ?? {},
  });
}

/**
 * An Engine under Node with `paths` loaded through `Engine.load`, the app's one load path: the
 * CLI commands' and the tests' way in. `names` groups operation names as the app's rules do.
 */
export async function loadOnDisk(
  paths: readonly string[],
  options: { window?: AnalysisWindow; csvMappings?: CsvMappings; names?: NameRules; db?: () => Promise<Db> } = {},
): Promise<{ engine: Engine; analysis: Analysis }> {
  const engine = openNodeEngine(options.csvMappings, options.db);
  const { analysis } = await engine.load({ files: await nodeInputs(paths), window: options.window ?? null, regroup: { runs: {}, names: options.names ?? NO_NAME_RULES } });
  return { engine, analysis };
}
