import type { Analysis } from './analyse.ts';
import type { ChartQuery, ChartResult } from './chart-queries.ts';

/**
 * Messages between the UI and the engine worker. Every request carries an id; the worker answers
 * with progress events and exactly one `result` or `error` for it. Only plain data crosses: file
 * contents are read inside the worker.
 */

export interface InputFile {
  /** Relative path (folder structure decides runs). */
  path: string;
  file?: File;
  url?: string;
}

export interface LoadProgress {
  path: string;
  bytesRead: number;
  totalBytes: number | null;
  lines: number;
  done: boolean;
  error?: string;
}

export type WorkerRequest =
  | { id: number; type: 'load'; files: InputFile[]; replace: boolean }
  | { id: number; type: 'cancel'; target: number }
  | { id: number; type: 'clear' }
  | { id: number; type: 'analyse'; fromUs?: number | null; toUs?: number | null }
  | { id: number; type: 'chart'; query: ChartQuery };

export interface LoadResult {
  analysis: Analysis;
  loadedFiles: string[];
  cancelled: boolean;
}

export interface ResponseOf {
  load: LoadResult;
  cancel: boolean;
  clear: boolean;
  analyse: Analysis;
  chart: ChartResult;
}

export type WorkerEvent =
  | { id: number; type: 'progress'; progress: LoadProgress }
  | { id: number; type: 'result'; value: unknown; elapsedMs: number }
  | { id: number; type: 'error'; message: string }
  | { id: 0; type: 'ready'; startupMs: number }
  | { id: 0; type: 'fatal'; message: string };
