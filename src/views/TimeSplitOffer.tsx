import { useMemo } from 'react';
import { formatEpochMs } from '../display/format.ts';
import type { RunView } from '../display/run-views.ts';
import type { FileTally } from '../model/file-tally.ts';
import { splitOverrides, timeSplits, type TimeSpan } from '../model/time-splits.ts';

/**
 * Offers to split a run whose files ran at separate times (src/model/time-splits.ts) into one run
 * per time: a folder of one file per load level then reads as a sweep. Offered, never applied
 * unasked; the split is kept in the link like any file moved to another run.
 */
/** Times named in an offer; past these, how many more. */
const SHOWN_TIMES = 4;

export function TimeSplitOffer({ views, files, onSplit }: { views: readonly RunView[]; files: readonly FileTally[]; onSplit: (overrides: Record<string, string>) => void }) {
  const splits = useMemo(() => {
    const spans = new Map<string, TimeSpan>(files.flatMap((f) => (f.span ? [[f.path, f.span] as const] : [])));
    const labels = new Map(views.map((v) => [v.key, v.label]));
    return timeSplits(
      views.filter((v) => !v.hidden).map((v) => ({ key: v.key, paths: v.run.paths })),
      spans,
    ).map((split) => ({ split, label: labels.get(split.runKey) ?? split.runKey }));
  }, [views, files]);
  if (splits.length === 0) return null;
  return (
    <div className="notice" data-testid="time-split-offers">
      {splits.map(({ split, label }) => {
        // Each time as the run it would become (named after its first file) and when it started.
        const times = split.parts.map((p) => `${p.key.split('/').pop()} from ${formatEpochMs(p.span.startMs)}`);
        const shown = times.length <= SHOWN_TIMES ? times.join('; ') : `${times.slice(0, SHOWN_TIMES - 1).join('; ')}; … and ${times.length - SHOWN_TIMES + 1} more`;
        const files = split.parts.reduce((n, p) => n + p.paths.length, 0);
        return (
          <p key={split.runKey} className="small" data-testid="time-split-offer" data-run={label} data-parts={split.parts.length}>
            <span className="run-label">{label}</span>: its {files} files ran at {split.parts.length} separate times, and are read as the clients of one run — {shown}.{' '}
            <button type="button" onClick={() => onSplit(splitOverrides([split]))}>
              Split into {split.parts.length} runs
            </button>
          </p>
        );
      })}
    </div>
  );
}
