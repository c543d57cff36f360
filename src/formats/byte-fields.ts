/**
 * Reading the plain rows of a load tool's delimited file straight from their UTF-8 bytes (a
 * parser's `lineBytes`): the fields' bounds, their whole numbers, and the series a name of bytes
 * stands for, without making a string of the line. A row this cannot read plainly — a quote, a
 * number that is not a run of digits — is for the parser's string path, which holds the full rules.
 */

import type { LineCursor } from './text-input.ts';

const utf8 = new TextDecoder();

/** The text of bytes[start, end), as decoding the whole line and cutting it there gives it. */
export function textOf(bytes: Uint8Array, start: number, end: number): string {
  return utf8.decode(bytes.subarray(start, end));
}

/**
 * The fields of a row cut at one ASCII delimiter byte: field k is bytes[bounds[2k], bounds[2k+1]),
 * `count` of them. Rows with a quote (a quoted field: the string path's) or more fields than
 * there is room for are not split.
 */
export class RowFields {
  readonly bounds: Int32Array;
  count = 0;
  /** The highest byte `split` looks at: the delimiter, the quote or a line end. */
  private readonly above: number;

  constructor(
    private readonly delimiter: number,
    readonly room: number,
  ) {
    this.bounds = new Int32Array(2 * room);
    this.above = Math.max(delimiter, 34, 13);
  }

  /** Splits the line bytes[start, end); its field count, or -1. */
  line(bytes: Uint8Array, start: number, end: number): number {
    const at = this.split(bytes, start, end, false);
    return at === end ? this.count : -1;
  }

  /**
   * Splits the row from `start` up to its line end (LF or CR, before `limit`); where that line end
   * is, or -1 when there is none before `limit` or the row cannot be split.
   */
  toLineEnd(bytes: Uint8Array, start: number, limit: number): number {
    const at = this.split(bytes, start, limit, true);
    return at < limit ? at : -1;
  }

  private split(bytes: Uint8Array, start: number, limit: number, stopAtLineEnd: boolean): number {
    const b = this.bounds;
    const delimiter = this.delimiter;
    const room = this.room;
    const above = this.above;
    let fields = 0;
    let from = start;
    let i = start;
    for (; i < limit; i++) {
      const c = bytes[i]!;
      // Letters, digits and most punctuation: one comparison for nearly every byte of a row.
      if (c > above) continue;
      if (c === delimiter) {
        if (fields === room) return -1;
        b[2 * fields] = from;
        b[2 * fields + 1] = i;
        fields++;
        from = i + 1;
      } else if (c === 34) return -1;
      else if (stopAtLineEnd && (c === 10 || c === 13)) break;
    }
    if (fields === room) return -1;
    b[2 * fields] = from;
    b[2 * fields + 1] = i;
    this.count = fields + 1;
    return i;
  }
}

/** A parser of delimited rows with a byte path: what `readLineBytes` and `readLineRun` ask of it. */
export interface PlainRowParser {
  /** A plain row of line `lineNo` was read: the last line read. */
  plainRowRead(lineNo: number): void;
  /** The fields the next line splits into when it may be a plain row; null when it may not (a header to come, a record spanning lines). */
  plainFields(): RowFields | null;
  /** Reads the plain row just split into its fields; false, having read nothing, for any other. */
  plainRow(bytes: Uint8Array): boolean;
  /** A line by the string rules. */
  line(text: string, lineNo: number): void;
}

/** A parser's `lineBytes`: the line as a plain row when it is one, else by the string rules. */
export function readLineBytes(parser: PlainRowParser, bytes: Uint8Array, start: number, end: number, lineNo: number): void {
  const fields = parser.plainFields();
  if (fields !== null && fields.line(bytes, start, end) >= 0 && parser.plainRow(bytes)) parser.plainRowRead(lineNo);
  else parser.line(textOf(bytes, start, end), lineNo);
}

/**
 * A parser's `lineRun`: the rows from `cursor.at` up to `end`, one after another, each split and
 * read in one pass over its bytes. Stops at a row it cannot split or the parser does not read, a
 * line end other than LF or CRLF, or a line running past `end`: the cursor is left at that line's
 * start, for the line splitter to hand it on.
 */
export function readLineRun(parser: PlainRowParser, bytes: Uint8Array, end: number, cursor: LineCursor): void {
  const fields = parser.plainFields();
  if (fields === null) return;
  let at = cursor.at;
  let lineNo = cursor.lineNo;
  while (at < end) {
    const stop = fields.toLineEnd(bytes, at, end);
    if (stop < 0) break;
    let next = stop + 1;
    if (bytes[stop] === 13) {
      if (next < end && bytes[next] === 10) next++;
      else break;
    }
    if (!parser.plainRow(bytes)) break;
    lineNo++;
    at = next;
  }
  if (at > cursor.at) parser.plainRowRead(lineNo);
  cursor.at = at;
  cursor.lineNo = lineNo;
}

/**
 * The whole number written in bytes[start, end) as 1 to `maxDigits` ASCII digits and nothing else
 * (no sign, space or point), or -1. `maxDigits` up to 15: every such number is exact in a double.
 */
export function digitsValue(bytes: Uint8Array, start: number, end: number, maxDigits: number): number {
  if (end <= start || end - start > maxDigits) return -1;
  let v = 0;
  for (let i = start; i < end; i++) {
    const c = bytes[i]! - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** Whether bytes[start, end) are the ASCII characters of `text`. */
export function bytesEqual(bytes: Uint8Array, start: number, end: number, text: string): boolean {
  if (end - start !== text.length) return false;
  for (let k = 0; k < text.length; k++) if (bytes[start + k] !== text.charCodeAt(k)) return false;
  return true;
}

/**
 * Values kept by a name of bytes (a label, a URL): rows name a few series over and over, so the
 * name is looked up by its bytes — the last one hit first — and decoded only when first seen.
 */
export class ByteKeyed<T> {
  private readonly entries = new Map<number, { key: Uint8Array; value: T }[]>();
  private last: { key: Uint8Array; value: T } | null = null;

  /** The value of the name bytes[start, end), made by `make` (from its text) when it is new. */
  get(bytes: Uint8Array, start: number, end: number, make: (text: string) => T): T {
    const last = this.last;
    if (last && sameBytes(last.key, bytes, start, end)) return last.value;
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
    let bucket = this.entries.get(h);
    if (bucket) {
      for (const e of bucket) {
        if (sameBytes(e.key, bytes, start, end)) {
          this.last = e;
          return e.value;
        }
      }
    } else this.entries.set(h, (bucket = []));
    const entry = { key: bytes.slice(start, end), value: make(textOf(bytes, start, end)) };
    bucket.push(entry);
    this.last = entry;
    return entry.value;
  }
}

/** Whether bytes[start, end) are the bytes of `key`. */
export function sameBytes(key: Uint8Array, bytes: Uint8Array, start: number, end: number): boolean {
  if (key.length !== end - start) return false;
  for (let k = 0; k < key.length; k++) if (key[k] !== bytes[start + k]) return false;
  return true;
}
