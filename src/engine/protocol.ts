import type { Analysis } from './analyse.ts';
import type { CsvPreview } from '../formats/csv-mapping.ts';
import type { FileProvenance } from '../model/file-tally.ts';
import type { NameRules } from '../model/name-rules.ts';
import type { Snapshot } from '../state/snapshot.ts';
import type { RunLabels, ViewState } from '../state/view-state.ts';
import type { CellValue, QueryResult } from './user-query.ts';
import type { ChartQuery, ChartResult } from './chart-queries.ts';
import type { CompareRequest } from './compare-queries.ts';
import type { HistoryRequest, HistoryResult } from './history-queries.ts';
import type { CompareResult } from '../model/comparison.ts';
import type { AnalysisWindow } from './summary.ts';

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
  /** A file on disk (CLI, tests), by absolute path: read by the Node input adapter (./node-inputs.ts). */
  disk?: string;
  /**
   * Named by the user itself, not found in a folder: a file no format reads is an error, not a
   * file passed over (the CLI's explicit paths).
   */
  named?: true;
  /** The user's CSV column mappings, by header key (src/formats/csv-mapping.ts): offered to every file. */
  csvMaps?: Record<string, string>;
}

export type { AnalysisWindow };

/**
 * How loaded files form runs and operations: file path → run key where the user moved a file to
 * another run than its folder's, and the rules that group operation names (src/model/name-rules.ts).
 */
export interface Regrouping {
  runs: Record<string, string>;
  names: NameRules;
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
  | { id: number; type: 'load'; files: InputFile[]; replace: boolean; window: AnalysisWindow; regroup: Regrouping }
  | { id: number; type: 'regroup'; regroup: Regrouping; window: AnalysisWindow }
  | { id: number; type: 'cancel'; target: number }
  /** Start DuckDB now (the SQL box has the focus), ahead of the query that will need it; answered at once. */
  | { id: number; type: 'start-db' }
  | { id: number; type: 'clear' }
  | { id: number; type: 'analyse'; window: AnalysisWindow }
  | { id: number; type: 'chart'; query: ChartQuery }
  | { id: number; type: 'snapshot'; runKeys: string[] | null }
  | { id: number; type: 'load-snapshot'; snapshot: Snapshot }
  | { id: number; type: 'compare'; request: CompareRequest }
  | { id: number; type: 'history'; request: HistoryRequest }
  | ({ id: number; type: 'report'; window: AnalysisWindow } & ReportRequest)
  /** The user's SQL over the query tables (src/engine/query-tables.ts), kept in step with this window and these labels. */
  | { id: number; type: 'query'; sql: string; limit: number; window: AnalysisWindow; labels: Record<string, RunLabels> }
  /** Every row of the last query's result, for export. */
  | { id: number; type: 'query-rows' };

/** What the page adds to the engine's data for a report file (src/report/build-report.ts). */
export interface ReportRequest {
  state: ViewState;
  files: FileProvenance[];
  appUrl: string;
  generatedAt: string;
  version: string;
}

export interface LoadResult {
  analysis: Analysis;
  loadedFiles: string[];
  cancelled: boolean;
  /** Tables of this load that no format claims, offered for the user to map their columns. */
  unmapped: CsvPreview[];
}

export interface ResponseOf {
  load: LoadResult;
  cancel: boolean;
  'start-db': boolean;
  clear: boolean;
  analyse: Analysis;
  regroup: Analysis;
  chart: ChartResult;
  snapshot: { snapshot: Snapshot; omitted: string[] };
  'load-snapshot': Analysis;
  /** The report file's HTML. */
  report: string;
  compare: CompareResult;
  history: HistoryResult;
  query: QueryResult;
  'query-rows': { columns: string[]; rows: CellValue[][] };
}

export type WorkerEvent =
  | { id: number; type: 'progress'; progress: LoadProgress }
  /** A load's figures before its throughput timelines (see `Analysis.timelinesPending`); its result follows. */
  | { id: number; type: 'summary'; analysis: Analysis }
  | { id: number; type: 'result'; value: unknown; elapsedMs: number }
  | { id: number; type: 'error'; message: string }
  /** DuckDB has been asked to start (a question needs it, or `start-db`); `ready` follows. */
  | { id: 0; type: 'db-starting' }
  | { id: 0; type: 'ready'; startupMs: number }
  | { id: 0; type: 'fatal'; message: string };
