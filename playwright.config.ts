import { defineConfig } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS } from './scripts/chromium.ts';

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
    launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
  },
});
