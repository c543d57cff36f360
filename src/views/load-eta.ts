import type { LoadProgress } from '../engine/protocol.ts';

export interface OverallProgress {
  readBytes: number;
  /** Null while a file's size is unknown (a URL without Content-Length). */
  totalBytes: number | null;
  /** Seconds left at the rate so far; null until the rate means something. */
  etaS: number | null;
}

/** An estimate from the first moments of a load (the engine warming up, a first small file) misleads. */
const MIN_ELAPSED_MS = 1000;

/** Bytes read of all files of a load and, from the rate so far, the time left. */
export function overallProgress(entries: readonly LoadProgress[], elapsedMs: number): OverallProgress {
  let readBytes = 0;
  let totalBytes: number | null = 0;
  for (const p of entries) {
    readBytes += p.done && p.totalBytes !== null ? p.totalBytes : p.bytesRead;
    totalBytes = totalBytes === null || p.totalBytes === null ? null : totalBytes + p.totalBytes;
  }
  const etaS = totalBytes !== null && readBytes > 0 && elapsedMs >= MIN_ELAPSED_MS ? Math.max(0, ((totalBytes - readBytes) * elapsedMs) / readBytes / 1000) : null;
  return { readBytes, totalBytes, etaS };
}
