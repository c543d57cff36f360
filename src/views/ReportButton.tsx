import { useState } from 'react';
import type { EngineClient } from '../engine/client.ts';
import type { InputFile } from '../engine/protocol.ts';
import type { FileTally } from '../model/file-tally.ts';
import type { FileProvenance } from '../model/file-tally.ts';
import type { ViewState } from '../state/view-state.ts';
import { version } from '../../package.json';
import { download } from '../display/export.ts';

/** Files hashed for the report's provenance: above this a browser would hold too much at once. */
const MAX_HASHED_BYTES = 256 * 1024 * 1024;

async function sha256(file: File): Promise<string | null> {
  if (file.size > MAX_HASHED_BYTES || !crypto.subtle) return null;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function provenance(files: readonly FileTally[], inputs: ReadonlyMap<string, InputFile>): Promise<FileProvenance[]> {
  return Promise.all(
    files.map(async (f) => {
      const file = inputs.get(f.path)?.file;
      return { path: f.path, bytes: file?.size ?? null, sha256: file ? await sha256(file) : null, format: f.format };
    }),
  );
}

/**
 * *Download report*: the view as one self-contained HTML file (src/report/), built in the engine
 * worker from the data loaded, with the files' sizes and hashes computed here from the files read.
 */
export function ReportButton({ client, state, files, inputs }: { client: EngineClient | null; state: ViewState; files: readonly FileTally[]; inputs: ReadonlyMap<string, InputFile> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const make = async () => {
    if (!client) return;
    setBusy(true);
    setError(null);
    try {
      const html = await client.report(state.window, {
        state,
        files: await provenance(files, inputs),
        appUrl: `${window.location.origin}${window.location.pathname}`,
        generatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        version,
      });
      download(new Blob([html], { type: 'text/html;charset=utf-8' }), 'benchlens-report.html');
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" data-testid="report-button" onClick={() => void make()} disabled={!client || busy}>
        {busy ? 'Writing report…' : 'Download report'}
      </button>
      {error && <span className="warn"> report: {error}</span>}
    </>
  );
}
