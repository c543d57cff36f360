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
  execFileSync('npx', ['tsx', 'src/cli/report.ts', '--out', out, ...dirs], { stdio: ['ignore', 'ignore', 'inherit'] });
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
