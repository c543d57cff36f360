import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';

/**
 * A first visit shows the sample data's summary from the analysis computed at build time, before
 * DuckDB-WASM has started; the engine's own analysis of the same files then replaces it, and every
 * figure in the table is the same.
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

test('the sample summary shows before the engine is ready, and equals the engine’s', async ({ page }) => {
  const { errors, releaseWasm } = await holdDuckDb(page);
  await page.goto('/');
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByTestId('engine-status')).toContainText('starting DuckDB');
  const precomputed = await cells(page);
  expect(precomputed.length).toBeGreaterThan(100);

  releaseWasm();
  await expect(page.getByTestId('engine-status')).toContainText('DuckDB ready', { timeout: 60_000 });
  await expect(page.getByTestId('progress')).toHaveCount(0);
  // The engine's analysis has replaced the precomputed one once the charts have data to draw.
  await expect(page.locator('.recharts-surface').first()).toBeVisible();
  expect(await cells(page)).toEqual(precomputed);
  expect(errors).toEqual([]);
});

test('files dropped while DuckDB starts show their figures without waiting for it, and the page says what waits', async ({ page }) => {
  const { errors, releaseWasm } = await holdDuckDb(page);
  await page.goto('/');
  await expect(page.getByTestId('engine-status')).toContainText('starting DuckDB');
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await page.getByTestId('file-input').setInputFiles('tests/fixtures/corpus/sweep-uniform-a/target-1000/client1-READ.hdr');
  // The summary holds the dropped file's count (the corpus oracle's, HdrHistogram 2.2.2) while DuckDB cannot have started.
  const oracle = JSON.parse(readFileSync('tests/fixtures/corpus/expected.json', 'utf8')) as Record<string, { runs: { dir: string; ops: Record<string, { perClient: { client: string; count: number }[] }> }[] }>;
  const count = oracle['sweep-uniform-a']?.runs.find((r) => r.dir === 'sweep-uniform-a/target-1000')?.ops.READ?.perClient.find((c) => c.client === 'client1')?.count;
  await expect(page.locator('[data-testid=summary-table] td[data-op="READ"][data-stat="count"]').first()).toHaveAttribute('data-value', String(count));
  await expect(page.getByTestId('progress')).toContainText('query engine starting');
  await expect(page.getByTestId('engine-status')).toContainText('starting DuckDB');

  releaseWasm();
  await expect(page.getByTestId('engine-status')).toContainText('DuckDB ready', { timeout: 60_000 });
  await expect(page.getByTestId('progress')).toHaveCount(0);
  expect(errors).toEqual([]);
});
