import { open } from 'node:fs/promises';
import type { RandomAccessInput } from '../formats/parquet.ts';

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
