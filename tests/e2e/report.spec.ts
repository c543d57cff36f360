import { expect, test } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The report of the whole corpus, opened from file:// with the network blocked, as someone opens an
 * attachment: every merged figure equal to expected.json, every chart an SVG, and it prints on A4.
 */

const CORPUS = 'tests/fixtures/corpus';
const ARTIFACTS = 'tests/e2e/artifacts';
const STATS = ['count', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'p99.99', 'max'] as const;

interface OracleRun {
  dir: string;
  ops: Record<string, { merged: Record<string, number> }>;
}
const expected = JSON.parse(readFileSync(`${CORPUS}/expected.json`, 'utf8')) as Record<string, { runs?: OracleRun[] }>;
const oracleRuns = Object.values(expected).flatMap((s) => s.runs ?? []);

test('the corpus report, opened offline, shows the oracle figures and every chart', async ({ page }) => {
  test.setTimeout(120_000);
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'benchlens-report-')), 'report.html');
  const dirs = ['sweep-uniform-a', 'zipfian-a', 'raw-csv-b', 'intended-a', 'split-for-heat'].map((d) => `${CORPUS}/${d}`);
  execFileSync('npx', ['tsx', 'src/cli/benchlens.ts', 'report', '--out', out, ...dirs], { stdio: ['ignore', 'ignore', 'inherit'] });
  console.log(`corpus report: ${statSync(out).size} bytes`);

  const requests: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    requests.push(url);
    return route.abort();
  });
  await page.goto(`file://${path.resolve(out)}`);
  await expect(page.getByTestId('summary-table')).toBeVisible();

  // Labels are folder paths without the prefix all runs share: <scenario>/<run>.
  for (const r of oracleRuns) {
    const label = r.dir;
    for (const [op, o] of Object.entries(r.ops)) {
      for (const stat of STATS) {
        const value = await page.locator(`td[data-run="${label}"][data-op="${op}"][data-stat="${stat}"]`).first().getAttribute('data-value');
        expect(Number(value), `${label} ${op} ${stat}`).toBe(o.merged[stat]);
      }
    }
  }
  const charts = page.locator('figure[data-chart]');
  expect(await charts.count()).toBe(5);
  for (const figure of await charts.all()) await expect(figure.locator('svg').first()).toBeVisible();
  expect(await page.locator('script').count()).toBe(0);
  expect(requests).toEqual([]);
  await page.screenshot({ path: `${ARTIFACTS}/report.png`, fullPage: false });

  const pdf = await page.pdf({ format: 'A4' });
  expect(pdf.length).toBeGreaterThan(10_000);
});

test('Download report in the app writes the same report, with the files hashed', async ({ page, context }) => {
  test.setTimeout(120_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await expect(page.getByTestId('sample-banner')).toBeVisible();
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await page.getByTestId('folder-input').setInputFiles(`${CORPUS}/sweep-uniform-a`);
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByTestId('progress')).toHaveCount(0);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-button').click()]);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'benchlens-app-report-')), 'report.html');
  await download.saveAs(file);
  expect(errors).toEqual([]);

  const report = await context.newPage();
  const requests: string[] = [];
  await report.route('**/*', (route) => {
    if (route.request().url().startsWith('file:')) return route.continue();
    requests.push(route.request().url());
    return route.abort();
  });
  await report.goto(`file://${file}`);
  const run = oracleRuns.find((r) => r.dir === 'sweep-uniform-a/target-1000') as OracleRun;
  for (const stat of STATS) {
    expect(Number(await report.locator(`td[data-run="target-1000"][data-op="READ"][data-stat="${stat}"]`).first().getAttribute('data-value')), stat).toBe(run.ops.READ?.merged[stat]);
  }
  expect(await report.locator('figure[data-chart] svg').count()).toBeGreaterThanOrEqual(5);
  // The files were hashed in the page: 75 of them, each a 64-digit SHA-256.
  expect(await report.locator('td.hash').evaluateAll((cells) => cells.filter((c) => /^[0-9a-f]{64}$/.test(c.textContent ?? '')).length)).toBe(75);
  await expect(report.getByTestId('open-link')).toHaveAttribute('href', /#.*data=/);
  expect(requests).toEqual([]);
  await report.screenshot({ path: `${ARTIFACTS}/report-from-app.png` });
});
