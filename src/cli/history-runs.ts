import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { formatOrder, isHistory, labelsFromRunFile, orderRuns, type HistoryOrder } from '../analysis/history.ts';
import type { Analysis } from '../engine/analyse.ts';
import { historyRunOf, runHistory, type HistoryResult } from '../engine/history-queries.ts';
import type { Store } from '../engine/store.ts';
import type { AnalysisWindow } from '../engine/summary.ts';
import { MANIFEST_NAME } from '../state/folder-listing.ts';

/**
 * The runs loaded by a command as a history, shared by `history` and `check --history`: each run's
 * labels from the `benchlens.json` in its folder, the runs in the order asked for, and the series
 * with their change points (the engine's runHistory, as the page's History view).
 */

export interface LoadedHistory {
  result: HistoryResult;
  order: { by: string; runs: string[] };
  /** Why the runs may not be one test's history, problems ordering them, files that could not be read. */
  problems: string[];
}

export function historyOf(store: Store, analysis: Analysis, options: { order: HistoryOrder; stats: readonly string[]; op?: string; window: AnalysisWindow }): LoadedHistory {
  const problems: string[] = [];
  const runs = analysis.runs.map((run) => {
    const file = path.join(run.dir, MANIFEST_NAME);
    if (!existsSync(file)) return historyRunOf(run);
    const read = labelsFromRunFile(readFileSync(file, 'utf8'));
    if ('error' in read) {
      problems.push(`${file}: ${read.error}`);
      return historyRunOf(run);
    }
    return historyRunOf(run, read.labels);
  });
  if (!isHistory(runs)) problems.push('the runs are not repeats of one test (at least 3 runs of one system with the same operations and target): their series are shown all the same');
  const ordered = orderRuns(runs, options.order);
  problems.push(...ordered.problems);
  const result = runHistory(store, analysis, { runKeys: ordered.runs.map((r) => r.key), stats: options.stats, ...(options.op ? { op: options.op } : {}), window: options.window });
  problems.push(...result.problems);
  return { result, order: { by: formatOrder(options.order), runs: result.runs.map((r) => r.label) }, problems };
}
