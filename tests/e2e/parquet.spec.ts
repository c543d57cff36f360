import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Parquet files written by native DuckDB, dropped into the built app: read in the page's workers
 * (no download, no server), two clients merged, the figures those of the rows worked out here.
 */

const ARTIFACTS = 'tests/e2e/artifacts';
const ROWS = 40_000;

/** Row i of client c, as the SQL below writes it. */
function row(c: number, i: number): { op: string; latency: number; ok: boolean } {
  return { op: i % 4 === 0 ? 'UPDATE' : 'READ', latency: 30 + ((i * 7919 + c * 104729) % 70000), ok: i % 53 !== 0 };
}

async function writeParquet(file: string, c: number): Promise<void> {
  const { DuckDBInstance } = createRequire(import.meta.url)('@duckdb/node-api') as {
    DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<{ run(sql: string): Promise<unknown> }> }> };
  };
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  // c and ROWS are this test's own numbers; the path is its own temporary file.
  await connection.run(`COPY (
      SELECT 1795255808000 + i * 2 AS timestamp_ms,
             CAST(30 + (i * 7919 + ${c} * 104729) % 70000 AS INTEGER) AS latency_us,
             CASE WHEN i % 4 = 0 THEN 'UPDATE' ELSE 'READ' END AS op,
             i % 53 <> 0 AS success
      FROM range(${ROWS}) t(i)
    ) TO '${file}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 10000)`);
}

const nearestRank = (sorted: number[], p: number) => sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];

async function cell(page: Page, op: string, stat: string): Promise<string | null> {
  return page.locator(`[data-testid=summary-table] td[data-op="${op}"][data-stat="${stat}"]`).first().getAttribute('data-value');
}

test('Parquet files dropped into the app give the rows’ counts and percentiles', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-parquet-e2e-'));
  mkdirSync(path.join(dir, 'run-a'));
  const files = [1, 2].map((c) => path.join(dir, 'run-a', `client${c}.parquet`));
  await Promise.all(files.map((f, k) => writeParquet(f, k + 1)));
  const expected = new Map<string, number[]>();
  for (const c of [1, 2]) {
    for (let i = 0; i < ROWS; i++) {
      const r = row(c, i);
      const op = r.ok ? r.op : `${r.op}-FAILED`;
      expected.set(op, [...(expected.get(op) ?? []), r.latency]);
    }
  }
  for (const list of expected.values()) list.sort((a, b) => a - b);

  await page.goto('/');
  await expect(page.getByTestId('sample-banner')).toBeVisible();
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await page.getByTestId('file-input').setInputFiles(files);

  await expect(page.getByTestId('summary-table')).toBeVisible();
  for (const [op, sorted] of expected) {
    await expect.poll(() => cell(page, op, 'count'), { timeout: 30_000 }).toBe(String(sorted.length));
    for (const p of [50, 99, 99.9]) expect(Number(await cell(page, op, `p${p}`)), `${op} p${p}`).toBe(nearestRank(sorted, p));
    expect(Number(await cell(page, op, 'max'))).toBe(sorted[sorted.length - 1]);
  }
  await expect(page.getByText('client1')).not.toHaveCount(0);
  await expect(page.getByText('client2')).not.toHaveCount(0);
  await page.screenshot({ path: `${ARTIFACTS}/parquet.png`, fullPage: true });
  expect(errors).toEqual([]);
});
