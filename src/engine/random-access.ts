import type { RandomAccessInput } from '../formats/parquet.ts';
import type { ReadOptions } from '../formats/read-file.ts';
import type { InputFile } from './protocol.ts';

/**
 * An input read by byte ranges, for formats read by seeking (Parquet): a File's slices — the File
 * is read where it lies, never copied whole — or a URL's HTTP ranges. A server that ignores ranges
 * sends the whole file, which is then kept in memory.
 */
export function randomAccessOf(input: InputFile, signal?: AbortSignal): Pick<ReadOptions, 'randomAccess'> {
  const { file, url } = input;
  if (file) {
    const read = async (start: number, end: number) => new Uint8Array(await file.slice(start, end).arrayBuffer());
    return { randomAccess: async () => ({ size: file.size, read }) };
  }
  if (url) return { randomAccess: () => urlRandomAccess(url, signal) };
  return {};
}

const FETCH: RequestInit = { credentials: 'omit', referrerPolicy: 'no-referrer' };

async function urlRandomAccess(url: string, signal?: AbortSignal): Promise<RandomAccessInput> {
  const init = { ...FETCH, ...(signal ? { signal } : {}) };
  const probe = await fetch(url, { ...init, headers: { Range: 'bytes=0-0' } });
  const total = probe.status === 206 ? /\/(\d+)\s*$/.exec(probe.headers.get('Content-Range') ?? '') : null;
  if (total) {
    await probe.body?.cancel();
    return {
      size: Number(total[1]),
      async read(start, end) {
        const response = await fetch(url, { ...init, headers: { Range: `bytes=${start}-${end - 1}` } });
        if (response.status !== 206) throw new Error(`HTTP ${response.status} ${response.statusText} for bytes ${start}–${end - 1}`);
        return new Uint8Array(await response.arrayBuffer());
      },
    };
  }
  const whole = probe.status === 200 ? probe : await fetch(url, init);
  if (probe !== whole) await probe.body?.cancel();
  if (!whole.ok) throw new Error(`HTTP ${whole.status} ${whole.statusText}`);
  const bytes = new Uint8Array(await whole.arrayBuffer());
  return { size: bytes.length, read: async (start, end) => bytes.subarray(start, end) };
}
