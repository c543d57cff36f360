import type { Analysis } from '../engine/analyse.ts';
import { useSyncExternalStore } from 'react';
import type { InputFile } from '../engine/protocol.ts';
import type { ProgressFeed } from './progress-feed.ts';
import { filesFromInput } from './file-sources.ts';
import { describeKept, fileNotes, problemsByFile } from '../model/file-tally.ts';
import { formatNumber } from '../display/format.ts';
import { overallProgress } from './load-eta.ts';

function formatDuration(seconds: number): string {
  return seconds < 90 ? `${Math.ceil(seconds)} s` : `${Math.round(seconds / 60)} min`;
}

/** File and folder pickers, a load's progress (the whole load's MB and time left, each file's) with cancel, and every problem found, by file and line. */
export function LoadPanel({
  onFiles,
  progressFeed,
  loading,
  cancelled,
  onCancel,
  analysis,
  folderNotes = [],
}: {
  onFiles: (files: InputFile[]) => void;
  progressFeed: ProgressFeed;
  loading: boolean;
  cancelled: boolean;
  onCancel: () => void;
  analysis: Analysis | null;
  /** How the folders a link names were listed. */
  folderNotes?: readonly string[];
}) {
  const { progress, elapsedMs } = useSyncExternalStore(progressFeed.subscribe, progressFeed.get);
  const entries = Object.values(progress);
  const failed = entries.filter((p) => p.error);
  const done = entries.filter((p) => p.done).length;
  const overall = overallProgress(entries, elapsedMs);
  const errors = analysis?.errors ?? [];
  const byFile = problemsByFile(errors);
  const noted = (analysis?.files ?? []).map((f) => ({ path: f.path, notes: fileNotes(f) })).filter((f) => f.notes.length > 0);
  return (
    <section className="load-panel">
      <div className="pickers">
        <label className="button">
          Open files…
          <input type="file" multiple hidden data-testid="file-input" onChange={(e) => onFiles(filesFromInput(e.target.files))} />
        </label>
        <label className="button">
          Open folder…
          <input type="file" multiple hidden data-testid="folder-input" {...{ webkitdirectory: '' }} onChange={(e) => onFiles(filesFromInput(e.target.files))} />
        </label>
        <span className="muted">or drop files and folders anywhere (.gz accepted)</span>
      </div>
      {entries.length > 0 && (loading || failed.length > 0 || cancelled) && (
        <div className="progress" data-testid="progress">
          <div className="progress-head">
            {loading
                ? `Reading ${done} of ${entries.length} files…`
                : cancelled ? `Cancelled after ${done} of ${entries.length} files` : `${entries.length} files read`}
            {loading && (
              <button type="button" onClick={onCancel} data-testid="cancel-load">
                Cancel
              </button>
            )}
          </div>
          {loading && (
            <p className="muted small" data-testid="load-overall">
              {formatNumber(overall.readBytes / 1e6, 1)}
              {overall.totalBytes !== null ? ` of ${formatNumber(overall.totalBytes / 1e6, 1)}` : ''} MB read
              {overall.etaS !== null ? ` · about ${formatDuration(overall.etaS)} left` : ''}
            </p>
          )}
          {loading && (
            <ul className="file-progress">
              {entries
                .filter((p) => !p.done)
                .slice(0, 8)
                .map((p) => (
                  <li key={p.path}>
                    <span className="file">{p.path}</span> {formatNumber(p.bytesRead / 1e6, 1)}
                    {p.totalBytes ? ` / ${formatNumber(p.totalBytes / 1e6, 1)}` : ''} MB · {formatNumber(p.lines)} lines
                    {p.totalBytes ? <progress max={p.totalBytes} value={p.bytesRead} /> : null}
                  </li>
                ))}
            </ul>
          )}
        </div>
      )}
      {folderNotes.length > 0 && (
        <p className="muted small" data-testid="folder-sources">
          Folders read: {folderNotes.join('; ')}
        </p>
      )}
      {analysis && analysis.ignored.length > 0 && (
        <p className="muted small" data-testid="ignored" title={analysis.ignored.join('\n')}>
          Ignored {analysis.ignored.length} file(s) that are not benchmark results: {analysis.ignored.slice(0, 5).join(', ')}
          {analysis.ignored.length > 5 ? ', …' : ''}
        </p>
      )}
      {noted.length > 0 && (
        <details className="file-notes" data-testid="file-notes" open={noted.length <= 5}>
          <summary>{noted.length} file(s) read with a note</summary>
          <ul>
            {noted.map((f) => (
              <li key={f.path}>
                <span className="file">{f.path}</span>
                <span className="muted"> — {f.notes.join('; ')}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
      {errors.length > 0 && (
        <details className="errors" data-testid="errors" open={errors.length <= 5}>
          <summary>
            {errors.length} problem(s) in {byFile.length} file(s) — what could not be read was skipped; figures built on these files are marked partial
          </summary>
          <ul>
            {byFile.map(([file, list]) => {
              const tally = analysis?.files.find((f) => f.path === file);
              return (
                <li key={file}>
                  <span className="file">{file}</span>
                  {tally && <span className="muted"> — {describeKept(tally)}</span>}
                  <ul>
                    {list.slice(0, 20).map((e, i) => (
                      <li key={i}>
                        {e.line > 0 ? <span className="line">line {e.line}</span> : <span className="line">file</span>}
                        {e.field && <span className="muted"> [{e.field}]</span>}: {e.message}
                      </li>
                    ))}
                    {list.length > 20 && <li className="muted">… {list.length - 20} more</li>}
                  </ul>
                </li>
              );
            })}
          </ul>
        </details>
      )}
    </section>
  );
}
