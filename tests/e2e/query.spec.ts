import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';

/**
 * The Query view: SQL typed in the page runs in the engine worker over the loaded results, shows
 * rows and a chart, and lives in the link; SQL a link carries is shown and runs only on Run, and
 * reaches nothing outside the loaded files.
 */

const HDR_LINK = '#files=sample-results/sweep-uniform-a/target-1000/client1-READ.hdr';

async function runQuery(page: Page, sql: string): Promise<void> {
  await page.locator('#query-sql').fill(sql);
  await page.locator('#query-sql').press('Control+Enter');
}

const tableText = (page: Page) => page.locator('.query-table tbody').innerText();

test('a typed query shows its rows and chart, and the link gives the same result after the user runs it', async ({ page }) => {
  await page.goto(`/${HDR_LINK}`);
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await runQuery(page, 'SELECT second, sum(count) AS requests FROM seconds GROUP BY second ORDER BY second');
  await expect(page.getByTestId('query-summary')).toContainText('rows');
  const rows = await tableText(page);
  expect(rows.split('\n').length).toBeGreaterThan(10);
  await page.getByTestId('query-summary').getByRole('button', { name: 'Chart', exact: true }).click();
  await expect(page.getByTestId('query-chart').locator('path.recharts-line-curve')).toHaveCount(1);

  // The link holds the SQL: a reload shows it, runs nothing until Run, then the same rows.
  expect(page.url()).toContain('sql=');
  await page.reload();
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByText('This query came with the link')).toBeVisible();
  await expect(page.locator('#query-sql')).toHaveValue(/sum\(count\) AS requests/);
  await expect(page.getByTestId('query-summary')).toHaveCount(0);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByTestId('query-summary')).toContainText('rows');
  expect(await tableText(page)).toBe(rows);
});

test('requests and file_<n> read a dropped JTL in place', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await page.getByTestId('file-input').setInputFiles('tests/fixtures/jmeter/HTMLReportTestFile.csv');
  await expect(page.getByTestId('summary-table')).toBeVisible();
  // Counted independently from the file: failed rows by responseCode.
  const lines = readFileSync('tests/fixtures/jmeter/HTMLReportTestFile.csv', 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  const failed = lines.filter((f) => f[7] === 'false');
  expect(failed.length).toBeGreaterThan(0);
  await runQuery(page, 'SELECT status, count(*) AS n FROM requests WHERE NOT ok GROUP BY status ORDER BY status');
  await expect(page.getByTestId('query-summary')).toContainText('1 row');
  expect(await tableText(page)).toBe(`${failed[0]?.[3]}\t${failed.length}`);
  await runQuery(page, 'SELECT DISTINCT threadName FROM file_1');
  await expect(page.locator('.query-table tbody')).toHaveText('Thread Group 1-1');
});

test('requests of a dropped k6 JSON come from its parser, read again in the worker on the first query', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await page.getByTestId('file-input').setInputFiles('tests/fixtures/k6/create-user-data.json.gz');
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await runQuery(page, "SELECT op, ok, count(*) AS n FROM requests GROUP BY ALL UNION ALL SELECT 'from ' || requests_from, NULL, n FROM files");
  await expect(page.getByTestId('query-summary')).toContainText('2 rows');
  // The 1,000 requests the k6 summary of this test reports (tests/fixtures/k6/create-user-summary.json).
  expect((await tableText(page)).split('\n').sort()).toEqual(['POST http://localhost:8080/users\ttrue\t1000', 'from parser\tNULL\t1']);
});

test('SQL from a link waits for Run, and reaching outside the loaded files fails with DuckDB\'s error and no request', async ({ page, baseURL }) => {
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  const sql = "SELECT * FROM read_csv('https://example.com/data.csv')";
  await page.goto(`/${HDR_LINK}&sql=${encodeURIComponent(sql)}`);
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.locator('#query-sql')).toHaveValue(sql);
  await expect(page.locator('.query-error')).toHaveCount(0);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.locator('.query-error')).toContainText('Permission Error');
  await expect(page.locator('.query-error')).toContainText('LINE 1:');
  // Neither does an extension load, nor does a markup result become markup.
  await runQuery(page, 'LOAD httpfs');
  await expect(page.locator('.query-error')).toContainText('syntax error');
  await runQuery(page, `SELECT '<img src=x onerror="window.__pwned=1">' AS html`);
  await expect(page.locator('.query-table tbody')).toContainText('<img src=x');
  expect(await page.locator('.query-view img').count()).toBe(0);
  const origin = new URL(baseURL ?? '').origin;
  expect(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:'))).toEqual([]);
});
