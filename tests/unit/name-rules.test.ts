import { readFileSync } from 'node:fs';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { checkRules, idCollapse, parseRuleSpec, renamer, ruleProblem, withoutIds } from '../../src/model/name-rules.ts';
import { decodeState, encodeState } from '../../src/state/view-state.ts';

/**
 * Grouping operation names: the ID rule on real names, user rules refused when they are invalid or
 * can backtrack exponentially, and renamed operations merged exactly (their samples pooled).
 */

const text = (path: string) => readFileSync(path, 'utf8');


describe('the ID rule', () => {
  it('groups the sub-results of a real JMeter run (label-0 … label-7) and keeps other names', () => {
    const labels = [...new Set(Papa.parse<Record<string, string>>(readFileSync('tests/fixtures/jmeter/cinema-results.jtl', 'utf8'), { header: true, skipEmptyLines: true }).data.map((r) => r.label ?? ''))];
    const { names, groups } = idCollapse(labels);
    expect(names).toBe(29);
    // Three pages × (the page + its 8 numbered sub-results), a page without sub-results, and "Test".
    expect(groups).toBe(3 * 2 + 2);
    expect(withoutIds('Выбор зала-7')).toBe('Выбор зала-{id}');
    expect(withoutIds('Выбор зала')).toBe('Выбор зала');
  });

  it('collapses a real Gatling run’s 107 request names (UUIDs, numbers, query values) to its 4 endpoints', () => {
    const names = text('tests/fixtures/gatling/errors-3.11.5.log')
      .split('\n')
      .map((l) => l.split('\t'))
      .filter((f) => f[0] === 'REQUEST')
      .map((f) => f[2] ?? '');
    expect(idCollapse(names)).toEqual({ names: 107, groups: 4 });
    expect(new Set(names.map(withoutIds))).toEqual(new Set(['GET /index.html', 'GET /users/{id}', 'GET /items/{id}?page={value}', 'GET /missing']));
  });

  it('groups UUIDs, hex, numbers and query values, and keeps ports, versions and words', () => {
    // The first two are request names of a real Gatling 3.6.0 simulation.log: Luchenstein1625/gatling-ai-performance-copilot,
    // app/examples/input/sources/bff-loyalty-admin-coupons/20260610/Gatling/simulation.log, commit 981daff974c639f3bea0be1d7f4898e0332184f2;
    // the third is an operation of tests/fixtures/vegeta/mixed.csv.
    expect(withoutIds('POST /2fb79105-8354-42f6-a589-c38e0ec918ab/oauth2/v2.0/token')).toBe('POST /{id}/oauth2/v2.0/token');
    expect(withoutIds('GET /ECOAzDevOps/ECOAzureDevOps/_apis/distributedtask/variablegroups?groupName=testing-crt')).toBe('GET /ECOAzDevOps/ECOAzureDevOps/_apis/distributedtask/variablegroups?groupName={value}');
    expect(withoutIds('GET http://127.0.0.1:18082/flaky')).toBe('GET http://127.0.0.1:18082/flaky');
    expect(withoutIds('GET /orders/5f3a9c1e77b2/items/42?page=2&sort=asc')).toBe('GET /orders/{id}/items/{id}?page={value}&sort={value}');
    expect(withoutIds('GET /v2/users/facade')).toBe('GET /v2/users/facade');
    expect(withoutIds('HTTP/1.1 GET /a')).toBe('HTTP/1.1 GET /a');
  });
});

describe('user rules', () => {
  it('parse REGEX=>NAME, rename with $n groups, first match wins, keep -FAILED and Intended-', () => {
    const r1 = parseRuleSpec('^(GET|POST) /users/.*=>$1 /users/:id');
    const r2 = parseRuleSpec('users=>never');
    expect('error' in r1 || 'error' in r2).toBe(false);
    const rename = renamer({ ids: false, rules: [r1, r2] as never })!;
    expect(rename('GET /users/17')).toBe('GET /users/:id');
    expect(rename('POST /users/17-FAILED')).toBe('POST /users/:id-FAILED');
    expect(rename('Intended-GET /users/9')).toBe('Intended-GET /users/:id');
    expect(rename('GET /users/9 (first byte)')).toBe('GET /users/:id (first byte)');
    expect(rename('list users')).toBe('never');
    expect(rename('other')).toBe('other');
  });

  it('refuse invalid, catastrophic and oversized patterns with the reason', () => {
    expect(ruleProblem({ pattern: '(a+)+$', name: 'x' })).toMatch(/exponential/);
    expect(ruleProblem({ pattern: '(a|aa)*b', name: 'x' })).toMatch(/exponential/);
    expect(ruleProblem({ pattern: '(\\w*)*', name: 'x' })).toMatch(/exponential/);
    expect(ruleProblem({ pattern: '(a)\\1', name: 'x' })).toMatch(/back-references/);
    expect(ruleProblem({ pattern: '([a-', name: 'x' })).toMatch(/not a regular expression/);
    expect(ruleProblem({ pattern: 'a'.repeat(201), name: 'x' })).toMatch(/over 200/);
    expect(ruleProblem({ pattern: 'a', name: '' })).toMatch(/empty/);
    expect(parseRuleSpec('no arrow')).toEqual({ error: '"no arrow" is not REGEX=>NAME' });
    expect(ruleProblem({ pattern: '^/users/\\d+$', name: 'users' })).toBeNull();
    const many = checkRules({ ids: false, rules: Array.from({ length: 22 }, (_, i) => ({ pattern: `a${i}`, name: 'b' })) });
    expect(many.usable.rules).toHaveLength(20);
    expect(many.problems).toEqual(['only the first 20 rules are used']);
  });

  it('travel in the link, and a refused one from a link is dropped with a notice', () => {
    const names = { ids: true, rules: [{ pattern: '^GET /u/.*', name: 'GET /u/:id' }] };
    const fragment = encodeState({ ...decodeState('').state, names });
    expect(decodeState(fragment).state.names).toEqual(names);
    const bad = decodeState(`${fragment}&group=${encodeURIComponent('(a+)+=>x')}`);
    expect(bad.state.names).toEqual(names);
    expect(bad.notices.join(' ')).toMatch(/name rule in the link refused: .*exponential/);
  });
});

describe('renamed operations are merged exactly', () => {
  it('a Gatling run’s ID groups: every request of the group, nearest rank over all of them', async () => {
    const file = 'tests/fixtures/gatling/errors-3.11.5.log';
    const rows = text(file)
      .split('\n')
      .map((l) => l.split('\t'))
      .filter((f) => f[0] === 'REQUEST' && /^GET \/users\/\d+$/.test(f[2] ?? ''));
    const ok = rows.filter((f) => f[5] === 'OK').map((f) => (Number(f[4]) - Number(f[3])) * 1000).sort((a, b) => a - b);
    const analysis = (await loadFiles([file], { names: { ids: true, rules: [] } })).analysis;
    const run = analysis.runs[0]!;
    expect(run.ops['GET /users/{id}']?.count).toBe(ok.length);
    expect(run.ops['GET /users/{id}']?.p99).toBe(ok[Math.ceil(0.99 * ok.length) - 1]);
    expect(run.ops['GET /users/{id}-FAILED']?.count).toBe(rows.length - ok.length);
    expect(run.failures.find((f) => f.op === 'GET /users/{id}')?.count).toBe(rows.length - ok.length);
  });

  it('GET and POST of one endpoint as one group: every sample pooled, failures summed per cause', async () => {
    const file = 'tests/fixtures/vegeta/mixed.csv';
    const rows = Papa.parse<string[]>(readFileSync(file, 'utf8'), { skipEmptyLines: true }).data.filter((f) => (f[10] ?? '').endsWith('/flaky'));
    const ok = rows.filter((f) => Number(f[1]) >= 200 && Number(f[1]) < 400 && f[5] === '');
    const us = ok.map((f) => Number(f[2])).sort((a, b) => a - b);
    const nearestRank = (p: number) => us[Math.ceil((p / 100) * us.length) - 1] as number;
    const analysis = (await loadFiles([file], { names: { ids: false, rules: [{ pattern: '^(GET|POST) .*/flaky$', name: 'flaky' }] } })).analysis;
    const run = analysis.runs[0]!;
    expect(run.ops.flaky?.count).toBe(ok.length);
    expect(run.ops.flaky?.exact).toBe(true);
    // vegeta records ns; the engine reports µs.
    expect(run.ops.flaky?.p99).toBe(nearestRank(99) / 1000);
    expect(run.ops.flaky?.p50).toBe(nearestRank(50) / 1000);
    expect(run.ops['flaky-FAILED']?.count).toBe(rows.length - ok.length);
    expect(run.failures.filter((f) => f.op === 'flaky')).toEqual([{ op: 'flaky', status: '500', message: '500 Internal Server Error', count: rows.length - ok.length }]);
  });
});
