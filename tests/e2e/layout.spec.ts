import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';

/**
 * Every producer's real output reads at a glance on the built app (docs/views.md): one page load per
 * fixture, measured at 1280×800 and 1920×1080 by resizing the same page — no horizontal page
 * overflow, every shown summary row's count and p99 on screen, at most 10 legend entries per chart,
 * every plot at least 250 px tall, and a single run's first chart starting in the first viewport.
 * axe finds no serious or critical violation on the main views, light and dark.
 */

const F = 'tests/fixtures';

/** One real output per producer (SOURCES.md beside each), and the corpus sweep. */
const FIXTURES: { producer: string; paths: string[]; folder?: true; single: boolean }[] = [
  { producer: 'HdrHistogram log', paths: [`${F}/corpus/tagged-from-sweep/client1-tagged.hlog`], single: true },
  { producer: 'hgrm', paths: [`${F}/corpus/tagged-from-sweep/merged-READ.hgrm`], single: true },
  { producer: 'YCSB text + HdrHistogram', paths: [`${F}/corpus/zipfian-a/target-1000`], folder: true, single: true },
  { producer: 'YCSB raw', paths: [`${F}/corpus/raw-csv-b/target-unthrottled`], folder: true, single: true },
  { producer: 'parquet', paths: [`${F}/parquet-pyarrow/timestamp-double-ms-dictionary.parquet`], single: true },
  { producer: 'cassandra-stress', paths: [`${F}/cassandra-stress/write-threads4.log`], single: true },
  { producer: 'scylla-bench', paths: [`${F}/scylla-bench/v1.1.1-mixed.txt`], single: true },
  { producer: 'NoSQLBench', paths: [`${F}/nosqlbench/nb-5.17.9-diag-rate2000.histograms.log`], single: true },
  { producer: 'memtier', paths: [`${F}/memtier/memtier-2.3.0-redis-4s.json`], single: true },
  { producer: 'go-ycsb', paths: [`${F}/go-ycsb/run-redis-plain.stdout.txt`], single: true },
  { producer: 'k6', paths: [`${F}/k6/create-user-data.csv.gz`], single: true },
  { producer: 'JMeter', paths: [`${F}/jmeter/cinema-results.jtl`], single: true },
  { producer: 'Gatling', paths: [`${F}/gatling/simulation-3.9.5.log`], single: true },
  { producer: 'wrk', paths: [`${F}/wrk/wrk-latency.txt`], single: true },
  { producer: 'vegeta', paths: [`${F}/vegeta/mixed.csv`], single: true },
  { producer: 'Locust', paths: [`${F}/locust/full_stats.csv`, `${F}/locust/full_stats_history.csv`, `${F}/locust/full_failures.csv`], single: true },
  { producer: 'pgbench', paths: [`${F}/pgbench/pg15-multi-script`], folder: true, single: true },
  { producer: 'sysbench', paths: [`${F}/sysbench/sysbench-1.0.20-oltp-read-only-histogram.txt`], single: true },
  { producer: 'redis-benchmark', paths: [`${F}/redis-benchmark/redis-7.0.15-set-get.txt`], single: true },
  { producer: 'corpus sweep', paths: [`${F}/corpus/sweep-uniform-a`], folder: true, single: false },
];

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];

async function open(page: Page, fixture: (typeof FIXTURES)[number]): Promise<void> {
  // The first visit's sample data is not what is measured: answering its index with no files
  // keeps the engine for the fixture alone.
  await page.route('**/sample-results/index.json', (r) => r.fulfill({ json: [] }));
  await page.route('**/sample-results/analysis.json', (r) => r.fulfill({ status: 404 }));
  await page.goto('/');
  // The engine worker is up (DuckDB is not needed to load and show the fixture).
  await expect(page.getByTestId('engine-status')).toContainText('DuckDB not started');
  await page.getByTestId(fixture.folder ? 'folder-input' : 'file-input').setInputFiles(fixture.folder ? (fixture.paths[0] as string) : fixture.paths);
  await expect(page.getByTestId('summary-table')).toBeVisible();
  await expect(page.getByTestId('progress')).toHaveCount(0);
  // The charts have drawn (or said why they cannot).
  await expect(page.locator('figure.chart').first()).toBeVisible();
  await expect(page.locator('.chart-empty', { hasText: 'Computing' })).toHaveCount(0);
}

/** What the checks measure, at the page's current size, scrolled to the top. */
function measure(page: Page) {
  return page.evaluate(() => {
    window.scrollTo(0, 0);
    const vw = document.documentElement.clientWidth;
    const scroll = document.querySelector('.table-scroll')?.getBoundingClientRect();
    const right = Math.min(vw, scroll?.right ?? vw);
    const offScreen = [...document.querySelectorAll<HTMLElement>('[data-testid=summary-table] tr td[data-stat="count"], [data-testid=summary-table] tr td[data-stat="p99"]')]
      .filter((td) => td.offsetParent !== null)
      .filter((td) => {
        const r = td.getBoundingClientRect();
        return r.left < 0 || r.right > right + 0.5;
      })
      .map((td) => `${td.dataset.op} ${td.dataset.stat}`);
    const charts = [...document.querySelectorAll<HTMLElement>('figure.chart')];
    return {
      overflow: document.documentElement.scrollWidth - vw,
      cells: document.querySelectorAll('[data-testid=summary-table] td[data-stat="count"]').length,
      offScreen,
      legends: charts.map((c) => c.querySelectorAll('.recharts-legend-item').length),
      plots: [...document.querySelectorAll('figure.chart .recharts-cartesian-grid')].map((g) => g.getBoundingClientRect().height),
      firstChartTop: charts[0]?.getBoundingClientRect().top ?? null,
      viewportHeight: window.innerHeight,
    };
  });
}

for (const fixture of FIXTURES) {
  test(`${fixture.producer}: fits 1280×800 and 1920×1080`, async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setViewportSize(SIZES[0] as (typeof SIZES)[number]);
    await open(page, fixture);
    await expect(page.getByTestId('view-switcher')).toHaveAttribute('data-view', fixture.single ? 'overview' : 'charts');
    for (const size of SIZES) {
      await page.setViewportSize(size);
      // ResponsiveContainer redraws on its resize observer.
      await page.waitForTimeout(300);
      const m = await measure(page);
      const at = `${fixture.producer} at ${size.width}×${size.height}`;
      expect(m.overflow, `${at}: page wider than the window`).toBeLessThanOrEqual(0);
      expect(m.cells, `${at}: summary rows`).toBeGreaterThan(0);
      expect(m.offScreen, `${at}: count/p99 cells off screen`).toEqual([]);
      for (const n of m.legends) expect(n, `${at}: legend entries`).toBeLessThanOrEqual(10);
      for (const h of m.plots) expect(h, `${at}: plot height`).toBeGreaterThanOrEqual(250);
      if (fixture.single) expect(m.firstChartTop, `${at}: first chart's top`).toBeLessThan(m.viewportHeight);
    }
    await EXTRA[fixture.producer]?.(page);
    expect(errors).toEqual([]);
  });
}

/** Serious and critical violations only, each with where it is. */
async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

/** Checks made on a fixture's page once it is measured, so that they cost no page load of their own. */
const EXTRA: Record<string, (page: Page) => Promise<void>> = {
  // A single run's overview, light and dark, and its charts.
  Gatling: async (page) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const found: string[] = [];
    const check = async (where: string) => found.push(...(await violations(page)).map((v) => `${where}: ${v}`));
    await check('overview, light');
    await page.getByRole('button', { name: /dark/ }).click();
    await check('overview, dark');
    await page.getByRole('button', { name: 'Charts' }).click();
    await check('charts, dark');
    expect(found).toEqual([]);
  },
  // A sweep opens on its charts: light and dark.
  'corpus sweep': async (page) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const found: string[] = [];
    const check = async (where: string) => found.push(...(await violations(page)).map((v) => `${where}: ${v}`));
    await check('sweep, light');
    await page.getByRole('button', { name: /dark/ }).click();
    await check('sweep, dark');
    expect(found).toEqual([]);
  },
  // Keyboard only: the view switcher and sorting.
  JMeter: async (page) => {
    await page.getByRole('button', { name: 'Charts' }).focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('view-switcher')).toHaveAttribute('data-view', 'charts');
    expect(new URL(page.url()).hash).toContain('view=charts');
    await page.getByRole('button', { name: 'op', exact: true }).focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('[data-testid=summary-table] th[aria-sort="ascending"]')).toContainText('op');
    await page.keyboard.press('Enter');
    await expect(page.locator('[data-testid=summary-table] th[aria-sort="descending"]')).toContainText('op');
  },
};
