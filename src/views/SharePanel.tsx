import { useState } from 'react';
import type { EngineClient } from '../engine/client.ts';
import { bestLink, MAX_LINK_BYTES, snapshotToFile, type SnapshotLevel } from '../state/snapshot.ts';
import type { CompareResult } from '../model/comparison.ts';
import { decisionFragment } from '../state/decisions.ts';
import { encodeState, type ViewState } from '../state/view-state.ts';

type Shared =
  | { kind: 'link'; url: string; level: 'histograms'; omitted: string[] }
  | { kind: 'link'; url: string; level: 'figures'; file: string; omitted: string[] }
  | { kind: 'too-large'; histogramBytes: number; figuresBytes: number; file: string; omitted: string[] }
  | { kind: 'error'; message: string };

function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const kb = (chars: number) => `${(chars / 1024).toFixed(1)} KB`;

function DownloadSnapshot({ file }: { file: string }) {
  return (
    <button type="button" data-testid="download-snapshot" onClick={() => download('snapshot.benchlens.json', file, 'application/json')}>
      Download snapshot file
    </button>
  );
}

/**
 * Sharing a comparison with nothing hosted: a self-contained link carrying the merged histograms
 * and the per-second throughput when they fit in MAX_LINK_BYTES, else one carrying only the
 * figures shown (src/state/snapshot.ts), else a snapshot file to download and drop back in.
 * Which level a link carries is said beside it. Links by reference are the page's own URL.
 */
export function SharePanel({ client, state, visibleKeys, comparison = null }: { client: EngineClient | null; state: ViewState; visibleKeys: string[]; comparison?: CompareResult | null }) {
  const [shared, setShared] = useState<Shared | null>(null);
  const [busy, setBusy] = useState(false);

  const share = async () => {
    if (!client) return;
    setBusy(true);
    try {
      const { snapshot, omitted } = await client.snapshot(visibleKeys);
      // The A/B comparison on screen travels as computed: its intervals need per-second data the comparison does not carry.
      if (comparison) {
        const { carried: _, ...shown } = comparison;
        snapshot.comparison = shown;
      }
      const link = bestLink(snapshot);
      // A file has no link around it: it carries the view's SLA, prices, labels and sides itself.
      const file = () => snapshotToFile({ ...snapshot, view: decisionFragment(state) });
      if (link.level === null) {
        setShared({ kind: 'too-large', histogramBytes: link.histogramBytes, figuresBytes: link.figuresBytes, file: file(), omitted });
      } else {
        // The link replaces file references with the data itself; everything else of the view stays.
        const fragment = encodeState({ ...state, files: [], regroup: {}, embed: null, data: link.data });
        const url = `${window.location.origin}${window.location.pathname}#${fragment}`;
        setShared(link.level === 'figures' ? { kind: 'link', url, level: 'figures', file: file(), omitted } : { kind: 'link', url, level: 'histograms', omitted });
      }
    } catch (e) {
      setShared({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="share">
      <button type="button" data-testid="share-button" onClick={() => void share()} disabled={!client || busy}>
        {busy ? 'Preparing…' : 'Share'}
      </button>
      {shared?.kind === 'link' && (
        <>
          <input data-testid="share-url" readOnly value={shared.url} onFocus={(e) => e.target.select()} aria-label="self-contained link" size={60} />
          <button type="button" onClick={() => void navigator.clipboard?.writeText(shared.url)}>
            copy
          </button>
          {shared.level === 'histograms' ? (
            <span className="muted small" data-testid="share-level" data-level="histograms">
              self-contained link ({kb(shared.url.length)}, merged histograms): opens with nothing hosted; per-client breakdown and latency over time stay with the files
            </span>
          ) : (
            <span className="small" data-testid="share-level" data-level="figures">
              self-contained link ({kb(shared.url.length)}), <strong>figures only</strong>: the merged histograms do not fit in a link, so it carries the summary and percentile-distribution
              figures exactly as shown; other percentiles, time windows, per-client breakdown and latency over time need the snapshot file or the result files.{' '}
              <DownloadSnapshot file={shared.file} />
            </span>
          )}
        </>
      )}
      {shared?.kind === 'too-large' && (
        <span data-testid="share-too-large">
          Too large for a link ({MAX_LINK_BYTES / 1024} KB): the merged histograms need {kb(shared.histogramBytes)}, and even the figures alone {kb(shared.figuresBytes)}.{' '}
          <DownloadSnapshot file={shared.file} /> <span className="muted small">(drop it back in, or host it and link to it with #files=)</span>
        </span>
      )}
      {shared && shared.kind !== 'error' && shared.omitted.length > 0 && (
        <span className="warn small"> Not carried (only bounds are known): {shared.omitted.join(', ')}</span>
      )}
      {shared?.kind === 'error' && <span className="warn">{shared.message}</span>}
    </div>
  );
}

/** Beside a comparison opened from a link or a file: what it carries, so nobody looks for what it lacks. */
export function SnapshotBanner({ level }: { level: SnapshotLevel }) {
  return (
    <div className="notice" data-testid="snapshot-banner" data-level={level}>
      {level === 'histograms'
        ? 'Opened from a self-contained snapshot: the merged figures are recomputed from the histograms it carries. Per-client breakdown and latency over time need the result files.'
        : 'Opened from a figures-only snapshot: the summary and the percentile distributions show the figures it carries, exactly as they were shared. Other percentiles, time windows, per-client breakdown and latency over time need the full snapshot file or the result files.'}
    </div>
  );
}
