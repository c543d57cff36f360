import { createReadStream } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { RandomAccessInput } from '../formats/parquet.ts';

/**
 * Files on disk for the CLI and the tests: streamed, walked, named, read by byte ranges. Apart from
 * node-inputs.ts (the Engine's inputs) so that `reduce`, which needs only these, does not load the
 * Engine and DuckDB: it runs in a fixed, small heap.
 */

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

/** A file on disk read by byte ranges (a Parquet file's footer, then its row groups' columns). */
export function fileRandomAccess(file: string, size: number): () => Promise<RandomAccessInput> {
  return async () => ({
    size,
    async read(start: number, end: number): Promise<Uint8Array> {
      const handle = await open(file, 'r');
      try {
        const bytes = new Uint8Array(Math.max(0, Math.min(end, size) - start));
        let at = 0;
        while (at < bytes.length) {
          const { bytesRead } = await handle.read(bytes, at, bytes.length - at, start + at);
          if (bytesRead === 0) throw new Error(`${file} ends at byte ${start + at}, before ${end}: it changed while it was read`);
          at += bytesRead;
        }
        return bytes;
      } finally {
        await handle.close();
      }
    },
  });
}
