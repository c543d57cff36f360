import { defineConfig } from 'vite';
import path from 'node:path';

/**
 * The `benchlens` command as plain JavaScript for Node 20+ (`npm run build:cli`, and `npm pack`'s
 * prepack): src/cli/benchlens.ts and everything it imports, transformed by the same Vite the app and
 * the tests use (TypeScript with `.ts` imports, the charts' TSX), as an SSR build. An SSR build keeps
 * the packages in `dependencies` as imports (DuckDB-WASM finds its .wasm files in its own folder
 * under node_modules), and each command module, imported lazily by the dispatcher, is a chunk of
 * its own. Not minified: a stack trace (exit code 3) names the source's functions.
 */
export default defineConfig({
  publicDir: false,
  build: {
    ssr: path.resolve(import.meta.dirname, 'src/cli/benchlens.ts'),
    outDir: 'dist-cli',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    rolldownOptions: { output: { entryFileNames: 'benchlens.js', chunkFileNames: 'chunks/[name]-[hash].js' } },
  },
});
