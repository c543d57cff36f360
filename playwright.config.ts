import { defineConfig } from '@playwright/test';

/** Browser tests drive Debian's Chromium (never a downloaded browser) against the built app. */
export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'tests/e2e/artifacts/results',
  timeout: 120_000,
  expect: { timeout: 30_000 },
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: process.env.BENCHLENS_URL ?? 'http://127.0.0.1:4173',
    viewport: { width: 1400, height: 1000 },
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
