import type { InputFile } from '../engine/protocol.ts';
import type { Analysis } from '../engine/analyse.ts';
import { ListingError, LISTING_LABELS, MANIFEST_NAME, MAX_LISTED_FILES, MAX_LISTING_DEPTH, parseListingHtml, parseManifest, parseS3Listing, type Listing, type ListingKind } from '../state/folder-listing.ts';

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

/** A reference to a folder (its path ends in `/`): its files come from the host's listing or manifest. */
export function isFolderReference(ref: string, base: string): boolean {
  return new URL(ref, base).pathname.endsWith('/');
}

/** What links to folders gave: the files found, how each folder was listed, and why one could not be. */
export interface FolderFiles {
  files: InputFile[];
  /** Per folder linked: how many files, from which listing. */
  notes: string[];
  problems: string[];
}

type Fetcher = (url: string) => Promise<Response>;

const fetchListing: Fetcher = (url) => fetch(url, { credentials: 'omit', referrerPolicy: 'no-referrer' });

/** An S3 REST endpoint answers a folder's path with its error document, not a listing. */
const S3_ERROR = /<Error>\s*<Code>(NoSuchKey|AccessDenied|NoSuchWebsiteConfiguration)<\/Code>/;

/** One folder's listing: the manifest if there is one, else what the host lists there. */
async function listOne(folder: URL, fetcher: Fetcher): Promise<Listing> {
  const manifest = await fetcher(new URL(MANIFEST_NAME, folder).href);
  if (manifest.ok) {
    // A host that answers every path with its own page (a single-page app's fallback) has no manifest.
    const text = await manifest.text();
    if (/^\s*\{/.test(text)) return parseManifest(text, folder);
  }
  const response = await fetcher(folder.href);
  const text = await response.text();
  if (response.ok && /<ListBucketResult[\s>]/.test(text.slice(0, 2000))) return s3Pages(text, folder, folder, fetcher, null);
  if (S3_ERROR.test(text.slice(0, 2000))) {
    // A bucket's REST endpoint: list the keys under the folder's path from the bucket's root.
    const root = new URL('/', folder);
    const first = await fetcher(s3ListUrl(root, folder, null));
    const xml = await first.text();
    if (!first.ok) throw new ListingError(`${folder.href}: the S3 bucket refused to list its keys (HTTP ${first.status}); allow ListBucket for anonymous reads or add ${MANIFEST_NAME}`);
    return s3Pages(xml, folder, root, fetcher, root);
  }
  if (!response.ok) throw new ListingError(`${folder.href}: HTTP ${response.status} for the folder and no ${MANIFEST_NAME} in it (the host lists no files there)`);
  if (!/^\s*</.test(text)) throw new ListingError(`${folder.href} answered with something that is not a directory listing`);
  return parseListingHtml(text, folder);
}

function s3ListUrl(root: URL, folder: URL, token: string | null): string {
  const url = new URL(root.href);
  url.search = new URLSearchParams({ 'list-type': '2', prefix: decodeURIComponent(folder.pathname.slice(root.pathname.length)), ...(token ? { 'continuation-token': token } : {}) }).toString();
  return url.href;
}

/** An S3 listing and its further pages, up to the file cap. `listRoot` null: the folder itself answered (no further pages asked). */
async function s3Pages(xml: string, folder: URL, keysRoot: URL, fetcher: Fetcher, listRoot: URL | null): Promise<Listing> {
  let page = parseS3Listing(xml, folder, keysRoot);
  const files = [...page.files];
  while (page.continuation && listRoot && files.length < MAX_LISTED_FILES) {
    const next = await fetcher(s3ListUrl(listRoot, folder, page.continuation));
    if (!next.ok) throw new ListingError(`${folder.href}: the S3 listing's next page failed (HTTP ${next.status})`);
    page = parseS3Listing(await next.text(), folder, keysRoot);
    files.push(...page.files);
  }
  return { kind: 's3', files, folders: [] };
}

/**
 * The files under each folder a link names, read from the host's listing (subfolders followed
 * MAX_LISTING_DEPTH deep) or the folder's manifest, at most MAX_LISTED_FILES in all. A folder that
 * cannot be listed is a problem with its reason; the others still load.
 */
export async function filesFromFolders(folders: readonly string[], base: string, fetcher: Fetcher = fetchListing): Promise<FolderFiles> {
  const out: FolderFiles = { files: [], notes: [], problems: [] };
  for (const ref of folders) {
    const top = new URL(ref, base);
    const kinds = new Set<ListingKind>();
    let found = 0;
    let capped = false;
    const queue: { url: URL; depth: number }[] = [{ url: top, depth: 0 }];
    try {
      while (queue.length > 0) {
        const { url, depth } = queue.shift()!;
        const listing = await listOne(url, fetcher);
        kinds.add(listing.kind);
        for (const file of listing.files) {
          if (out.files.length >= MAX_LISTED_FILES) {
            capped = true;
            break;
          }
          out.files.push(fileFromReference(file, base));
          found++;
        }
        if (capped) break;
        for (const sub of listing.folders) if (depth < MAX_LISTING_DEPTH) queue.push({ url: new URL(sub), depth: depth + 1 });
      }
    } catch (e) {
      if (!(e instanceof ListingError) && !(e instanceof TypeError)) throw e;
      // TypeError: fetch's network or CORS failure.
      out.problems.push(e instanceof ListingError ? e.message : `${top.href}: could not be listed (${(e as Error).message})`);
    }
    if (kinds.size > 0) {
      const how = [...kinds].map((k) => LISTING_LABELS[k]).join(' and ');
      out.notes.push(`${ref}: ${found} file(s) from ${how}${capped ? ` — only the first ${MAX_LISTED_FILES} files are read` : ''}`);
    }
  }
  return out;
}
