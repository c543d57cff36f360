import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workerCsp, workerOf, WORKERS } from '../../vite.config.ts';

/**
 * Each worker's Content-Security-Policy is attached to the worker itself: the build config lists
 * every worker entry with its policy, names its script after it, and refuses a worker it does not
 * list. A worker renamed or added without the table saying so fails here (and the build).
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every worker the app starts: `new Worker(new URL('…', import.meta.url))`, resolved from its module. */
function startedWorkers(): string[] {
  const out: string[] = [];
  const files = readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && /\.tsx?$/.test(e.name));
  for (const f of files) {
    const file = path.join(f.parentPath, f.name);
    for (const m of readFileSync(file, 'utf8').matchAll(/new Worker\(new URL\('([^']+)', import\.meta\.url\)/g)) {
      out.push(path.relative(ROOT, path.resolve(path.dirname(file), m[1] as string)).split(path.sep).join('/'));
    }
  }
  return out.sort();
}

describe('worker policies', () => {
  it('list every worker the app starts, and only files that exist', () => {
    expect(startedWorkers()).toEqual(Object.keys(WORKERS).sort());
    for (const entry of Object.keys(WORKERS)) expect(existsSync(path.join(ROOT, entry)), entry).toBe(true);
  });

  it('refuse a worker entry the table does not list', () => {
    expect(workerOf(path.join(ROOT, 'src/workers/engine-worker.ts')).name).toBe('engine-worker');
    expect(() => workerOf(path.join(ROOT, 'src/workers/renamed-worker.ts'))).toThrow(/no security policy/);
  });

  it('give a worker script its own policy, built or from the dev server, and other scripts none', () => {
    const engine = WORKERS['src/workers/engine-worker.ts']?.csp;
    const parse = WORKERS['src/engine/parse-worker.ts']?.csp;
    expect(engine).toContain("'unsafe-eval'");
    expect(parse).not.toContain("'unsafe-eval'");
    expect(workerCsp('/assets/engine-worker-DZlGnLlz.js')).toBe(engine);
    expect(workerCsp('/assets/parse-worker-Bz-t_nWx.js')).toBe(parse);
    expect(workerCsp('/src/workers/engine-worker.ts?worker_file&type=module')).toBe(engine);
    expect(workerCsp('/src/engine/parse-worker.ts?type=module&worker_file')).toBe(parse);
    // A worker the table does not know runs nothing; a page script is no worker's.
    expect(workerCsp('/src/engine/other.ts?worker_file&type=module')).toBe("default-src 'none'");
    expect(workerCsp('/assets/index-Ab12Cd34.js')).toBeNull();
    expect(workerCsp('/assets/worker-Ab12Cd34.js')).toBeNull();
  });
});
