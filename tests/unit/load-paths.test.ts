import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { display } from '../../src/engine/node-files.ts';
import { loadFiles } from './helpers/engine-load.ts';
import { isManifest } from '../../src/state/folder-listing.ts';

const RUN = 'tests/fixtures/corpus/sweep-uniform-a/target-1000';

describe('reading a folder', () => {
  it("lists a README as ignored, but not the run folder's benchlens.json, which is read for its labels", async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'benchlens-load-paths-')), 'build-1');
    mkdirSync(dir);
    copyFileSync(`${RUN}/client1-READ.hdr`, `${dir}/client1-READ.hdr`);
    writeFileSync(`${dir}/README.md`, '# notes on this run\n');
    writeFileSync(`${dir}/benchlens.json`, JSON.stringify({ labels: { build: '1' } }));
    const loaded = await loadFiles([dir]);
    expect(loaded.files.map((f) => path.basename(f.path))).toEqual(['client1-READ.hdr']);
    expect(loaded.ignored).toEqual([display(`${dir}/README.md`)]);
    expect(loaded.errors).toEqual([]);
  });

  it('knows the manifest by its name alone, whatever the separators', () => {
    expect(isManifest('runs/build-1/benchlens.json')).toBe(true);
    expect(isManifest('runs\\build-1\\benchlens.json')).toBe(true);
    expect(isManifest('benchlens.json')).toBe(true);
    expect(isManifest('runs/build-1/benchlens.json.bak')).toBe(false);
    expect(isManifest('runs/not-benchlens.json')).toBe(false);
  });
});
