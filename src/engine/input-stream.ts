import type { InputFile } from './protocol.ts';

/**
 * An input's bytes as they arrive, never the whole file in memory: a local File in large slices
 * read ahead of their parsing (fileChunks), or a fetched URL's body as it streams in (without
 * credentials or referrer: links may point at other hosts). The engine
 * worker and the parse workers read inputs the same way.
 */
export async function* streamOf(input: InputFile, signal?: AbortSignal): AsyncIterable<Uint8Array> {
  if (input.file) {
    yield* fileChunks(input.file, 0);
    return;
  }
  let body: ReadableStream<Uint8Array> | null = null;
  if (input.url) {
    const response = await fetch(input.url, { credentials: 'omit', referrerPolicy: 'no-referrer', ...(signal ? { signal } : {}) });
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
    body = response.body;
  }
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * Bytes read per slice of a local file. A File's own stream hands over 64 KiB at a time, and at
 * that size the browser's reading costs as much CPU as a parse worker's parsing leaves it (~600
 * MB/s on 2 cores against ~1,000 MB/s in 16 MiB slices): on a machine whose every core parses,
 * reading is then what the parse waits for.
 */
const SLICE_BYTES = 16 * 1024 * 1024;
/** Past the range asked for: a part's last line, which seldom runs on for more than a few bytes. */
const TAIL_SLICE_BYTES = 64 * 1024;
/** Slices asked for ahead of the one being parsed. */
const READ_AHEAD = 2;

/**
 * The bytes of `file` from `from` on, in large slices read ahead of their parsing, up to `until`
 * (where a part of the file ends), then in small ones: a reader that stops soon after `until`
 * has not asked for megabytes it does not read.
 */
export async function* fileChunks(file: Blob, from: number, until = file.size): AsyncIterable<Uint8Array> {
  const pending: Promise<ArrayBuffer>[] = [];
  let requested = from;
  const readAhead = (): void => {
    while (pending.length < READ_AHEAD && requested < file.size) {
      const size = requested < until ? Math.min(SLICE_BYTES, until - requested) : TAIL_SLICE_BYTES;
      const end = Math.min(file.size, requested + size);
      pending.push(file.slice(requested, end).arrayBuffer());
      requested = end;
    }
  };
  readAhead();
  for (let next = pending.shift(); next; next = pending.shift()) {
    const bytes = new Uint8Array(await next);
    readAhead();
    yield bytes;
  }
}
