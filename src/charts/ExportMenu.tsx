import { createContext, useContext, useState, type ReactElement, type RefObject } from 'react';
import { download, embedSnippet, embedUrl, svgToPng, textBlob } from '../display/export.ts';
import { THEMES } from '../display/theme.ts';
import { decodeState, isChartId } from '../state/view-state.ts';
import { renderSvg } from './svg-figure.ts';

/** What the charts' export controls need to know about the page around them. */
export interface ExportSettings {
  /** The page is an embed (`#embed=`): the chart is shown alone, without controls. */
  embedded: boolean;
  /** The data was dropped from the user's disk, which an embed link cannot load. */
  localData: boolean;
}

export const ExportContext = createContext<ExportSettings>({ embedded: false, localData: false });

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard in an insecure context, a denied permission or an iframe without the feature.
    return false;
  }
}

/**
 * SVG, PNG and (when the chart supplies its rows) CSV downloads of one chart, and its embed code.
 * The picture is the chart drawn again from the same element (`chart`: its frame with the same
 * props) by the path the CLI and the report draw with (svg-figure.ts), at the width the page shows
 * it and in the page's theme.
 */
export function ChartExportMenu({
  frame,
  chart,
  id,
  title,
  csv,
  disabled,
}: {
  frame: RefObject<HTMLElement | null>;
  chart: () => ReactElement;
  id: string;
  title: string;
  csv: (() => string) | undefined;
  disabled: boolean;
}) {
  const { localData } = useContext(ExportContext);
  const [error, setError] = useState<string | null>(null);
  const [embed, setEmbed] = useState<{ code: string; copied: boolean } | null>(null);

  const run = (what: () => Promise<void> | void) => async () => {
    setError(null);
    try {
      await what();
    } catch (e) {
      setError(`export failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const picture = async () => {
    if (!frame.current) throw new Error('the chart is not on the page');
    const theme = document.documentElement.dataset.theme === 'dark' ? THEMES.dark : THEMES.light;
    return renderSvg(chart(), Math.round(frame.current.getBoundingClientRect().width), null, theme);
  };
  const exportSvg = run(async () => download(new Blob([(await picture()).svg], { type: 'image/svg+xml' }), `benchlens-${id}.svg`));
  const exportPng = run(async () => download(await svgToPng(await picture()), `benchlens-${id}.png`));
  const exportCsv = run(() => {
    if (csv) download(textBlob(csv(), 'text/csv'), `benchlens-${id}.csv`);
  });
  const showEmbed = run(async () => {
    if (embed) {
      setEmbed(null);
      return;
    }
    if (!isChartId(id)) throw new Error(`no embed for chart "${id}"`);
    const { state } = decodeState(window.location.hash);
    const code = embedSnippet(embedUrl(window.location.href, state, id), title);
    setEmbed({ code, copied: false });
    setEmbed({ code, copied: await copyText(code) });
  });

  return (
    <span className="chart-tools" data-export-skip>
      <button type="button" onClick={exportSvg} disabled={disabled} title="Download the chart as an SVG image">
        SVG
      </button>
      <button type="button" onClick={exportPng} disabled={disabled} title="Download the chart as a PNG image at twice the screen size">
        PNG
      </button>
      {csv && (
        <button type="button" onClick={exportCsv} disabled={disabled} title="Download the data the chart draws as CSV">
          CSV
        </button>
      )}
      <button type="button" onClick={showEmbed} aria-expanded={embed !== null} title="Copy HTML that shows this chart alone on another page">
        embed code
      </button>
      {error && <span className="warn">{error}</span>}
      {embed && (
        <span className="embed-code" role="group" aria-label="embed code">
          <textarea readOnly value={embed.code} rows={4} aria-label={`embed code for ${title}`} data-testid={`embed-code-${id}`} onFocus={(e) => e.currentTarget.select()} />
          <span className="small muted">{embed.copied ? 'Copied to the clipboard.' : 'Select the code above and copy it.'}</span>
          {localData && <span className="small warn">This data was dropped from your computer: the embedded chart cannot load it and will show whatever the link names (or the sample data).</span>}
          <button type="button" className="link" onClick={() => setEmbed(null)}>
            close
          </button>
        </span>
      )}
    </span>
  );
}
