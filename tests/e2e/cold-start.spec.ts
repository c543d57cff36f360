import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';

/**
 * A first visit shows the sample data's summary from the analysis computed at build time; the
 * engine's own analysis of the same files then replaces it, every figure the same, and its charts
 * follow: none of it waits for DuckDB-WASM, which starts only when SQL (or a report, or a share link) needs it.
 */

async function cells(page: Page): Promise<string[]> {
  return page.locator('[data-testid=summary-table] td[data-stat]').evaluateAll((tds) =>
    tds.map((td) => `${td.getAttribute('data-run')}|${td.getAttribute('data-op')}|${td.getAttribute('data-stat')}|${td.getAttribute('data-value') ?? ''}|${td.getAttribute('data-bound-min') ?? ''}|${td.getAttribute('data-bound-max') ?? ''}`),
  );
}

/**
 * Holds DuckDB's .wasm back until `releaseWasm`: whatever is on screen meanwhile was not computed
 * by DuckDB in the page. Collects the page's errors.
 */
async function holdDuckDb(page: Page): Promise<{ errors: string[]; releaseWasm: () => void }> {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  let releaseWasm: () => void = () => {};
  const wasmHeld = new Promise<void>((resolve) => (releaseWasm = resolve));
  await page.route('**/*.wasm', async (route) => {
    await wasmHeld;
    await route.continue();
  });
  return { errors, releaseWasm };
}

test('the sample summary and charts show without DuckDB, equal the engine’s; the SQL box starts DuckDB', async ({ page }) => {
  const { errors, releaseWasm } = await holdDuckDb(page);
  await page.goto('/');
  await expect(page.getByTestId('summary-table')).toBeVisible();
  const precomputed = await cells(page);
  expect(precomputed.length).toBeGreaterThan(100);
  // The engine's analysis, timelines and charts, while DuckDB's .wasm is held back: none needs it.
  await expect(page.getByTestId('progress')).toHaveCount(0);
  await expect(page.locator('.recharts-surface').first()).toBeVisible();
  expect(await cells(page)).toEqual(precomputed);
  // Nothing shown needed DuckDB: it has not started. The SQL box taking the focus starts it, and the page says so.
  await expect(page.getByTestId('engine-status')).toContainText('DuckDB not started');
  await page.locator('#query-sql').focus();
  await expect(page.getByTestId('engine-status')).toContainText('starting DuckDB');
  releaseWasm();
  await expect(page.getByTestId('engine-status')).toContainText('DuckDB ready', { timeout: 60_000 });
  expect(errors).toEqual([]);
});

test('files dropped before DuckDB starts show their figures and throughput without it', async ({ page }) => {
  const { errors, releaseWasm } = await holdDuckDb(page);
  await page.goto('/');
  await expect(page.getByTestId('engine-status')).toContainText('DuckDB not started');
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await page.getByTestId('file-input').setInputFiles('tests/fixtures/corpus/sweep-uniform-a/target-1000/client1-READ.hdr');
  // The summary holds the dropped file's count (the corpus oracle's, HdrHistogram 2.2.2) while DuckDB cannot have started.
  const oracle = JSON.parse(readFileSync('tests/fixtures/corpus/expected.json', 'utf8')) as Record<string, { runs: { dir: string; ops: Record<string, { perClient: { client: string; count: number }[] }> }[] }>;
  const count = oracle['sweep-uniform-a']?.runs.find((r) => r.dir === 'sweep-uniform-a/target-1000')?.ops.READ?.perClient.find((c) => c.client === 'client1')?.count;
  await expect(page.locator('[data-testid=summary-table] td[data-op="READ"][data-stat="count"]').first()).toHaveAttribute('data-value', String(count));
  // The load ends, timelines and charts included, with DuckDB's .wasm still held back.
  await expect(page.getByTestId('progress')).toHaveCount(0);
  await expect(page.locator('.recharts-surface').first()).toBeVisible();
  await expect(page.getByTestId('engine-status')).toContainText('DuckDB not started');

  await page.locator('#query-sql').focus();
  releaseWasm();
  await expect(page.getByTestId('engine-status')).toContainText('DuckDB ready', { timeout: 60_000 });
  expect(errors).toEqual([]);
});
