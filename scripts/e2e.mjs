// Builds the app, serves the build with the production headers (vite preview) and runs the
// Playwright tests against it. Screenshots land in tests/e2e/artifacts/.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (!existsSync('/usr/bin/chromium')) {
  console.error('Browser tests need Debian Chromium at /usr/bin/chromium: apt-get install -y chromium');
  process.exit(1);
}
const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit' }).status ?? 1;
const outDir = process.env.BENCHLENS_OUT_DIR ?? 'dist';
if (!process.env.BENCHLENS_SKIP_BUILD && run('npx', ['vite', 'build', '--logLevel', 'warn', '--outDir', outDir]) !== 0) process.exit(1);

// BENCHLENS_PORT lets two checkouts (or two people) run the browser tests side by side.
const port = process.env.BENCHLENS_PORT ?? '4173';
process.env.BENCHLENS_URL ??= `http://127.0.0.1:${port}`;
const server = spawn('npx', ['vite', 'preview', '--outDir', outDir, '--port', port, '--strictPort', '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
const stop = () => {
  try {
    process.kill(-server.pid);
  } catch {
    /* already gone */
  }
};
process.on('exit', stop);

const deadline = Date.now() + 30_000;
for (;;) {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/`);
    if (r.ok) break;
  } catch {
    /* not up yet */
  }
  if (Date.now() > deadline) {
    console.error('vite preview did not start');
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, 200));
}
const status = run('npx', ['playwright', 'test', ...process.argv.slice(2)]);
stop();
process.exit(status);
