import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Imports run one way — model ← formats ← state ← engine ← display ← charts ← views ← render/report,
 * with the pure functions of analysis/ beside model (they import nothing else; the URL state may
 * name their choices, such as a price preset), and display/ holding what the page shows computed
 * without React (run views, decisions, prices, formats, tables), which the CLI and the report share —
 * and nothing imports in a circle (type-only imports included: a circle of types becomes a circle of
 * values with the next edit). Dynamic imports (`import('…')`) count like static ones: loading a module
 * later does not change which way it points. The CLIs (cli/), the workers' entries (workers/), the
 * bench page and main.tsx are entry points that put the layers together.
 */

const SRC = 'src';

/** What each folder may import besides itself. A folder not listed is an entry point. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  model: [],
  formats: ['model'],
  analysis: ['model'],
  state: ['model', 'formats', 'analysis'],
  engine: ['model', 'formats', 'state', 'analysis'],
  display: ['model', 'formats', 'state', 'analysis', 'engine'],
  charts: ['model', 'engine', 'state', 'analysis', 'display'],
  views: ['model', 'formats', 'engine', 'state', 'analysis', 'display', 'charts'],
  render: ['model', 'engine', 'state', 'analysis', 'display', 'charts'],
  report: ['model', 'engine', 'state', 'analysis', 'display', 'charts', 'views', 'render'],
};

interface Import {
  target: string;
  dynamic: boolean;
}

/** Relative imports of a source text: `import … from`, `export … from` and `import('…')`, type positions included. */
function importsIn(file: string, text: string, exists: (f: string) => boolean): Import[] {
  const out: Import[] = [];
  const add = (spec: string, dynamic: boolean) => {
    const target = path.normalize(path.join(path.dirname(file), spec));
    if (target.startsWith(`${SRC}${path.sep}`) && exists(target)) out.push({ target, dynamic });
  };
  for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]/gm)) add(m[1] as string, false);
  for (const m of text.matchAll(/\bimport\s*\(\s*['"`](\.[^'"`]+)['"`]\s*\)/g)) add(m[1] as string, true);
  return out;
}

const layerOf = (file: string) => file.split(path.sep)[1] ?? '';

/** Every import that points a way its folder may not: `from → to`, and whether it is dynamic. */
function wrongImports(graph: ReadonlyMap<string, readonly Import[]>): string[] {
  const wrong: string[] = [];
  for (const [file, deps] of graph) {
    const from = layerOf(file);
    const allowed = MAY_IMPORT[from];
    if (!allowed) continue;
    for (const { target, dynamic } of deps) {
      const to = layerOf(target);
      if (to !== from && !allowed.includes(to)) wrong.push(`${file} → ${target}${dynamic ? ' (dynamic)' : ''}`);
    }
  }
  return wrong;
}

/** Files of two or more that import each other in a circle (Tarjan's strongly connected components). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
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
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

function graphOf(texts: ReadonlyMap<string, string>): Map<string, Import[]> {
  return new Map([...texts].map(([f, text]) => [f, importsIn(f, text, (t) => texts.has(t))]));
}

const files = readdirSync(SRC, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
  .map((e) => path.join(e.parentPath, e.name));
const graph = graphOf(new Map(files.map((f) => [f, readFileSync(f, 'utf8')])));

describe('imports', () => {
  it('run one way between the folders, dynamic ones included', () => {
    expect(wrongImports(graph)).toEqual([]);
  });

  it('form no circle', () => {
    // Static imports: a module loaded on demand may import back the one that loads it (cli/commands.ts).
    expect(circles(new Map([...graph].map(([f, deps]) => [f, deps.filter((d) => !d.dynamic).map((d) => d.target)])))).toEqual([]);
  });

  it('keep React out of the commands that draw nothing', () => {
    // What a file loads before it runs: its static, value imports, followed through src/.
    const packages = (start: string): Set<string> => {
      const seen = new Set<string>();
      const found = new Set<string>();
      const visit = (f: string): void => {
        if (seen.has(f)) return;
        seen.add(f);
        const text = readFileSync(f, 'utf8');
        for (const m of text.matchAll(/^(?:import|export)\s(?!type\s)[^;]*?from\s+'([^']+)'/gm)) {
          const spec = m[1] as string;
          if (spec.startsWith('.')) visit(path.normalize(path.join(path.dirname(f), spec)));
          else found.add(spec);
        }
      };
      visit(start);
      return found;
    };
    for (const command of ['summarize', 'compare', 'history', 'check', 'cost', 'query', 'reduce']) {
      const loaded = [...packages(path.join(SRC, 'cli', `${command}.ts`))];
      expect(loaded.filter((p) => /^(react|react-dom|recharts)(\/|$)/.test(p)), command).toEqual([]);
    }
  });
});

describe('the import checker', () => {
  const p = (...parts: string[]) => path.join(SRC, ...parts);
  const sources = new Map([
    [p('engine', 'loader.ts'), "export async function later() {\n  const { build } = await import(\n    '../report/build.ts'\n  );\n  return build;\n}\n"],
    [p('engine', 'typed.ts'), "export type Built = import('../report/build.ts').Built;\n"],
    [p('report', 'build.ts'), "import { view } from '../views/shown.tsx';\nexport type Built = string;\nexport const build = () => view;\n"],
    [p('charts', 'Line.tsx'), "import type { Shown } from '../views/shown.tsx';\nexport const line = (s: Shown) => s;\n"],
    [p('views', 'shown.tsx'), "import { line } from '../charts/Line.tsx';\nexport type Shown = string;\nexport const view = line;\n"],
    [p('model', 'a.ts'), "import { b } from './b.ts';\nexport const a = b;\n"],
    [p('model', 'b.ts'), "import type { a } from './a.ts';\nexport const b = 1 as unknown as typeof a;\n"],
  ]);
  const g = graphOf(sources);

  it('flags a dynamic import upward, in a value or a type, and charts/ importing views/', () => {
    expect(wrongImports(g).sort()).toEqual(
      [
        `${p('charts', 'Line.tsx')} → ${p('views', 'shown.tsx')}`,
        `${p('engine', 'loader.ts')} → ${p('report', 'build.ts')} (dynamic)`,
        `${p('engine', 'typed.ts')} → ${p('report', 'build.ts')} (dynamic)`,
      ].sort(),
    );
  });

  it('finds circles, type-only imports included', () => {
    const statics = new Map([...g].map(([f, deps]) => [f, deps.filter((d) => !d.dynamic).map((d) => d.target)]));
    expect(circles(statics)).toEqual(expect.arrayContaining([[p('model', 'a.ts'), p('model', 'b.ts')], [p('charts', 'Line.tsx'), p('views', 'shown.tsx')]]));
  });
});
