import type { RunLabels } from '../state/view-state.ts';
import { formatOps, formatRunStart, formatPct } from '../display/format.ts';
import type { RunView } from '../display/run-views.ts';

/**
 * Each detected run with its clients, files, time range and target; the labels that drive every
 * chart's grouping (system, workload mix, distribution, nodes, load level, utilisation) are
 * editable here, pre-filled from the YCSB command line.
 */
export function RunsPanel({
  views,
  colours,
  onChange,
  onMoveFiles,
}: {
  views: RunView[];
  colours: Map<string, string>;
  onChange: (key: string, patch: Partial<RunLabels>) => void;
  /** Files moved to other runs: a file's path to its run's key. */
  onMoveFiles: (moved: Record<string, string>) => void;
}) {
  if (views.length === 0) return null;
  const keys = views.map((v) => v.key);
  // Its own scroll: a wide set of labels never pushes the page past the window.
  return (
    <div className="table-scroll">
      <table className="runs" data-testid="runs-panel">
        <thead>
          <tr>
            <th title="Shown in tables and charts">show</th>
            <th>run</th>
            <th>clients</th>
            <th>files</th>
            <th>time range</th>
            <th className="num">target</th>
            <th className="num">ops/s</th>
            <th className="num" title="Achieved ÷ offered (target × clients)">
              delivered
            </th>
            <th>system</th>
            <th>workload</th>
            <th>distribution</th>
            <th>nodes</th>
            <th>load level</th>
            <th title="From the database's own monitoring; empty = throughput ÷ the system's capacity">utilisation %</th>
          </tr>
        </thead>
        <tbody>
          {views.map((v) => {
            const r = v.run;
            const files = r.clients.flatMap((c) => c.files.map((f) => `${c.client}: ${f}`)).join('\n');
            return (
              <tr key={v.key} data-run-key={v.key} className={v.hidden ? 'hidden-run' : ''}>
                <td>
                  <input type="checkbox" aria-label={`show ${v.label}`} checked={!v.hidden} onChange={(e) => onChange(v.key, { hidden: !e.target.checked })} />
                </td>
                <td>
                  <span className="swatch" style={{ background: colours.get(v.system) }} /> {v.label}
                  {r.partial && (
                    <span className="tag partial" title="Some of this run's files had lines that could not be read: see the problems list">
                      partial
                    </span>
                  )}
                </td>
                <td title={files}>
                  {r.clients.length} ({r.clients.map((c) => c.client).join(', ')})
                </td>
                <td>
                  {r.paths.length > 0 ? <FileMover paths={r.paths} runKey={v.key} keys={keys} onMove={onMoveFiles} /> : <span className="muted">from a comparison</span>}
                </td>
                <td className="muted small">
                  {formatRunStart(r)}
                  {r.durationS !== null && ` · ${formatOps(r.durationS)} s`}
                </td>
                <td className="num">{r.target !== null ? `${formatOps(r.target)} × ${r.clients.length}` : 'none'}</td>
                <td className="num">{formatOps(r.throughput)}</td>
                <td className="num">{formatPct(v.deliveredPct)}</td>
                <td>
                  <input className="label-input" value={v.system} aria-label="system" onChange={(e) => onChange(v.key, { system: e.target.value })} />
                </td>
                <td>
                  <input className="label-input" value={v.workload} aria-label="workload" onChange={(e) => onChange(v.key, { workload: e.target.value })} />
                </td>
                <td>
                  <input className="label-input" value={v.distribution} aria-label="distribution" onChange={(e) => onChange(v.key, { distribution: e.target.value })} />
                </td>
                <td>
                  <NumberInput label="nodes" min={1} value={v.nodes ?? ''} accepts={(n) => n > 0} onChange={(nodes) => onChange(v.key, { nodes })} />
                </td>
                <td>
                  <input className="label-input" value={v.loadLevel} aria-label="load level" onChange={(e) => onChange(v.key, { loadLevel: e.target.value })} />
                </td>
                <td>
                  <NumberInput
                    label="utilisation percent"
                    min={0}
                    max={100}
                    placeholder={v.utilisationPct !== null ? v.utilisationPct.toFixed(0) : ''}
                    value={v.utilisationSource === 'entered' ? (v.utilisationPct ?? '') : ''}
                    accepts={Number.isFinite}
                    onChange={(utilisationPct) => onChange(v.key, { utilisationPct })}
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A number label of a run. An empty entry, or one the label cannot take, clears the label
 * (undefined) rather than storing a number the charts cannot use.
 */
function NumberInput({
  label,
  min,
  max,
  placeholder,
  value,
  accepts,
  onChange,
}: {
  label: string;
  min: number;
  max?: number;
  placeholder?: string;
  value: number | '';
  accepts: (n: number) => boolean;
  onChange: (n: number | undefined) => void;
}) {
  return (
    <input
      className="num-input"
      type="number"
      min={min}
      max={max}
      placeholder={placeholder}
      value={value}
      aria-label={label}
      onChange={(e) => {
        const n = Number(e.target.value);
        onChange(e.target.value === '' || !accepts(n) ? undefined : n);
      }}
    />
  );
}

/**
 * The run's files, each movable to another run or to a new one: for folders that hold several
 * runs, or one run split over folders.
 */
function FileMover({ paths, runKey, keys, onMove }: { paths: string[]; runKey: string; keys: string[]; onMove: (moved: Record<string, string>) => void }) {
  const NEW = '\u0000new';
  return (
    <details className="files">
      <summary>{paths.length} files</summary>
      <ul>
        {paths.map((p) => (
          <li key={p}>
            <span className="file">{p.split('/').pop()}</span>{' '}
            <select
              aria-label={`run of ${p}`}
              value={runKey}
              onChange={(e) => {
                const target = e.target.value === NEW ? `${runKey} (split ${keys.filter((k) => k.startsWith(runKey)).length})` : e.target.value;
                onMove({ [p]: target });
              }}
            >
              {keys.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
              <option value={NEW}>new run</option>
            </select>
          </li>
        ))}
      </ul>
    </details>
  );
}
