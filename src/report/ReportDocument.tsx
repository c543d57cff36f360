import type { SlaRule } from '../analysis/sla.ts';
import type { Analysis } from '../engine/analyse.ts';
import type { FileProvenance } from '../model/file-tally.ts';
import { SummaryTable } from '../views/SummaryTable.tsx';
import { ErrorsTables } from '../views/ErrorsTable.tsx';
import type { CapacityRow, SizingRow } from '../analysis/capacity.ts';
import type { CompareResult } from '../model/comparison.ts';
import { CapacityTable, ComparisonTable, SizingTable } from '../views/DecideTables.tsx';
import { formatOps, formatRunStart } from '../display/format.ts';
import { labelLine, type RunView } from '../display/run-views.ts';
import { Headline } from '../views/Headline.tsx';

/**
 * A report as one HTML document that needs no script and no network: the runs and where their
 * figures come from, the summary table (the app's own component, same cells and data attributes),
 * every chart as inline SVG, the methods, and a way back into the app. Rendered to static markup,
 * so every file name, label and message is text, escaped by React; the only markup inserted as is
 * are the chart SVGs, which src/charts/svg-figure.ts writes with its text escaped.
 */

export interface RunProvenance {
  key: string;
  /** Command lines and settings the tools echoed, one per client or file. */
  commands: { who: string; text: string }[];
}

/** The view's A/B comparison, capacity at the SLA and sizing table, drawn by the app's own tables. */
export interface ReportDecisions {
  comparison: CompareResult | null;
  capacity: CapacityRow[];
  sizing: SizingRow[];
  sizingOps: string[];
  sizingPercentile: number;
}

export interface ReportChart {
  id: string;
  svg: string;
}

export interface ReportProps {
  title: string;
  generatedAt: string;
  analysis: Analysis;
  views: RunView[];
  sla: SlaRule | null;
  files: FileProvenance[];
  runs: RunProvenance[];
  charts: ReportChart[];
  /** The app with this comparison in its link, when it fits in one. */
  link: { url: string; level: 'histograms' | 'figures' } | null;
  /** The snapshot file, to drop into the app, when no link carries it all. */
  attachment: { name: string; dataUrl: string } | null;
  version: string;
  decisions?: ReportDecisions | null;
}

const STYLE = `
:root { color-scheme: light; --text: #0f172a; --muted: #64748b; --border: #e2e8f0; --bound: #7c3aed; --warn: #b45309; --fail: #dc2626; --pass: #15803d; }
body { margin: 0 auto; max-width: 1100px; padding: 24px; font: 13px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: var(--text); }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; border-bottom: 1px solid var(--border); padding-bottom: 4px; }
.muted { color: var(--muted); } .small { font-size: 11px; } .warn { color: var(--warn); }
table { border-collapse: collapse; margin: 6px 0; } th, td { padding: 2px 6px; border-bottom: 1px solid var(--border); text-align: left; vertical-align: top; }
th { font-size: 11px; color: var(--muted); font-weight: 600; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.bound { color: var(--bound); } .naive { color: var(--muted); } .err.up { color: var(--fail); } .err.down { color: var(--pass); }
.tag { margin-left: 6px; padding: 0 4px; border: 1px solid var(--border); border-radius: 3px; font-size: 10px; color: var(--muted); }
.run-row th { padding-top: 8px; color: var(--text); font-size: 12px; } .client-row td { font-size: 11px; color: var(--muted); white-space: nowrap; }
td.pass { color: var(--pass); } td.fail { color: var(--fail); }
.headline { display: flex; flex-wrap: wrap; gap: 4px 20px; margin: 2px 0 8px; } .headline div { display: flex; flex-direction: column; }
.headline dt { font-size: 11px; color: var(--muted); } .headline .bound dd { color: var(--bound); } .headline dd { margin: 0; font-size: 16px; font-weight: 600; font-variant-numeric: tabular-nums; }
.run-label { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; } .all-requests th, .all-requests td { font-weight: 600; }
.summary th.op-col { font-size: 12px; font-weight: 400; color: var(--text); white-space: normal; }
.file, code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 11px; }
pre { white-space: pre-wrap; word-break: break-all; margin: 2px 0 6px; padding: 4px 6px; background: #f8fafc; border: 1px solid var(--border); }
.hash { word-break: break-all; }
figure { margin: 12px 0; break-inside: avoid; page-break-inside: avoid; } figure svg { max-width: 100%; height: auto; }
.scroll { overflow-x: auto; }
@media print {
  @page { size: A4; margin: 12mm; }
  body { max-width: none; padding: 0; font-size: 10px; }
  .scroll { overflow: visible; } table { font-size: 9px; } a { color: inherit; }
  h2 { break-after: avoid; } tr { break-inside: avoid; }
}
`;

function human(bytes: number | null): string {
  if (bytes === null) return '–';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

const METHODS =
  'Percentiles of a run are merged across its clients exactly: HdrHistogram interval logs are summed bucket by bucket and pXX is read as HdrHistogram 2.2.2 ' +
  'reads it (the highest value equivalent to the bucket holding rank ⌈XX/100 · count⌉); raw samples give the exact nearest rank ⌈XX/100 · n⌉ over all ' +
  'samples. Where a tool left only summaries (its own percentiles per client or per interval), the merged value is unknown and the interval it must lie in ' +
  '(between the smallest and the largest of the parts) is shown instead, in violet. The "max-of-clients" columns show what taking the worst client’s own ' +
  'percentile would report, with its error against the merged value. Throughput counts every operation and failed operation (not cleanup, not intended-time ' +
  'measurements) in the second it started (interval logs) or ended (raw samples). Latencies are in µs unless marked.';

export function ReportDocument(p: ReportProps) {
  const byPath = new Map(p.files.map((f) => [f.path, f]));
  const visible = p.views.filter((v) => !v.hidden);
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="generator" content={`benchlens ${p.version}`} />
        <title>{p.title}</title>
        <style>{STYLE}</style>
      </head>
      <body>
        <header>
          <h1>{p.title}</h1>
          <div className="muted">
            {visible.length} run(s), {p.files.length} file(s) · generated {p.generatedAt} by benchlens {p.version}
          </div>
          {p.link && (
            <p>
              <a href={p.link.url} data-testid="open-link">
                Open in benchlens
              </a>{' '}
              <span className="muted small">
                {p.link.level === 'histograms'
                  ? '(the link carries every merged histogram: any percentile can be recomputed)'
                  : '(the link carries the figures shown here; other percentiles need the result files)'}
              </span>
            </p>
          )}
          {p.attachment && (
            <p>
              <a href={p.attachment.dataUrl} download={p.attachment.name} data-testid="attachment">
                Download the snapshot file
              </a>{' '}
              <span className="muted small">(drop it into benchlens to reopen these runs{p.link ? ' with every histogram' : ''})</span>
            </p>
          )}
        </header>

        {visible.length === 0 ? (
          <p data-testid="no-runs">This report holds no runs: no benchmark result could be read from the files given.</p>
        ) : (
          <>
            <section>
              <h2>Runs</h2>
              <div className="scroll">
                <table data-testid="runs">
                  <thead>
                    <tr>
                      <th>run</th>
                      <th>clients</th>
                      <th>time</th>
                      <th className="num">duration</th>
                      <th className="num">ops/s</th>
                      <th>labels</th>
                    </tr>
                  </thead>
                  <tbody>
                    {visible.map((v) => (
                      <tr key={v.key}>
                        <td>{v.label}</td>
                        <td>{v.run.clients.map((c) => c.client).join(', ')}</td>
                        <td>{formatRunStart(v.run)}</td>
                        <td className="num">{v.run.durationS !== null ? `${v.run.durationS.toFixed(1)} s` : '–'}</td>
                        <td className="num">{formatOps(v.run.throughput)}</td>
                        <td>{labelLine(v)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </section>

            <section data-testid="report-overview">
              <h2>Overview</h2>
              {visible.map((v) => (
                <div key={v.key} className="overview-run">
                  {visible.length > 1 && <div className="run-label">{v.label}</div>}
                  <Headline view={v} />
                </div>
              ))}
            </section>

            <section>
              <h2>Summary</h2>
              <div className="scroll">
                <SummaryTable views={p.views} sla={p.sla} report />
              </div>
            </section>

            <section>
              <h2>Errors</h2>
              <ErrorsTables views={p.views} report />
            </section>

            {p.decisions?.comparison && (
              <section>
                <h2>Comparison</h2>
                <div className="scroll">
                  <ComparisonTable result={p.decisions.comparison} report />
                </div>
              </section>
            )}

            {p.decisions && (p.decisions.capacity.length > 0 || p.decisions.sizing.length > 0) && (
              <section>
                <h2>Capacity and price at the SLA</h2>
                <div className="scroll">
                  {p.decisions.capacity.length > 0 && <CapacityTable rows={p.decisions.capacity} report />}
                  {p.decisions.sizing.length > 0 && <SizingTable rows={p.decisions.sizing} ops={p.decisions.sizingOps} percentile={p.decisions.sizingPercentile} report />}
                </div>
              </section>
            )}

            {p.charts.length > 0 && (
              <section>
                <h2>Charts</h2>
                {p.charts.map((c) => (
                  <figure key={c.id} data-chart={c.id} dangerouslySetInnerHTML={{ __html: c.svg }} />
                ))}
              </section>
            )}
          </>
        )}

        <section>
          <h2>Method</h2>
          <p>{METHODS}</p>
        </section>

        <section>
          <h2>Provenance</h2>
          {visible.map((v) => {
            const commands = p.runs.find((r) => r.key === v.key)?.commands ?? [];
            return (
              <div key={v.key}>
                <h3 className="small">{v.label}</h3>
                <table data-testid="files">
                  <thead>
                    <tr>
                      <th>file</th>
                      <th>format</th>
                      <th className="num">size</th>
                      <th>SHA-256</th>
                    </tr>
                  </thead>
                  <tbody>
                    {v.run.paths.map((path) => {
                      const f = byPath.get(path);
                      return (
                        <tr key={path}>
                          <td className="file">{path}</td>
                          <td>{f?.format ?? '–'}</td>
                          <td className="num">{f ? human(f.bytes) : '–'}</td>
                          <td className="file hash">{f?.sha256 ?? 'not hashed'}</td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
                {commands.map((c, i) => (
                  <div key={i}>
                    <span className="muted small">{c.who}</span>
                    <pre>{c.text}</pre>
                  </div>
                ))}
              </div>
            );
          })}
          {p.analysis.errors.length > 0 && (
            <>
              <h3 className="small warn">Problems found while reading ({p.analysis.errors.length})</h3>
              <ul className="small">
                {p.analysis.errors.slice(0, 200).map((e, i) => (
                  <li key={i}>
                    <span className="file">{e.file}</span>
                    {e.line ? `:${e.line}` : ''} {e.message}
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      </body>
    </html>
  );
}
