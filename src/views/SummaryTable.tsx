import { Fragment, useState } from 'react';
import { littlesLaw } from '../analysis/littles-law.ts';
import { evaluateSla, type SlaRule } from '../analysis/sla.ts';
import { SummaryExport } from './ExportMenu.tsx';
import { formatLatency, formatOps, formatPct } from './format.ts';
import type { RunView } from './run-views.ts';
import { PERCENTILE_KEYS, type PercentileKey } from '../model/percentiles.ts';
import type { Figures, OpSummary } from '../model/figures.ts';

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

/**
 * `report`: the table as a report file prints it (no buttons, every client's rows shown), with the
 * same cells and data attributes as in the app.
 */
export function SummaryTable({ views, sla, report = false }: { views: RunView[]; sla: SlaRule | null; report?: boolean }) {
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const toggle = (key: string) =>
    setExpanded((s) => {
      const n = new Set(s);
      if (n.has(key)) n.delete(key);
      else n.add(key);
      return n;
    });

  return (
    <table className="summary" data-testid="summary-table">
      {!report && (
        <caption>
          <SummaryExport views={views} />
        </caption>
      )}
      <thead>
        <tr>
          <th>run</th>
          <th>op</th>
          <th className="num">count</th>
          <th className="num">ops/s</th>
          <th className="num">mean</th>
          {PERCENTILE_KEYS.map((k) => (
            <th key={k} className="num">
              {k}
            </th>
          ))}
          <th className="num">max</th>
          <th className="num naive" title="Max over clients of the per-client p95">
            max-of-clients p95
          </th>
          <th className="num naive" title="Max over clients of the per-client p99">
            max-of-clients p99
          </th>
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
            return (
              <Fragment key={v.key}>
                <tr className="run-row">
                  <th colSpan={6 + PERCENTILE_KEYS.length + 2 + (sla ? 1 : 0)} scope="rowgroup">
                    <span className="run-label">{v.label}</span>
                    {run.partial && (
                      <span className="tag partial" data-testid="partial" title="Some of this run's files had lines that could not be read: these figures cover what was read">
                        partial
                      </span>
                    )}
                    <span className="muted">
                      {' '}
                      {v.system} · {v.workload} · {v.distribution} · {run.clients.length} client(s) · {formatOps(run.throughput)} ops/s
                      {v.deliveredPct !== null && ` · delivered ${formatPct(v.deliveredPct)} of ${formatOps(v.offeredOpsPerS)} offered`}
                    </span>
                    {little?.loaderBound && (
                      <span className="warn" data-testid="loader-bound" title={little.reason}>
                        {' '}
                        ⚠ loader-bound
                      </span>
                    )}
                    {!report && (
                      <button type="button" className="link" onClick={() => toggle(v.key)}>
                        {expanded.has(v.key) ? 'hide clients' : 'per client'}
                      </button>
                    )}
                  </th>
                </tr>
                {ops.map(([op, o]) => (
                  <OpRows key={op} run={v} op={op} o={o} expanded={report || expanded.has(v.key)} verdict={sla && op === sla.op ? verdict : null} showSla={sla !== null} />
                ))}
              </Fragment>
            );
          })}
      </tbody>
    </table>
  );
}

function OpRows({ run, op, o, expanded, verdict, showSla }: { run: RunView; op: string; o: OpSummary; expanded: boolean; verdict: { pass: boolean | null; reason: string } | null; showSla: boolean }) {
  const r = run.run;
  const label = r.label;
  const rate = r.durationS ? o.count / r.durationS : null;
  return (
    <>
      <tr className={o.exact ? '' : 'inexact'}>
        <td />
        <td>
          {op}
          {!o.exact && (
            <span className="tag" title={o.note ?? 'only bounds are known'}>
              bounds
            </span>
          )}
        </td>
        <td className="num" data-run={label} data-op={op} data-stat="count" data-value={o.count}>
          {o.count.toLocaleString('en-US')}
        </td>
        <td className="num" data-run={label} data-op={op} data-stat="throughput" {...(rate !== null ? { 'data-value': rate } : {})}>
          {formatOps(rate)}
        </td>
        <ValueCell run={label} op={op} stat="mean" value={o.mean} bound={o.bounds?.mean} />
        {PERCENTILE_KEYS.map((k) => (
          <ValueCell key={k} run={label} op={op} stat={k} value={o[k]} bound={o.bounds?.[k]} />
        ))}
        <ValueCell run={label} op={op} stat="max" value={o.max} />
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
            <td />
            <td className="muted">
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
