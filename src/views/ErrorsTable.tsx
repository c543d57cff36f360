import { useState } from 'react';
import { requestsOf } from '../model/failures.ts';
import { formatNumber } from '../display/format.ts';
import type { RunView } from '../display/run-views.ts';

/**
 * Failed requests of each run by operation, status and message, as the tool wrote them, with their
 * share of the operation's requests. One table per run that has failures; every row carries
 * data-run / data-op / data-status / data-message / data-count for tests and tools (a status or
 * message the tool did not write is an empty attribute and shows as —).
 */

/** Rows shown before "show all": a run can fail in thousands of distinct ways (a message per URL). */
const FIRST_ROWS = 25;

/** A share as a percentage, never a bare 0 % for a non-zero share. */
function formatShare(count: number, of: number | null): string {
  if (of === null || of <= 0) return '–';
  const pct = (count / of) * 100;
  if (pct >= 1 || pct === 0) return `${formatNumber(pct, 1)}%`;
  return `${pct.toPrecision(2)}%`;
}

export function ErrorsTables({ views, report = false }: { views: readonly RunView[]; report?: boolean }) {
  const failing = views.filter((v) => !v.hidden && v.run.failures.length > 0);
  // A comparison (link or file) carries merged figures only, not failures by cause.
  const carried = views.filter((v) => !v.hidden && v.run.comparison !== null).length;
  if (failing.length === 0) return <p className="muted small">{carried > 0 ? 'Failures by cause need the result files: a comparison does not carry them.' : 'No failed requests in the shown runs.'}</p>;
  return (
    <>
      {failing.map((v) => (
        <RunErrors key={v.key} view={v} report={report} />
      ))}
    </>
  );
}

function RunErrors({ view, report }: { view: RunView; report: boolean }) {
  const [all, setAll] = useState(report);
  const run = view.run;
  const rows = all ? run.failures : run.failures.slice(0, FIRST_ROWS);
  const total = run.failures.reduce((a, f) => a + f.count, 0);
  return (
    <div className="table-scroll errors">
      <table data-testid="errors-table" data-run={run.label}>
        <caption>
          <span className="run-label">{view.label}</span> <span className="muted">· {formatNumber(total)} failed</span>
        </caption>
        <thead>
          <tr>
            <th scope="col">operation</th>
            <th scope="col">status</th>
            <th scope="col">message</th>
            <th scope="col" className="num">
              count
            </th>
            <th scope="col" className="num">
              % of its requests
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((f) => (
            <tr key={`${f.op}\u0000${f.status}\u0000${f.message}`} data-run={run.label} data-op={f.op} data-status={f.status ?? ''} data-message={f.message ?? ''} data-count={f.count}>
              <td className="op-name" title={f.op}>
                {f.op}
              </td>
              <td>{f.status ?? '—'}</td>
              <td className="message" title={f.message ?? undefined}>
                {f.message ?? '—'}
              </td>
              <td className="num">{formatNumber(f.count)}</td>
              <td className="num">{formatShare(f.count, requestsOf(run.ops, f.op))}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {run.failuresFrom === 'report' && <p className="muted small">Some of these counts are the tool's own report's (its summary or failures file), not counted from per-request rows.</p>}
      {!all && run.failures.length > FIRST_ROWS && (
        <button type="button" className="link" onClick={() => setAll(true)}>
          show all {formatNumber(run.failures.length)} causes
        </button>
      )}
    </div>
  );
}
