import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A CSV whose columns nothing recognises, dropped into the built app: it is offered for mapping
 * with its first rows, a mapping that makes no sense is refused with the reason, the right one
 * gives the figures worked out here (nearest rank over the file's values), and it is kept in the
 * link for the next file with the same header.
 */

const ARTIFACTS = 'tests/e2e/artifacts';

/** 400 rows: seconds, duration in µs, request kind, verdict. */
function customCsv(): { text: string; get: number[]; failed: number } {
  const get: number[] = [];
  let failed = 0;
  const lines = ['when;dur;kind;verdict'];
  for (let i = 0; i < 400; i++) {
    const dur = ((i * 7919) % 9000) + 150;
    const ok = i % 9 !== 0;
    if (ok) get.push(dur);
    else failed++;
    lines.push(`${1795255808 + Math.floor(i / 20)};${dur};GET;${ok ? 'pass' : 'KO'}`);
  }
  return { text: `${lines.join('\n')}\n`, get, failed };
}

const nearestRank = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.max(1, Math.ceil((p / 100) * values.length)) - 1];

async function cell(page: Page, op: string, stat: string): Promise<string | null> {
  return page.locator(`[data-testid=summary-table] td[data-op="${op}"][data-stat="${stat}"]`).first().getAttribute('data-value');
}

test('a CSV with unknown columns is mapped through the UI and gives the right figures', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-map-'));
  mkdirSync(path.join(dir, 'run-a'));
  const { text, get, failed } = customCsv();
  const file = path.join(dir, 'run-a', 'loadgen.csv');
  writeFileSync(file, text);

  await page.goto('/');
  await expect(page.getByTestId('sample-banner')).toBeVisible();
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await page.getByTestId('file-input').setInputFiles(file);

  const form = page.getByTestId('csv-map');
  await expect(form).toBeVisible();
  await expect(form).toContainText('loadgen.csv');
  await expect(form.locator('th')).toHaveText(['when', 'dur', 'kind', 'verdict']);

  // A wrong choice is refused with its reason, and nothing is read.
  await form.getByLabel('latency column').selectOption('kind');
  await form.getByRole('button', { name: 'Read with these columns' }).click();
  await expect(form.getByRole('alert')).toContainText('"kind" is not latencies');
  await expect(page.getByTestId('summary-table')).toHaveCount(0);

  await form.getByLabel('latency column').selectOption('dur');
  await form.getByLabel('latency unit').selectOption('us');
  await form.getByLabel('time column').selectOption('when');
  await form.getByLabel('operation column').selectOption('kind');
  await form.getByLabel('success column').selectOption('verdict');
  await page.screenshot({ path: `${ARTIFACTS}/csv-mapping.png`, fullPage: true });
  await form.getByRole('button', { name: 'Read with these columns' }).click();

  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByTestId('csv-map')).toHaveCount(0);
  expect(await cell(page, 'GET', 'count')).toBe(String(get.length));
  expect(await cell(page, 'GET-FAILED', 'count')).toBe(String(failed));
  for (const p of [50, 99]) expect(Number(await cell(page, 'GET', `p${p}`))).toBe(nearestRank(get, p));
  expect(Number(await cell(page, 'GET', 'max'))).toBe(Math.max(...get));
  await page.screenshot({ path: `${ARTIFACTS}/csv-mapped.png`, fullPage: true });

  // The mapping is in the link: a file with the same header is read with it at once.
  const url = page.url();
  expect(decodeURIComponent(url)).toContain('latency=dur:us');
  // A fresh page: going to the same URL would only move to its fragment.
  await page.goto('about:blank');
  await page.goto(url);
  await expect(page.getByTestId('sample-banner')).toBeVisible();
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await page.getByTestId('file-input').setInputFiles(file);
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByTestId('csv-map')).toHaveCount(0);
  expect(await cell(page, 'GET', 'count')).toBe(String(get.length));
  expect(errors).toEqual([]);
});
