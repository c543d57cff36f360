import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { gunzipSync } from 'fflate';
import { isFailed, readText } from '../../../src/formats/read-file.ts';
import { FORMAT_IDS, type FormatId } from '../../../src/model/types.ts';
import type { Generated } from './generators.ts';

/**
 * Valid files of the load tools' formats for the fuzz suite: their real fixtures
 * (tests/fixtures/<format-id>/, origins in SOURCES.md), not generated ones. A tool's output cannot
 * be generated at random without writing the tool again; damaged, cut, re-encoded and padded copies
 * of real outputs are what the suite's damage properties need.
 *
 * The parse each must give back is the one readFile gives in-process on the intact text, so for
 * these formats the round-trip property checks detection and the byte path (chunking, line ends,
 * encodings, gzip), not the parse itself: each producer's own tests check its figures against an
 * independent computation.
 */

const ROOT = 'tests/fixtures';
/** Fixtures are cut to this many characters (at a line end) so every case stays cheap. */
const MAX_FIXTURE_CHARS = 48 * 1024;

export const PRODUCER_IDS: readonly FormatId[] = FORMAT_IDS.filter((id) => existsSync(path.join(ROOT, id)));

function fixtureFiles(id: FormatId): string[] {
  return readdirSync(path.join(ROOT, id), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name !== 'SOURCES.md' && !/-mutated-/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

function textOf(file: string): string {
  const bytes = readFileSync(file);
  const text = new TextDecoder().decode(file.endsWith('.gz') ? gunzipSync(bytes) : bytes).replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (text.length <= MAX_FIXTURE_CHARS) return text;
  return text.slice(0, text.lastIndexOf('\n', MAX_FIXTURE_CHARS) + 1);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The fixtures of `id` that read without a line error when cut to size, each with its parse. A
 * fixture whose cut copy has line errors (a JSON document cut in half) is left out; a producer
 * none of whose fixtures qualifies fails here, asking for a small one.
 */
export async function producerCases(id: FormatId): Promise<Generated[]> {
  const cases: Generated[] = [];
  for (const file of fixtureFiles(id)) {
    const text = textOf(file);
    const name = `run/${path.basename(file).replace(/\.gz$/, '')}`;
    const outcome = await readText(name, text);
    if (isFailed(outcome) || outcome.format !== id || outcome.skippedLines > 0 || outcome.errors.some((e) => e.line > 0)) continue;
    const { format, series, status, overall, commandLine, clientHint, producer } = outcome;
    cases.push({
      path: name,
      text,
      expected: { format, series, status, overall, commandLine, clientHint, producer },
      notes: outcome.errors.map((e) => new RegExp(`^${escape(e.message)}$`)),
    });
  }
  if (cases.length === 0) throw new Error(`no fixture of ${id} reads cleanly within ${MAX_FIXTURE_CHARS} characters: add a small one`);
  return cases;
}

export function producerArb(cases: Generated[]): fc.Arbitrary<Generated> {
  return fc.constantFrom(...cases);
}
