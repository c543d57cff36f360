import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMMANDS, dispatch, USAGE } from '../../src/cli/commands.ts';
import { loadFiles } from './helpers/engine-load.ts';
import { THEMES } from '../../src/display/theme.ts';

/**
 * benchlens as an installable package: the command table (every command reachable, with its own
 * help), and the tarball `npm pack` makes (its prepack builds dist-cli/ with vite.cli.config.ts),
 * installed into an empty folder and run there on plain Node, with no TypeScript runner: its help,
 * every command's help, `summarize --json` on a corpus run (the oracle's figures, and the same JSON
 * as the source's), and `check --junit`.
 */

const REPO = path.resolve(import.meta.dirname, '../..');
const NAMES = Object.keys(COMMANDS);
const version = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

/** What `dispatch` writes to stdout and stderr, and its exit code. */
async function inProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    return { code: await dispatch(args), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe('the command table', () => {
  it('lists every command in the help, each with a module that exports its usage and main', async () => {
    const help = await inProcess(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(`${USAGE}\n`);
    for (const name of NAMES) {
      expect(help.stdout).toMatch(new RegExp(`^  ${name} +${COMMANDS[name]!.about.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
      const module = await COMMANDS[name]!.load();
      expect(module.USAGE.startsWith(`usage: benchlens ${name} `), name).toBe(true);
      expect(typeof module.main).toBe('function');
      const own = await inProcess([name, '--help']);
      expect(own).toEqual({ code: 0, stdout: `${module.USAGE}\n`, stderr: '' });
    }
  });

  it('refuses no command and an unknown one with the usage (exit 2), and names its version', async () => {
    expect(await inProcess([])).toEqual({ code: 2, stdout: '', stderr: `${USAGE}\n` });
    // Names of Object.prototype are not commands either.
    for (const name of ['nope', 'constructor', '__proto__', 'toString']) expect(await inProcess([name])).toEqual({ code: 2, stdout: '', stderr: `error: no command ${name}\n\n${USAGE}\n` });
    expect(await inProcess(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a child npm: without the `npm_*` variables an enclosing `npm test` exports
 * (among them npm_config_local_prefix, this repository), so that npm works in the folder it is given.
 */
const childEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'INIT_CWD'));

function run(command: string, args: string[], cwd: string): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: childEnv, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr });
    });
  });
}

const RUN = 'tests/fixtures/corpus/intended-a';
/** Each command starts Node (and DuckDB-WASM): seconds each, many more on a loaded machine. */
const SPAWNS = 120_000;
const oracle = (JSON.parse(readFileSync(path.join(REPO, 'tests/fixtures/corpus/expected.json'), 'utf8')) as Record<string, { runs: { ops: Record<string, { merged: Record<string, number> }> }[] }>)['intended-a']!.runs[0]!;

describe('the packed CLI, installed into an empty folder', () => {
  // Made when the tests run (not when they are collected), and removed after them.
  let work = '';
  let app = '';
  const distCli = path.join(REPO, 'dist-cli');
  // dist-cli/ is the build's output (ignored by git): removed again if this test made it.
  let hadDistCli = true;
  let tarball: { name: string; files: string[]; bytes: number } | undefined;
  // The installed command as a shell finds it (its shebang starts Node); npx is tried once below.
  const benchlens = (args: string[]) => run(path.join(app, 'node_modules/.bin/benchlens'), args, app);

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'benchlens-package-'));
    app = path.join(work, 'app');
    hadDistCli = existsSync(distCli);
    const pack = await run('npm', ['pack', '--pack-destination', work], REPO);
    if (pack.code !== 0) throw new Error(`npm pack failed (${pack.code}):\n${pack.stderr}`);
    const name = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (name === undefined) throw new Error(`npm pack wrote no tarball:\n${pack.stdout}`);
    const listing = await run('tar', ['tzf', path.join(work, name)], work);
    tarball = { name, files: listing.stdout.split('\n').filter(Boolean), bytes: readFileSync(path.join(work, name)).length };
    mkdirSync(app);
    // An empty project: its package.json pins npm's prefix here, whatever the folders above hold.
    writeFileSync(path.join(app, 'package.json'), '{"private": true}\n');
    const install = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(work, name)], app);
    if (install.code !== 0) throw new Error(`npm install of the tarball failed (${install.code}):\n${install.stderr}`);
    // The run at the same relative path as in the repository: the same paths in the output.
    cpSync(path.join(REPO, RUN), path.join(app, RUN), { recursive: true });
  }, 180_000);

  afterAll(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
    if (!hadDistCli) rmSync(distCli, { recursive: true, force: true });
  });

  it('packs the built JavaScript, nothing else of the repository', () => {
    expect(tarball?.name).toBe(`benchlens-${version}.tgz`);
    const files = tarball?.files ?? [];
    expect(files).toContain('package/dist-cli/benchlens.js');
    expect(files).toContain('package/package.json');
    const unexpected = files.filter((f) => !/^package\/(dist-cli\/[\w/-]+\.js|package\.json|README\.md)$/.test(f));
    expect(unexpected).toEqual([]);
    // ~260 KB today; sample data or tests packed by mistake would be megabytes.
    expect(tarball?.bytes).toBeLessThan(1_000_000);
  });

  it('runs from the installed JavaScript: its help and every command of the table', async () => {
    const bin = readFileSync(path.join(app, 'node_modules/benchlens/dist-cli/benchlens.js'), 'utf8');
    expect(bin.startsWith('#!/usr/bin/env node\n')).toBe(true);
    // `--` keeps npx from taking --help as its own.
    const [npx, help, ...own] = await Promise.all([run('npx', ['--no', '--', 'benchlens', '--help'], app), benchlens(['--help']), ...NAMES.map((name) => benchlens([name, '--help']))]);
    expect(npx).toEqual({ code: 0, stdout: `${USAGE}\n`, stderr: '' });
    expect(help).toEqual(npx);
    for (const [i, name] of NAMES.entries()) {
      expect(own[i]?.code, own[i]?.stderr).toBe(0);
      expect(own[i]?.stdout).toBe(`${(await COMMANDS[name]!.load()).USAGE}\n`);
    }
  }, SPAWNS);

  it('imports at run time only Node and the packages of dependencies', () => {
    const dependencies = Object.keys((JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies);
    const dist = path.join(app, 'node_modules/benchlens/dist-cli');
    const code = readdirSync(dist, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(path.join(dist, f), 'utf8'))
      .join('\n');
    const specifiers = new Set([...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']([^"'.][^"']*)["']/g)].map((m) => m[1]!));
    const packages = [...specifiers].filter((s) => !s.startsWith('node:')).map((s) => s.split('/').slice(0, s.startsWith('@') ? 2 : 1).join('/'));
    expect(packages).toContain('@duckdb/duckdb-wasm');
    expect(packages.filter((p) => !dependencies.includes(p))).toEqual([]);
  });

  it('summarize --json gives the oracle figures and the JSON of the source; chart draws with the shipped colours', async () => {
    const [installed, svg, fromSource] = await Promise.all([
      benchlens(['summarize', '--json', RUN]),
      benchlens(['chart', '--chart', 'percentiles', '--theme', 'dark', RUN]),
      // What the source's summarize prints: the same functions, here in the test's process.
      loadFiles([RUN]).then(({ analysis }) => `${JSON.stringify(analysis, null, 2)}\n`),
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toBe(fromSource);
    // chart draws with the theme's colours (src/display/theme.ts), built into the package.
    expect(svg.code, svg.stderr).toBe(0);
    expect(svg.stdout.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')).toBe(true);
    const light = Object.values(THEMES.light.vars);
    const darkOnly = Object.values(THEMES.dark.vars).filter((v) => !light.includes(v));
    expect(darkOnly.filter((colour) => svg.stdout.includes(`"${colour}"`)).length).toBeGreaterThanOrEqual(3);
    const analysis = JSON.parse(installed.stdout) as { runs: { dir: string; ops: Record<string, Record<string, number>> }[]; errors: unknown[] };
    expect(analysis.errors).toEqual([]);
    expect(analysis.runs.map((r) => r.dir)).toEqual([`${RUN}/target-5000`]);
    const ops = analysis.runs[0]!.ops;
    expect(Object.keys(ops).sort()).toEqual(Object.keys(oracle.ops).sort());
    for (const [op, { merged }] of Object.entries(oracle.ops)) {
      for (const key of ['count', 'min', 'max', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'p99.99']) expect(ops[op]?.[key], `${op} ${key}`).toBe(merged[key]);
      expect(ops[op]?.mean).toBeCloseTo(merged.mean!, 9);
    }
  }, SPAWNS);

  it('check --junit holds an SLA and fails a broken one, in JUnit XML', async () => {
    // The run's READ p99 is 2,003 µs (the oracle's).
    const [held, broken] = await Promise.all([
      benchlens(['check', '--junit', 'held.xml', '--sla', 'p99 of READ <= 10 ms', RUN]),
      benchlens(['check', '--junit', 'broken.xml', '--sla', 'p99 of READ <= 1 ms', RUN]),
    ]);
    expect(held.code, held.stderr).toBe(0);
    expect(broken.code, broken.stderr).toBe(1);
    const heldXml = readFileSync(path.join(app, 'held.xml'), 'utf8');
    const brokenXml = readFileSync(path.join(app, 'broken.xml'), 'utf8');
    for (const xml of [heldXml, brokenXml]) {
      expect(xml).toMatch(/<testsuite[\s>]/);
      expect(xml).toMatch(/<testcase[\s>]/);
    }
    expect(heldXml).not.toContain('<failure');
    expect(brokenXml).toContain('<failure');
  }, SPAWNS);
});
