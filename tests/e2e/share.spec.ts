import { expect, test, type Browser, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';

/**
 * Sharing without a server: the self-contained link reproduces the summary table in a fresh
 * browser that can reach nothing but the app — carrying the merged histograms when they fit, and
 * only the figures shown when they do not — and the snapshot file offered beside a figures-only
 * link reproduces it too.
 */

const CORPUS = 'tests/fixtures/corpus';
const ARTIFACTS = 'tests/e2e/artifacts';

async function tableValues(page: Page): Promise<Record<string, string>> {
  await expect(page.getByTestId('summary-table')).toBeVisible();
  return page.evaluate(() => {
    const out: Record<string, string> = {};
    for (const td of document.querySelectorAll<HTMLElement>('[data-testid=summary-table] td[data-stat][data-value]')) {
      out[`${td.dataset.run} ${td.dataset.op} ${td.dataset.stat}`] = td.dataset.value ?? '';
    }
    return out;
  });
}

async function loadFolder(page: Page, dir: string): Promise<void> {
  await page.goto('/');
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await page.getByTestId('folder-input').setInputFiles(dir);
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByTestId('progress')).toHaveCount(0);
}

/** A context that can reach the app's own origin and nothing else. */
async function isolatedPage(browser: Browser, baseURL: string): Promise<Page> {
  const context = await browser.newContext();
  const origin = new URL(baseURL).origin;
  await context.route('**/*', (route) => (route.request().url().startsWith(origin) ? route.continue() : route.abort()));
  return context.newPage();
}

test('a self-contained link reproduces the summary table and charts with nothing hosted', async ({ page, browser, baseURL }) => {
  await loadFolder(page, `${CORPUS}/sweep-uniform-a`);
  const original = await tableValues(page);
  // Only merged figures and the naive ones travel; the table shows both.
  const merged = Object.keys(original).filter((k) => !k.endsWith('throughput'));
  expect(merged.length).toBeGreaterThan(100);

  await page.getByTestId('share-button').click();
  await expect(page.getByTestId('share-level')).toHaveAttribute('data-level', 'histograms');
  const url = await page.getByTestId('share-url').inputValue();
  expect(new URL(url).hash).toContain('data=');
  expect(new URL(url).hash).not.toContain('files=');
  expect(url.length).toBeLessThanOrEqual(32 * 1024 + 200);

  const fresh = await isolatedPage(browser, baseURL ?? '');
  await fresh.goto(url);
  await expect(fresh.getByTestId('snapshot-banner')).toHaveAttribute('data-level', 'histograms');
  const reopened = await tableValues(fresh);
  for (const key of Object.keys(original)) expect(reopened[key], key).toBe(original[key]);
  await expect(fresh.getByTestId('chart-latency-vs-load')).toHaveAttribute('data-series', '2');
  await fresh.getByRole('tab', { name: 'Throughput over time' }).click();
  await expect(fresh.getByTestId('chart-throughput')).toHaveAttribute('data-series', /[1-9]/);
  await fresh.screenshot({ path: `${ARTIFACTS}/share-reopened.png`, fullPage: true });
});

test('a comparison whose histograms do not fit travels as figures only, which reproduce the table and charts; its snapshot file is offered beside it', async ({ page, browser, baseURL }) => {
  await loadFolder(page, CORPUS);
  const original = await tableValues(page);
  // The tagged folder's READ (histogram + .hgrm) is known only as bounds and is not carried.
  // Nor is the all-requests row (new with the overview): from figures only it is recomputed as bounds.
  const carried = Object.keys(original).filter((k) => !k.startsWith('tagged-from-sweep READ') && !k.includes(' all requests '));
  expect(carried.length).toBeGreaterThan(200);
  await page.getByRole('tab', { name: 'Percentile distribution' }).click();
  await expect(page.getByTestId('chart-percentiles')).toHaveAttribute('data-series', /^[1-9]/);
  const curves = await page.getByTestId('chart-percentiles').getAttribute('data-series');

  await page.getByTestId('share-button').click();
  const level = page.getByTestId('share-level');
  await expect(level).toHaveAttribute('data-level', 'figures');
  await expect(level).toContainText('figures only');
  const url = await page.getByTestId('share-url').inputValue();
  expect(url.length).toBeLessThanOrEqual(32 * 1024 + 200);

  const fresh = await isolatedPage(browser, baseURL ?? '');
  await fresh.goto(url);
  await expect(fresh.getByTestId('snapshot-banner')).toHaveAttribute('data-level', 'figures');
  const reopened = await tableValues(fresh);
  for (const key of carried) expect(reopened[key], key).toBe(original[key]);
  await fresh.getByRole('tab', { name: 'Percentile distribution' }).click();
  // Every curve but the tagged READ's, which is not carried.
  await expect(fresh.getByTestId('chart-percentiles')).toHaveAttribute('data-series', String(Number(curves) - 1));
  await fresh.screenshot({ path: `${ARTIFACTS}/share-figures-only.png`, fullPage: true });

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-snapshot').click()]);
  const file = await download.path();
  if (!file) throw new Error('no download');
  expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ format: 'benchlens-comparison', version: 1 });

  await page.goto('/');
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await page.getByTestId('file-input').setInputFiles({ name: 'snapshot.benchlens.json', mimeType: 'application/json', buffer: readFileSync(file) });
  await expect(page.getByTestId('summary-table')).toBeVisible();
  // A dropped comparison says what it carries, as a link does: this file holds the full histograms.
  await expect(page.getByTestId('snapshot-banner')).toHaveAttribute('data-level', 'histograms');
  const fromFile = await tableValues(page);
  for (const key of carried) expect(fromFile[key], key).toBe(original[key]);
});
