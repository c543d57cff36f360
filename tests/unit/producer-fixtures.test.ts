import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { detectFormat, FORMATS } from '../../src/formats/registry.ts';
import { FORMAT_IDS } from '../../src/model/types.ts';

/**
 * Every real fixture of every producer (tests/fixtures/<format-id>/, origins in its SOURCES.md):
 * recognised from its content alone as that producer and as no other, and read whole through the
 * CLI's path with no error. Copies damaged on purpose (`*-mutated-*`) are the producers' own tests'.
 */

const ROOT = 'tests/fixtures';
const producers = FORMAT_IDS.filter((id) => existsSync(path.join(ROOT, id)));
const isFixture = (name: string) => name !== 'SOURCES.md' && !/-mutated-/.test(name);

function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && isFixture(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

function head(file: string): string {
  const bytes = readFileSync(file);
  const text = new TextDecoder().decode(file.endsWith('.gz') ? gunzipSync(bytes) : bytes);
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').slice(0, 64 * 1024);
}

/** Files of the generic formats: the corpus (YCSB, HdrHistogram logs, .hgrm). */
const corpusFiles = filesOf(path.join(ROOT, 'corpus')).filter((f) => /\.(hdr|hlog|hgrm|csv|txt)$/.test(f));

describe('producer fixtures', () => {
  it('every producer folder has a SOURCES.md naming each fixture', () => {
    for (const id of producers) {
      const sources = readFileSync(path.join(ROOT, id, 'SOURCES.md'), 'utf8');
      for (const file of filesOf(path.join(ROOT, id))) expect(sources, `${file} in ${id}/SOURCES.md`).toContain(path.basename(file));
    }
  });

  for (const id of producers) {
    const files = filesOf(path.join(ROOT, id));
    it(`${id}: each fixture is recognised as ${id} from its content alone`, () => {
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) expect(detectFormat(head(file), 'unknown')?.id, file).toBe(id);
    });

    it(`${id}: its module claims no other producer's fixture and no corpus file`, () => {
      const module = FORMATS.find((f) => f.id === id);
      if (!module) throw new Error(`no module for ${id}`);
      const others = [...producers.filter((p) => p !== id).flatMap((p) => filesOf(path.join(ROOT, p))), ...corpusFiles];
      for (const file of others) {
        const winner = detectFormat(head(file), 'unknown')?.id;
        expect(winner, file).not.toBe(id);
      }
    });

    it(`${id}: summarize reads every fixture whole, reported as ${id}`, async () => {
      const loaded = await loadFiles(files);
      expect(loaded.errors).toEqual([]);
      expect(loaded.files.map((f) => f.format)).toEqual(files.map(() => id));
      for (const f of loaded.files) expect(f.skippedLines, f.path).toBe(0);
    });
  }
});
