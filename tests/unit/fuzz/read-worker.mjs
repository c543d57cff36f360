/**
 * Runs `readFile` off the test thread, so that a parser stuck in a loop can be stopped (a
 * synchronous loop cannot be interrupted from its own thread: the test would simply hang).
 */
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

const { readFile } = await tsImport('../../../src/formats/read-file.ts', import.meta.url);

async function* chunked(bytes, sizes) {
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = sizes.length > 0 ? Math.max(1, sizes[i % sizes.length]) : bytes.length;
    yield bytes.subarray(at, Math.min(bytes.length, at + size));
    at += size;
  }
}

parentPort.on('message', async ({ id, path, bytes, chunkSizes, options }) => {
  const started = performance.now();
  try {
    const outcome = await readFile(path, chunked(bytes, chunkSizes), options);
    parentPort.postMessage({ id, outcome, ms: performance.now() - started });
  } catch (e) {
    const error = e instanceof Error ? { name: e.name, className: e.constructor.name, message: e.message, stack: e.stack } : { name: 'thrown', className: typeof e, message: String(e) };
    parentPort.postMessage({ id, error, ms: performance.now() - started });
  }
});
parentPort.postMessage({ ready: true });
