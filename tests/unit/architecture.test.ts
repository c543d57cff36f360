import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Imports run one way — model ← formats ← state ← engine ← charts/views ← render/report/cli, with the
 * pure functions of analysis/ beside model (they import nothing else; the URL state may name their
 * choices, such as a price preset) —
 * and nothing imports in a circle (type-only imports included: a circle of types becomes a circle of
 * values with the next edit). The worker and the CLIs are entry points that put the layers together.
 */

const SRC = 'src';

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Relative imports of a file, static ones only (a dynamic import is loaded on demand by an entry point). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gm)) {
    const target = path.normalize(path.join(path.dirname(file), m[1] as string));
    if (target.startsWith(`${SRC}${path.sep}`) && existsSync(target)) out.push(target);
  }
  return out;
}

const graph = new Map(sources(SRC).map((f) => [f, importsOf(f)]));
const layerOf = (file: string) => file.split(path.sep)[1] ?? '';

/** What each folder may import besides itself. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  model: [],
  formats: ['model'],
  analysis: ['model'],
  state: ['model', 'formats', 'analysis'],
  engine: ['model', 'formats', 'state', 'analysis'],
  charts: ['model', 'engine', 'state', 'analysis', 'views'],
  views: ['model', 'formats', 'engine', 'state', 'analysis', 'charts'],
  render: ['model', 'engine', 'state', 'analysis', 'charts', 'views'],
  report: ['model', 'engine', 'state', 'analysis', 'charts', 'views', 'render'],
};

describe('imports', () => {
  it('run one way between the folders', () => {
    const wrong: string[] = [];
    for (const [file, deps] of graph) {
      const from = layerOf(file);
      const allowed = MAY_IMPORT[from];
      if (!allowed) continue; // entry points: cli/, bench/, main.tsx
      for (const dep of deps) {
        const to = layerOf(dep);
        if (to !== from && !allowed.includes(to)) wrong.push(`${file} → ${dep}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('form no circle', () => {
    // Tarjan's strongly connected components; any component of two or more files is a circle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const circles: string[][] = [];
    let next = 0;
    const visit = (v: string): void => {
      index.set(v, next);
      low.set(v, next++);
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
      if (low.get(v) === index.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop() as string;
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        if (component.length > 1) circles.push(component.sort());
      }
    };
    for (const v of graph.keys()) if (!index.has(v)) visit(v);
    expect(circles).toEqual([]);
  });
});
