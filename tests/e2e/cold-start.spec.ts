import { expect, test, type Page } from '@playwright/test';

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

test('the sample summary shows before the engine is ready, and equals the engine’s', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // Hold DuckDB's .wasm back: whatever is on screen meanwhile was not computed by the engine in the page.
  let releaseWasm: () => void = () => {};
  const wasmHeld = new Promise<void>((resolve) => (releaseWasm = resolve));
  await page.route('**/*.wasm', async (route) => {
    await wasmHeld;
    await route.continue();
  });
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
