import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';

/**
 * The built app, driven as a user would: sample data on first visit, corpus folders through the
 * real folder input, merged figures read back from the summary table and compared with the
 * oracle, every chart drawn with its expected series, a #files= link opened.
 */

const CORPUS = 'tests/fixtures/corpus';
const ARTIFACTS = 'tests/e2e/artifacts';
const PERCENTILES = ['p50', 'p90', 'p95', 'p99', 'p99.9', 'p99.99'] as const;

interface OracleRun {
  dir: string;
  ops: Record<string, { merged: Record<string, number>; perClient: { client: string; count: number }[] }>;
}
const expected = JSON.parse(readFileSync(`${CORPUS}/expected.json`, 'utf8')) as Record<string, { runs?: OracleRun[] }>;
const oracleRuns = Object.values(expected).flatMap((s) => s.runs ?? []);

async function cell(page: Page, run: string, op: string, stat: string): Promise<string | null> {
  return page.locator(`[data-testid=summary-table] td[data-run="${run}"][data-op="${op}"][data-stat="${stat}"]`).getAttribute('data-value');
}

async function freshPage(page: Page): Promise<void> {
  await page.goto('/');
  await expect(page.getByTestId('sample-banner')).toBeVisible();
  await page.getByRole('button', { name: 'Clear sample data' }).click();
  await expect(page.getByTestId('summary-table')).toHaveCount(0);
}

async function dropFolder(page: Page, dir: string): Promise<void> {
  await page.getByTestId('folder-input').setInputFiles(dir);
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByTestId('progress')).toHaveCount(0);
}

test('first visit shows the sample data, labelled, with a way to clear it', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await expect(page.getByTestId('sample-banner')).toContainText('sample data');
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByTestId('engine-status')).toContainText('DuckDB not started');
  await page.screenshot({ path: `${ARTIFACTS}/sample-data.png`, fullPage: true });
  expect(errors).toEqual([]);
});

test('the engine .wasm arrives compressed, as application/wasm, and starts', async ({ page }) => {
  const wasm: { url: string; type: string | undefined; encoding: string | undefined }[] = [];
  page.on('response', (r) => {
    if (r.url().endsWith('.wasm')) wasm.push({ url: r.url(), type: r.headers()['content-type'], encoding: r.headers()['content-encoding'] });
  });
  await page.goto('/');
  // Nothing on the page needs DuckDB until SQL is written: the SQL box taking the focus starts it.
  await expect(page.getByTestId('engine-status')).toContainText('DuckDB not started');
  await page.locator('#query-sql').focus();
  await expect(page.getByTestId('engine-status')).toContainText('DuckDB ready');
  expect(wasm.length).toBeGreaterThan(0);
  for (const w of wasm) expect(w, w.url).toMatchObject({ type: 'application/wasm', encoding: 'br' });
});

test('a dropped corpus folder gives the oracle figures in the summary table', async ({ page }) => {
  await freshPage(page);
  await dropFolder(page, CORPUS);
  // The corpus README, expected.json and the three YCSB workload files are not results: ignored, not errors.
  await expect(page.getByTestId('ignored')).toContainText('Ignored 5 file(s)');
  await expect(page.getByTestId('ignored')).toContainText('corpus/README.md');
  await expect(page.getByTestId('errors')).toHaveCount(0);
  let checked = 0;
  for (const run of oracleRuns) {
    for (const [op, o] of Object.entries(run.ops)) {
      expect(Number(await cell(page, run.dir, op, 'count')), `${run.dir} ${op} count`).toBe(o.merged.count);
      for (const p of PERCENTILES) {
        expect(Number(await cell(page, run.dir, op, p)), `${run.dir} ${op} ${p}`).toBe(o.merged[p]);
        checked++;
      }
    }
  }
  expect(checked).toBeGreaterThan(100);
  await page.screenshot({ path: `${ARTIFACTS}/corpus-summary.png`, fullPage: true });
});

test('a #files= link loads those files, merged across the clients named', async ({ page }) => {
  const run = oracleRuns.find((r) => r.dir === 'sweep-uniform-a/target-1000');
  if (!run) throw new Error('oracle run missing');
  const files = ['client1-READ.hdr', 'client2-READ.hdr'].map((f) => `sample-results/sweep-uniform-a/target-1000/${f}`);
  await page.goto(`/#files=${files.join(',')}`);
  await expect(page.getByTestId('summary-table')).toBeVisible();
  const read = run.ops.READ;
  if (!read) throw new Error('no READ');
  const twoClients = read.perClient.filter((c) => c.client !== 'client3').reduce((a, c) => a + c.count, 0);
  expect(Number(await cell(page, 'target-1000', 'READ', 'count'))).toBe(twoClients);
  await expect(page.getByTestId('sample-banner')).toHaveCount(0);
});

test('each chart draws its expected series', async ({ page }) => {
  await freshPage(page);
  await dropFolder(page, `${CORPUS}/split-for-heat`);
  await page.getByTestId('folder-input').setInputFiles(`${CORPUS}/sweep-uniform-a`);
  await expect(page.locator('[data-testid=runs-panel] tbody tr')).toHaveCount(6);

  const chart = async (tab: string, id: string, series: number) => {
    await page.getByRole('tab', { name: tab }).click();
    const figure = page.getByTestId(`chart-${id}`);
    await expect(figure).toHaveAttribute('data-series', String(series));
    await expect(figure.locator('svg.recharts-surface').first()).toBeVisible();
    await page.waitForTimeout(300);
    await figure.screenshot({ path: `${ARTIFACTS}/chart-${id}.png` });
    return figure;
  };
  // A sweep line per system × mix × distribution and per operation: uniform sweep and throttled run, READ + UPDATE.
  await chart('Latency vs load', 'latency-vs-load', 4);
  // The throttled run (first run): READ and UPDATE ok, and their failures stacked; four detected steps.
  const throughput = await chart('Throughput over time', 'throughput', 4);
  await expect(throughput.locator('text', { hasText: /^\+2\.0× at 0[01]:[03]0$/ })).not.toHaveCount(0);
  await chart('Latency over time', 'latency-over-time', 2);
  // Six runs × READ, UPDATE: twelve lines, more than a chart draws by default, so both operations are picked.
  await page.getByRole('tab', { name: 'Percentile distribution' }).click();
  const picker = page.getByTestId('series-picker');
  await picker.locator('summary').click();
  for (const box of await picker.getByRole('checkbox').all()) await box.check();
  await chart('Percentile distribution', 'percentiles', 12);
  await page.getByRole('tab', { name: 'Intended vs actual' }).click();
  await expect(page.getByTestId('chart-intended')).toContainText('measurement.interval=both');
});

test('cost, scenario and scaling charts render from corpus runs; labels from the link drive them', async ({ page }) => {
  const runs = {
    'sample-results/sweep-uniform-a/target-250': { nodes: 3 },
    'sample-results/sweep-uniform-a/target-1000': { nodes: 6 },
    'sample-results/sweep-uniform-a/target-unthrottled': { nodes: 12 },
  };
  const cost = { clusterMonthly: 4544, storageGb: 1024 };
  await page.goto(`/#chart=cost&cost=${encodeURIComponent(JSON.stringify(cost))}&runs=${encodeURIComponent(JSON.stringify(runs))}&v=2`);
  const chart = page.getByTestId('chart-cost');
  await expect(chart.locator('svg.recharts-surface').first()).toBeVisible();
  // Every visible run priced: one row pair per run in the table, factors written on the bars.
  const table = page.getByTestId('cost-table');
  await expect(table).toContainText('sweep-uniform-a/target-unthrottled');
  await expect(chart.locator('text', { hasText: /^\d+(\.\d)?×$/ }).first()).toBeVisible();
  await chart.screenshot({ path: `${ARTIFACTS}/chart-cost.png` });
  // Today's list prices unless the link says otherwise; a link made before they changed keeps its own.
  await expect(page.getByTestId('cost-prices-note')).toContainText('since 1 Nov 2024');
  // A new fragment on the same page is no new visit: the app reads its link when it starts.
  await page.goto(`/#chart=cost&cost=${encodeURIComponent(JSON.stringify(cost))}&v=1`);
  await page.reload();
  await expect(page.getByTestId('cost-prices-note')).toContainText('until 31 Oct 2024');
  await expect(page.getByLabel('price list')).toHaveValue('before-2024-11');
  await page.goto(`/#chart=cost&cost=${encodeURIComponent(JSON.stringify(cost))}&runs=${encodeURIComponent(JSON.stringify(runs))}&v=2`);
  await page.reload();

  await page.getByRole('tab', { name: 'pXX by scenario' }).click();
  await expect(page.getByTestId('chart-by-scenario')).toHaveAttribute('data-series', /[1-9]/);
  await page.getByTestId('chart-by-scenario').screenshot({ path: `${ARTIFACTS}/chart-by-scenario.png` });

  await page.getByRole('tab', { name: 'Scaling' }).click();
  await expect(page.getByTestId('chart-scaling')).toHaveAttribute('data-series', '1');
  await page.getByTestId('chart-scaling').screenshot({ path: `${ARTIFACTS}/chart-scaling.png` });
});

test('an SLA rule is judged per run, and a time window re-queries every figure', async ({ page }) => {
  await page.goto(`/#sla=${encodeURIComponent('p99 of READ <= 3 ms')}&theme=dark&v=2`);
  await expect(page.getByTestId('summary-table')).toBeVisible();
  const sla = (run: string) => page.locator(`td[data-run="${run}"][data-op="READ"][data-stat="sla"]`);
  // sweep target-1000 READ p99 is 4,483 µs: fails; target-2000 is 1,441 µs: passes.
  await expect(sla('sweep-uniform-a/target-1000')).toHaveText('fail');
  await expect(sla('sweep-uniform-a/target-2000')).toHaveText('pass');

  const count = () => page.locator('td[data-run="sweep-uniform-a/target-1000"][data-op="READ"][data-stat="count"]').getAttribute('data-value');
  const whole = Number(await count());
  await page.getByLabel('window from (s)').fill('5');
  await page.getByLabel('window to (s)').fill('15');
  await page.getByRole('button', { name: 'apply' }).click();
  await expect.poll(async () => Number(await count())).toBeLessThan(whole);
  await expect(page.getByTestId('window-control')).toContainText('re-queried in');
  await page.screenshot({ path: `${ARTIFACTS}/dark-sla-window.png`, fullPage: true });
  await page.getByRole('button', { name: 'whole runs' }).click();
  await expect.poll(async () => Number(await count())).toBe(whole);
});

test("without a theme in the link the page takes the system's colours and follows them; the toggle's choice goes in the link", async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');
  await expect(page.getByTestId('summary-table')).toBeVisible();
  const html = page.locator('html');
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await expect(html).toHaveAttribute('data-theme', 'dark');
  // --bg of the dark theme (src/styles.css).
  expect(await background()).toBe('rgb(11, 17, 32)');
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(html).toHaveAttribute('data-theme', 'light');
  expect(page.url()).not.toContain('theme=');

  await page.getByRole('button', { name: /toggle theme/ }).click();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  await expect(page).toHaveURL(/theme=dark/);
  // Chosen with the toggle: the system's preference no longer changes it, nor does a reload.
  await page.emulateMedia({ colorScheme: 'light' });
  await page.reload();
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(html).toHaveAttribute('data-theme', 'dark');
});

test("a step's label stays inside the plot, at either edge; an outage is said as such", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await freshPage(page);
  // Real memtier outputs of three runs in one folder: their throughput falls to nothing after the
  // first seconds and rises again eight minutes later, at the plot's right edge.
  await dropFolder(page, 'tests/fixtures/memtier');
  const throughput = page.getByTestId('chart-throughput');
  const labels = throughput.locator('text', { hasText: / at \d/ });
  await expect(labels.filter({ hasText: /^to 0 ops\/s at / })).toHaveCount(1);
  await expect(labels.filter({ hasText: /^from 0 ops\/s at / })).toHaveCount(1);
  const surface = await throughput.locator('.recharts-wrapper > svg.recharts-surface').first().boundingBox();
  for (const label of await labels.all()) {
    const box = await label.boundingBox();
    expect(box && surface && box.x >= surface.x && box.x + box.width <= surface.x + surface.width, (await label.textContent()) ?? '').toBe(true);
  }
});

test('a folder whose files ran at separate times is offered as one run per time; splitting keeps every request', async ({ page }) => {
  await freshPage(page);
  // A real multi-client sweep (clients started together): nothing to offer.
  await dropFolder(page, `${CORPUS}/sweep-uniform-a`);
  await expect(page.locator('[data-testid=runs-panel] tr[data-run-key]')).toHaveCount(5);
  await expect(page.getByTestId('time-split-offer')).toHaveCount(0);

  // Four real JTLs of four different tests (tests/fixtures/jmeter/SOURCES.md), 2005 to 2026.
  await freshPage(page);
  await dropFolder(page, 'tests/fixtures/jmeter');
  const offer = page.getByTestId('time-split-offer');
  await expect(offer).toHaveAttribute('data-parts', '4');
  await expect(offer).toContainText('2005-11-15');
  // Each operation's count, summed over the runs that show it.
  const counts = () =>
    page.locator('[data-testid=summary-table] tr:not([data-testid=all-requests]) > td[data-stat=count]').evaluateAll((cells) => {
      const byOp: Record<string, number> = {};
      for (const c of cells) byOp[c.getAttribute('data-op') ?? ''] = (byOp[c.getAttribute('data-op') ?? ''] ?? 0) + Number(c.getAttribute('data-value'));
      return { byOp, runs: new Set(cells.map((c) => c.getAttribute('data-run'))).size };
    });
  const before = await counts();
  expect(before.runs).toBe(1);
  await offer.getByRole('button', { name: 'Split into 4 runs' }).click();
  await expect(page.locator('[data-testid=runs-panel] tr[data-run-key]')).toHaveCount(4);
  const keys = await page.locator('[data-testid=runs-panel] tr[data-run-key]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-key')));
  expect(keys.sort()).toEqual(['jmeter/cinema-results', 'jmeter/HTMLReportFalseTestFile', 'jmeter/HTMLReportTestFile', 'jmeter/sample_log1'].sort());
  await expect(page.getByTestId('time-split-offer')).toHaveCount(0);
  await expect.poll(async () => (await counts()).runs).toBe(4);
  // The table shows each run's busiest operations: those shown both ways have the same counts.
  const after = (await counts()).byOp;
  const shownBoth = Object.keys(before.byOp).filter((op) => op in after);
  expect(shownBoth.length).toBeGreaterThanOrEqual(8);
  for (const op of shownBoth) expect(after[op], op).toBe(before.byOp[op]);
  // Kept in the link, as a file moved to another run is.
  expect(decodeURIComponent(page.url())).toContain('"jmeter/cinema-results.jtl":"jmeter/cinema-results"');
});

test('at 1280 px the page never scrolls sideways: the runs table scrolls inside; runs in natural order, named in the title', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/');
  await expect(page.getByTestId('runs-panel')).toBeVisible();
  // The engine's own analysis, and its charts, replace the one computed at build time.
  await expect(page.locator('.recharts-surface').first()).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('progress')).toHaveCount(0);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
  const runs = await page.locator('[data-testid=runs-panel] tr[data-run-key]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-key')));
  const sweep = runs.filter((k) => k?.includes('sweep-uniform-a/'));
  expect(sweep.map((k) => k?.split('/').pop())).toEqual(['target-250', 'target-500', 'target-1000', 'target-2000', 'target-unthrottled']);
  await expect(page).toHaveTitle(/^intended-a\/target-5000, raw-csv-b\/target-unthrottled, split-for-heat\/target-800 and 5 more — benchlens$/);
  await page.screenshot({ path: `${ARTIFACTS}/runs-1280.png` });
});
