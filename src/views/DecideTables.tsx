import type { CapacityRow, SizingRow } from '../analysis/capacity.ts';
import type { PercentileValue } from '../analysis/sla.ts';
import type { CompareResult, ComparisonRow } from '../model/comparison.ts';
import { capacityTable, comparisonTable, download, sizingTableOf, textBlob, toCsv, toMarkdown, type Table } from '../display/export.ts';
import { formatLatency, formatNumber, formatOps, formatPct } from '../display/format.ts';

/**
 * The tables of the Compare and Capacity panels, drawn the same in the app and in the report file
 * (`report`: no buttons). Every cell that holds a figure carries data attributes with the exact
 * number, for tests and tools, as the summary table's do.
 */

/** CSV and Markdown downloads of a table. */
export function TableDownloads({ table, name, what }: { table: () => Table; name: string; what: string }) {
  return (
    <span className="table-tools">
      <span className="muted small">download</span>
      <button type="button" onClick={() => download(textBlob(toCsv(table().header, table().rows), 'text/csv'), `benchlens-${name}.csv`)} title={`Download ${what} as CSV`}>
        CSV
      </button>
      <button type="button" onClick={() => download(textBlob(toMarkdown(table()), 'text/markdown'), `benchlens-${name}.md`)} title={`Download ${what} as a Markdown table`}>
        Markdown
      </button>
    </span>
  );
}

const statValue = (stat: string, v: number | null) => (stat === 'throughput' ? (v === null ? '–' : `${formatOps(v)} ops/s`) : formatLatency(v));
const ratioText = (v: number | null) => (v === null ? '–' : formatNumber(v, 3));
const VERDICT_CLASS = { better: 'pass', worse: 'fail', same: 'same' } as const;

function VerdictCell({ row }: { row: ComparisonRow }) {
  const attributes = { 'data-op': row.op, 'data-stat': row.stat, 'data-verdict': row.verdict ?? 'none' };
  if (row.verdict === null) {
    return (
      <td className="muted small" {...attributes} title={row.note}>
        no interval{row.note ? `: ${row.note}` : ''}
      </td>
    );
  }
  return (
    <td className={VERDICT_CLASS[row.verdict]} {...attributes} title={row.note}>
      {row.verdict === 'same' ? 'no significant difference' : row.verdict}
      {row.note && <span className="warn" title={row.note}> *</span>}
    </td>
  );
}

export function ComparisonTable({ result, report = false }: { result: CompareResult; report?: boolean }) {
  const notes = [...new Set(result.rows.filter((r) => r.verdict !== null && r.note).map((r) => r.note as string))];
  return (
    <div className="comparison" data-testid="comparison" data-method={result.method}>
      <p>
        <strong>{result.candidate.label}</strong> (candidate) against <strong>{result.baseline.label}</strong> (baseline)
        {!report && <TableDownloads table={() => comparisonTable(result)} name="comparison" what="the comparison" />}
      </p>
      {result.carried && (
        <p className="notice small" data-testid="comparison-carried">
          Computed from the result files before they were shared: a shared comparison carries no per-second data, so these intervals travel as they were.
        </p>
      )}
      {result.rows.length > 0 && (
        <table className="decide" data-testid="comparison-table">
          <thead>
            <tr>
              <th>op</th>
              <th>stat</th>
              <th className="num">baseline</th>
              <th className="num">candidate</th>
              <th className="num">ratio</th>
              <th className="num">{Math.round(result.confidence * 100)}% CI of the ratio</th>
              <th className="num" title="benchstat's way: the change ± the farther end of its interval; ~ when not significant">
                delta
              </th>
              <th>verdict</th>
            </tr>
          </thead>
          <tbody>
            {result.rows.map((r) => (
              <tr key={`${r.op} ${r.stat}`}>
                <td>{r.op}</td>
                <td>{r.stat}</td>
                <td className="num" data-op={r.op} data-stat={r.stat} data-side="baseline" {...(r.baseline !== null ? { 'data-value': r.baseline } : {})}>
                  {statValue(r.stat, r.baseline)}
                </td>
                <td className="num" data-op={r.op} data-stat={r.stat} data-side="candidate" {...(r.candidate !== null ? { 'data-value': r.candidate } : {})}>
                  {statValue(r.stat, r.candidate)}
                </td>
                <td className="num" data-op={r.op} data-stat={r.stat} data-side="ratio" {...(r.ratio !== null ? { 'data-value': r.ratio } : {})}>
                  {ratioText(r.ratio)}
                </td>
                <td className="num" data-op={r.op} data-stat={r.stat} data-side="ci" {...(r.ciLow !== null ? { 'data-low': r.ciLow, 'data-high': r.ciHigh ?? undefined } : {})}>
                  {r.ciLow === null ? '–' : `${ratioText(r.ciLow)} – ${ratioText(r.ciHigh)}`}
                </td>
                <td className="num">{r.delta || '–'}</td>
                <VerdictCell row={r} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="muted small" data-testid="comparison-method">
        Method: {result.methodText}.
        {result.baseline.blockLengthS.length > 0 && (
          <span data-testid="block-length" data-baseline={result.baseline.blockLengthS.join(',')} data-candidate={result.candidate.blockLengthS.join(',')}>
            {' '}
            Block length: {result.baseline.blockLengthS.join(', ')} s (baseline), {result.candidate.blockLengthS.join(', ')} s (candidate).
          </span>
        )}{' '}
        Latency: lower is better; throughput: higher is better.
      </p>
      {[...result.problems, ...notes, ...result.notes].map((n) => (
        <p key={n} className={result.problems.includes(n) ? 'warn small' : 'muted small'}>
          {result.problems.includes(n) ? '⚠ ' : '* '}
          {n}
        </p>
      ))}
    </div>
  );
}

const money = (v: number | null) => (v === null ? '–' : `$${formatNumber(v, 2)}`);
const ops = (v: number | null) => formatOps(v);

export function CapacityTable({ rows, report = false }: { rows: CapacityRow[]; report?: boolean }) {
  return (
    <div data-testid="capacity">
      {!report && rows.length > 0 && <TableDownloads table={() => capacityTable(rows)} name="capacity" what="capacity at the SLA" />}
      <table className="decide" data-testid="capacity-table">
        <thead>
          <tr>
            <th className="num">rank</th>
            <th>system</th>
            <th className="num" title="The highest throughput measured that meets every rule">
              max ops/s meeting the SLA
            </th>
            <th className="num" title="The first measured level above it that breaks a rule">
              breaks at
            </th>
            <th className="num" title="Where latency crosses the limit, interpolated linearly between the two levels">
              estimate
            </th>
            <th className="num">utilisation</th>
            <th className="num">$ / month</th>
            <th className="num">$ per 1,000 ops/s-month</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.system} ${r.sweep}`} data-system={r.system} {...(r.sweep ? { 'data-sweep': r.sweep } : {})}>
              <td className="num">{r.rank}</td>
              <td>
                {r.system}
                {r.sweep && <span className="muted small"> {r.sweep}</span>}
              </td>
              <td className="num" data-stat="max" {...(r.maxOpsPerS !== null ? { 'data-value': r.maxOpsPerS } : {})}>
                {ops(r.maxOpsPerS)} {r.maxRun && <span className="muted small">({r.maxRun})</span>}
              </td>
              <td className="num" data-stat="fails-at" {...(r.failsAtOpsPerS !== null ? { 'data-value': r.failsAtOpsPerS } : {})}>
                {ops(r.failsAtOpsPerS)} {r.failsAtRun && <span className="muted small">({r.failsAtRun})</span>}
              </td>
              <td className="num" data-stat="estimate" {...(r.estimateOpsPerS !== null ? { 'data-value': r.estimateOpsPerS } : {})} title="an estimate, interpolated">
                {r.estimateOpsPerS === null ? '–' : `≈ ${ops(r.estimateOpsPerS)} (estimate)`}
              </td>
              <td className="num" title={r.utilisationSource === 'capacity' ? 'throughput ÷ the system’s best run' : r.utilisationSource === 'entered' ? 'from the database’s monitoring' : undefined}>
                {formatPct(r.utilisationPct)}
              </td>
              <td className="num" data-stat="monthly" title={r.pricing ?? undefined} {...(r.monthlyCost !== null ? { 'data-value': r.monthlyCost } : {})}>
                {money(r.monthlyCost)}
              </td>
              <td className="num" data-stat="per-kops" {...(r.costPerKops !== null ? { 'data-value': r.costPerKops } : {})}>
                {money(r.costPerKops)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.flatMap((r) =>
        r.notes.map((n) => (
          <p key={`${r.system} ${r.sweep} ${n}`} className="muted small">
            {r.system}
            {r.sweep ? ` (${r.sweep})` : ''}: {n}
          </p>
        )),
      )}
    </div>
  );
}

function latencyText(v: PercentileValue | undefined): string {
  if (v === null || v === undefined) return '–';
  return typeof v === 'number' ? formatLatency(v) : `${formatLatency(v.min)} – ${formatLatency(v.max)}`;
}

export function SizingTable({ rows, ops: opNames, percentile, report = false }: { rows: SizingRow[]; ops: string[]; percentile: number; report?: boolean }) {
  return (
    <div data-testid="sizing">
      {!report && rows.length > 0 && <TableDownloads table={() => sizingTableOf(rows, opNames, percentile)} name="sizing" what="the sizing table" />}
      <table className="decide" data-testid="sizing-table">
        <thead>
          <tr>
            <th>system</th>
            <th className="num">nodes</th>
            <th>run</th>
            <th className="num">ops/s</th>
            {opNames.map((op) => (
              <th key={op} className="num">
                p{percentile} {op}
              </th>
            ))}
            <th className="num">$ per node-month</th>
            <th className="num">$ / month</th>
            <th className="num">$ per 1,000 ops/s-month</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.system} ${r.sweep} ${r.nodes}`}>
              <td>
                {r.system}
                {r.sweep && <span className="muted small"> {r.sweep}</span>}
              </td>
              <td className="num">{r.nodes}</td>
              <td title={r.basis}>{r.run ?? <span className="muted">{r.basis}</span>}</td>
              <td className="num">{ops(r.opsPerS)}</td>
              {opNames.map((op) => (
                <td key={op} className="num" data-op={op} {...(typeof r.latency[op] === 'number' ? { 'data-value': r.latency[op] as number } : {})}>
                  {latencyText(r.latency[op])}
                </td>
              ))}
              <td className="num">{money(r.costPerNode)}</td>
              <td className="num">{money(r.monthlyCost)}</td>
              <td className="num">{money(r.costPerKops)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
