/**
 * The user's time, measured on the built app (index.html, not the engine harness): from the user's
 * action — files handed to the file input with the sample data already on screen (and DuckDB
 * started, as the SQL box starts it), or a `#files=`
 * link opened on a cold page — to the final figures in the summary table (every operation's count
 * equal to what was written, its percentiles shown), read back for comparison with native DuckDB.
 * And the cold start: first paint, and the sample data's summary on screen, from navigation.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.ts';

/** Per operation, the figures the summary table shows for a run (µs). */
export type ShownFigures = Record<string, { count: number; p50: number | null; p99: number | null; 'p99.9': number | null }>;

export interface AppMeasurement {
  appSeconds: number;
  figures: ShownFigures;
  peakMemoryMB: number | null;
  /**
   * Cold cases: the peak once DuckDB has been started after the figures (as the SQL box starts it;
   * nothing else on the page does), which the peak at the figures does not include.
   */
  settledPeakMemoryMB?: number | null;
  /** CPU seconds the renderer processes (page and its workers) used from the action to the figures; null where unknown. */
  rendererCpuSeconds?: number | null;
}

declare global {
  interface Window {
    __benchApp?: { start: number | null; done: number | null; expected: Record<string, number> };
  }
}

/**
 * Watches the page for the summary table showing exactly `expected` (op → count) and records
 * performance.now() then, and at the first file-input change. Installed before the action: an init
 * script for a cold page, an evaluate for a page already showing the sample data.
 */
function watchForFigures(expected: Record<string, number>): void {
  const state = { start: null as number | null, done: null as number | null, expected };
  window.__benchApp = state;
  document.addEventListener('change', () => (state.start ??= performance.now()), { capture: true });
  const observer = new MutationObserver(() => {
    if (state.done !== null) return;
    // Each operation's own count; the run's all-requests row merges them and is not one of them.
    const cells = document.querySelectorAll<HTMLElement>('[data-testid=summary-table] tr:not([data-testid=all-requests]) > td[data-stat=count]');
    if (cells.length !== Object.keys(state.expected).length) return;
    for (const c of cells) if (Number(c.dataset.value) !== state.expected[c.dataset.op ?? '']) return;
    // Final: the percentiles are on screen too, not only the counts.
    if (!document.querySelector('[data-testid=summary-table] td[data-stat=p99][data-value]')) return;
    state.done = performance.now();
    observer.disconnect();
  });
  // The document itself, not its root element: an init script runs before there is one.
  observer.observe(document, { subtree: true, childList: true, attributes: true });
}

async function readFigures(page: Page, ops: readonly string[]): Promise<ShownFigures> {
  const out: ShownFigures = {};
  for (const op of ops) {
    const value = async (stat: string) => {
      const v = await page.locator(`[data-testid=summary-table] td[data-op="${op}"][data-stat="${stat}"]`).first().getAttribute('data-value');
      return v === null ? null : Number(v);
    };
    out[op] = { count: (await value('count')) ?? 0, p50: await value('p50'), p99: await value('p99'), 'p99.9': await value('p99.9') };
  }
  return out;
}

/** A process's peak resident set (Linux VmHWM), MB. */
export function vmHwmMB(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

async function rendererInfo(browser: Browser): Promise<{ type: string; id: number; cpuTime: number }[]> {
  const cdp = await browser.newBrowserCDPSession();
  const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number; cpuTime: number }[] };
  await cdp.detach();
  return processInfo.filter((p) => p.type === 'renderer');
}

async function rendererPids(browser: Browser): Promise<number[]> {
  return (await rendererInfo(browser)).map((p) => p.id);
}

/** CPU seconds used so far by the renderer processes. */
async function rendererCpu(browser: Browser): Promise<number> {
  return (await rendererInfo(browser)).reduce((sum, p) => sum + p.cpuTime, 0);
}

function resetPeaks(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
    } catch {
      /* not ours to reset: the peak then includes start-up */
    }
  }
}

const peakOf = (pids: readonly number[]): number | null => {
  const peaks = pids.map(vmHwmMB).filter((v): v is number => v !== null);
  return peaks.length ? Math.max(...peaks) : null;
};

async function withPage<T>(act: (page: Page, browser: Browser) => Promise<T>): Promise<T> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const result = await act(page, browser);
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    return result;
  } finally {
    await browser.close();
  }
}

/** Files handed to the file input of the app already showing the sample data, as a drop does. */
export function appWithFiles(baseUrl: string, files: readonly string[], expected: Record<string, number>): Promise<AppMeasurement> {
  return withPage(async (page, browser) => {
    await page.goto(`${baseUrl}/`);
    await page.getByTestId('sample-banner').waitFor();
    await page.locator('[data-testid=summary-table]').waitFor();
    await startDuckDb(page);
    await page.waitForFunction(() => document.querySelector('[data-testid=progress]') === null);
    await page.evaluate(watchForFigures, expected);
    const pids = await rendererPids(browser);
    resetPeaks(pids);
    const cpuBefore = await rendererCpu(browser);
    await page.setInputFiles('[data-testid=file-input]', [...files]);
    await page.waitForFunction(() => window.__benchApp?.done != null, null, { timeout: 0, polling: 100 });
    const rendererCpuSeconds = (await rendererCpu(browser)) - cpuBefore;
    const { start, done } = await page.evaluate(() => window.__benchApp as { start: number; done: number });
    return { appSeconds: (done - start) / 1000, figures: await readFigures(page, Object.keys(expected)), peakMemoryMB: peakOf(pids), rendererCpuSeconds };
  });
}

/** DuckDB started as the page starts it for SQL (the SQL box taking the focus), and ready. */
async function startDuckDb(page: Page): Promise<void> {
  await page.locator('#query-sql').focus();
  await page.getByText('DuckDB ready').waitFor({ timeout: 120_000 });
}

/** The peak once DuckDB has been started after the figures, as SQL would start it. */
async function settledPeak(page: Page, pids: readonly number[]): Promise<number | null> {
  await startDuckDb(page);
  return peakOf(pids);
}

/** A `#files=` link opened on a cold page: from navigation to the final figures. Peaks include the page's start. */
export function appWithLink(baseUrl: string, refs: readonly string[], expected: Record<string, number>): Promise<AppMeasurement> {
  return withPage(async (page, browser) => {
    await page.addInitScript(watchForFigures, expected);
    await page.goto(`${baseUrl}/#files=${refs.join(',')}`);
    const pids = await rendererPids(browser);
    await page.waitForFunction(() => window.__benchApp?.done != null, null, { timeout: 0, polling: 100 });
    const done = await page.evaluate(() => window.__benchApp?.done as number);
    const peakMemoryMB = peakOf(pids);
    return { appSeconds: done / 1000, figures: await readFigures(page, Object.keys(expected)), peakMemoryMB, settledPeakMemoryMB: await settledPeak(page, pids) };
  });
}

/**
 * Files handed to the file input as soon as the page shows (the sample data's summary on screen,
 * the engine still starting): from the input's change to the final figures. Peaks include the page's start.
 */
export function appEarlyDrop(baseUrl: string, files: readonly string[], expected: Record<string, number>): Promise<AppMeasurement> {
  return withPage(async (page, browser) => {
    await page.addInitScript(watchForFigures, expected);
    await page.goto(`${baseUrl}/`);
    await page.locator('[data-testid=summary-table]').waitFor();
    const pids = await rendererPids(browser);
    await page.setInputFiles('[data-testid=file-input]', [...files]);
    await page.waitForFunction(() => window.__benchApp?.done != null, null, { timeout: 0, polling: 100 });
    const { start, done } = await page.evaluate(() => window.__benchApp as { start: number; done: number });
    const peakMemoryMB = peakOf(pids);
    return { appSeconds: (done - start) / 1000, figures: await readFigures(page, Object.keys(expected)), peakMemoryMB, settledPeakMemoryMB: await settledPeak(page, pids) };
  });
}

/** A cold page: first contentful paint, and the sample data's summary on screen, in ms from navigation. */
export function coldStart(baseUrl: string): Promise<{ firstPaintMs: number | null; sampleSummaryMs: number }> {
  return withPage(async (page) => {
    await page.addInitScript(() => {
      const mark = { shown: null as number | null };
      (window as unknown as { __sample: typeof mark }).__sample = mark;
      const observer = new MutationObserver(() => {
        if (mark.shown === null && document.querySelector('[data-testid=summary-table] td[data-stat=p99][data-value]')) {
          mark.shown = performance.now();
          observer.disconnect();
        }
      });
      observer.observe(document, { subtree: true, childList: true, attributes: true });
    });
    await page.goto(`${baseUrl}/`);
    await page.waitForFunction(() => (window as unknown as { __sample: { shown: number | null } }).__sample.shown !== null, null, { timeout: 120_000, polling: 50 });
    return page.evaluate(() => ({
      firstPaintMs: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
      sampleSummaryMs: (window as unknown as { __sample: { shown: number } }).__sample.shown,
    }));
  });
}

export interface QueryMeasurement {
  /** Run pressed → the result's rows on screen: the page's first query. */
  appSeconds: number;
  /** The engine worker's own time for it (shown beside the result). */
  workerMs: number;
  /** The same query run again at once, and the worker's time for it. */
  againSeconds: number;
  againWorkerMs: number;
  /** The result as the table shows it: rows of tab-separated cells. */
  text: string;
}

/**
 * The Query view on the built app: `file` handed to the file input (its summary awaited: `expected`
 * op → count), then `sql` typed and Run pressed, timed in the page to the result on screen.
 */
export function appQuery(baseUrl: string, file: string, expected: Record<string, number>, sql: string): Promise<QueryMeasurement> {
  return withPage(async (page) => {
    await page.goto(`${baseUrl}/`);
    await page.getByTestId('sample-banner').waitFor();
    await startDuckDb(page);
    await page.waitForFunction(() => document.querySelector('[data-testid=progress]') === null);
    await page.evaluate(watchForFigures, expected);
    await page.setInputFiles('[data-testid=file-input]', [file]);
    await page.waitForFunction(() => window.__benchApp?.done != null, null, { timeout: 0, polling: 500 });
    await page.locator('#query-sql').fill(sql);
    // Run pressed → the result on screen (its summary line gone while it runs, then back), in the page.
    const timeRun = () =>
      page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            // No named functions in here: tsx would wrap them in a helper the page does not have.
            let running = false;
            const observer = new MutationObserver(() => {
              const shown = document.querySelector('[data-testid=query-summary], .query-error') !== null;
              if (!shown) running = true;
              else if (running) {
                observer.disconnect();
                resolve(performance.now() - start);
              }
            });
            observer.observe(document.body, { subtree: true, childList: true });
            const run = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Run');
            const start = performance.now();
            run?.click();
          }),
      );
    const appMs = await timeRun();
    const workerMs = async () => Number(/in ([\d,]+) ms/.exec(await page.getByTestId('query-summary').innerText())?.[1]?.replace(/,/g, '') ?? NaN);
    const firstWorkerMs = await workerMs();
    // Again, on a page whose DuckDB has read a CSV before (its WebAssembly compiled to the optimising tier).
    const againMs = await timeRun();
    const error = await page.locator('.query-error').count();
    if (error) throw new Error(`query failed: ${await page.locator('.query-error').innerText()}`);
    return { appSeconds: appMs / 1000, workerMs: firstWorkerMs, againSeconds: againMs / 1000, againWorkerMs: await workerMs(), text: await page.locator('.query-table tbody').innerText() };
  });
}
