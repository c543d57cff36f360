/**
 * Integer arrays for self-contained links: each value as its difference from the previous one,
 * zigzag-mapped so that small negative steps stay small, in LEB128 varints. Per-second counts
 * and percentile curves change little from one entry to the next, so most entries take one byte
 * before deflate, where their JSON digits took four to six.
 *
 * Arithmetic, not bit operators: JavaScript's are 32-bit, and counts or latencies may not be.
 */

export class LinkCodecError extends Error {}

export function encodeIntegers(values: readonly number[]): Uint8Array {
  const out: number[] = [];
  let previous = 0;
  for (const v of values) {
    if (!Number.isSafeInteger(v)) throw new LinkCodecError(`${v} is not a safe integer`);
    const delta = v - previous;
    previous = v;
    let z = delta >= 0 ? delta * 2 : -delta * 2 - 1;
    if (!Number.isSafeInteger(z)) throw new LinkCodecError(`step to ${v} is too large`);
    while (z >= 0x80) {
      out.push((z % 0x80) + 0x80);
      z = Math.floor(z / 0x80);
    }
    out.push(z);
  }
  return Uint8Array.from(out);
}

export function decodeIntegers(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let previous = 0;
  let at = 0;
  while (at < bytes.length) {
    let z = 0;
    let scale = 1;
    for (;;) {
      const b = bytes[at++];
      if (b === undefined) throw new LinkCodecError('integer list is truncated');
      z += (b % 0x80) * scale;
      if (b < 0x80) break;
      scale *= 0x80;
      if (scale > 2 ** 56) throw new LinkCodecError('integer too large');
    }
    if (!Number.isSafeInteger(z)) throw new LinkCodecError('integer too large');
    const delta = z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    previous += delta;
    if (!Number.isSafeInteger(previous)) throw new LinkCodecError('integer too large');
    out.push(previous);
  }
  return out;
}
