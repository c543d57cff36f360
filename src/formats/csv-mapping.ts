import Papa from 'papaparse';
import type { LatencyUnit } from '../model/types.ts';
import { parseTimestampMs, ROLE_PATTERNS, toStoredLatency, unitFromHeader } from './csv-columns.ts';

/**
 * A user's mapping of a CSV's columns: which column is the time, the latency (and its unit), the
 * operation, the success flag and the client. The same text serves the CLI (`--map`) and the URL
 * state: `time=ts,latency=dur:ms,op=kind,ok=status,client=host`. A mapping is kept per header, so a
 * file with the same header is read the same way the next time.
 */

export const MAPPING_ROLES = ['time', 'latency', 'op', 'ok', 'client'] as const;
export type MappingRole = (typeof MAPPING_ROLES)[number];

export interface CsvMapping {
  latency: string;
  unit: LatencyUnit;
  time?: string;
  op?: string;
  ok?: string;
  client?: string;
}

/** What the reader is given: mappings by header key, and (CLI) one for any CSV that has its columns. */
export interface CsvMappings {
  byHeader?: Readonly<Record<string, string>>;
  any?: string;
}

const UNITS: readonly LatencyUnit[] = ['ns', 'us', 'ms', 's'];
const UNIT_WORDS: Record<string, LatencyUnit> = { ns: 'ns', us: 'us', µs: 'us', μs: 'us', ms: 'ms', s: 's' };

export class MappingError extends Error {}

/** `time=ts,latency=dur:ms,…` → a mapping; MappingError says what is wrong with the text. */
export function parseMapSpec(spec: string): CsvMapping {
  const out: Partial<Record<MappingRole, string>> = {};
  let unit: LatencyUnit | null = null;
  for (const part of spec.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new MappingError(`"${part}" is not role=column (roles: ${MAPPING_ROLES.join(', ')})`);
    const role = part.slice(0, eq).trim() as MappingRole;
    let column = part.slice(eq + 1);
    if (!MAPPING_ROLES.includes(role)) throw new MappingError(`unknown role "${role}" (roles: ${MAPPING_ROLES.join(', ')})`);
    if (out[role] !== undefined) throw new MappingError(`${role} is given twice`);
    if (role === 'latency') {
      const colon = column.lastIndexOf(':');
      const word = colon >= 0 ? UNIT_WORDS[column.slice(colon + 1).trim()] : undefined;
      if (!word) throw new MappingError(`latency needs a unit: latency=${column}:ms (units: ${UNITS.join(', ')})`);
      unit = word;
      column = column.slice(0, colon);
    }
    if (column.trim().length === 0) throw new MappingError(`${role} names no column`);
    out[role] = column.trim();
  }
  if (out.latency === undefined || unit === null) throw new MappingError('a mapping needs latency=<column>:<unit>');
  return { ...(out as Omit<CsvMapping, 'unit'>), latency: out.latency, unit };
}

/** The mapping as `parseMapSpec` reads it back. */
export function formatMapSpec(m: CsvMapping): string {
  const parts = [`latency=${m.latency}:${m.unit}`];
  for (const role of ['time', 'op', 'ok', 'client'] as const) if (m[role] !== undefined) parts.push(`${role}=${m[role]}`);
  return parts.join(',');
}

/** A header's identity, short enough for a URL: FNV-1a of its trimmed column names. */
export function headerKey(header: readonly string[]): string {
  let h = 0x811c9dc5;
  const text = header.map((c) => c.trim()).join('\u0001');
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

export interface CsvPreview {
  path: string;
  delimiter: string;
  header: string[];
  key: string;
  /** The first data rows, as split. */
  rows: string[][];
  /** What the columns' names suggest. */
  guess: Partial<CsvMapping>;
}

const PREVIEW_ROWS = 20;
/** Rows a mapping is checked on before a file is read with it. */
export const CHECK_ROWS = 200;

/** First line and delimiter of a CSV head; null when it is not a table with a header of ≥ 2 columns. */
export function splitHead(head: string): { delimiter: string; header: string[]; rows: string[][] } | null {
  const lines = head.split('\n').filter((l) => l.trim().length > 0);
  const first = lines[0];
  if (first === undefined) return null;
  const delimiter = Papa.parse(first, { preview: 1, delimitersToGuess: [',', '\t', ';', '|'] }).meta.delimiter || ',';
  const split = (line: string) => (line.includes('"') ? (Papa.parse<string[]>(line, { delimiter }).data[0] ?? []) : line.split(delimiter));
  const header = split(first).map((h) => h.trim());
  if (header.length < 2 || header.some((h) => h.length === 0)) return null;
  // The last line of a head may be cut.
  const rows = lines.slice(1, Math.min(lines.length - 1, 1 + CHECK_ROWS)).map(split);
  return { delimiter, header, rows };
}

/** What the header's names suggest for each role (the generic CSV reader's own recognition). */
export function guessMapping(header: readonly string[]): Partial<CsvMapping> {
  const find = (role: keyof typeof ROLE_PATTERNS) => header.find((h) => ROLE_PATTERNS[role].test(h));
  const latency = find('latency');
  const guess: Partial<CsvMapping> = {};
  if (latency !== undefined) {
    guess.latency = latency;
    const unit = unitFromHeader(latency);
    if (unit) guess.unit = unit;
  }
  const time = find('time');
  const op = find('op');
  const ok = find('status');
  const client = find('client');
  if (time !== undefined) guess.time = time;
  if (op !== undefined) guess.op = op;
  if (ok !== undefined) guess.ok = ok;
  if (client !== undefined) guess.client = client;
  return guess;
}

/**
 * A CSV that no format claims but that looks like a table of measurements (a header and rows of
 * as many fields, at least one column of numbers): the user can say what its columns are.
 */
export function csvPreview(path: string, head: string): CsvPreview | null {
  const table = splitHead(head);
  if (!table || table.rows.length === 0) return null;
  const { header, rows } = table;
  const consistent = rows.filter((r) => r.length === header.length).length >= Math.ceil(rows.length * 0.9);
  const numeric = header.some((_, c) => rows.every((r) => /^\s*-?\d+(\.\d+)?\s*$/.test(r[c] ?? '')));
  if (!consistent || !numeric) return null;
  return { path, delimiter: table.delimiter, header, key: headerKey(header), rows: rows.slice(0, PREVIEW_ROWS), guess: guessMapping(header) };
}

/** Share of rows whose time lies more than this before the latest time seen: beyond it, not a time column. */
const MAX_BACKWARD_SHARE = 0.05;
const BACKWARD_SLACK_MS = 60_000;

/**
 * Why reading these rows with this mapping makes no sense, or null when it does: a column the header
 * lacks, a latency column that is not numbers, a time column that is not times or jumps back and
 * forth (a row counter or an id is not a time).
 */
export function mappingProblem(m: CsvMapping, header: readonly string[], rows: readonly string[][]): string | null {
  for (const role of MAPPING_ROLES) {
    const column = m[role];
    if (column !== undefined && !header.includes(column)) return `the header has no column "${column}" (for ${role})`;
  }
  const data = rows.filter((r) => r.length > 1 || (r[0] ?? '').trim().length > 0);
  if (data.length === 0) return null;
  const latency = header.indexOf(m.latency);
  const notNumbers = data.filter((r) => toStoredLatency(r[latency] ?? '', m.unit) === null);
  if (notNumbers.length > data.length / 2) {
    return `column "${m.latency}" is not latencies in ${m.unit}: "${(notNumbers[0]?.[latency] ?? '').slice(0, 40)}" (${notNumbers.length} of ${data.length} rows)`;
  }
  if (m.time !== undefined) {
    const at = header.indexOf(m.time);
    const times = data.map((r) => parseTimestampMs(r[at] ?? ''));
    const bad = times.filter((t) => t === null).length;
    if (bad > data.length / 2) return `column "${m.time}" is not epoch seconds/ms/µs/ns or ISO-8601 times (${bad} of ${data.length} rows)`;
    let latest = -Infinity;
    let backward = 0;
    for (const t of times) {
      if (t === null) continue;
      if (t < latest - BACKWARD_SLACK_MS) backward++;
      latest = Math.max(latest, t);
    }
    if (backward > data.length * MAX_BACKWARD_SHARE) {
      return `column "${m.time}" is not monotone enough to be time: ${backward} of ${data.length} rows lie more than a minute before an earlier one`;
    }
  }
  return null;
}

/**
 * The mapping the user gave for a CSV starting with `head`: by its header, or the one for any CSV
 * that has its latency column. Null when there is none (or the head is no table).
 */
export function mappingFor(head: string, mappings: CsvMappings | undefined): CsvMapping | null {
  if (!mappings || (!mappings.any && Object.keys(mappings.byHeader ?? {}).length === 0)) return null;
  const table = splitHead(head);
  return table ? mappingForHeader(table.header, mappings) : null;
}

/** The same for a table whose column names are known (a Parquet file's). */
export function mappingForHeader(header: readonly string[], mappings: CsvMappings | undefined): CsvMapping | null {
  const spec = mappings?.byHeader?.[headerKey(header)];
  if (spec !== undefined) return parseMapSpec(spec);
  if (mappings?.any !== undefined) {
    const any = parseMapSpec(mappings.any);
    if (header.includes(any.latency)) return any;
  }
  return null;
}
