import { expect, test, type Download, type Locator, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseCsv } from '../helpers/csv.ts';

/**
 * One chart alone for an <iframe> (#embed=), the embed code that makes one, and the exports: a
 * chart as standalone SVG and as PNG, the summary table as CSV and Markdown, read back from the
 * downloaded files.
 */

const ARTIFACTS = 'tests/e2e/artifacts';
const RUN = 'sweep-uniform-a/target-1000';

async function downloaded(page: Page, button: Locator): Promise<{ download: Download; bytes: Buffer }> {
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  return { download, bytes: readFileSync(await download.path()) };
}

async function throughputChart(page: Page, hash = ''): Promise<Locator> {
  await page.goto(`/#chart=throughput${hash}&v=2`);
  const figure = page.getByTestId('chart-throughput');
  await expect(figure.locator('svg.recharts-surface').first()).toBeVisible();
  await expect(figure).toHaveAttribute('data-series', /^[1-9]/);
  await page.waitForTimeout(300);
  return figure;
}

test('#embed= shows that chart alone, filling the page, with the sample data loaded', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.setViewportSize({ width: 900, height: 460 });
  await page.goto('/#embed=throughput');
  const figure = page.getByTestId('chart-throughput');
  await expect(figure.locator('svg.recharts-surface').first()).toBeVisible();
  await expect(figure).toHaveAttribute('data-series', /^[1-9]/);
  await expect(figure.locator('.recharts-legend-item-text', { hasText: /^READ$/ })).toBeVisible();

  await expect(page.getByTestId('summary-table')).toHaveCount(0);
  await expect(page.getByTestId('runs-panel')).toHaveCount(0);
  await expect(page.getByTestId('sample-banner')).toHaveCount(0);
  await expect(page.locator('header')).toHaveCount(0);
  // No tabs or controls: the chart follows the link's state.
  await expect(page.locator('[role=tab]')).toHaveCount(0);
  await expect(page.getByLabel('percentile')).toHaveCount(0);
  await expect(page.locator('textarea')).toHaveCount(0);
  await expect(figure.getByRole('button')).toHaveCount(0);
  await expect(page.locator('[data-testid^=chart-]')).toHaveCount(1);

  const box = await figure.boundingBox();
  expect(box).not.toBeNull();
  expect(box?.x).toBe(0);
  expect(box?.y).toBe(0);
  expect(box?.width).toBe(900);
  expect(box?.height).toBe(460);
  // Nothing scrolls: the iframe shows the whole of it.
  expect(await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight])).toEqual([900, 460]);
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${ARTIFACTS}/embed-throughput.png` });
  expect(errors).toEqual([]);
});

test('an unknown chart to embed falls back to the dashboard with a notice', async ({ page }) => {
  await page.goto('/#embed=pie');
  await expect(page.getByRole('status')).toContainText('unknown chart to embed "pie"');
  await expect(page.getByTestId('summary-table')).toBeVisible();
});

test('a chart exports as a standalone SVG: valid, styled without CSS variables, with its title and legend', async ({ page, browser }) => {
  const figure = await throughputChart(page);
  await figure.locator('figcaption').screenshot({ path: `${ARTIFACTS}/export-buttons.png` });
  const series = Number(await figure.getAttribute('data-series'));

  const { download, bytes } = await downloaded(page, figure.getByRole('button', { name: 'SVG', exact: true }));
  expect(download.suggestedFilename()).toBe('benchlens-throughput.svg');
  const svg = bytes.toString('utf8');
  expect(svg).not.toContain('var(--');
  expect(svg).not.toMatch(/<script|<foreignObject|\son[a-z]+=|javascript:/i);
  // No external references: every href / url() points inside the file.
  expect(svg).not.toMatch(/href="(?!#)|url\((?!#)/);

  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const root = doc.documentElement;
    return {
      error: doc.getElementsByTagName('parsererror').length,
      root: root.localName,
      ns: root.namespaceURI,
      width: Number(root.getAttribute('width')),
      height: Number(root.getAttribute('height')),
      texts: [...doc.getElementsByTagName('text')].map((t) => t.textContent?.trim() ?? ''),
      areas: doc.querySelectorAll('path.recharts-area-curve').length,
      legendIcons: doc.querySelectorAll('g.legend-item').length,
      fills: [...doc.querySelectorAll('path.recharts-area-curve')].map((p) => p.getAttribute('stroke')),
    };
  }, svg);
  expect(parsed.error).toBe(0);
  expect(parsed.root).toBe('svg');
  expect(parsed.ns).toBe('http://www.w3.org/2000/svg');
  expect(parsed.width).toBeGreaterThan(800);
  expect(parsed.height).toBeGreaterThan(400);
  expect(parsed.areas).toBe(series);
  expect(parsed.fills.every((f) => f !== null && /^#[0-9a-f]{6}$/.test(f))).toBe(true);
  // The title and the legend are HTML on the page; in the file they are SVG text.
  expect(parsed.texts).toContain('Throughput over time');
  expect(parsed.texts).toContain('READ');
  expect(parsed.texts).toContain('UPDATE');
  expect(parsed.texts).toContain('ops/s');
  expect(parsed.legendIcons).toBe(series);

  // Opened on its own, as an image outside the page, it looks like the chart.
  const viewer = await browser.newPage({ viewport: { width: parsed.width, height: parsed.height } });
  await viewer.setContent(`<body style="margin:0"><img id="svg" src="data:image/svg+xml;base64,${bytes.toString('base64')}"></body>`);
  const size = await viewer.locator('#svg').evaluate(async (img: HTMLImageElement) => {
    await img.decode();
    return [img.naturalWidth, img.naturalHeight];
  });
  expect(size).toEqual([parsed.width, parsed.height]);
  await viewer.screenshot({ path: `${ARTIFACTS}/exported-throughput-svg.png` });
  await viewer.close();
});

test('every chart of the sample data exports all its series, coloured', async ({ page }) => {
  // Line colours include color-mix() shades (percentiles), which must arrive as plain hex; the
  // cost chart is several <svg>s side by side under an HTML colour key.
  const cost = `&cost=${encodeURIComponent(JSON.stringify({ clusterMonthly: 4544 }))}`;
  for (const [id, series, paint, extra] of [
    ['latency-vs-load', 'path.recharts-line-curve', 'stroke', ''],
    ['percentiles', 'path.recharts-line-curve', 'stroke', ''],
    ['intended', 'path.recharts-line-curve', 'stroke', ''],
    ['cost', 'path.recharts-rectangle', 'fill', cost],
  ] as const) {
    // A new document: the app reads the fragment once, when it starts.
    await page.goto('about:blank');
    await page.goto(`/#chart=${id}${extra}&v=2`);
    const figure = page.getByTestId(`chart-${id}`);
    await expect(figure.locator('svg.recharts-surface').first()).toBeVisible();
    const live = await figure.locator(series).count();
    expect(live, id).toBeGreaterThan(0);
    const { bytes } = await downloaded(page, figure.getByRole('button', { name: 'SVG', exact: true }));
    const svg = bytes.toString('utf8');
    expect(svg, id).not.toContain('var(--');
    const exported = await page.evaluate(
      ([text, selector, attribute]) => {
        const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
        // The file writes a value only where it differs from the parent's: look up the ancestors.
        const inherited = (el: Element | null): string | null => (el ? (el.getAttribute(attribute) ?? inherited(el.parentElement)) : null);
        return { error: doc.getElementsByTagName('parsererror').length, colours: [...doc.querySelectorAll(selector)].map(inherited) };
      },
      [svg, series, paint] as const,
    );
    if (id === 'cost') expect(svg).toContain('>DynamoDB on-demand</text>');
    expect(exported.error, id).toBe(0);
    expect(exported.colours, id).toHaveLength(live);
    for (const c of exported.colours) expect(c, id).toMatch(/^#[0-9a-f]{6}$/);
  }
});

test('a chart exports as a PNG at twice its size', async ({ page }) => {
  const figure = await throughputChart(page);
  const box = await figure.boundingBox();
  const { download, bytes } = await downloaded(page, figure.getByRole('button', { name: 'PNG', exact: true }));
  expect(download.suggestedFilename()).toBe('benchlens-throughput.png');
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(bytes.subarray(12, 16).toString('ascii')).toBe('IHDR');
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  expect(Math.abs(width - 2 * (box?.width ?? 0))).toBeLessThanOrEqual(2);
  expect(height).toBeGreaterThan(800);
  // The PNG is the SVG export drawn at twice its size (the SVG's layout is the CLI's and the report's:
  // title, note and legend laid out around the plot, so its height is not the page's frame's).
  const svg = (await downloaded(page, figure.getByRole('button', { name: 'SVG', exact: true }))).bytes.toString('utf8');
  const size = /<svg [^>]*width="(\d+)" height="(\d+)"/.exec(svg);
  expect([width, height]).toEqual([2 * Number(size?.[1]), 2 * Number(size?.[2])]);
  expect(bytes.length).toBeGreaterThan(20_000);

  const viewer = await page.context().newPage();
  await viewer.setViewportSize({ width: width / 2, height: height / 2 });
  await viewer.setContent(`<body style="margin:0"><img src="data:image/png;base64,${bytes.toString('base64')}" style="width:${width / 2}px"></body>`);
  await viewer.screenshot({ path: `${ARTIFACTS}/exported-throughput-png.png` });
  await viewer.close();
});

test('the dark theme exports with its own colours resolved', async ({ page }) => {
  const figure = await throughputChart(page, '&theme=dark');
  const { bytes } = await downloaded(page, figure.getByRole('button', { name: 'SVG', exact: true }));
  const svg = bytes.toString('utf8');
  expect(svg).not.toContain('var(--');
  // --panel of the dark theme behind everything; --muted axis text.
  expect(svg).toMatch(/^(?:<\?xml [^>]*\?>\n)?<svg[^>]*>\n<title>[^<]*<\/title>\n<rect [^>]*fill="#111827"/);
  expect(svg).toContain('fill="#94a3b8"');
});

test('the summary table exports as CSV and Markdown with the merged figures', async ({ page }) => {
  await page.goto('/');
  const table = page.getByTestId('summary-table');
  await expect(table).toBeVisible();
  const p99 = await table.locator(`td[data-run="${RUN}"][data-op="READ"][data-stat="p99"]`).getAttribute('data-value');
  const count = await table.locator(`td[data-run="${RUN}"][data-op="READ"][data-stat="count"]`).getAttribute('data-value');
  expect(Number(p99)).toBeGreaterThan(0);
  await table.locator('caption').screenshot({ path: `${ARTIFACTS}/summary-export-buttons.png` });

  const csv = await downloaded(page, table.getByRole('button', { name: 'CSV', exact: true }));
  expect(csv.download.suggestedFilename()).toBe('benchlens-summary.csv');
  const text = csv.bytes.toString('utf8');
  expect(text.startsWith('\uFEFF')).toBe(true);
  const [header = [], ...rows] = parseCsv(text.slice(1));
  expect(header).toEqual(['run', 'op', 'count', 'ops/s', 'mean (µs)', 'p50 (µs)', 'p90 (µs)', 'p95 (µs)', 'p99 (µs)', 'p99.9 (µs)', 'p99.99 (µs)', 'max (µs)', 'max-of-clients p95 (µs)', 'max-of-clients p99 (µs)']);
  const read = rows.find((r) => r[0] === RUN && r[1] === 'READ');
  expect(read?.[header.indexOf('p99 (µs)')]).toBe(p99);
  expect(read?.[header.indexOf('count')]).toBe(count);
  expect(rows.length).toBe(await table.locator('tbody tr:not(.run-row):not(.client-row)').count());

  const md = await downloaded(page, table.getByRole('button', { name: 'Markdown' }));
  expect(md.download.suggestedFilename()).toBe('benchlens-summary.md');
  const lines = md.bytes.toString('utf8').trimEnd().split('\n');
  expect(lines[0]).toBe('| run | op | count | ops/s | mean (µs) | p50 (µs) | p90 (µs) | p95 (µs) | p99 (µs) | p99.9 (µs) | p99.99 (µs) | max (µs) | max-of-clients p95 (µs) | max-of-clients p99 (µs) |');
  expect(lines[1]).toBe('| --- | --- |' + ' ---: |'.repeat(12));
  const mdRead = lines.find((l) => l.startsWith(`| ${RUN} | READ |`))?.split(' | ');
  expect(mdRead?.[8]).toBe(p99);
});

test('the embed code shows the chart alone inside another page', async ({ page, browser }) => {
  const figure = await throughputChart(page);
  await figure.getByRole('button', { name: 'embed code' }).click();
  const field = page.getByTestId('embed-code-throughput');
  await expect(field).toBeVisible();
  const code = await field.inputValue();
  const origin = new URL(page.url()).origin;
  expect(code).toBe(`<iframe src="${origin}/#chart=throughput&amp;v=2&amp;embed=throughput" width="100%" height="460" style="border:0" loading="lazy" title="benchlens: Throughput over time"></iframe>`);
  await expect(field).toHaveJSProperty('readOnly', true);
  await page.waitForTimeout(200);
  await figure.screenshot({ path: `${ARTIFACTS}/embed-code.png` });

  // A page of another origin (another port), as a blog embedding the chart would be. Served for
  // real: Chromium's local-network checks refuse a loopback iframe in a page that has no address.
  const blog = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><body style="margin:20px;font-family:sans-serif"><h1>A blog post</h1>${code}</body>`));
  await new Promise<void>((resolve) => blog.listen(0, '127.0.0.1', resolve));
  const { port } = blog.address() as AddressInfo;
  const host = await browser.newPage({ viewport: { width: 1000, height: 620 } });
  await host.goto(`http://127.0.0.1:${port}/post`);
  const frame = host.frameLocator('iframe');
  await expect(frame.getByTestId('chart-throughput').locator('svg.recharts-surface').first()).toBeVisible({ timeout: 60_000 });
  await expect(frame.getByTestId('summary-table')).toHaveCount(0);
  await host.waitForTimeout(300);
  await host.screenshot({ path: `${ARTIFACTS}/embed-in-host-page.png` });
  await host.close();
  blog.close();
});
