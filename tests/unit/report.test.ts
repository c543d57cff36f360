import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { linkDataToSnapshot, snapshotFromFile } from '../../src/state/snapshot.ts';
import { decodeState } from '../../src/state/view-state.ts';

/**
 * The report file, as `npm run report` writes it: the corpus's merged figures in cells a tool can
 * read (the app's own attributes), every chart as inline SVG, names as text never markup, no script,
 * and the data to reopen the runs in the app.
 */

const run = promisify(execFile);
const CORPUS = 'tests/fixtures/corpus';
const expected = JSON.parse(readFileSync(`${CORPUS}/expected.json`, 'utf8')) as Record<string, { runs?: { run: string; ops: Record<string, { merged: Record<string, number> }> }[] }>;

async function report(args: string[]): Promise<{ html: string; code: number; stderr: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-report-'));
  const out = path.join(dir, 'report.html');
  try {
    const r = await run('npx', ['tsx', 'src/cli/benchlens.ts', 'report', '--out', out, ...args]);
    return { html: readFileSync(out, 'utf8'), code: 0, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stderr: string };
    let html = '';
    try {
      html = readFileSync(out, 'utf8');
    } catch {
      // no report written
    }
    return { html, code: err.code, stderr: err.stderr };
  }
}

/** data-value of the summary cell of (run, op, stat), read from the markup. */
function cell(html: string, runLabel: string, op: string, stat: string): number | null {
  const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const re = new RegExp(`data-run="${escapeRe(attr(runLabel))}" data-op="${escapeRe(attr(op))}" data-stat="${escapeRe(stat)}"(?: data-value="([^"]*)")?`);
  const m = re.exec(html);
  if (!m) throw new Error(`no cell ${runLabel} ${op} ${stat}`);
  return m[1] === undefined ? null : Number(m[1]);
}
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('report of the uniform sweep', () => {
  it('carries the oracle figures, every chart, no script, and a link that reopens the runs', async () => {
    const { html, code } = await report(['--sla', 'p99 of READ <= 5 ms', '--app-url', 'https://bench.example/app/', `${CORPUS}/sweep-uniform-a`]);
    expect(code).toBe(0);
    const runs = expected['sweep-uniform-a']?.runs ?? [];
    expect(runs.length).toBe(5);
    for (const r of runs) {
      for (const [op, o] of Object.entries(r.ops)) {
        for (const stat of ['count', 'min', 'max', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'p99.99'] as const) {
          if (stat === 'min') continue; // the summary table shows no min column
          expect(cell(html, r.run, op, stat), `${r.run} ${op} ${stat}`).toBe(o.merged[stat]);
        }
      }
    }
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect((html.match(/<figure data-chart="/g) ?? []).length).toBe(5);
    expect((html.match(/<svg /g) ?? []).length).toBeGreaterThanOrEqual(5);
    // The SLA verdicts, and every file with its hash.
    expect(html).toContain('data-stat="sla"');
    expect((html.match(/[0-9a-f]{64}/g) ?? []).length).toBe(75);
    // The link reopens the same runs with the same merged p99.
    const href = /href="(https:\/\/bench\.example\/app\/#[^"]*)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    expect(href).toBeDefined();
    const state = decodeState(new URL(href as string).hash).state;
    const snapshot = linkDataToSnapshot(state.data);
    expect(snapshot.runs.map((r) => r.label).sort()).toEqual(runs.map((r) => r.run).sort());
    expect(state.sla).toBe('p99 of READ <= 5 ms');
    // With an app address, a link carrying every histogram needs no attached file.
    expect(html).not.toContain('data-testid="attachment"');
  });

  it('without an app address, attaches the snapshot file, which the app reads back', async () => {
    const { html } = await report([`${CORPUS}/sweep-uniform-a/target-250`]);
    const data = /href="data:application\/json;base64,([^"]*)"/.exec(html)?.[1];
    expect(data).toBeDefined();
    const snapshot = snapshotFromFile(Buffer.from(data as string, 'base64').toString('utf8'));
    expect(snapshot.runs.map((r) => r.label)).toEqual(['target-250']);
  });
});

describe('report edge cases', () => {
  it('a name or label with markup in it appears as text', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-report-xss-'));
    const evil = path.join(dir, '<img src=x onerror=alert(1)>');
    mkdirSync(evil);
    cpSync(`${CORPUS}/sweep-uniform-a/target-250`, evil, { recursive: true });
    const { html, code } = await report([evil]);
    expect(code).toBe(0);
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toMatch(/<script/i);
  });

  it('a report of nothing says so, and exits 1 for what could not be read', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-report-empty-'));
    writeFileSync(path.join(dir, 'client1-READ.hdr'), '#[StartTime: 1.0]\nnot a histogram line\n');
    const { html, code } = await report([path.join(dir, 'client1-READ.hdr')]);
    expect(code).toBe(1);
    expect(html).toContain('data-testid="no-runs"');
    expect(html).toContain('client1-READ.hdr');
  });

  it('refuses bad usage with exit 2', async () => {
    expect((await report([])).code).toBe(2);
    expect((await report(['--sla', 'p99 of READ', CORPUS])).code).toBe(2);
  });
});
