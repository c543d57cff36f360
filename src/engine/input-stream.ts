import type { InputFile } from './protocol.ts';

/**
 * An input's bytes as they arrive, never the whole file in memory: a File's own stream, or a
 * fetched URL's body (without credentials or referrer: links may point at other hosts). The engine
 * worker and the parse workers read inputs the same way.
 */
export async function* streamOf(input: InputFile, signal?: AbortSignal): AsyncIterable<Uint8Array> {
  let body: ReadableStream<Uint8Array> | null;
  if (input.file) body = input.file.stream();
  else if (input.url) {
    const response = await fetch(input.url, { credentials: 'omit', referrerPolicy: 'no-referrer', ...(signal ? { signal } : {}) });
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
    body = response.body;
  } else body = null;
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
