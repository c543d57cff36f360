import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CompareSelection } from '../engine/compare-queries.ts';
import type { ViewState } from '../state/view-state.ts';
import { resolveSelection } from '../display/decide.ts';
import type { RunView } from '../display/run-views.ts';

type Side = CompareSelection & { notes: string[] };

/**
 * `--baseline` and `--candidate` as the app's Compare panel reads a side (a run's folder or label,
 * a folder of runs, LABEL=VALUE), or the errors saying which cannot be read. A folder given as it
 * exists on disk (absolute, ./…) names runs as the Node input adapter (src/engine/node-inputs.ts) shows them: relative, with '/'.
 */
export function resolveSides(views: readonly RunView[], state: Pick<ViewState, 'runs'>, baseline: string, candidate: string): { baseline: Side; candidate: Side } | { errors: string[] } {
  const asShown = (text: string) => (existsSync(text) ? path.relative(process.cwd(), text).split(path.sep).join('/') || text : text);
  const [b, c] = [baseline, candidate].map((text) => resolveSelection(views, state, asShown(text))) as [Side | { error: string }, Side | { error: string }];
  const errors = [b, c].flatMap((s, i) => ('error' in s ? [`--${i === 0 ? 'baseline' : 'candidate'}: ${s.error}`] : []));
  return 'error' in b || 'error' in c ? { errors } : { baseline: b, candidate: c };
}
