import { useState } from 'react';
import { baseOp, opKind } from '../model/naming.ts';
import { idCollapse, parseRuleSpec, ruleSpec, type NameRule, type NameRules } from '../model/name-rules.ts';
import type { RunView } from '../display/run-views.ts';

/**
 * Grouping operation names (src/model/name-rules.ts): offers the ID rule when it would collapse a
 * run's names ("37 names → 7 endpoints"), and edits `pattern => name` rules, one a line. The rules
 * are kept in the link; the engine renames and merges.
 */
export function NameRulesPanel({ views, names, onChange }: { views: readonly RunView[]; names: NameRules; onChange: (names: NameRules) => void }) {
  const [text, setText] = useState(() => names.rules.map(ruleSpec).join('\n'));
  const [problems, setProblems] = useState<string[]>([]);
  const offers = names.ids
    ? []
    : views
        .filter((v) => !v.hidden)
        .map((v) => ({ v, ...idCollapse(Object.keys(v.run.ops).filter((op) => opKind(op) === 'op' || opKind(op) === 'failed').map(baseOp)) }))
        .filter((o) => o.groups < o.names);
  const apply = () => {
    const rules: NameRule[] = [];
    const refused: string[] = [];
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      const rule = parseRuleSpec(line.trim());
      if ('error' in rule) refused.push(`line ${i + 1}: ${rule.error}`);
      else rules.push(rule);
    });
    setProblems(refused);
    onChange({ ...names, rules });
  };
  return (
    <div className="name-rules" data-testid="name-rules">
      {offers.map(({ v, names: n, groups }) => (
        <p key={v.key} className="small" data-testid="name-offer" data-run={v.run.label} data-names={n} data-groups={groups}>
          <span className="run-label">{v.label}</span>: {n} names → {groups} endpoints with their IDs grouped.{' '}
          <button type="button" onClick={() => onChange({ ...names, ids: true })}>
            Group IDs
          </button>
        </p>
      ))}
      {names.ids && (
        <p className="small">
          IDs in operation names are grouped (numbers, UUIDs and hex as <code>{'{id}'}</code>, query values as <code>{'{value}'}</code>); each group's requests are merged exactly.{' '}
          <button type="button" onClick={() => onChange({ ...names, ids: false })}>
            Ungroup
          </button>
        </p>
      )}
      <details>
        <summary className="small">Name rules{names.rules.length > 0 ? ` (${names.rules.length})` : ''}</summary>
        <label className="small">
          One rule a line, <code>regular expression=&gt;name</code> (<code>$1</code>… are the expression's groups); the first rule that matches renames an operation.
          <textarea value={text} onChange={(e) => setText(e.target.value)} rows={3} cols={60} spellCheck={false} aria-label="name rules" placeholder="^GET /users/.*=>GET /users/:id" />
        </label>
        <button type="button" onClick={apply}>
          Apply rules
        </button>
        {problems.map((p) => (
          <p key={p} className="warn small">
            {p}
          </p>
        ))}
      </details>
    </div>
  );
}
