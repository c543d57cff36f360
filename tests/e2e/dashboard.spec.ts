import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';

/**
 * The built app, driven as a user would: sample data on first visit, corpus folders through the
 * real folder input, merged figures read back from the summary table and compared with the
 * oracle, every chart drawn with its expected series, a #files= link opened.
 */

const CORPUS = 'tests/fixtures/corpus';
const ARTIFACTS = 'tests/e2e/artifacts';
const PERCENTILES = ['p50', 'p90', 'p95', 'p99', 'p99.9', 'p99.99'] as const;

interface OracleRun {
  dir: string;
  ops: Record<string, { merged: Record<string, number>; perClient: { client: string; count: number }[] }>;
}
const expected = JSON.parse(readFileSync(`${CORPUS}/expected.json`, 'utf8')) as Record<string, { runs?: OracleRun[] }>;
const oracleRuns = Object.values(expected).flatMap((s) => s.runs ?? []);

async function cell(page: Page, run: string, op: string, stat: string): Promise<string | null> {
  return page.locator(`[data-testid=summary-table] td[data-run="${run}"][data-op="${op}"][data-stat="${stat}"]`).getAttribute('data-value');
}

async function freshPage(page: Page): Promise<void> {
  await page.goto('/');
  await expect(page.getByTestId('sample-banner')).toBeVisible();
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await expect(page.getByTestId('summary-table')).toHaveCount(0);
}

async function dropFolder(page: Page, dir: string): Promise<void> {
  await page.getByTestId('folder-input').setInputFiles(dir);
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByTestId('progress')).toHaveCount(0);
}

test('first visit shows the sample data, labelled, with a way to clear it', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await expect(page.getByTestId('sample-banner')).toContainText('sample data');
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByTestId('engine-status')).toContainText('DuckDB ready');
  await page.screenshot({ path: `${ARTIFACTS}/sample-data.png`, fullPage: true });
  expect(errors).toEqual([]);
});

test('a dropped corpus folder gives the oracle figures in the summary table', async ({ page }) => {
  await freshPage(page);
  await dropFolder(page, CORPUS);
  // The corpus README, expected.json and the three YCSB workload files are not results: ignored, not errors.
  await expect(page.getByTestId('ignored')).toContainText('Ignored 5 file(s)');
  await expect(page.getByTestId('ignored')).toContainText('corpus/README.md');
  await expect(page.getByTestId('errors')).toHaveCount(0);
  let checked = 0;
  for (const run of oracleRuns) {
    for (const [op, o] of Object.entries(run.ops)) {
      expect(Number(await cell(page, run.dir, op, 'count')), `${run.dir} ${op} count`).toBe(o.merged.count);
      for (const p of PERCENTILES) {
        expect(Number(await cell(page, run.dir, op, p)), `${run.dir} ${op} ${p}`).toBe(o.merged[p]);
        checked++;
      }
    }
  }
  expect(checked).toBeGreaterThan(100);
  await page.screenshot({ path: `${ARTIFACTS}/corpus-summary.png`, fullPage: true });
});

test('a #files= link loads those files, merged across the clients named', async ({ page }) => {
  const run = oracleRuns.find((r) => r.dir === 'sweep-uniform-a/target-1000');
  if (!run) throw new Error('oracle run missing');
  const files = ['client1-READ.hdr', 'client2-READ.hdr'].map((f) => `sample-results/sweep-uniform-a/target-1000/${f}`);
  await page.goto(`/#files=${files.join(',')}`);
  await expect(page.getByTestId('summary-table')).toBeVisible();
  const read = run.ops.READ;
  if (!read) throw new Error('no READ');
  const twoClients = read.perClient.filter((c) => c.client !== 'client3').reduce((a, c) => a + c.count, 0);
  expect(Number(await cell(page, 'target-1000', 'READ', 'count'))).toBe(twoClients);
  await expect(page.getByTestId('sample-banner')).toHaveCount(0);
});

test('each chart draws its expected series', async ({ page }) => {
  await freshPage(page);
  await dropFolder(page, `${CORPUS}/split-for-heat`);
  await page.getByTestId('folder-input').setInputFiles(`${CORPUS}/sweep-uniform-a`);
  await expect(page.locator('[data-testid=runs-panel] tbody tr')).toHaveCount(6);

  const chart = async (tab: string, id: string, series: number) => {
    await page.getByRole('tab', { name: tab }).click();
    const figure = page.getByTestId(`chart-${id}`);
    await expect(figure).toHaveAttribute('data-series', String(series));
    await expect(figure.locator('svg.recharts-surface').first()).toBeVisible();
    await page.waitForTimeout(300);
    await figure.screenshot({ path: `${ARTIFACTS}/chart-${id}.png` });
    return figure;
  };
  // A sweep line per system × mix × distribution and per operation: uniform sweep and throttled run, READ + UPDATE.
  await chart('Latency vs load', 'latency-vs-load', 4);
  // The throttled run (first run): READ and UPDATE ok, and their failures stacked; four detected steps.
  const throughput = await chart('Throughput over time', 'throughput', 4);
  await expect(throughput.locator('text', { hasText: /^\+2\.0× at 0[01]:[03]0$/ })).not.toHaveCount(0);
  await chart('Latency over time', 'latency-over-time', 2);
  // Six runs × READ, UPDATE.
  await chart('Percentile distribution', 'percentiles', 12);
  await page.getByRole('tab', { name: 'Intended vs actual' }).click();
  await expect(page.getByTestId('chart-intended')).toContainText('measurement.interval=both');
});
