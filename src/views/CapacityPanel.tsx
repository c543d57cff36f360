import { useMemo } from 'react';
import { capacityAtSla, sizingTable } from '../analysis/capacity.ts';
import { PERCENTILE_CHOICES, type SystemPriceState, type ViewState } from '../state/view-state.ts';
import { capacityPoints, pricingOf, sizedOps, slaRulesOf } from '../display/decide.ts';
import { CapacityTable, SizingTable } from './DecideTables.tsx';
import type { RunView } from '../display/run-views.ts';

/**
 * Capacity and price at the SLA: the view's SLA rules (the summary's field; several, all must
 * hold), a price per system, each system's capacity at the SLA ranked by $ per 1,000 ops/s-month,
 * and the sizing table per cluster size. Everything here is in the link.
 */

type PriceKind = 'none' | 'nodeHourly' | 'monthly' | 'provisioned' | 'on-demand';

function kindOf(price: SystemPriceState | undefined): PriceKind {
  if (!price) return 'none';
  if (price.nodeHourly !== undefined) return 'nodeHourly';
  if (price.monthly !== undefined) return 'monthly';
  return price.dynamodb ?? 'none';
}

function PriceInput({ system, price, onChange }: { system: string; price: SystemPriceState | undefined; onChange: (price: SystemPriceState | null) => void }) {
  const kind = kindOf(price);
  const amount = price?.nodeHourly ?? price?.monthly;
  return (
    <span className="price-input" data-system={system}>
      <strong>{system}</strong>{' '}
      <select
        aria-label={`price of ${system}`}
        value={kind}
        onChange={(e) => {
          const k = e.target.value as PriceKind;
          if (k === 'none') onChange(null);
          else if (k === 'provisioned' || k === 'on-demand') onChange({ dynamodb: k });
          else onChange({ [k]: amount ?? 0 });
        }}
      >
        <option value="none">no price</option>
        <option value="nodeHourly">$ per node-hour</option>
        <option value="monthly">$ per month</option>
        <option value="provisioned">DynamoDB provisioned</option>
        <option value="on-demand">DynamoDB on-demand</option>
      </select>
      {(kind === 'nodeHourly' || kind === 'monthly') && (
        <input
          type="number"
          min={0}
          step="any"
          aria-label={`${kind === 'nodeHourly' ? '$ per node-hour' : '$ per month'} of ${system}`}
          className="num-input"
          value={amount ?? 0}
          onChange={(e) => {
            const n = Number(e.target.value);
            if (Number.isFinite(n) && n >= 0) onChange({ [kind]: n });
          }}
        />
      )}
    </span>
  );
}

export function CapacityPanel({ views, state, update }: { views: RunView[]; state: ViewState; update: (patch: Partial<ViewState>) => void }) {
  const { rules, errors } = useMemo(() => slaRulesOf(state.sla), [state.sla]);
  const points = useMemo(() => capacityPoints(views), [views]);
  const pricing = useMemo(() => pricingOf(state), [state]);
  const rows = useMemo(() => capacityAtSla(points, rules, pricing), [points, rules, pricing]);
  const ops = useMemo(() => sizedOps(views), [views]);
  const sizing = useMemo(() => sizingTable(points, rules, state.sizingPercentile, ops, pricing), [points, rules, state.sizingPercentile, ops, pricing]);
  const systems = [...new Set(points.map((p) => p.system))];
  const setPrice = (system: string, price: SystemPriceState | null) => {
    const next = { ...state.pricing };
    if (price) next[system] = price;
    else delete next[system];
    update({ pricing: next });
  };

  const slaInput = (
    <label className="sla">
      SLA rules{' '}
      <input value={state.sla} placeholder="p95 of READ <= 10 ms; p99 of UPDATE <= 20 ms" onChange={(e) => update({ sla: e.target.value })} aria-label="SLA rules for capacity" size={48} />
    </label>
  );
  // Nothing to size without a rule or cluster sizes: one line says what the panel needs.
  if (!state.sla.trim() && sizing.length === 0) {
    return (
      <div className="capacity-panel controls folded" data-testid="capacity-panel" data-folded="">
        <span className="muted">Needs an SLA rule (capacity and its price) or cluster sizes in the Runs table (sizing):</span> {slaInput}
      </div>
    );
  }

  return (
    <div className="capacity-panel" data-testid="capacity-panel">
      <div className="controls">
        {slaInput}
        <span className="muted small">all must hold; separate rules with ;</span>
      </div>
      {errors.map((e) => (
        <p key={e} className="warn small">
          {e}
        </p>
      ))}
      <div className="controls prices">
        <span className="muted small">prices</span>
        {systems.map((system) => (
          <PriceInput key={system} system={system} price={state.pricing[system]} onChange={(p) => setPrice(system, p)} />
        ))}
      </div>
      {rules.length === 0 ? (
        <p className="muted small">Enter an SLA rule (e.g. “p95 of READ &lt;= 10 ms”) to see, per system, the highest throughput that meets it, the first level that breaks it, and what that throughput costs.</p>
      ) : (
        <CapacityTable rows={rows} />
      )}
      <h3>
        Sizing{' '}
        <label className="small">
          percentile{' '}
          <select aria-label="sizing percentile" value={state.sizingPercentile} onChange={(e) => update({ sizingPercentile: Number(e.target.value) })}>
            {PERCENTILE_CHOICES.map((p) => (
              <option key={p} value={p}>
                p{p}
              </option>
            ))}
          </select>
        </label>
      </h3>
      {sizing.length === 0 ? (
        <p className="muted small">Label runs with their cluster size (nodes, in the Runs table) to get one row per size: its throughput, p{state.sizingPercentile} per operation and its cost per node and in total.</p>
      ) : (
        <SizingTable rows={sizing} ops={ops} percentile={state.sizingPercentile} />
      )}
      <p className="muted small">
        Capacity: the highest throughput measured that meets every rule, and the first level above it that breaks one; the estimate between them is a straight line through the two levels’ throughput and latency, so it is only an estimate. Costs are US$ per month of 730 hours: a cluster’s nodes × price per node-hour, or its monthly price; DynamoDB from the cost model (the Cost chart’s item size, storage, consistency and prices) at the reads and writes of that level.
      </p>
    </div>
  );
}
