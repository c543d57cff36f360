import { useState } from 'react';
import { formatMapSpec, mappingProblem, type CsvMapping, type CsvPreview, type MappingRole } from '../formats/csv-mapping.ts';
import type { LatencyUnit } from '../model/types.ts';

/**
 * Tables no format claims (a load tool's own CSV with column names benchlens does not know): the
 * first rows with the guess, a column and unit to pick for each role, and the reason when the
 * choice makes no sense. What is applied is kept per header in the URL state, so a file with the
 * same header is read the same way next time.
 */

const ROLE_LABELS: Record<MappingRole, string> = {
  time: 'time',
  latency: 'latency',
  op: 'operation',
  ok: 'success',
  client: 'client',
};
const UNITS: { unit: LatencyUnit; label: string }[] = [
  { unit: 'ns', label: 'ns' },
  { unit: 'us', label: 'µs' },
  { unit: 'ms', label: 'ms' },
  { unit: 's', label: 's' },
];
const SHOWN_ROWS = 5;

type Draft = Partial<Record<MappingRole, string>> & { unit: LatencyUnit };

function MappingForm({ preview, onApply }: { preview: CsvPreview; onApply: (key: string, spec: string) => void }) {
  const [draft, setDraft] = useState<Draft>(() => ({ ...preview.guess, unit: preview.guess.unit ?? 'ms' }));
  const [problem, setProblem] = useState<string | null>(null);
  const choose = (patch: Partial<Draft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setProblem(null);
  };
  const apply = () => {
    if (!draft.latency) {
      setProblem('pick the latency column');
      return;
    }
    const mapping: CsvMapping = { latency: draft.latency, unit: draft.unit };
    for (const role of ['time', 'op', 'ok', 'client'] as const) if (draft[role]) mapping[role] = draft[role];
    const why = mappingProblem(mapping, preview.header, preview.rows);
    setProblem(why);
    if (!why) onApply(preview.key, formatMapSpec(mapping));
  };
  return (
    <div className="csv-map" data-testid="csv-map">
      <div>
        <span className="file">{preview.path}</span> <span className="muted small">— its columns are not ones benchlens recognises; say what they are.</span>
      </div>
      <div className="table-scroll">
        <table className="small">
          <thead>
            <tr>
              {preview.header.map((h, i) => (
                <th key={i}>{h}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {preview.rows.slice(0, SHOWN_ROWS).map((row, r) => (
              <tr key={r}>
                {preview.header.map((_, c) => (
                  <td key={c}>{row[c] ?? ''}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="csv-map-roles">
        {(Object.keys(ROLE_LABELS) as MappingRole[]).map((role) => (
          <label key={role}>
            {ROLE_LABELS[role]}{' '}
            <select aria-label={`${ROLE_LABELS[role]} column`} value={draft[role] ?? ''} onChange={(e) => choose({ [role]: e.target.value || undefined })}>
              <option value="">{role === 'latency' ? '(pick one)' : '(none)'}</option>
              {preview.header.map((h) => (
                <option key={h} value={h}>
                  {h}
                </option>
              ))}
            </select>
          </label>
        ))}
        <label>
          unit{' '}
          <select aria-label="latency unit" value={draft.unit} onChange={(e) => choose({ unit: e.target.value as LatencyUnit })}>
            {UNITS.map((u) => (
              <option key={u.unit} value={u.unit}>
                {u.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={apply}>
          Read with these columns
        </button>
      </div>
      {problem && (
        <div className="warn small" role="alert">
          {problem}
        </div>
      )}
    </div>
  );
}

export function CsvMappingPanel({ previews, onApply }: { previews: readonly CsvPreview[]; onApply: (key: string, spec: string) => void }) {
  if (previews.length === 0) return null;
  return (
    <section className="csv-maps">
      <h2>Tables to map</h2>
      {previews.map((p) => (
        <MappingForm key={`${p.path}\u0000${p.key}`} preview={p} onApply={onApply} />
      ))}
    </section>
  );
}
