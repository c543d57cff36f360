import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * benchlens's own package.json (the version), which the commands read at run time, found the same
 * way from the source (src/cli/) and from the installed package (dist-cli/): in the nearest folder
 * above this module that holds one.
 */
function packageFile(name: string): string {
  const here = fileURLToPath(import.meta.url);
  for (let dir = path.dirname(here); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return readFileSync(path.join(dir, name), 'utf8');
    if (path.dirname(dir) === dir) throw new Error(`no package.json in a folder above ${here}`);
  }
}

export const packageVersion = (): string => (JSON.parse(packageFile('package.json')) as { version: string }).version;
