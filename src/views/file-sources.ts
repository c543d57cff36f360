import type { InputFile } from '../engine/protocol.ts';
import type { Analysis } from '../engine/analyse.ts';

/**
 * Where input files come from in the browser: a drop (files or whole folders), the file and
 * folder pickers, or references in the link (`#files=`). Paths keep the folder structure, which
 * decides how files group into runs.
 */

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

async function walkEntry(entry: FileSystemEntry, out: InputFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ path: entry.fullPath.replace(/^\//, ''), file });
    return;
  }
  if (entry.isDirectory) {
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries returns at most ~100 entries per call; read until it returns none.
    for (;;) {
      const batch = await readEntries(reader);
      if (batch.length === 0) break;
      for (const child of batch) await walkEntry(child, out);
    }
  }
}

/** Files of a drop, descending into dropped folders. */
export async function filesFromDrop(data: DataTransfer): Promise<InputFile[]> {
  const entries = [...data.items].map((item) => item.webkitGetAsEntry?.() ?? null);
  if (entries.every((e) => e !== null)) {
    const out: InputFile[] = [];
    for (const e of entries) await walkEntry(e as FileSystemEntry, out);
    return out;
  }
  return [...data.files].map((file) => ({ path: file.name, file }));
}

/** Files chosen with `<input type=file>` (with `webkitdirectory`, their relative paths). */
export function filesFromInput(list: FileList | null): InputFile[] {
  return [...(list ?? [])].map((file) => ({ path: file.webkitRelativePath || file.name, file }));
}

/** A reference from a link: a path relative to the app (e.g. `sample-results/…`) or an http(s) URL. */
export function fileFromReference(ref: string, base: string): InputFile {
  const url = new URL(ref, base);
  const sameOrigin = url.origin === new URL(base).origin;
  // The path groups files into runs: for remote files keep the host so two sites never merge.
  const path = decodeURIComponent(sameOrigin ? url.pathname.replace(new URL('.', base).pathname, '') : `${url.host}${url.pathname}`);
  return { path: path.replace(/^\/+/, ''), url: url.href };
}

/** Hosts other than the app's own that a list of references would contact. */
export function remoteHosts(refs: readonly string[], base: string): string[] {
  const own = new URL(base).host;
  return [...new Set(refs.map((r) => new URL(r, base).host).filter((h) => h !== own))];
}

export const SAMPLE_INDEX = 'sample-results/index.json';

/** The sample data's analysis computed at build time (vite.config.ts), or null when there is none. */
export async function sampleAnalysis(base: string): Promise<Analysis | null> {
  try {
    const response = await fetch(new URL('sample-results/analysis.json', base));
    return response.ok ? ((await response.json()) as Analysis) : null;
  } catch {
    return null;
  }
}

export async function sampleReferences(base: string): Promise<string[]> {
  const response = await fetch(new URL(SAMPLE_INDEX, base));
  if (!response.ok) return [];
  const list = (await response.json()) as unknown;
  return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string').map((p) => `sample-results/${p}`) : [];
}
