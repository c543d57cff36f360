import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.ts';
import { FORMAT_IDS, type FormatId } from '../../src/model/types.ts';
import { STATE_VERSION } from '../../src/state/view-state.ts';

/**
 * The README and docs/ against the code they describe: links that lead somewhere, the README's two
 * commands (CI runs its test command), every command and every producer documented, the link
 * version the code writes.
 */

const ROOT = path.join(import.meta.dirname, '..', '..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const DOCS = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    out.add((m[1] as string).trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replace(/ /g, '-'));
  }
  return out;
}

/** Markdown outside fenced code blocks. */
const prose = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```/gm, '');

describe('README and docs/', () => {
  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of DOCS) {
      for (const m of prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1] as string;
        if (/^[a-z]+:/.test(target)) continue;
        const [rel, anchor] = target.split('#') as [string, string | undefined];
        const resolved = rel ? path.join(path.dirname(file), rel) : file;
        if (!existsSync(path.join(ROOT, resolved))) broken.push(`${file}: ${target}`);
        else if (anchor && resolved.endsWith('.md') && !anchors(read(resolved)).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('have no prose line over 200 characters', () => {
    const long = DOCS.flatMap((file) =>
      prose(read(file))
        .split('\n')
        .filter((line) => line.length > 200 && !line.trimStart().startsWith('|'))
        .map((line) => `${file}: ${line.slice(0, 60)}…`),
    );
    expect(long).toEqual([]);
  });

  it("open the README with the app's start command and the test command CI runs", () => {
    const [, block] = /^```sh\n([\s\S]*?)^```/m.exec(read('README.md')) ?? [];
    const commands = (block ?? '').split('\n').filter(Boolean).map((l) => l.replace(/\s+#.*$/, ''));
    expect(commands).toEqual(['npm install && npm run dev', 'npm test']);
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.dev).toBe('vite');
    expect(scripts.test).toMatch(/^vitest run && npm run test:e2e$/);
    expect(read('.ci/run')).toMatch(/^npm test$/m);
  });

  it('document every command of the CLI', () => {
    const cli = read('docs/cli.md');
    for (const name of Object.keys(COMMANDS)) {
      expect(cli, name).toContain(`| \`${name}\` |`);
      expect(cli, name).toMatch(new RegExp(`^## \`${name}\``, 'm'));
    }
  });

  it("document every producer's files, in the README's inputs table and in docs/formats.md", () => {
    // The README row and the formats.md heading each format id is documented under.
    const documentedAs: Record<FormatId, { row: string; heading: string }> = {
      'hdr-log': { row: 'HdrHistogram', heading: 'HdrHistogram interval log' },
      hgrm: { row: 'HdrHistogram', heading: '`.hgrm` percentile distribution' },
      'ycsb-raw': { row: 'YCSB', heading: 'YCSB raw CSV' },
      'ycsb-text': { row: 'YCSB', heading: 'YCSB text output' },
      'generic-csv': { row: 'any', heading: 'Per-operation CSV' },
      parquet: { row: 'any', heading: 'Per-operation Parquet' },
      'cassandra-stress': { row: 'cassandra-stress', heading: 'cassandra-stress' },
      'scylla-bench': { row: 'scylla-bench', heading: 'scylla-bench' },
      nosqlbench: { row: 'NoSQLBench', heading: 'NoSQLBench' },
      memtier: { row: 'memtier_benchmark', heading: 'memtier_benchmark' },
      'go-ycsb': { row: 'go-ycsb', heading: 'go-ycsb' },
      'redis-benchmark': { row: 'redis-benchmark', heading: 'redis-benchmark' },
      k6: { row: 'k6', heading: 'k6' },
      jmeter: { row: 'JMeter', heading: 'JMeter JTL' },
      gatling: { row: 'Gatling', heading: 'Gatling `simulation.log`' },
      wrk: { row: 'wrk / wrk2', heading: 'wrk / wrk2' },
      vegeta: { row: 'vegeta', heading: 'vegeta' },
      locust: { row: 'Locust', heading: 'Locust CSV' },
      pgbench: { row: 'pgbench', heading: 'pgbench' },
      sysbench: { row: 'sysbench', heading: 'sysbench' },
    };
    expect(Object.keys(documentedAs).sort()).toEqual([...FORMAT_IDS].sort());
    const readme = read('README.md');
    const formats = read('docs/formats.md');
    for (const [id, { row, heading }] of Object.entries(documentedAs)) {
      expect(readme, id).toContain(`\n| ${row} |`);
      expect(formats, id).toContain(`\n### ${heading}\n`);
    }
  });

  it('give the link version the code writes', () => {
    const sharing = read('docs/sharing.md');
    expect(sharing).toContain(`\`v=${STATE_VERSION}\` today`);
    expect(DOCS.flatMap((f) => [...read(f).matchAll(/`v=(\d+)`/g)].map((m) => `${f}: v=${m[1]}`)).filter((s) => !s.endsWith(`v=${STATE_VERSION}`))).toEqual([]);
  });
});
