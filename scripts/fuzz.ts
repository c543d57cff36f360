/**
 * Long fuzz campaign: the fuzz suite (tests/unit/fuzz) with many cases per property, then a table
 * of cases per format and every failure with the seed that replays it.
 *
 *   npm run fuzz                      20,000 cases per property (heavy ones are capped)
 *   npm run fuzz -- --runs 2000       fewer
 *   npm run fuzz -- --seed 42         replay a run (with the same --runs)
 *   npm run fuzz -- --only hdr-log    one format's file (any vitest file filter)
 *
 * CI runs the same suite with the default handful of cases (FUZZ_RUNS unset).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

interface StatLine {
  format: string;
  property: string;
  planned: number;
  runs: number;
  shrinks: number;
  failed: boolean;
  seed: number;
  report: string | null;
}

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const runs = Number(option('runs') ?? 20_000);
const seed = option('seed');
const only = option('only');
if (!Number.isInteger(runs) || runs < 1) {
  console.error('usage: tsx scripts/fuzz.ts [--runs N] [--seed S] [--only FILTER]');
  process.exit(2);
}

const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-fuzz-'));
const statsFile = path.join(dir, 'stats.jsonl');
const started = Date.now();
console.log(`fuzz campaign: ${runs} cases per property${seed ? `, seed ${seed}` : ''}${only ? `, only ${only}` : ''}\n`);

const args = ['vitest', 'run', only ? `tests/unit/fuzz/${only}` : 'tests/unit/fuzz', '--reporter=dot'];
const child = spawn('npx', args, {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_RUNS: String(runs), FUZZ_STATS: statsFile, ...(seed ? { FUZZ_SEED: seed } : {}) },
});

const code: number = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));

let lines: StatLine[] = [];
try {
  lines = readFileSync(statsFile, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as StatLine);
} catch {
  // No property finished (the run failed before): the table is empty, vitest said why.
}
rmSync(dir, { recursive: true, force: true });

const byFormat = new Map<string, { properties: number; cases: number; failed: number }>();
for (const l of lines) {
  const f = byFormat.get(l.format) ?? { properties: 0, cases: 0, failed: 0 };
  f.properties++;
  f.cases += l.runs;
  if (l.failed) f.failed++;
  byFormat.set(l.format, f);
}

const pad = (s: string | number, n: number) => String(s).padStart(n);
console.log(`\n${'format'.padEnd(12)}${pad('properties', 12)}${pad('cases', 12)}${pad('failed', 8)}`);
let total = 0;
for (const [format, f] of [...byFormat].sort()) {
  total += f.cases;
  console.log(`${format.padEnd(12)}${pad(f.properties, 12)}${pad(f.cases, 12)}${pad(f.failed, 8)}`);
}
console.log(`${'all'.padEnd(12)}${pad(lines.length, 12)}${pad(total, 12)}${pad(lines.filter((l) => l.failed).length, 8)}`);
console.log(`\n${((Date.now() - started) / 60_000).toFixed(1)} min; vitest exit code ${code}`);

for (const l of lines.filter((x) => x.failed)) {
  console.log(`\nFAILED [${l.format}] ${l.property}\n  replay: npm run fuzz -- --runs ${runs} --seed ${l.seed}\n${(l.report ?? '').split('\n').slice(0, 12).map((s) => `  ${s}`).join('\n')}`);
}
process.exit(code);
