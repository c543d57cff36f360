import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * File contents, file names and link state are data: shown as text, never run. The CSP blocks
 * inline scripts, links never load javascript: or other schemes, and nothing leaves the page
 * unless asked.
 */

const HDR = readFileSync('tests/fixtures/corpus/sweep-uniform-a/target-1000/client1-READ.hdr', 'utf8');
const PAYLOAD = '<img src=x onerror="window.__pwned=1">';

function watch(page: Page): { dialogs: string[]; requests: string[] } {
  const seen = { dialogs: [] as string[], requests: [] as string[] };
  page.on('dialog', (d) => {
    seen.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('request', (r) => seen.requests.push(r.url()));
  return seen;
}

async function pwned(page: Page): Promise<unknown> {
  return page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned);
}

test('crafted file names, tags and labels are shown as text and never executed', async ({ page, baseURL }) => {
  const seen = watch(page);
  await page.goto('/');
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  const tagged = HDR.replace(/^(\d)/gm, `Tag=${PAYLOAD.replace(/,/g, ' ')},$1`);
  await page.getByTestId('file-input').setInputFiles([
    { name: `${PAYLOAD}-READ.hdr`, mimeType: 'text/plain', buffer: Buffer.from(HDR) },
    { name: "x'); DROP TABLE series; --.hdr", mimeType: 'text/plain', buffer: Buffer.from(tagged) },
  ]);
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByTestId('runs-panel')).toContainText('client');
  // The payload appears as text somewhere (a client or op name), and as no element.
  await expect(page.locator('body')).toContainText('<img src=x');
  expect(await page.locator('img').count()).toBe(0);
  expect(await pwned(page)).toBeUndefined();
  expect(seen.dialogs).toEqual([]);
  const origin = new URL(baseURL ?? '').origin;
  expect(seen.requests.filter((u) => !u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:'))).toEqual([]);
});

test('link state is data: labels with HTML stay text; javascript: and data: file references are refused', async ({ page }) => {
  const seen = watch(page);
  const runs = { 'sample-results/sweep-uniform-a/target-1000': { system: PAYLOAD } };
  await page.goto(`/#files=javascript:alert(1),data:text/plain,x,sample-results/sweep-uniform-a/target-1000/client1-READ.hdr&runs=${encodeURIComponent(JSON.stringify(runs))}&sla=${encodeURIComponent(PAYLOAD)}&v=2`);
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByRole('status')).toContainText('ignored 2 file reference(s)');
  expect(await page.locator('a[href^="javascript:"], [src^="javascript:"]').count()).toBe(0);
  expect(await page.locator('img').count()).toBe(0);
  expect(await pwned(page)).toBeUndefined();
  expect(seen.dialogs).toEqual([]);
});

test('the Content-Security-Policy blocks inline scripts in the page and allows no eval there', async ({ page }) => {
  const response = await page.goto('/');
  const csp = response?.headers()['content-security-policy'] ?? '';
  const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src')) ?? '';
  expect(scriptSrc).toContain("'self'");
  expect(scriptSrc).not.toContain('unsafe-inline');
  expect(scriptSrc).not.toContain("'unsafe-eval'");
  // (Code run through the DevTools protocol is exempt from CSP's eval check, so eval is checked
  // through the header above; an injected inline script is a real page script and must not run.)
  const inline = await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__pwned = 1';
    document.body.append(s);
    return (window as unknown as { __pwned?: number }).__pwned;
  });
  expect(inline).toBeUndefined();
});

test('files are parsed on parse workers, whose own CSP allows their scripts and fetches, and no eval', async ({ page }) => {
  test.skip(availableParallelism() < 2, 'one core: files are parsed in the engine worker');
  // Started by the engine worker for the sample data's 115 files; a worker the CSP kept from
  // running would go unnoticed otherwise, its files parsed in the engine worker instead.
  const workers: { url: string; ran: Promise<boolean> }[] = [];
  page.on('worker', (worker) => {
    if (/\/assets\/parse-worker-[^/]*\.js$/.test(worker.url())) workers.push({ url: worker.url(), ran: worker.evaluate(() => typeof self.onmessage === 'function').catch(() => false) });
  });
  await page.goto('/');
  // The summary on screen first is the one computed at build time: wait for the engine's own load.
  await expect.poll(() => workers.length, { timeout: 60_000 }).toBeGreaterThan(0);
  await expect(page.getByTestId('progress')).toHaveCount(0);
  await expect(page.locator('.recharts-surface').first()).toBeVisible();
  expect(workers.length).toBeGreaterThan(0);
  expect(await Promise.all(workers.map((w) => w.ran))).toContain(true);
  const script = await page.request.get(workers[0]!.url);
  expect(script.ok()).toBe(true);
  const headers = script.headers();
  expect(headers['content-security-policy']).toBe("default-src 'self'; script-src 'self'; connect-src 'self' https: http:");
  expect(headers['cross-origin-embedder-policy']).toBe('require-corp');
  expect(headers['cross-origin-resource-policy']).toBe('same-origin');
});

test('links to other hosts are shown before anything is fetched, and not fetched when declined', async ({ page }) => {
  const seen = watch(page);
  await page.goto('/#files=https://results.example.org/run1/client1-READ.hdr');
  await expect(page.getByTestId('remote-confirm')).toContainText('results.example.org');
  await page.getByRole('button', { name: "Don't load" }).click();
  await page.waitForTimeout(500);
  expect(seen.requests.some((u) => u.includes('results.example.org'))).toBe(false);
});
