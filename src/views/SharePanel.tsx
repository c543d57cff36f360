import { useState } from 'react';
import type { EngineClient } from '../engine/client.ts';
import { MAX_LINK_BYTES, snapshotToComparisonFile, snapshotToLinkData } from '../state/snapshot.ts';
import { encodeState, type ViewState } from '../state/view-state.ts';

type Shared =
  | { kind: 'link'; url: string; omitted: string[] }
  | { kind: 'too-large'; bytes: number; file: string; omitted: string[] }
  | { kind: 'error'; message: string };

function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Sharing a comparison with nothing hosted: a self-contained link (the merged histograms and the
 * per-second throughput, compressed into the fragment) when it fits in MAX_LINK_BYTES, otherwise a
 * comparison file to download and drop back in. Links by reference are the page's own URL.
 */
export function SharePanel({ client, state, visibleKeys }: { client: EngineClient | null; state: ViewState; visibleKeys: string[] }) {
  const [shared, setShared] = useState<Shared | null>(null);
  const [busy, setBusy] = useState(false);

  const share = async () => {
    if (!client) return;
    setBusy(true);
    try {
      const { snapshot, omitted } = await client.snapshot(visibleKeys);
      const data = snapshotToLinkData(snapshot);
      // The link replaces file references with the data itself; everything else of the view stays.
      const fragment = encodeState({ ...state, files: [], regroup: {}, embed: null, data });
      const url = `${window.location.origin}${window.location.pathname}#${fragment}`;
      if (data.length <= MAX_LINK_BYTES) setShared({ kind: 'link', url, omitted });
      else setShared({ kind: 'too-large', bytes: data.length, file: snapshotToComparisonFile(snapshot), omitted });
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
          <span className="muted small">
            self-contained link ({(shared.url.length / 1024).toFixed(1)} KB): opens with nothing hosted; per-client breakdown and latency over time stay with the files
          </span>
        </>
      )}
      {shared?.kind === 'too-large' && (
        <span data-testid="share-too-large">
          The merged histograms need {(shared.bytes / 1024).toFixed(0)} KB, more than a link can carry ({MAX_LINK_BYTES / 1024} KB).{' '}
          <button type="button" data-testid="download-comparison" onClick={() => download('comparison.benchlens.json', shared.file, 'application/json')}>
            Download comparison file
          </button>{' '}
          <span className="muted small">(drop it back in, or host it and link to it with #files=)</span>
        </span>
      )}
      {shared && shared.kind !== 'error' && shared.omitted.length > 0 && (
        <span className="warn small"> Not carried (only bounds are known): {shared.omitted.join(', ')}</span>
      )}
      {shared?.kind === 'error' && <span className="warn">{shared.message}</span>}
    </div>
  );
}
