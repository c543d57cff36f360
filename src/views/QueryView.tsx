import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { EngineClient } from '../engine/client.ts';
import { EXAMPLE_QUERIES, QUERY_TABLES } from '../engine/query-schema.ts';
import type { CellValue, QueryResult } from '../engine/user-query.ts';
import type { ViewState } from '../state/view-state.ts';
import { download, toCsv } from '../display/export.ts';
import { queryChart, sortRows, type QueryChart } from './query-results.ts';

/**
 * Query: SQL over the loaded results (docs/query.md), run by DuckDB in the engine worker. The SQL
 * lives in the link; SQL that arrived with a link is shown and runs only when the user presses Run.
 * Results are text in table cells (never markup), the first DISPLAY_ROWS of them; the export has all.
 */

const DISPLAY_ROWS = 1000;
/** Lines of at most this many points show their points too: a lone point has no line to show it. */
const SHOWN_DOTS = 60;
const SERIES_COLOURS = ['var(--accent)', '#f59e0b', '#10b981', '#ef4444', '#8b5cf6', '#06b6d4', '#ec4899', '#84cc16'];

export interface QueryViewProps {
  client: EngineClient | null;
  /** Changes when the dataset does: a query already run runs again. */
  version: unknown;
  state: ViewState;
  update: (patch: Partial<ViewState>) => void;
}

type Outcome = { kind: 'idle' } | { kind: 'running'; cancel: () => void } | { kind: 'done'; result: QueryResult } | { kind: 'error'; message: string };

const cellText = (v: CellValue) => (v === null ? 'NULL' : String(v));

export function QueryView({ client, version, state, update }: QueryViewProps) {
  const [text, setText] = useState(state.sql);
  /** SQL that came with the link and has not been run: shown, not run. */
  const [fromLink, setFromLink] = useState(state.sql !== '');
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'idle' });
  const [sort, setSort] = useState<{ column: number; descending: boolean } | null>(null);
  const [chart, setChart] = useState<QueryChart | null>(null);
  /** The SQL last run by the user: run again when the data, the window or the labels change. */
  const ran = useRef<string | null>(null);

  const run = useCallback(
    (sql: string) => {
      if (!client || sql.trim() === '') return;
      ran.current = sql;
      setFromLink(false);
      update({ sql });
      const { result, cancel } = client.query(sql, DISPLAY_ROWS, state.window, state.runs);
      setOutcome({ kind: 'running', cancel });
      result.then(
        (r) => {
          setOutcome({ kind: 'done', result: r });
          setSort(null);
          setChart(null);
        },
        (e: unknown) => setOutcome({ kind: 'error', message: e instanceof Error ? e.message : String(e) }),
      );
    },
    [client, state.window, state.runs, update],
  );

  useEffect(() => {
    if (ran.current !== null) run(ran.current);
    // Only a change of the data, the window or the labels runs the query again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [version, state.window, state.runs]);

  const rows = useMemo(() => (outcome.kind === 'done' ? sortRows(outcome.result.rows, sort) : []), [outcome, sort]);

  const exportCsv = useCallback(async () => {
    if (!client) return;
    const all = await client.queryRows();
    download(new Blob([toCsv(all.columns, all.rows.map((r) => r.map((v) => (typeof v === 'boolean' ? String(v) : v))))], { type: 'text/csv' }), 'benchlens-query.csv');
  }, [client]);

  return (
    <div className="query-view">
      <div className="query-main">
        {fromLink && (
          <p className="notice" role="status">
            This query came with the link. Read it before you run it: it runs only when you press <b>Run</b>, and reads only the loaded results.
          </p>
        )}
        <label htmlFor="query-sql" className="small muted">
          SQL (DuckDB) — <kbd>Ctrl</kbd>+<kbd>Enter</kbd> runs, <kbd>Esc</kbd> cancels
        </label>
        <textarea
          id="query-sql"
          className="query-editor"
          value={text}
          spellCheck={false}
          rows={Math.min(18, Math.max(6, text.split('\n').length + 1))}
          onChange={(e) => setText(e.target.value)}
          // DuckDB starts only when needed: SQL being written will need it, and starts it meanwhile.
          onFocus={() => void client?.startDb()}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              run(text);
            } else if (e.key === 'Escape' && outcome.kind === 'running') outcome.cancel();
          }}
        />
        <div className="query-actions">
          <button onClick={() => run(text)} disabled={!client || outcome.kind === 'running' || text.trim() === ''}>
            Run
          </button>
          {outcome.kind === 'running' && <button onClick={outcome.cancel}>Cancel</button>}
          <label>
            Examples{' '}
            <select
              value=""
              onChange={(e) => {
                const example = EXAMPLE_QUERIES[Number(e.target.value)];
                if (example) setText(example.sql);
              }}
            >
              <option value="">choose…</option>
              {EXAMPLE_QUERIES.map((q, i) => (
                <option key={q.title} value={i}>
                  {q.title}
                </option>
              ))}
            </select>
          </label>
          {outcome.kind === 'running' && <span className="muted">running…</span>}
        </div>
        {outcome.kind === 'error' && (
          <pre className="query-error" role="alert">
            {outcome.message}
          </pre>
        )}
        {outcome.kind === 'done' && (
          <div className="query-result">
            <p className="small muted" data-testid="query-summary">
              {outcome.result.totalRows.toLocaleString('en-US')} row{outcome.result.totalRows === 1 ? '' : 's'} in {outcome.result.elapsedMs.toFixed(0)} ms
              {outcome.result.totalRows > outcome.result.rows.length && ` — the first ${outcome.result.rows.length.toLocaleString('en-US')} shown (sorting sorts these; ORDER BY sorts all); the CSV has all`}{' '}
              <button onClick={() => void exportCsv()} disabled={outcome.result.totalRows === 0}>
                CSV
              </button>{' '}
              <button onClick={() => setChart(chart ? null : queryChart(outcome.result))} disabled={queryChart(outcome.result) === null} title="line over a time column, bars over a category">
                {chart ? 'Hide chart' : 'Chart'}
              </button>
            </p>
            {chart && <ResultChart chart={chart} />}
            <div className="table-scroll query-table">
              <table>
                <thead>
                  <tr>
                    {outcome.result.columns.map((c, i) => (
                      <th key={i} className={c.kind === 'number' ? 'num' : undefined} title={c.type} aria-sort={sort?.column === i ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
                        <button className="link" onClick={() => setSort((s) => ({ column: i, descending: s?.column === i ? !s.descending : false }))}>
                          {c.name}
                          {sort?.column === i ? (sort.descending ? ' ▼' : ' ▲') : ''}
                        </button>
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r, ri) => (
                    <tr key={ri}>
                      {r.map((v, ci) => (
                        <td key={ci} className={typeof v === 'number' ? 'num' : v === null ? 'muted' : undefined}>
                          {cellText(v)}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </div>
        )}
      </div>
      <aside className="query-schema" aria-label="tables">
        <h3>Tables</h3>
        {QUERY_TABLES.map((t) => (
          <details key={t.name}>
            <summary>
              <code>{t.name}</code> <span className="muted small">{t.about}</span>
            </summary>
            <ul className="small">
              {t.columns.map(([name, type, about]) => (
                <li key={name}>
                  <code>{name}</code> <span className="muted">{type}</span> {about}
                </li>
              ))}
            </ul>
          </details>
        ))}
        <p className="small">
          <code>file_&lt;n&gt;</code>: input file n: its own columns where DuckDB reads it, else its parser’s rows (see <code>files</code>).
        </p>
        <p className="small">
          <code>bl_percentile(hi_us, count, raw, q)</code>: the summary's exact percentile over <code>latency_buckets</code>; over raw rows, <code>bl_percentile(latency_us, 1, true, q)</code>.
        </p>
      </aside>
    </div>
  );
}

function ResultChart({ chart }: { chart: QueryChart }) {
  const axis = { stroke: 'var(--axis)', tick: { fill: 'var(--text)', fontSize: 12 } };
  const series = chart.series.map((name, i) => ({ name, colour: SERIES_COLOURS[i % SERIES_COLOURS.length] }));
  return (
    <div className="query-chart" data-testid="query-chart">
      <ResponsiveContainer width="100%" height={300}>
        {chart.kind === 'line' ? (
          <LineChart data={chart.data} margin={{ top: 10, right: 30, bottom: 10, left: 10 }}>
            <CartesianGrid stroke="var(--grid)" />
            <XAxis dataKey="x" type="number" domain={['dataMin', 'dataMax']} tickFormatter={chart.formatX} {...axis} />
            <YAxis {...axis} />
            <Tooltip labelFormatter={(v) => chart.formatX(Number(v))} contentStyle={{ background: 'var(--panel)', borderColor: 'var(--border)' }} />
            <Legend />
            {series.map((s) => (
              <Line key={s.name} dataKey={s.name} stroke={s.colour} dot={chart.data.length <= SHOWN_DOTS} isAnimationActive={false} />
            ))}
          </LineChart>
        ) : (
          <BarChart data={chart.data} margin={{ top: 10, right: 30, bottom: 10, left: 10 }}>
            <CartesianGrid stroke="var(--grid)" />
            <XAxis dataKey="x" {...axis} />
            <YAxis {...axis} />
            <Tooltip contentStyle={{ background: 'var(--panel)', borderColor: 'var(--border)' }} />
            <Legend />
            {series.map((s) => (
              <Bar key={s.name} dataKey={s.name} fill={s.colour} isAnimationActive={false} />
            ))}
          </BarChart>
        )}
      </ResponsiveContainer>
    </div>
  );
}
