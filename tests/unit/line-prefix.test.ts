import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { findLinePrefix } from '../../src/formats/line-prefix.ts';
import { partPlan } from '../../src/formats/part-plan.ts';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import { fileNotes } from '../../src/model/file-tally.ts';
import type { ParsedFile } from '../../src/model/types.ts';

/**
 * Text outputs with a harness's, `ts`'s, a journal's or a CI runner's prefix before each line
 * (tests/fixtures/prefixed/, origins in its SOURCES.md) read as the same output without it.
 */

const DIR = 'tests/fixtures/prefixed';
const fixture = (name: string): string => readFileSync(path.join(DIR, name), 'utf8');

async function parsed(name: string, text: string): Promise<ParsedFile> {
  const outcome = await readText(name, text);
  if (isFailed(outcome)) throw new Error(`${name}: ${outcome.errors[0]?.message}`);
  return outcome;
}

/** What a parse says about the run, without the notes about how it was read. */
function content(f: ParsedFile) {
  const { format, series, status, overall, commandLine, clientHint, producer, errors, skippedLines, lines } = f;
  return { format, series, status, overall, commandLine, clientHint, producer, errors, skippedLines, lines };
}

/** Each line's first `width` characters removed where they are a prefix: by position, not by the module's patterns. */
const cut = (text: string, width: number, starts: RegExp): string =>
  text
    .split('\n')
    .map((l) => (starts.test(l) ? l.slice(width) : l))
    .join('\n');

describe('prefixed real outputs read as the outputs without the prefix', () => {
  it("cassandra-stress under scylla-cluster-tests ([YYYY-MM-DD HH:MM:SS.mmm] and its TAG line): the original log's parse", async () => {
    const original = readFileSync('tests/fixtures/cassandra-stress/mixed-fixed2000.log', 'utf8');
    const text = fixture('cassandra-stress-3.11.11-mixed-sct.log');
    const prefixed = await parsed('sct/cassandra-stress-l1-c0-k1.log', text);
    const plain = await parsed('sct/cassandra-stress-l1-c0-k1.log', `TAG: loader_idx:0-cpu_idx:0-keyspace_idx:1\n${original}`);
    expect(content(prefixed)).toEqual(content(plain));
    expect(prefixed.format).toBe('cassandra-stress');
    expect(prefixed.series.map((s) => `${s.op}:${s.kind}`)).toEqual(['READ:intervals', 'WRITE:intervals', 'READ:printed', 'WRITE:printed']);
    // Every line with content carried the prefix; blank lines carry none (SCT writes them as they are).
    const withContent = text.split('\n').filter((l) => l.trim().length > 0).length;
    expect(prefixed.linePrefix).toEqual({ shape: 'bracketed-timestamp', label: '[date time] timestamps (a test harness, ts)', lines: withContent });
  });

  it("the driver's WARN lines between the rows are passed over as in an unprefixed log: same series, nothing skipped", async () => {
    const clean = await parsed('a.log', fixture('cassandra-stress-3.11.11-mixed-sct.log'));
    const noisy = await parsed('a.log', fixture('cassandra-stress-3.11.11-mixed-sct-mutated-driver-lines.log'));
    // Three lines more before some rows: the same figures, the rows' own line numbers.
    const figures = (f: ParsedFile) => f.series.map((s) => (s.kind === 'intervals' ? s.rows.map(({ line: _, ...r }) => r) : s));
    expect(figures(noisy)).toEqual(figures(clean));
    expect(noisy.skippedLines).toBe(0);
    expect(noisy.lines).toBe(clean.lines + 3);
    expect(noisy.linePrefix?.lines).toBe((clean.linePrefix?.lines ?? 0) + 3);
  });

  it('scylla-bench in a journal (Mon DD HH:MM:SS host unit[pid]:): the original stdout parse', async () => {
    const original = await parsed('x/write.txt', readFileSync('tests/fixtures/scylla-bench/v1.1.1-write.txt', 'utf8'));
    const prefixed = await parsed('x/write.txt', fixture('scylla-bench-v1.1.1-write-journal.txt'));
    expect(content(prefixed)).toEqual(content(original));
    expect(prefixed.linePrefix?.shape).toBe('syslog-header');
    expect(prefixed.linePrefix?.lines).toBe(original.lines);
  });

  it("sysbench through ts (Mon DD HH:MM:SS): the parse of the same text cut by position", async () => {
    const text = fixture('sysbench-1.0.20-cpu-histogram-ts.txt');
    const prefixed = await parsed('s.txt', text);
    const plain = await parsed('s.txt', cut(text, 'Nov 27 20:07:04 '.length, /^Nov 27 /));
    expect(content(prefixed)).toEqual(content(plain));
    expect(prefixed.format).toBe('sysbench');
    expect(prefixed.series.map((s) => `${s.op}:${s.kind}`)).toEqual(['event:intervals', 'event:distribution']);
    expect(prefixed.linePrefix?.shape).toBe('syslog-timestamp');
  });

  it('wrk through an RFC 3339 timestamp (docker logs -t, CI runners): the parse of the same text cut by position', async () => {
    const text = fixture('wrk-4.1.0-latency-rfc3339.txt');
    const prefixed = await parsed('w.txt', text);
    const plain = await parsed('w.txt', cut(text, '2026-11-27T20:07:03.971930Z '.length, /^2026-/));
    expect(content(prefixed)).toEqual(content(plain));
    expect(prefixed.format).toBe('wrk');
    const summary = prefixed.series[0];
    expect(summary?.kind === 'printed' && summary.count).toBe(36743);
    expect(prefixed.linePrefix).toMatchObject({ shape: 'rfc3339-timestamp', lines: 13 });
  });
});

describe('the file keeps its own line numbers and its other formats', () => {
  it("a damaged row is reported at its line in the prefixed file", async () => {
    const lines = fixture('cassandra-stress-3.11.11-mixed-sct.log').split('\n');
    const at = lines.findIndex((l) => / total, +3074,/.test(l));
    lines[at] = lines[at]!.replace('3074,', '30x4,');
    const f = await parsed('a.log', lines.join('\n'));
    expect(f.errors.map((e) => e.line)).toContain(at + 1);
    expect(f.errors.find((e) => e.line === at + 1)?.message).toContain('"30x4"');
  });

  it('YCSB status lines, which start with their own date and time, are read as they are', async () => {
    const f = await parsed('client1.stderr.txt', readFileSync('tests/fixtures/corpus/sweep-uniform-a/target-1000/client1.stderr.txt', 'utf8'));
    expect(f.format).toBe('ycsb-text');
    expect(f.linePrefix).toBeUndefined();
  });

  it('a prefix on too few lines is not a prefix', () => {
    const some = ['[2025-10-02 19:43:40.027] Results:', 'Op rate : 5 op/s', 'Latency mean : 1 ms', 'a', 'b', '[2025-10-02 19:43:40.027] x'].join('\n');
    expect(findLinePrefix(some)).toBeNull();
  });

  it('a prefixed file is read whole, not in parts', () => {
    const raw = readFileSync('tests/fixtures/corpus/raw-csv-b/target-unthrottled/client1-raw.csv', 'utf8').slice(0, 20_000);
    const bytes = (t: string) => new TextEncoder().encode(t);
    expect(partPlan('client1-raw.csv', bytes(raw))).not.toBeNull();
    const prefixed = raw.replace(/^(?=.)/gm, '2026-11-27T20:07:03.971930Z ');
    expect(partPlan('client1-raw.csv', bytes(prefixed))).toBeNull();
  });
});

describe('the file entry says what was removed (page and summarize --json files[])', () => {
  it('files[] carries the prefix and its note', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'benchlens-prefix-')), 'sct-run');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'cassandra-stress-l0-c0-k1.log'), fixture('cassandra-stress-3.11.11-mixed-sct.log'));
    const analysis = (await loadFiles([dir])).analysis;
    const [entry] = analysis.files;
    expect(entry?.format).toBe('cassandra-stress');
    expect(entry?.linePrefix?.shape).toBe('bracketed-timestamp');
    expect(fileNotes(entry!)).toEqual([`line prefix removed before reading (${entry!.linePrefix!.lines} lines): [date time] timestamps (a test harness, ts)`]);
    expect(analysis.runs[0]?.ops.READ?.count).toBeGreaterThan(0);
  });
});
