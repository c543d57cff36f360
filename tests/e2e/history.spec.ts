import { expect, test } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeHdrHistory } from '../unit/helpers/history-folders.ts';

/**
 * A history in the built app: 20 runs of one test (real corpus interval histograms, redrawn per
 * run) whose latencies double from the 13th run on, dropped as one folder, open on History with
 * the change point drawn at build-13; the change opens Compare on the runs before against after.
 */

const ARTIFACTS = 'tests/e2e/artifacts';
const STEP_AT = 12;

test('a folder of 20 runs opens on History with the change point at the run where the step starts', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-history-e2e-'));
  // Each run's benchlens.json numbers its build backwards: ordered by that label the step goes down at build-12.
  writeHdrHistory(dir, { runs: 20, stepAt: STEP_AT, factor: 2 }).forEach((folder, i) => writeFileSync(path.join(folder, 'benchlens.json'), JSON.stringify({ labels: { build: String(1000 - i) } })));
  writeFileSync(path.join(dir, 'build-1', 'README.md'), '# notes on build 1\n');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await page.getByTestId('folder-input').setInputFiles(dir);
  await expect(page.getByTestId('progress')).toHaveCount(0, { timeout: 60_000 });
  // The runs' benchlens.json files are read for their labels: not listed with the README as files passed over.
  await expect(page.getByTestId('ignored')).toHaveText(/^Ignored 1 file\(s\) that are not benchmark results: [^,]*build-1\/README\.md$/);
  const history = page.getByTestId('history-view');
  await expect(history).toBeVisible();
  // History is the first section on the page.
  expect(await page.locator('section h2').first().textContent()).toBe('History');

  await page.getByLabel('history order').selectOption('name');
  await page.getByLabel('history operation').selectOption('READ');
  await page.getByLabel('history figure').selectOption('p50');
  const change = page.getByTestId('history-change');
  await expect(change).toHaveCount(1, { timeout: 60_000 });
  await expect(change).toHaveAttribute('data-run', 'build-13');
  await expect(change).toHaveAttribute('data-index', String(STEP_AT));
  expect(page.url()).toContain('history=');

  // The line is drawn at build-13's point: the 13th dot of the value line.
  const chart = page.getByTestId('chart-history');
  const lineX = Number(await chart.locator('.recharts-reference-line line').first().getAttribute('x1'));
  const dotX = Number(await chart.locator('.recharts-line-dots circle').nth(STEP_AT).getAttribute('cx'));
  expect(Math.abs(lineX - dotX)).toBeLessThan(0.5);
  await expect(chart.locator('.recharts-surface').first()).toContainText(/×2\.0\d/);
  await page.screenshot({ path: `${ARTIFACTS}/history-1280.png`, fullPage: false });
  // The same at 1920×1080 in the dark theme, to look at.
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.getByRole('button', { name: 'toggle theme' }).click();
  await page.getByTestId('history-view').screenshot({ path: `${ARTIFACTS}/history-1920-dark.png` });
  await page.getByRole('button', { name: 'toggle theme' }).click();
  await page.setViewportSize({ width: 1280, height: 800 });

  // Ordered by the benchlens.json label, the series runs backwards.
  await page.getByLabel('history order').selectOption('label:build');
  await expect(change).toHaveAttribute('data-run', 'build-12');
  await expect(change).toHaveAttribute('data-index', String(20 - STEP_AT));
  await expect(change.locator('td').nth(4)).toHaveText(/^×0\.4\d\d$/);
  await page.getByLabel('history order').selectOption('name');
  await expect(change).toHaveAttribute('data-run', 'build-13');

  await change.getByRole('button', { name: 'compare before vs after' }).click();
  await expect(page.getByTestId('comparison').locator('p').first()).toHaveText(/^build-13 … build-20 \(8 runs\) \(candidate\) against build-1 … build-12 \(12 runs\) \(baseline\)/, { timeout: 60_000 });
  await page.getByTestId('comparison').screenshot({ path: `${ARTIFACTS}/history-compare-1280.png` });
  expect(errors).toEqual([]);
});
