import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.ts', 'tests/unit/**/*.test.tsx'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Vitest's default (one worker fewer than the cores) runs the files one by one on two cores,
    // where several of them mostly wait on child processes (Chromium, npm pack, the CLI): two
    // workers took the unit suite from 474 s to 391 s there, with no test near its timeout.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
