/**
 * Reading the plain rows of a load tool's delimited file straight from their UTF-8 bytes (a
 * parser's `lineBytes`): the fields' bounds, their whole numbers, and the series a name of bytes
 * stands for, without making a string of the line. A row this cannot read plainly — a quote, a
 * number that is not a run of digits — is for the parser's string path, which holds the full rules.
 */

const utf8 = new TextDecoder();

/** The text of bytes[start, end), as decoding the whole line and cutting it there gives it. */
export function textOf(bytes: Uint8Array, start: number, end: number): string {
  return utf8.decode(bytes.subarray(start, end));
}

/**
 * The fields of bytes[start, end) cut at `delimiter` (one ASCII byte): field k is
 * bytes[bounds[2k], bounds[2k+1]). Returns their count, or -1 when the line holds a quote (a
 * quoted field: the string path's) or more fields than `bounds` has room for.
 */
export function splitFields(bytes: Uint8Array, start: number, end: number, delimiter: number, bounds: Int32Array): number {
  let fields = 0;
  let from = start;
  const room = bounds.length >> 1;
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    if (c === delimiter) {
      if (fields === room) return -1;
      bounds[2 * fields] = from;
      bounds[2 * fields + 1] = i;
      fields++;
      from = i + 1;
    } else if (c === 34) return -1;
  }
  if (fields === room) return -1;
  bounds[2 * fields] = from;
  bounds[2 * fields + 1] = end;
  return fields + 1;
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
