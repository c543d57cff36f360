/**
 * benchlens's change points (src/analysis/changepoint.ts) beside Apache Otava's and MongoDB's
 * E-Divisive on the same simulated histories (tests/unit/helpers/history-sim.ts): per scenario, how
 * often each finds a change, finds it at the step, and how often they agree. Not run by CI; needs
 * the Python packages named in scripts/otava-crosscheck.py.
 *
 *   OTAVA_PYTHON=/tmp/otava/bin/python npx tsx scripts/otava-crosscheck.ts [--trials 200]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { detectChangePoints } from '../src/analysis/changepoint.ts';
import { Rng } from '../src/analysis/rng.ts';
import { simulateHistory, type SimOptions } from '../tests/unit/helpers/history-sim.ts';

const trials = Number(process.argv[process.argv.indexOf('--trials') + 1] ?? 200) || 200;
const python = process.env.OTAVA_PYTHON ?? 'python3';
const OTAVA_P = [0.001, 0.02];

const scenarios: { name: string; sim: SimOptions; steps: number[] }[] = [
  { name: 'no change (20 runs)', sim: { runs: 20 }, steps: [] },
  { name: '20% step at run 10 of 20', sim: { runs: 20, stepAt: 10, factor: 1.2 }, steps: [10] },
  { name: '20% step at run 5 of 20', sim: { runs: 20, stepAt: 5, factor: 1.2 }, steps: [5] },
  { name: 'steps +30% at 10, −30% at 20 of 30', sim: { runs: 30, stepAt: 10, factor: 1.3, stepAt2: 20, factor2: 0.7 }, steps: [10, 20] },
  { name: 'one outlier run ×3 at run 10 of 20', sim: { runs: 20, outlierAt: 10, outlierFactor: 3 }, steps: [] },
  { name: 'one outlier run ×3 at run 18 of 20', sim: { runs: 20, outlierAt: 18, outlierFactor: 3 }, steps: [] },
];

const rng = new Rng(2026);
const all = scenarios.map((s) => ({ ...s, series: Array.from({ length: trials }, () => simulateHistory(rng, s.sim)) }));
const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-otava-'));
const input = path.join(dir, 'series.json');
writeFileSync(input, JSON.stringify({ series: all.flatMap((s) => s.series.map((pts) => pts.map((p) => p.value))), otavaPValues: OTAVA_P, eDivisivePValue: 0.05 }));
const theirs = JSON.parse(execFileSync(python, [path.join('scripts', 'otava-crosscheck.py'), input], { maxBuffer: 1 << 28 }).toString()) as { otava: Record<string, number[][]>; eDivisive: number[][] };

const pct = (n: number, d: number) => (d === 0 ? '–' : `${((n / d) * 100).toFixed(1)}%`);
const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);
let at = 0;
console.log(`${trials} series a scenario, 5% run-to-run noise, 3% own (10% on one run in ten)\n`);
console.log('scenario | method | any change | all steps found exactly | same as benchlens');
for (const s of all) {
  const ours = s.series.map((pts) => detectChangePoints(pts).map((c) => c.index));
  const methods: [string, number[][]][] = [
    ['benchlens (α 0.02)', ours],
    ...OTAVA_P.map((p): [string, number[][]] => [`Otava (max_pvalue ${p})`, (theirs.otava[String(p)] as number[][]).slice(at, at + trials)]),
    ['E-Divisive (p 0.05, 100 permutations)', theirs.eDivisive.slice(at, at + trials)],
  ];
  for (const [name, found] of methods) {
    const any = found.filter((f) => f.length > 0).length;
    const exact = s.steps.length ? found.filter((f) => same(f, s.steps)).length : found.filter((f) => f.length === 0).length;
    const agree = found.filter((f, i) => same(f, ours[i] as number[])).length;
    console.log(`${s.name} | ${name} | ${pct(any, trials)} | ${s.steps.length ? pct(exact, trials) : `(none: ${pct(exact, trials)})`} | ${pct(agree, trials)}`);
  }
  at += trials;
}
