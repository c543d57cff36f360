import { expect, test, type Browser, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';

/**
 * Deciding in the built app: two corpus runs compared with verdicts and intervals, capacity and
 * price at an SLA worked out from the corpus's oracle, and both shown again from a self-contained
 * link opened in a browser that can reach nothing but the app.
 */

const CORPUS = 'tests/fixtures/corpus';
const ARTIFACTS = 'tests/e2e/artifacts';
const oracle = JSON.parse(readFileSync(`${CORPUS}/expected.json`, 'utf8'))['sweep-uniform-a'].runs as { run: string; achievedThroughputOpsPerS: number; ops: Record<string, { merged: Record<string, number> }> }[];
const level = (run: string) => oracle.find((r) => r.run === run) as (typeof oracle)[number];

async function loadFolder(page: Page, dir: string): Promise<void> {
  await page.goto('/');
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await page.getByTestId('folder-input').setInputFiles(dir);
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByTestId('progress')).toHaveCount(0);
}

async function isolatedPage(browser: Browser, baseURL: string): Promise<Page> {
  const context = await browser.newContext();
  const origin = new URL(baseURL).origin;
  await context.route('**/*', (route) => (route.request().url().startsWith(origin) ? route.continue() : route.abort()));
  return context.newPage();
}

/** Every row of the comparison table: its verdict and exact ratio, by "op stat". */
async function comparisonRows(page: Page): Promise<Record<string, { verdict: string; ratio: string | null; low: string | null; high: string | null }>> {
  await expect(page.getByTestId('comparison-table')).toBeVisible();
  return page.evaluate(() => {
    const out: Record<string, { verdict: string; ratio: string | null; low: string | null; high: string | null }> = {};
    for (const td of document.querySelectorAll<HTMLElement>('[data-testid=comparison-table] td[data-verdict]')) {
      const key = `${td.dataset.op} ${td.dataset.stat}`;
      const row = td.closest('tr') as HTMLElement;
      out[key] = {
        verdict: td.dataset.verdict ?? '',
        ratio: row.querySelector<HTMLElement>('td[data-side=ratio]')?.dataset.value ?? null,
        low: row.querySelector<HTMLElement>('td[data-side=ci]')?.dataset.low ?? null,
        high: row.querySelector<HTMLElement>('td[data-side=ci]')?.dataset.high ?? null,
      };
    }
    return out;
  });
}

test('two corpus runs compared with verdicts; capacity and price at an SLA; both survive a share link', async ({ page, browser, baseURL }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await loadFolder(page, `${CORPUS}/sweep-uniform-a`);

  await page.getByTestId('compare-baseline').selectOption({ label: 'run target-250' });
  await page.getByTestId('compare-candidate').selectOption({ label: 'run target-2000' });
  // Choosing the baseline first compares it with another run; wait for the pair chosen.
  await expect(page.getByTestId('comparison').locator('p').first()).toHaveText(/^target-2000 \(candidate\) against target-250 \(baseline\)/);
  const rows = await comparisonRows(page);
  expect(Object.keys(rows)).toEqual(['READ p50', 'READ p99', 'READ p99.9', 'READ throughput', 'UPDATE p50', 'UPDATE p99', 'UPDATE p99.9', 'UPDATE throughput', 'all operations throughput']);
  // Eight times the offered load: throughput is better, and its ratio is the oracle's.
  expect(rows['all operations throughput']?.verdict).toBe('better');
  expect(Number(rows['all operations throughput']?.ratio)).toBeCloseTo(level('target-2000').achievedThroughputOpsPerS / level('target-250').achievedThroughputOpsPerS, 9);
  expect(Number(rows['READ p50']?.ratio)).toBeCloseTo((level('target-2000').ops.READ?.merged.p50 as number) / (level('target-250').ops.READ?.merged.p50 as number), 12);
  for (const r of Object.values(rows).filter((x) => x.verdict !== 'none')) expect(Number(r.low)).toBeLessThanOrEqual(Number(r.high));
  await expect(page.getByTestId('comparison-method')).toContainText('moving-block bootstrap');
  await expect(page.getByTestId('block-length')).toHaveAttribute('data-baseline', /^\d+$/);
  await page.getByTestId('compare-panel').screenshot({ path: `${ARTIFACTS}/compare-panel.png` });

  await page.getByLabel('SLA rules for capacity').fill('p95 of READ <= 300 us');
  await page.getByLabel('price of RedisDB').selectOption('monthly');
  await page.getByLabel('$ per month of RedisDB').fill('1000');
  const capacity = page.locator('[data-testid=capacity-table] tr[data-system=RedisDB]');
  const x1 = level('target-2000').achievedThroughputOpsPerS;
  const x2 = level('target-unthrottled').achievedThroughputOpsPerS;
  const [y1, y2] = [level('target-2000').ops.READ?.merged.p95 as number, level('target-unthrottled').ops.READ?.merged.p95 as number];
  await expect(capacity.locator('td[data-stat=monthly]')).toHaveAttribute('data-value', '1000');
  expect(Number(await capacity.locator('td[data-stat=max]').getAttribute('data-value'))).toBeCloseTo(x1, 9);
  expect(Number(await capacity.locator('td[data-stat=fails-at]').getAttribute('data-value'))).toBeCloseTo(x2, 9);
  expect(Number(await capacity.locator('td[data-stat=estimate]').getAttribute('data-value'))).toBeCloseTo(x1 + ((300 - y1) / (y2 - y1)) * (x2 - x1), 6);
  expect(Number(await capacity.locator('td[data-stat=per-kops]').getAttribute('data-value'))).toBeCloseTo(1000 / (x1 / 1000), 9);
  await page.getByTestId('capacity-panel').screenshot({ path: `${ARTIFACTS}/capacity-panel.png` });

  // The link carries the comparison as computed, and everything the capacity table needs.
  await page.getByTestId('share-button').click();
  const url = await page.getByTestId('share-url').inputValue();
  expect(new URL(url).hash).toContain('compare=');
  const fresh = await isolatedPage(browser, baseURL ?? '');
  await fresh.goto(url);
  await expect(fresh.getByTestId('snapshot-banner')).toBeVisible();
  await expect(fresh.getByTestId('comparison-carried')).toBeVisible();
  expect(await comparisonRows(fresh)).toEqual(rows);
  const reopened = fresh.locator('[data-testid=capacity-table] tr[data-system=RedisDB]');
  for (const stat of ['max', 'fails-at', 'estimate', 'monthly', 'per-kops']) {
    await expect(reopened.locator(`td[data-stat=${stat}]`)).toHaveAttribute('data-value', (await capacity.locator(`td[data-stat=${stat}]`).getAttribute('data-value')) as string);
  }
  await fresh.locator('section', { has: fresh.getByTestId('compare-panel') }).screenshot({ path: `${ARTIFACTS}/compare-reopened.png` });
  expect(errors).toEqual([]);
});

test('a run against itself is the same everywhere', async ({ page }) => {
  await loadFolder(page, `${CORPUS}/sweep-uniform-a`);
  await page.getByTestId('compare-baseline').selectOption({ label: 'run target-1000' });
  await page.getByTestId('compare-candidate').selectOption({ label: 'run target-1000' });
  await expect(page.getByTestId('comparison').locator('p').first()).toHaveText(/^target-1000 \(candidate\) against target-1000 \(baseline\)/);
  const rows = await comparisonRows(page);
  for (const [key, r] of Object.entries(rows)) {
    expect(r.verdict, key).toBe('same');
    expect(r.ratio, key).toBe('1');
  }
});

test('a link with nodes, an SLA and prices gives the sizing table: one row per cluster size', async ({ page }) => {
  const runs = {
    'sample-results/sweep-uniform-a/target-250': { nodes: 3 },
    'sample-results/sweep-uniform-a/target-500': { nodes: 3 },
    'sample-results/sweep-uniform-a/target-1000': { nodes: 6 },
    'sample-results/sweep-uniform-a/target-2000': { nodes: 6 },
    'sample-results/sweep-uniform-a/target-unthrottled': { nodes: 12 },
  };
  const pricing = { RedisDB: { nodeHourly: 0.5 } };
  await page.goto(`/#sla=${encodeURIComponent('p95 of READ <= 300 us')}&runs=${encodeURIComponent(JSON.stringify(runs))}&pricing=${encodeURIComponent(JSON.stringify(pricing))}&sizingp=99&v=2`);
  const sizing = page.getByTestId('sizing-table');
  await expect(sizing.locator('tbody tr')).toHaveCount(3);
  // 3 nodes: target-500 meets the SLA at the higher load; 6 nodes: target-2000 (target-1000 breaks it); 12: none.
  await expect(sizing.locator('tbody tr').nth(0)).toContainText('target-500');
  await expect(sizing.locator('tbody tr').nth(1)).toContainText('target-2000');
  await expect(sizing.locator('tbody tr').nth(2)).toContainText('no run meets the SLA');
  await expect(sizing.locator('tbody tr').nth(1).locator('td[data-op=READ]')).toHaveAttribute('data-value', String(level('target-2000').ops.READ?.merged.p99));
  await expect(sizing.locator('tbody tr').nth(1)).toContainText('$2,190');
  await page.getByTestId('capacity-panel').screenshot({ path: `${ARTIFACTS}/capacity-sizing.png` });
});

test('a snapshot file carries the comparison, the SLA, the prices and the labels it was made with', async ({ page, browser, baseURL }) => {
  // The whole corpus does not fit in a link with its histograms: the snapshot file is offered.
  await loadFolder(page, CORPUS);
  await page.getByTestId('compare-baseline').selectOption({ label: 'run sweep-uniform-a/target-500' });
  await page.getByTestId('compare-candidate').selectOption({ label: 'run sweep-uniform-a/target-1000' });
  await expect(page.getByTestId('comparison').locator('p').first()).toHaveText(/^sweep-uniform-a\/target-1000 \(candidate\) against sweep-uniform-a\/target-500 \(baseline\)/);
  const rows = await comparisonRows(page);
  await page.getByLabel('SLA rules for capacity').fill('p99 of UPDATE <= 5 ms');
  await page.getByLabel('price of RedisDB').selectOption('nodeHourly');
  await page.getByLabel('$ per node-hour of RedisDB').fill('0.75');
  const capacity = await page.getByTestId('capacity-table').innerText();

  await page.getByTestId('share-button').click();
  await expect(page.getByTestId('share-level')).toHaveAttribute('data-level', 'figures');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-snapshot').click()]);
  const file = await download.path();
  if (!file) throw new Error('no download');

  const fresh = await isolatedPage(browser, baseURL ?? '');
  await fresh.goto('/');
  await fresh.getByRole('button', { name: 'Clear sample data' }).click();
  await fresh.getByTestId('file-input').setInputFiles({ name: 'snapshot.benchlens.json', mimeType: 'application/json', buffer: readFileSync(file) });
  await expect(fresh.getByTestId('summary-table')).toBeVisible();
  await expect(fresh.getByTestId('comparison-carried')).toBeVisible();
  expect(await comparisonRows(fresh)).toEqual(rows);
  await expect(fresh.getByLabel('SLA rules for capacity')).toHaveValue('p99 of UPDATE <= 5 ms');
  await expect(fresh.getByLabel('$ per node-hour of RedisDB')).toHaveValue('0.75');
  expect(await fresh.getByTestId('capacity-table').innerText()).toBe(capacity);
});
