import { expect, test, type Page } from '@playwright/test';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import Papa from 'papaparse';

/**
 * The Errors table of real JMeter, vegeta, wrk, Gatling and k6 outputs dropped as one folder (a run per tool):
 * each row's data attributes equal the failed requests counted from the files here; and a run whose
 * names collapse under the ID rule is offered it, whose groups merge every request.
 */

const ARTIFACTS = 'tests/e2e/artifacts';

type Row = { run: string; op: string; status: string; count: number };

function expectedRows(): Row[] {
  const rows: Row[] = [];
  const add = (run: string, op: string, status: string) => {
    const seen = rows.find((r) => r.run === run && r.op === op && r.status === status);
    if (seen) seen.count++;
    else rows.push({ run, op, status, count: 1 });
  };
  for (const r of Papa.parse<Record<string, string>>(readFileSync('tests/fixtures/jmeter/HTMLReportTestFile.csv', 'utf8'), { header: true, skipEmptyLines: true }).data) {
    if (r.success === 'false') add('jmeter', r.label ?? '', r.responseCode ?? '');
  }
  for (const f of Papa.parse<string[]>(readFileSync('tests/fixtures/vegeta/mixed.csv', 'utf8'), { skipEmptyLines: true }).data) {
    const code = Number(f[1]);
    if (code < 200 || code >= 400 || f[5] !== '') add('vegeta', `${f[9]} ${f[10]}`, f[1] ?? '');
  }
  for (const f of readFileSync('tests/fixtures/gatling/errors-3.11.5.log', 'utf8').split('\n').map((l) => l.split('\t'))) {
    if (f[0] === 'REQUEST' && f[5] === 'KO') add('gatling', f[2] ?? '', 'KO');
  }
  for (const r of Papa.parse<Record<string, string>>(gunzipSync(readFileSync('tests/fixtures/k6/errors-0.54.0.csv.gz')).toString('utf8'), { header: true, skipEmptyLines: true }).data) {
    if (r.metric_name === 'http_req_duration' && r.expected_response === 'false') add('k6', `${r.method} ${r.url}`, r.status ?? '');
  }
  const wrk = readFileSync('tests/fixtures/wrk/wrk-flaky.txt', 'utf8');
  const url = /@ (\S+)/.exec(wrk)?.[1] ?? '';
  rows.push({ run: 'wrk', op: url, status: '', count: Number(/Non-2xx or 3xx responses: (\d+)/.exec(wrk)?.[1]) });
  return rows;
}

async function shownRows(page: Page): Promise<Row[]> {
  return page.locator('[data-testid=errors-table] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => ({ run: tr.getAttribute('data-run') ?? '', op: tr.getAttribute('data-op') ?? '', status: tr.getAttribute('data-status') ?? '', count: Number(tr.getAttribute('data-count')) })),
  );
}

const byKey = (rows: Row[]) => Object.fromEntries(rows.map((r) => [`${r.run}|${r.op}|${r.status}`, r.count]));

test('the Errors table counts what the files count, and the ID rule merges a run’s numbered names', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-errors-e2e-'));
  for (const [run, file] of [
    ['jmeter', 'tests/fixtures/jmeter/HTMLReportTestFile.csv'],
    ['vegeta', 'tests/fixtures/vegeta/mixed.csv'],
    ['wrk', 'tests/fixtures/wrk/wrk-flaky.txt'],
    ['gatling', 'tests/fixtures/gatling/errors-3.11.5.log'],
    ['k6', 'tests/fixtures/k6/errors-0.54.0.csv.gz'],
    ['cinema', 'tests/fixtures/jmeter/cinema-results.jtl'],
  ] as const) {
    mkdirSync(path.join(dir, 'results', run), { recursive: true });
    copyFileSync(file, path.join(dir, 'results', run, path.basename(file)));
  }

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await expect(page.getByTestId('sample-banner')).toBeVisible();
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await page.getByTestId('folder-input').setInputFiles(path.join(dir, 'results'));

  const expected = expectedRows();
  // The Gatling run fails in 102 ways (a UUID per name): its table shows the first rows until asked.
  await page.locator('[data-testid=errors-table][data-run=gatling]').waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: /show all \d+ causes/ }).click();
  await expect.poll(async () => byKey(await shownRows(page)), { timeout: 30_000 }).toEqual(byKey(expected));
  await expect(page.getByTestId('errors-table')).toHaveCount(5);
  await page.screenshot({ path: `${ARTIFACTS}/errors.png`, fullPage: true });

  // cinema-results.jtl: three pages with sub-results label-0 … label-7, a page without, and "Test".
  const labels = Papa.parse<Record<string, string>>(readFileSync('tests/fixtures/jmeter/cinema-results.jtl', 'utf8'), { header: true, skipEmptyLines: true }).data.map((r) => r.label ?? '');
  const offer = page.locator('[data-testid=name-offer][data-run=cinema]');
  await expect(offer).toHaveAttribute('data-names', String(new Set(labels).size));
  await expect(offer).toHaveAttribute('data-groups', '8');
  await offer.getByRole('button', { name: 'Group IDs' }).click();
  const grouped = 'Выбор зала-{id}';
  const count = labels.filter((l) => /^Выбор зала-\d$/.test(l)).length;
  await expect
    .poll(() => page.locator(`[data-testid=summary-table] td[data-run=cinema][data-op="${grouped}"][data-stat=count]`).first().getAttribute('data-value'), { timeout: 30_000 })
    .toBe(String(count));
  expect(page.url()).toContain('ids=1');
  expect(errors).toEqual([]);
});
