import { Fragment, useId, useState } from 'react';
import { littlesLaw } from '../analysis/littles-law.ts';
import { evaluateSla, type SlaRule } from '../analysis/sla.ts';
import { download, summaryCsv, summaryMarkdown, textBlob } from '../display/export.ts';
import { formatLatency, formatOps, formatPct, middleEllipsis } from '../display/format.ts';
import { nameFilter } from './name-filter.ts';
import { labelLine, type RunView } from '../display/run-views.ts';
import { PERCENTILE_KEYS, type PercentileKey } from '../model/percentiles.ts';
import { ALL_REQUESTS, type AllRequests, type Figures, type OpSummary } from '../model/figures.ts';

/**
 * Merged figures per run and operation, with the naive max-of-clients beside p95/p99 and its
 * error, bounds where only summaries exist, SLA verdicts and a loader-bound warning. Every cell
 * carries data-run / data-op / data-stat (and data-value, the exact number) for tests and tools.
 */

function percentileValue(o: Figures, key: PercentileKey): number | { min: number; max: number } | null {
  return o[key] ?? o.bounds?.[key] ?? null;
}

function ValueCell({ run, op, stat, value, bound }: { run: string; op: string; stat: string; value: number | null; bound?: { min: number; max: number } | undefined }) {
  if (value === null && bound) {
    return (
      <td className="num bound" data-run={run} data-op={op} data-stat={stat} data-bound-min={bound.min} data-bound-max={bound.max} title="Only a bound is known: the true merged value lies in this interval">
        {/* A bound whose ends meet (one client's own figure) is shown once. */}
        {bound.min === bound.max ? formatLatency(bound.min) : `${formatLatency(bound.min)} – ${formatLatency(bound.max)}`}
      </td>
    );
  }
  return (
    <td className="num" data-run={run} data-op={op} data-stat={stat} {...(value !== null ? { 'data-value': value } : {})}>
      {formatLatency(value)}
    </td>
  );
}

function NaiveCell({ run, op, stat, naive, merged }: { run: string; op: string; stat: string; naive: number | null; merged: number | null }) {
  const error = naive !== null && merged ? ((naive - merged) / merged) * 100 : null;
  return (
    <td className="num naive" data-run={run} data-op={op} data-stat={stat} {...(naive !== null ? { 'data-value': naive } : {})} title="Max of the clients' own percentiles: what a naive report would publish">
      {formatLatency(naive)}
      {error !== null && Math.abs(error) >= 0.05 && <span className={error > 0 ? 'err up' : 'err down'}> {error > 0 ? '+' : ''}{formatPct(error)}</span>}
    </td>
  );
}

/** Rows a run shows before "N more": its busiest operations. */
export const SHOWN_OPS = 15;

/** What the table sorts by: a figure's column, or the operation's name. */
type SortKey = 'op' | 'count' | 'throughput' | 'mean' | PercentileKey | 'max' | 'naive-p95' | 'naive-p99';
interface Sort {
  key: SortKey;
  descending: boolean;
}

const BUSIEST: Sort = { key: 'count', descending: true };

const COLUMNS: { key: SortKey; title: string; tip?: string; naive?: boolean }[] = [
  { key: 'count', title: 'count' },
  { key: 'throughput', title: 'ops/s' },
  { key: 'mean', title: 'mean' },
  ...PERCENTILE_KEYS.map((k) => ({ key: k, title: k })),
  { key: 'max', title: 'max' },
  { key: 'naive-p95', title: 'max-of-clients p95', tip: 'Max over clients of the per-client p95', naive: true },
  { key: 'naive-p99', title: 'max-of-clients p99', tip: 'Max over clients of the per-client p99', naive: true },
];

/** The figure a column sorts by; a bound sorts by its low end; unknown last. */
function sortValue(o: OpSummary, key: Exclude<SortKey, 'op'>, durationS: number | null): number | null {
  if (key === 'count') return o.count;
  if (key === 'throughput') return durationS ? o.count / durationS : null;
  if (key === 'naive-p95') return o.naive.maxClientP95;
  if (key === 'naive-p99') return o.naive.maxClientP99;
  if (key === 'max') return o.max;
  const v = o[key] ?? o.bounds?.[key]?.min ?? null;
  return v;
}

/** A run's operations in the table's order (by default the busiest first, ties in the engine's order). */
export function sortedOps(ops: readonly [string, OpSummary][], sort: Sort, durationS: number | null): [string, OpSummary][] {
  const sign = sort.descending ? -1 : 1;
  return ops
    .map((e, i) => ({ e, i }))
    .sort((a, b) => {
      if (sort.key === 'op') return sign * a.e[0].localeCompare(b.e[0], 'en', { numeric: true }) || a.i - b.i;
      const va = sortValue(a.e[1], sort.key, durationS);
      const vb = sortValue(b.e[1], sort.key, durationS);
      if (va === null || vb === null) return va === vb ? a.i - b.i : va === null ? 1 : -1;
      return sign * (va - vb) || a.i - b.i;
    })
    .map(({ e }) => e);
}

/**
 * `report`: the table as a report file prints it (no controls, every operation, the clients' rows
 * of runs with several clients), with the same cells and data attributes as in the app.
 */
export function SummaryTable({ views, sla, report = false }: { views: RunView[]; sla: SlaRule | null; report?: boolean }) {
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [more, setMore] = useState<Set<string>>(new Set());
  // null: the engine's order (operations, then failures, intended, derived, cleanup), busiest
  // first where a run has more operations than it shows at once.
  const [sort, setSort] = useState<Sort | null>(null);
  const [filter, setFilter] = useState('');
  const filterId = useId();
  const match = nameFilter(filter);
  const toggleIn = (set: (f: (s: Set<string>) => Set<string>) => void, key: string) =>
    set((s) => {
      const n = new Set(s);
      if (n.has(key)) n.delete(key);
      else n.add(key);
      return n;
    });
  const sortBy = (key: SortKey) => setSort((s) => (s?.key === key ? { key, descending: !s.descending } : { key, descending: key !== 'op' }));
  const columnCount = 1 + COLUMNS.length + (sla ? 1 : 0);

  const header = (key: SortKey, title: string, className: string, tip?: string) => {
    const active = sort?.key === key;
    return (
      <th key={key} className={className} title={tip} {...(!report ? { 'aria-sort': active ? (sort?.descending ? 'descending' : 'ascending') : 'none' } : {})}>
        {report ? (
          title
        ) : (
          <button type="button" className="sort" onClick={() => sortBy(key)}>
            {title}
            <span aria-hidden="true">{active ? (sort?.descending ? ' ▾' : ' ▴') : ''}</span>
          </button>
        )}
      </th>
    );
  };

  const table = (
    <table className="summary" data-testid="summary-table">
      {!report && (
        <caption>
          <SummaryExport views={views} />
        </caption>
      )}
      <thead>
        <tr>
          {header('op', 'op', 'op-col')}
          {COLUMNS.map((c) => header(c.key, c.title, c.naive ? 'num naive' : 'num', c.tip))}
          {sla && <th>SLA</th>}
        </tr>
      </thead>
      <tbody>
        {views
          .filter((v) => !v.hidden)
          .map((v) => {
            const run = v.run;
            const ops = Object.entries(run.ops);
            const threads = run.threadsPerClient;
            const meanAll = ops.find(([op]) => !/-FAILED$|^Intended-|^CLEANUP$/.test(op))?.[1].mean ?? null;
            const little =
              threads !== null && run.throughput !== null && meanAll !== null
                ? littlesLaw({
                    clients: run.clients.length,
                    threadsPerClient: threads,
                    throughputOpsPerS: run.throughput,
                    meanLatencyUs: meanAll,
                    ...(v.offeredOpsPerS !== null ? { targetOpsPerS: v.offeredOpsPerS } : {}),
                  })
                : null;
            const verdict = sla && run.throughput !== null
              ? evaluateSla(sla, {
                  throughputOpsPerS: run.throughput,
                  percentileUs: (op, p) => {
                    const o = run.ops[op];
                    const key = `p${p}` as PercentileKey;
                    return o && (PERCENTILE_KEYS as readonly string[]).includes(key) ? percentileValue(o, key) : null;
                  },
                })
              : null;
            const several = run.clients.length > 1;
            const matching = report ? ops : ops.filter(([op]) => match.test(op));
            const ordered = sort ? sortedOps(matching, sort, run.durationS) : matching.length > SHOWN_OPS ? sortedOps(matching, BUSIEST, run.durationS) : matching;
            const shown = report || more.has(v.key) ? ordered : ordered.slice(0, SHOWN_OPS);
            const hiddenCount = ordered.length - shown.length;
            const labels = labelLine(v);
            return (
              <Fragment key={v.key}>
                <tr className="run-row">
                  <th colSpan={columnCount} scope="rowgroup">
                    <span className="run-label">{v.label}</span>
                    {run.partial && (
                      <span className="tag partial" data-testid="partial" title="Some of this run's files had lines that could not be read: these figures cover what was read">
                        partial
                      </span>
                    )}
                    <span className="muted">
                      {' '}
                      {labels && `${labels} · `}
                      {run.clients.length} client{several ? 's' : ''} · {formatOps(run.throughput)} ops/s
                      {v.deliveredPct !== null && ` · delivered ${formatPct(v.deliveredPct)} of ${formatOps(v.offeredOpsPerS)} offered`}
                    </span>
                    {little?.loaderBound && (
                      <span className="warn" data-testid="loader-bound" title={little.reason}>
                        {' '}
                        ⚠ loader-bound
                      </span>
                    )}
                    {!report && several && (
                      <button type="button" className="link" aria-expanded={expanded.has(v.key)} onClick={() => toggleIn(setExpanded, v.key)}>
                        {expanded.has(v.key) ? 'hide clients' : 'per client'}
                      </button>
                    )}
                  </th>
                </tr>
                {run.allRequests && run.allRequests.ops > 1 && (report || match.test(ALL_REQUESTS)) && <AllRequestsRow run={v} all={run.allRequests} showSla={sla !== null} />}
                {shown.map(([op, o]) => (
                  <OpRows key={op} run={v} op={op} o={o} expanded={several && (report || expanded.has(v.key))} verdict={sla && op === sla.op ? verdict : null} showSla={sla !== null} report={report} />
                ))}
                {(hiddenCount > 0 || (more.has(v.key) && ordered.length > SHOWN_OPS)) && (
                  <tr className="more-row">
                    <td colSpan={columnCount}>
                      <button type="button" className="link" onClick={() => toggleIn(setMore, v.key)} data-testid="more-ops">
                        {hiddenCount > 0 ? `${hiddenCount} more` : `show the busiest ${SHOWN_OPS} only`}
                      </button>
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
      </tbody>
    </table>
  );
  if (report) return table;
  return (
    <>
      <div className="summary-controls">
        <label htmlFor={filterId}>filter operations</label>{' '}
        <input id={filterId} type="search" value={filter} placeholder="text or /regex/" onChange={(e) => setFilter(e.target.value)} data-testid="summary-filter" />
        {match.error && <span className="warn"> {match.error}</span>}
      </div>
      <div className="table-scroll">{table}</div>
    </>
  );
}

/** An operation's name: shortened in the middle, whole on hover and focus, with a copy button. */
function OpName({ op, report }: { op: string; report: boolean }) {
  const short = middleEllipsis(op, OP_NAME_CHARS);
  if (report || short === op) return <span className="op-text">{op}</span>;
  return (
    <span className="op-name">
      <span className="op-text" tabIndex={0} title={op}>
        {short}
        <span className="op-full" role="tooltip">
          {op}
        </span>
      </span>
      <button type="button" className="copy" aria-label={`copy the name ${op}`} title="copy the whole name" onClick={() => void navigator.clipboard?.writeText(op)}>
        ⧉
      </button>
    </span>
  );
}

/** Characters of an operation's name the table shows before shortening it. */
const OP_NAME_CHARS = 40;

/** Count, ops/s, mean, the percentiles and max of one row, each cell with its data attributes. */
function FigureCells({ run, op, f, durationS }: { run: string; op: string; f: Figures; durationS: number | null }) {
  const rate = durationS ? f.count / durationS : null;
  return (
    <>
      <td className="num" data-run={run} data-op={op} data-stat="count" data-value={f.count}>
        {f.count.toLocaleString('en-US')}
      </td>
      <td className="num" data-run={run} data-op={op} data-stat="throughput" {...(rate !== null ? { 'data-value': rate } : {})}>
        {formatOps(rate)}
      </td>
      <ValueCell run={run} op={op} stat="mean" value={f.mean} bound={f.bounds?.mean} />
      {PERCENTILE_KEYS.map((k) => (
        <ValueCell key={k} run={run} op={op} stat={k} value={f[k]} bound={f.bounds?.[k]} />
      ))}
      <ValueCell run={run} op={op} stat="max" value={f.max} />
    </>
  );
}

function AllRequestsRow({ run, all, showSla }: { run: RunView; all: AllRequests; showSla: boolean }) {
  const label = run.run.label;
  return (
    <tr className={all.exact ? 'all-requests' : 'all-requests inexact'} data-testid="all-requests">
      <th scope="row" className="op-col">
        {ALL_REQUESTS}
        <span className="muted small"> ({all.ops} operations{all.failed > 0 ? `; ${all.failed.toLocaleString('en-US')} failed apart` : ''})</span>
        {!all.exact && (
          <span className="tag" title={all.note ?? 'only bounds are known'}>
            bounds
          </span>
        )}
      </th>
      <FigureCells run={label} op={ALL_REQUESTS} f={all} durationS={run.run.durationS} />
      <td className="num naive" />
      <td className="num naive" />
      {showSla && <td />}
    </tr>
  );
}

function OpRows({ run, op, o, expanded, verdict, showSla, report = false }: { run: RunView; op: string; o: OpSummary; expanded: boolean; verdict: { pass: boolean | null; reason: string } | null; showSla: boolean; report?: boolean }) {
  const r = run.run;
  const label = r.label;
  return (
    <>
      <tr className={o.exact ? '' : 'inexact'}>
        <th scope="row" className="op-col">
          <OpName op={op} report={report} />
          {!o.exact && (
            <span className="tag" title={o.note ?? 'only bounds are known'}>
              bounds
            </span>
          )}
        </th>
        <FigureCells run={label} op={op} f={o} durationS={r.durationS} />
        <NaiveCell run={label} op={op} stat="naive-p95" naive={o.naive.maxClientP95} merged={o.p95} />
        <NaiveCell run={label} op={op} stat="naive-p99" naive={o.naive.maxClientP99} merged={o.p99} />
        {showSla && (
          <td data-run={label} data-op={op} data-stat="sla" className={verdict ? (verdict.pass === true ? 'pass' : verdict.pass === false ? 'fail' : 'unknown') : ''} title={verdict?.reason}>
            {verdict ? (verdict.pass === true ? 'pass' : verdict.pass === false ? 'fail' : '?') : ''}
          </td>
        )}
      </tr>
      {expanded &&
        o.perClient.map((c) => (
          <tr key={c.client + c.file} className="client-row">
            <td className="op-col muted">
              {c.client} <span className="file">{c.file}</span>
            </td>
            <td className="num">{c.count.toLocaleString('en-US')}</td>
            <td className="num">{r.durationS ? formatOps(c.count / r.durationS) : '–'}</td>
            <td className="num">{formatLatency(c.mean)}</td>
            {PERCENTILE_KEYS.map((k) => (
              <td key={k} className={`num ${c[k] !== null && c[k] === o.naive.maxClientP99 && k === 'p99' ? 'tail' : ''}`}>
                {formatLatency(c[k])}
              </td>
            ))}
            <td className="num">{formatLatency(c.max)}</td>
            <td />
            <td />
            {showSla && <td />}
          </tr>
        ))}
    </>
  );
}

/** Downloads of the merged summary table. */
export function SummaryExport({ views }: { views: RunView[] }) {
  return (
    <div className="table-tools">
      <span className="muted small">download</span>
      <button type="button" onClick={() => download(textBlob(summaryCsv(views), 'text/csv'), 'benchlens-summary.csv')} title="Download the merged figures (µs) as CSV">
        CSV
      </button>
      <button type="button" onClick={() => download(textBlob(summaryMarkdown(views), 'text/markdown'), 'benchlens-summary.md')} title="Download the merged figures (µs) as a Markdown table">
        Markdown
      </button>
    </div>
  );
}
