import { expect, test } from '@playwright/test';
import { createServer, type ViteDevServer } from 'vite';

/**
 * The README's first command: `npm run dev` starts the app with sample-results/ loaded. The dev
 * server has its own page policy (React Fast Refresh runs an inline preamble); when that policy
 * blocked it, the page stayed blank while every test against the build passed.
 */

let server: ViteDevServer;
test.beforeAll(async () => {
  server = await createServer({ logLevel: 'warn', server: { port: 0, host: '127.0.0.1' } });
  await server.listen();
});
test.afterAll(async () => {
  await server.close();
});

test('the dev server starts the app with the sample results loaded', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('the dev server has no local URL');
  await page.goto(url);
  await expect(page.getByText('This is sample data')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole('heading', { name: 'Summary' })).toBeVisible({ timeout: 60_000 });
  await expect(page.locator('td', { hasText: 'sweep-uniform-a/target-1000' }).first()).toBeVisible();
  expect(errors).toEqual([]);
});
