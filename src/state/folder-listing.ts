import { listingServer } from '../formats/listing-page.ts';
import { baseName, normalisePath } from '../model/naming.ts';

/**
 * A link to a folder (`#files=some/folder/`) names the files a static host lists there: its
 * directory listing (nginx or Apache autoindex, `python -m http.server`), an S3 bucket listing
 * (ListBucketResult XML), or a `benchlens.json` manifest in the folder. What a host answers is data:
 * the listing is scanned, never rendered or parsed as markup by the browser, and only links that
 * stay below the folder on its own host are kept.
 */

/** Where a folder's file names came from, as the page says it. */
export type ListingKind = 'manifest' | 'nginx' | 'apache' | 'python' | 's3';

export const LISTING_LABELS: Record<ListingKind, string> = {
  manifest: 'its benchlens.json manifest',
  nginx: "nginx's directory listing",
  apache: "Apache's directory listing",
  python: "python -m http.server's directory listing",
  s3: 'the S3 bucket listing',
};

/** The manifest's name in a folder. */
export const MANIFEST_NAME = 'benchlens.json';

/**
 * Whether a file is a folder's manifest: read for its runs' labels and its files (the History view,
 * the CLI's history), so among dropped or walked files it is neither a result nor an ignored file.
 */
export function isManifest(path: string): boolean {
  return baseName(normalisePath(path)) === MANIFEST_NAME;
}
/** Files taken from one link to a folder, subfolders included. */
export const MAX_LISTED_FILES = 1000;
/** Subfolders followed below the linked folder. */
export const MAX_LISTING_DEPTH = 4;
/** Characters of a listing scanned: a listing of MAX_LISTED_FILES names is far below. */
export const MAX_LISTING_CHARS = 4 * 1024 * 1024;

export interface Listing {
  kind: ListingKind;
  /** Absolute URLs of the files, below the folder. */
  files: string[];
  /** Absolute URLs of subfolders (ending in `/`), below the folder. */
  folders: string[];
  /** S3: the token asking for the listing's next page, when it was cut. */
  continuation?: string;
}

export class ListingError extends Error {}

/** Named character references that file names in listings use; numeric ones are decoded generally. */
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (all, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : all;
    }
    return ENTITIES[name.toLowerCase()] ?? all;
  });
}

/**
 * The href values of the `<a>` elements of `html`, in order, entities decoded: a linear scan for
 * `<a` followed by its attributes (quoted with " or ', or bare), not a markup parser.
 */
export function anchorHrefs(html: string): string[] {
  const out: string[] = [];
  const lower = html.toLowerCase();
  let at = 0;
  for (;;) {
    const open = lower.indexOf('<a', at);
    if (open < 0) break;
    at = open + 2;
    const next = lower[at];
    if (next !== ' ' && next !== '\t' && next !== '\n' && next !== '\r') continue;
    const close = lower.indexOf('>', at);
    if (close < 0) break;
    // Attributes up to the tag's end; a quoted '>' inside a value is rare in listings and only
    // shortens what is scanned, never widens it.
    const tag = html.slice(at, close);
    const m = /(?:^|\s)href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i.exec(tag);
    if (m) out.push(decodeEntities(m[1] ?? m[2] ?? m[3] ?? ''));
    at = close + 1;
  }
  return out;
}

/**
 * `ref` resolved against `folder` when it is a relative reference below it: no scheme, no host, not
 * from the host's root, no `..` segment (encoded or not), no query. Null for anything else.
 */
export function below(ref: string, folder: URL): URL | null {
  // eslint-disable-next-line no-control-regex -- control characters in a reference are refused, not resolved
  if (ref.length === 0 || /^[a-z][a-z0-9+.-]*:/i.test(ref) || ref.startsWith('/') || ref.startsWith('\\') || /[\u0000-\u001f\u007f\\?#]/.test(ref)) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(ref);
  } catch {
    return null;
  }
  if (decoded.split('/').some((segment) => segment === '..' || segment === '.')) return null;
  const url = new URL(ref, folder);
  if (url.origin !== folder.origin || !url.pathname.startsWith(folder.pathname) || url.pathname === folder.pathname) return null;
  return url;
}

/** A hidden name (`.git/`, `.DS_Store`): not a result, as the CLI's folder walk skips them. */
const hidden = (url: URL, folder: URL): boolean => url.pathname.slice(folder.pathname.length).split('/').some((s) => decodeURIComponent(s).startsWith('.'));

/** A directory listing page: its links below the folder, files and subfolders apart. */
export function parseListingHtml(html: string, folder: URL): Listing {
  const kind = listingServer(html.slice(0, MAX_LISTING_CHARS));
  if (!kind) {
    throw new ListingError(`${folder.href} answered with an HTML page that is not a directory listing (nginx, Apache or python -m http.server); list its files in ${MANIFEST_NAME} ({"files": ["a.log", "sub/b.csv"]}) or link the files themselves`);
  }
  const files = new Set<string>();
  const folders = new Set<string>();
  for (const href of anchorHrefs(html.slice(0, MAX_LISTING_CHARS))) {
    const url = below(href, folder);
    if (!url || hidden(url, folder)) continue;
    (url.pathname.endsWith('/') ? folders : files).add(url.href);
  }
  return { kind, files: [...files], folders: [...folders] };
}

/** Text of the first `<name>` elements of `xml`, entities decoded. */
function elements(xml: string, name: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`<${name}>([^<]{0,4096})</${name}>`, 'g');
  for (const m of xml.matchAll(re)) out.push(decodeEntities(m[1] ?? ''));
  return out;
}

/**
 * An S3 ListBucketResult (ListObjects or ListObjectsV2): its keys below `folder`, as URLs on the
 * bucket's host (`bucketRoot`, the URL keys are relative to).
 */
export function parseS3Listing(xml: string, folder: URL, bucketRoot: URL): Listing {
  const text = xml.slice(0, MAX_LISTING_CHARS);
  if (!/<ListBucketResult[\s>]/.test(text)) throw new ListingError(`${folder.href} answered with XML that is not an S3 bucket listing`);
  const files: string[] = [];
  for (const key of elements(text, 'Key')) {
    if (key.endsWith('/')) continue; // the console's 0-byte "folder" objects
    const url = below(key.split('/').map(encodeURIComponent).join('/'), bucketRoot);
    if (url && url.pathname.startsWith(folder.pathname) && !hidden(url, folder)) files.push(url.href);
  }
  const truncated = elements(text, 'IsTruncated')[0] === 'true';
  const continuation = truncated ? elements(text, 'NextContinuationToken')[0] : undefined;
  return { kind: 's3', files, folders: [], ...(continuation ? { continuation } : {}) };
}

/** A relative file path: no scheme, not from the root, no empty, `.` or `..` segment, no backslash or control character. */
function isPlainPath(p: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters in a path are refused
  return !/^[a-z][a-z0-9+.-]*:/i.test(p) && !/[\u0000-\u001f\u007f\\]/.test(p) && p.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

/**
 * A `benchlens.json` manifest: an object whose `files` lists paths relative to its folder
 * (`{"files": ["a.log", "sub/b.csv"]}`); other keys are left for other uses.
 */
export function parseManifest(text: string, folder: URL): Listing {
  let doc: unknown;
  try {
    doc = JSON.parse(text.slice(0, MAX_LISTING_CHARS));
  } catch (e) {
    throw new ListingError(`${folder.href}${MANIFEST_NAME} is not JSON (${(e as Error).message})`);
  }
  const list = doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as { files?: unknown }).files : undefined;
  if (!Array.isArray(list)) throw new ListingError(`${folder.href}${MANIFEST_NAME} has no "files" list (expected {"files": ["a.log", "sub/b.csv"]})`);
  const files: string[] = [];
  const refused: string[] = [];
  for (const entry of list) {
    // Entries are file names: each segment is encoded as it is, so '%', '?' and '#' stay literal.
    const url = typeof entry === 'string' && isPlainPath(entry) ? below(entry.split('/').map(encodeURIComponent).join('/'), folder) : null;
    if (url && !url.pathname.endsWith('/')) files.push(url.href);
    else refused.push(typeof entry === 'string' ? entry : JSON.stringify(entry));
  }
  if (refused.length > 0) {
    throw new ListingError(`${folder.href}${MANIFEST_NAME} names ${refused.length} entr${refused.length === 1 ? 'y' : 'ies'} that are not file paths below its folder (${refused.slice(0, 3).join(', ').slice(0, 200)}): only relative paths without ".." are read`);
  }
  return { kind: 'manifest', files, folders: [] };
}

