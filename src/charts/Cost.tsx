import { useContext, useState } from 'react';
import { Bar, BarChart, CartesianGrid, LabelList, Tooltip, XAxis, YAxis, type XAxisTickContentProps } from 'recharts';
import {
  DEFAULT_DYNAMODB_PRICES,
  DEFAULT_ITEM_BYTES,
  DYNAMODB_PRICE_PRESETS,
  HOURS_PER_MONTH,
  PRICE_PRESET_IDS,
  isPricePresetId,
  unitsPerOperation,
  type Consistency,
} from '../analysis/cost.ts';
import { costCsv, costOptions, costPanels, costRows, customised, DEFAULT_STORAGE_GB, dynamoDbPrices, formatFactor, mixLabel, pricePreset, type CostRow } from '../display/cost-rows.ts';
import type { CostParams } from '../state/view-state.ts';
import { formatNumber, formatOps } from '../display/format.ts';
import { ExportContext } from './ExportMenu.tsx';
import type { RunView } from '../display/run-views.ts';
import { AXIS, ChartFrame, GRID, TOOLTIP_STYLE } from './ChartFrame.tsx';
import { ChartContainer } from './ChartContainer.tsx';

/*
 * The cost-factor chart: DynamoDB provisioned and on-demand against a cluster's price, per run —
 * the bars, the inputs and the formula note. The rows and prices it draws are src/display/cost-rows.ts.
 */

const dollars = (v: number) => `$${v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const shortDollars = (v: number) => (v >= 1000 ? `$${formatNumber(v / 1000, v >= 10_000 ? 0 : 1)}k` : `$${formatNumber(v)}`);
/** A top of the axis at 1, 2, 2.5 or 5 × 10ⁿ, leaving headroom for the factor labels. */
function niceMax(v: number): number {
  const target = Math.max(v * 1.12, 1);
  const p = 10 ** Math.floor(Math.log10(target));
  return ([1, 2, 2.5, 5, 10].find((m) => m * p >= target) ?? 10) * p;
}

const DECIMAL = /^\d+(\.\d+)?$/;

/**
 * A text box for a non-negative number that commits only what parses, so that typing "0.000" on the
 * way to "0.0007" is not rewritten under the cursor; an empty box commits undefined (= the default).
 */
function NumberField({ label, value, fallback, onCommit, title, width = 80 }: { label: string; value: number | undefined; fallback?: number; onCommit: (v: number | undefined) => void; title?: string; width?: number }) {
  const display = (v: number | undefined) => (v ?? fallback)?.toString() ?? '';
  const [field, setField] = useState({ text: display(value), synced: value });
  // A change from outside (reset, a loaded link) replaces what is typed.
  if (field.synced !== value) setField({ text: display(value), synced: value });
  const invalid = field.text.trim() !== '' && !DECIMAL.test(field.text.trim());
  return (
    <label title={title}>
      {label}{' '}
      <input
        value={field.text}
        inputMode="decimal"
        aria-label={label}
        aria-invalid={invalid}
        style={{ width, font: 'inherit', background: 'var(--panel)', color: 'var(--text)', border: `1px solid ${invalid ? 'var(--fail)' : 'var(--border)'}`, borderRadius: 4, padding: '1px 4px' }}
        onChange={(e) => {
          const text = e.target.value;
          const trimmed = text.trim();
          if (trimmed !== '' && !DECIMAL.test(trimmed)) {
            setField({ text, synced: value });
            return;
          }
          const v = trimmed === '' ? undefined : Number(trimmed);
          setField({ text, synced: v });
          onCommit(v);
        }}
      />
    </label>
  );
}

function CostTick({ x, y, payload, rows, several }: XAxisTickContentProps & { rows: Map<string, CostRow>; several: { systems: boolean; runsPerScenario: Set<string> } }) {
  const row = rows.get(String(payload.value));
  if (!row) return null;
  const lines = [
    several.systems ? row.system : null,
    `${row.workload} ${mixLabel(row.readsPerS, row.writesPerS)}`,
    several.runsPerScenario.has(`${row.system}|${row.workload}|${row.distribution}`) ? `load ${row.loadLevel}` : null,
  ].filter((l): l is string => l !== null);
  return (
    <text x={Number(x)} y={Number(y) + 12} textAnchor="middle" fontSize={11} fill="var(--muted)">
      {lines.map((l, i) => (
        <tspan key={i} x={Number(x)} dy={i === 0 ? 0 : 13}>
          {l}
        </tspan>
      ))}
      <tspan x={Number(x)} dy={13} fill="var(--text)" fontWeight={600}>
        {formatOps(row.throughput)} ops/s
      </tspan>
    </text>
  );
}

function ClusterInputs({ params, onChange }: { params: CostParams; onChange: (patch: Partial<CostParams>) => void }) {
  const [chosen, setChosen] = useState<'monthly' | 'nodes'>(params.nodes !== undefined || params.nodeHourly !== undefined ? 'nodes' : 'monthly');
  // What the parameters say wins over the last click, so a loaded link shows its own pricing.
  const mode = params.clusterMonthly !== undefined ? 'monthly' : params.nodes !== undefined || params.nodeHourly !== undefined ? 'nodes' : chosen;
  return (
    <fieldset className="controls" style={{ border: '1px solid var(--border)', borderRadius: 6, margin: 0, padding: '4px 10px' }}>
      <legend>cluster (US$)</legend>
      {(
        [
          // Choosing a way clears the other's fields: left set, they would still price the cluster and take the choice back.
          ['monthly', 'per month', { nodes: undefined, nodeHourly: undefined }],
          ['nodes', 'nodes × hourly', { clusterMonthly: undefined }],
        ] as const
      ).map(([way, text, clears]) => (
        <label key={way}>
          <input
            type="radio"
            name="cluster-pricing"
            checked={mode === way}
            onChange={() => {
              setChosen(way);
              onChange(clears);
            }}
          />{' '}
          {text}
        </label>
      ))}
      {mode === 'monthly' ? (
        <NumberField label="$ / month" value={params.clusterMonthly} onCommit={(clusterMonthly) => onChange({ clusterMonthly })} width={90} />
      ) : (
        <>
          <NumberField label="nodes" value={params.nodes} onCommit={(nodes) => onChange({ nodes })} title="Empty: each run's own node count from the Runs table" width={50} />
          <NumberField label="$ / node-hour" value={params.nodeHourly} onCommit={(nodeHourly) => onChange({ nodeHourly })} />
          <span className="muted small">× {HOURS_PER_MONTH} h; nodes empty = each run&apos;s nodes</span>
        </>
      )}
    </fieldset>
  );
}

function CostInputs({ params, onChange }: { params: CostParams; onChange: (patch: Partial<CostParams>) => void }) {
  const preset = pricePreset(params);
  const d = preset.prices;
  const box = { border: '1px solid var(--border)', borderRadius: 6, margin: 0, padding: '4px 10px' };
  return (
    <div className="controls" style={{ alignItems: 'stretch' }}>
      <ClusterInputs params={params} onChange={onChange} />
      <fieldset className="controls" style={box}>
        <legend>workload</legend>
        <NumberField label="item bytes" value={params.itemBytes} fallback={DEFAULT_ITEM_BYTES} onCommit={(itemBytes) => onChange({ itemBytes })} title={`Default ${DEFAULT_ITEM_BYTES}: a YCSB record as DynamoDB sizes it`} width={60} />
        <NumberField label="storage GB" value={params.storageGb} fallback={DEFAULT_STORAGE_GB} onCommit={(storageGb) => onChange({ storageGb })} title="Data stored in the DynamoDB table" width={70} />
        <label>
          reads{' '}
          <select value={params.consistency ?? 'strong'} onChange={(e) => onChange({ consistency: e.target.value as Consistency })} aria-label="consistency">
            <option value="strong">strongly consistent</option>
            <option value="eventual">eventually consistent</option>
            <option value="transactional">transactional (reads and writes)</option>
          </select>
        </label>
      </fieldset>
      <fieldset className="controls" style={box}>
        <legend>
          DynamoDB prices (US$){' '}
          <select
            value={preset.id}
            onChange={(e) => onChange({ prices: isPricePresetId(e.target.value) && e.target.value !== DEFAULT_DYNAMODB_PRICES.id ? e.target.value : undefined })}
            aria-label="price list"
          >
            {PRICE_PRESET_IDS.map((id) => (
              <option key={id} value={id}>
                {DYNAMODB_PRICE_PRESETS[id].label}
              </option>
            ))}
          </select>{' '}
          <button type="button" className="link" onClick={() => onChange({ wcuHourly: undefined, rcuHourly: undefined, wruPerMillion: undefined, rruPerMillion: undefined, storagePerGbMonth: undefined })}>
            reset
          </button>
        </legend>
        <NumberField label="WCU-hour" value={params.wcuHourly} fallback={d.wcuPerHour} onCommit={(wcuHourly) => onChange({ wcuHourly })} />
        <NumberField label="RCU-hour" value={params.rcuHourly} fallback={d.rcuPerHour} onCommit={(rcuHourly) => onChange({ rcuHourly })} />
        <NumberField label="M writes" value={params.wruPerMillion} fallback={d.perMillionWrites} onCommit={(wruPerMillion) => onChange({ wruPerMillion })} title="On-demand, per million write request units" width={60} />
        <NumberField label="M reads" value={params.rruPerMillion} fallback={d.perMillionReads} onCommit={(rruPerMillion) => onChange({ rruPerMillion })} title="On-demand, per million read request units" width={60} />
        <NumberField label="GB-month" value={params.storagePerGbMonth} fallback={d.storagePerGbMonth} onCommit={(storagePerGbMonth) => onChange({ storagePerGbMonth })} width={60} />
      </fieldset>
    </div>
  );
}

function CostTable({ rows, params }: { rows: CostRow[]; params: CostParams }) {
  const prices = dynamoDbPrices(params);
  const itemBytes = params.itemBytes ?? DEFAULT_ITEM_BYTES;
  const consistency = params.consistency ?? 'strong';
  const units = unitsPerOperation(itemBytes, consistency);
  const storageGb = params.storageGb ?? DEFAULT_STORAGE_GB;
  const seconds = formatNumber(HOURS_PER_MONTH * 3600);
  const ignored = [...new Set(rows.flatMap((r) => r.ignored))];
  return (
    <div className="small" style={{ marginTop: 10 }}>
      <ul className="muted" style={{ margin: '4px 0', paddingLeft: 18 }}>
        <li>
          units per operation ({itemBytes} B, {consistency}): write {units.write} WCU (per started 1 KB), read {units.read} RCU (per started 4 KB)
        </li>
        <li>
          provisioned: writes = writes/s × {units.write} × ${prices.wcuPerHour} × {HOURS_PER_MONTH} h; reads = reads/s × {units.read} × ${prices.rcuPerHour} × {HOURS_PER_MONTH} h
        </li>
        <li>
          on-demand: writes = writes/s × {units.write} × {seconds} s ÷ 10⁶ × ${prices.perMillionWrites}; reads = reads/s × {units.read} × {seconds} s ÷ 10⁶ × ${prices.perMillionReads}
        </li>
        <li>
          storage = {formatNumber(storageGb, 3)} GB × ${prices.storagePerGbMonth}; each part rounded to cents, total = sum of the parts; factor = DynamoDB total ÷ cluster total
        </li>
        <li>
          cluster ={' '}
          {params.clusterMonthly !== undefined
            ? `${dollars(params.clusterMonthly)} per month, for every run`
            : params.nodeHourly !== undefined
              ? `${params.nodes ?? "each run's nodes (Runs table)"} × $${params.nodeHourly} per node-hour × ${HOURS_PER_MONTH} h`
              : 'not entered yet'}
        </li>
        <li>reads/s and writes/s = each operation&apos;s merged count ÷ the run&apos;s duration; failed operations are not billed and are left out</li>
        {ignored.length > 0 && <li>not priced (neither a read nor a write): {ignored.join(', ')}</li>}
      </ul>
      <div className="table-scroll">
        <table data-testid="cost-table">
          <thead>
            <tr>
              <th>run</th>
              <th>system · workload · distribution</th>
              <th className="num">r:w</th>
              <th className="num">ops/s</th>
              <th className="num">reads/s</th>
              <th className="num">writes/s</th>
              <th>US$/month</th>
              <th className="num">writes</th>
              <th className="num">reads</th>
              <th className="num">storage</th>
              <th className="num">total</th>
              <th className="num">cluster</th>
              <th className="num">factor</th>
            </tr>
          </thead>
          {rows.map((r) => (
            <tbody key={r.key} data-run={r.key}>
              {([
                ['provisioned', 'DynamoDB provisioned', r.provisioned, r.factor?.provisioned],
                ['on-demand', 'DynamoDB on-demand', r.onDemand, r.factor?.onDemand],
              ] as const).map(([option, name, cost, factor], i) => (
                <tr key={option}>
                  {i === 0 && (
                    <>
                      <td rowSpan={2} className="file">
                        {r.label}
                      </td>
                      <td rowSpan={2}>
                        {r.system} · {r.workload} · {r.distribution}
                      </td>
                      <td rowSpan={2} className="num">
                        {mixLabel(r.readsPerS, r.writesPerS)}
                      </td>
                      <td rowSpan={2} className="num">
                        {formatOps(r.throughput)}
                      </td>
                      <td rowSpan={2} className="num" data-stat="reads-per-s" data-value={r.readsPerS}>
                        {formatNumber(r.readsPerS, 1)}
                      </td>
                      <td rowSpan={2} className="num" data-stat="writes-per-s" data-value={r.writesPerS}>
                        {formatNumber(r.writesPerS, 1)}
                        {r.failedOps > 0 && <span className="muted" title={`${formatNumber(r.failedOps)} failed operations not priced`}> *</span>}
                      </td>
                    </>
                  )}
                  <td>{name}</td>
                  {(['writes', 'reads', 'storage', 'total'] as const).map((k) => (
                    <td key={k} className="num" style={k === 'total' ? { fontWeight: 600 } : undefined} data-stat={`${option}-${k}`} data-value={cost[k]}>
                      {dollars(cost[k])}
                    </td>
                  ))}
                  {i === 0 && (
                    <td
                      rowSpan={2}
                      className="num"
                      data-stat="cluster-total"
                      {...(r.cluster ? { 'data-value': r.cluster.total } : {})}
                      title={r.cluster && 'nodes' in r.cluster.pricing ? `${r.cluster.pricing.nodes} nodes × $${r.cluster.pricing.nodeHourly} × ${HOURS_PER_MONTH} h` : undefined}
                    >
                      {r.cluster ? dollars(r.cluster.total) : '–'}
                    </td>
                  )}
                  <td className="num" style={{ fontWeight: 600 }} data-stat={`factor-${option}`} {...(factor !== undefined ? { 'data-value': factor } : {})}>
                    {factor !== undefined ? `${factor.toFixed(2)}×` : '–'}
                  </td>
                </tr>
              ))}
            </tbody>
          ))}
        </table>
      </div>
      {rows.some((r) => r.failedOps > 0) && <p className="muted">* the run also recorded failed operations; they are not billed and not priced</p>}
      <p className="muted" data-testid="cost-prices-note">
        {pricePreset(params).note}
        {customised(params) ? ' Some prices were edited: the table above uses the edited figures.' : ''}
      </p>
    </div>
  );
}

export function CostChart({ views, params, onChange }: { views: RunView[]; params: CostParams; onChange: (patch: Partial<CostParams>) => void }) {
  let rows: CostRow[] = [];
  let error: string | null = null;
  try {
    rows = costRows(views, params);
  } catch (e) {
    // The cost model rejects unusable inputs (zero item size, zero-cost cluster) with a readable message.
    error = e instanceof Error ? e.message : String(e);
  }
  const { embedded } = useContext(ExportContext);
  const byKey = new Map(rows.map((r) => [r.key, r]));
  const panels = costPanels(rows);
  const scenarioCounts = new Map<string, number>();
  for (const r of rows) scenarioCounts.set(`${r.system}|${r.workload}|${r.distribution}`, (scenarioCounts.get(`${r.system}|${r.workload}|${r.distribution}`) ?? 0) + 1);
  const several = { systems: new Set(rows.map((r) => r.system)).size > 1, runsPerScenario: new Set([...scenarioCounts].filter(([, n]) => n > 1).map(([k]) => k)) };
  const yMax = niceMax(Math.max(0, ...rows.flatMap((r) => [r.onDemand.total, r.provisioned.total, r.cluster?.total ?? 0])));
  const hasCluster = rows.some((r) => r.cluster !== null);
  const options = costOptions(rows);
  const lines = 1 + (several.systems ? 1 : 0) + (several.runsPerScenario.size > 0 ? 1 : 0) + 1;
  const skipped = views.length - rows.length;

  const empty = error ? `Cannot price: ${error}` : rows.length === 0 ? 'No run has a duration, so none has a rate of reads and writes to price.' : null;
  const note = (
    <>
      US$ per month of {HOURS_PER_MONTH} h to serve each run&apos;s reads/s and writes/s; the factor on a DynamoDB bar is its cost ÷ the cluster&apos;s
      {params.clusterMonthly !== undefined && '; one cluster price for every run'}
      {skipped > 0 && ` · ${skipped} run(s) without a duration left out`}
    </>
  );

  return (
    <>
      {!embedded && <CostInputs params={params} onChange={onChange} />}
      <ChartFrame id="cost" title="Monthly cost: cluster vs DynamoDB" note={note} seriesCount={error ? 0 : options.length} empty={empty} csv={() => costCsv(rows)}>
        {!hasCluster && (
          <p className="warn" data-testid="cost-no-cluster">
            Enter the cluster&apos;s price (per month, or nodes × hourly) to compare it with DynamoDB: until then only DynamoDB&apos;s costs are shown and there are no factors.
          </p>
        )}
        <div className="small" style={{ display: 'flex', gap: 14, justifyContent: 'center' }}>
          {options.map((o) => (
            <span key={o.key}>
              <span className="swatch" style={{ background: o.fill }} /> {o.name}
            </span>
          ))}
        </div>
        <div style={{ display: 'flex' }}>
          {panels.map(({ distribution: dist, data }, i) => {
            return (
              <div key={dist} style={{ flex: data.length + (i === 0 ? 0.6 : 0), minWidth: 0 }}>
                <div style={{ textAlign: 'center', fontWeight: 600, marginLeft: i === 0 ? 70 : 0 }}>{dist}</div>
                <ChartContainer height={380}>
                  <BarChart data={data} margin={{ top: 16, right: 8, bottom: 8, left: i === 0 ? 10 : 0 }} barCategoryGap="18%">
                    <CartesianGrid {...GRID} vertical={false} />
                    <XAxis dataKey="key" interval={0} height={14 + lines * 13} {...AXIS} tick={(props: XAxisTickContentProps) => <CostTick {...props} rows={byKey} several={several} />} />
                    <YAxis
                      hide={i > 0}
                      width={70}
                      domain={[0, yMax]}
                      tickCount={6}
                      tickFormatter={(v: number) => shortDollars(v)}
                      label={{ value: 'US$ / month', angle: -90, position: 'insideLeft', fill: 'var(--muted)' }}
                      {...AXIS}
                    />
                    <Tooltip contentStyle={TOOLTIP_STYLE} cursor={{ fill: 'var(--grid)', fillOpacity: 0.4 }} labelFormatter={(k) => byKey.get(String(k))?.label ?? String(k)} formatter={(v, name) => [dollars(Number(v)), name]} />
                    {options.map((o) => (
                      <Bar key={o.key} dataKey={o.key} name={o.name} fill={o.fill} isAnimationActive={false}>
                        {o.key !== 'cluster' && (
                          <LabelList
                            dataKey={o.key === 'provisioned' ? 'factorProvisioned' : 'factorOnDemand'}
                            position="top"
                            fill="var(--text)"
                            fontSize={12}
                            fontWeight={600}
                            formatter={(v) => formatFactor(typeof v === 'number' ? v : null)}
                          />
                        )}
                      </Bar>
                    ))}
                  </BarChart>
                </ChartContainer>
              </div>
            );
          })}
        </div>
        <CostTable rows={rows} params={params} />
      </ChartFrame>
    </>
  );
}
