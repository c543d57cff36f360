import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';

/**
 * A link to a folder (#files=<folder>/): the host's listing names the files. The test server
 * (vite preview) lists no folders, so nginx's real listing of the same folder
 * (tests/fixtures/listings/, captured from nginx 1.22.1) answers for the folder URLs; the files
 * themselves come from the test server. Without a listing, the server's own page is refused.
 */

const listing = (name: string) => readFileSync(`tests/fixtures/listings/${name}`, 'utf8');

test('a folder link reads the files nginx lists there, and says which listing it used', async ({ page }) => {
  const listed: string[] = [];
  for (const [folder, file] of [
    ['sample-results/intended-a/', 'nginx-1.22.1-sample-intended-a.html'],
    ['sample-results/intended-a/target-5000/', 'nginx-1.22.1-sample-intended-a-target-5000.html'],
  ]) {
    await page.route((url) => url.pathname === `/${folder}`, (route) => {
      listed.push(folder!);
      return route.fulfill({ status: 200, contentType: 'text/html', body: listing(file!) });
    });
  }
  await page.goto('/#files=sample-results/intended-a/');
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByTestId('folder-sources')).toHaveText("Folders read: sample-results/intended-a/: 16 file(s) from nginx's directory listing");
  expect(listed).toEqual(['sample-results/intended-a/', 'sample-results/intended-a/target-5000/']);
  // The run is the listed folder's, with its two clients.
  await expect(page.locator('tr[data-run-key="sample-results/intended-a/target-5000"]')).toContainText('2 (client1, client2)');
  await expect(page.getByTestId('ignored')).toHaveCount(0);
  await page.screenshot({ path: 'tests/e2e/artifacts/folder-link.png', fullPage: true });
});

test("a folder the host does not list is refused with the reason, not read as a result file", async ({ page }) => {
  await page.goto('/#files=no-such-folder/');
  await expect(page.getByRole('status')).toContainText('no-such-folder/ answered with an HTML page that is not a directory listing (nginx, Apache or python -m http.server); list its files in benchlens.json');
  await expect(page.getByTestId('ignored')).toHaveCount(0);
});

test('a folder on another host is named before its listing is fetched, and not fetched when declined', async ({ page }) => {
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto('/#files=https://results.example.org/runs/');
  await expect(page.getByTestId('remote-confirm')).toContainText('This link loads the files of 1 folder(s) from results.example.org. Nothing is sent to them beyond the requests for these files and their folder listings.');
  await page.getByRole('button', { name: "Don't load" }).click();
  await page.waitForTimeout(300);
  expect(requests.some((u) => u.includes('results.example.org'))).toBe(false);
});
