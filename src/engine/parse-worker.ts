/// <reference lib="webworker" />
import { isFailed, readFile, type ReadProgress } from '../formats/read-file.ts';
import { streamOf } from './input-stream.ts';
import { randomAccessOf } from './random-access.ts';
import { packOutcome } from './outcome-transfer.ts';
import { buildLevels } from './prebuilt-levels.ts';
import type { PartRequest } from './file-parts.ts';
import { csvMappingsOf, readPart, type ParseEvent, type ParseRequest } from './parse-pool.ts';
import type { InputFile } from './protocol.ts';

/**
 * A parse worker, started by the engine worker's ParsePool: reads and parses one file at a time
 * with the same `readFile` the engine worker would use, and hands the outcome back packed, its
 * typed arrays transferred, not copied (./outcome-transfer.ts). It is never asked to stop: a
 * cancelled parse ends with the worker being terminated.
 */

declare const self: DedicatedWorkerGlobalScope;

const post = (e: ParseEvent, transfer: ArrayBuffer[] = []): void => self.postMessage(e, transfer);

/**
 * Half the engine worker's own throttle: it, not this one, decides how often the UI hears, and a
 * URL whose body streams in a million small chunks does not cost a million messages.
 */
const PROGRESS_MESSAGE_INTERVAL_MS = 50;

async function parse(input: InputFile, part: PartRequest | undefined): Promise<void> {
  let lastPosted = 0;
  let unposted: ReadProgress | null = null;
  try {
    const totalBytes = input.file?.size ?? null;
    const onProgress = (progress: ReadProgress): void => {
      const now = performance.now();
      if (now - lastPosted < PROGRESS_MESSAGE_INTERVAL_MS) {
        unposted = progress;
        return;
      }
      lastPosted = now;
      unposted = null;
      post({ type: 'progress', progress });
    };
    const outcome = part
      ? await readPart(input, part, { onProgress })
      : await readFile(input.path, streamOf(input), { ...(totalBytes !== null ? { totalBytes } : {}), ...csvMappingsOf(input), ...randomAccessOf(input), onProgress });
    // The engine worker counts the bytes read of an input of unknown size from the last progress.
    if (unposted) post({ type: 'progress', progress: unposted });
    // Built here, on this worker's core, not on the engine worker's after the last file is in.
    const { packed, transfer } = packOutcome(outcome, isFailed(outcome) ? undefined : buildLevels(outcome));
    post({ type: 'outcome', outcome: packed }, transfer);
  } catch (e) {
    post({ type: 'error', message: e instanceof Error ? e.message : String(e) });
  }
}

self.onmessage = (event: MessageEvent<ParseRequest>) => void parse(event.data.input, event.data.part);
post({ type: 'ready' });
