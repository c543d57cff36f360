import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadFiles } from '../helpers/engine-load.ts';
import { MAX_TIMELINE_BUCKETS } from '../../../src/engine/analyse.ts';
import type { ParsedFile } from '../../../src/model/types.ts';
import { timedSamples } from '../../helpers/raw-samples.ts';

/**
 * Real-world broken files (tests/fixtures/broken/, each built from a corpus file by make.ts there
 * and described in expected.json): every one must give exactly the errors its manifest lists — line, message,
 * field — and keep exactly the data it lists. Files named `regression-*` reproduce bugs the fuzz
 * suite found. Read through Engine.load from disk, the way the CLI and the app load files.
 */

const DIR = 'tests/fixtures/broken';

interface ExpectedError {
  line: number;
  /** A regular expression the whole message must match. */
  message: string;
  field?: string;
}

interface Entry {
  what: string;
  format: ParsedFile['format'];
  errors: ExpectedError[];
  skippedLines: number;
  maxMs?: number;
  kept: Partial<Record<keyof ReturnType<typeof kept>, number>>;
}

const manifest = JSON.parse(readFileSync(`${DIR}/expected.json`, 'utf8')) as Record<string, Entry>;

/** What a parse kept, in the manifest's terms. */
function kept(f: ParsedFile) {
  let intervals = 0;
  let histogramCount = 0;
  let samples = 0;
  let latencySum = 0;
  let timeMin = Infinity;
  let timeMax = -Infinity;
  let rows = 0;
  let summaries = 0;
  for (const s of f.series) {
    if (s.kind === 'histogram') {
      intervals += s.intervals.length;
      for (const i of s.intervals) histogramCount += i.histogram.totalCount;
    } else if (s.kind === 'raw') {
      samples += s.samples;
      for (let i = 0; i < s.counts.value.length; i++) latencySum += (s.counts.value[i] as number) * (s.counts.n[i] as number);
      if (s.firstMs !== null && s.lastMs !== null) {
        timeMin = Math.min(timeMin, s.firstMs);
        timeMax = Math.max(timeMax, s.lastMs);
      }
    } else if (s.kind === 'distribution') rows += s.rows.length;
    else summaries++;
  }
  const points = f.status ?? [];
  const statusAvgs = points.reduce((n, p) => n + Object.values(p.ops).filter((o) => o.avg !== null).length, 0);
  return { series: f.series.length, intervals, histogramCount, samples, latencySum, timeMin, timeMax, rows, summaries, statusPoints: points.length, statusAvgs };
}

describe('broken real-world files give exactly the errors and data of their manifest', () => {
  it('the manifest lists every fixture and nothing else', async () => {
    const { readdirSync } = await import('node:fs');
    const onDisk = readdirSync(DIR, { recursive: true, withFileTypes: true })
      // Fixtures sit in one folder each; the top level holds the manifest and its generator.
      .filter((e) => e.isFile() && e.parentPath !== DIR)
      .map((e) => `${e.parentPath.slice(DIR.length + 1)}/${e.name}`)
      .sort();
    expect(onDisk).toEqual(Object.keys(manifest).sort());
  });

  for (const [rel, entry] of Object.entries(manifest)) {
    it(`${rel}: ${entry.what}`, async () => {
      const path = `${DIR}/${rel}`;
      const started = performance.now();
      const loaded = await loadFiles([path]);
      const ms = performance.now() - started;
      expect(loaded.files).toHaveLength(1);
      const f = loaded.files[0] as ParsedFile;
      expect(f.format).toBe(entry.format);
      // The load gathers the file's errors; they must be exactly the manifest's, in order.
      expect(loaded.errors.map((e) => e.file)).toEqual(entry.errors.map(() => path));
      expect(loaded.errors.map((e) => e.line)).toEqual(entry.errors.map((e) => e.line));
      loaded.errors.forEach((e, i) => {
        const want = entry.errors[i] as ExpectedError;
        expect(e.message).toMatch(new RegExp(want.message));
        expect(e.field).toBe(want.field);
      });
      expect(f.skippedLines).toBe(entry.skippedLines);
      const got = kept(f);
      for (const [key, value] of Object.entries(entry.kept)) expect(got[key as keyof typeof got], key).toBe(value);
      if (entry.maxMs !== undefined) expect(ms).toBeLessThan(entry.maxMs);
    });
  }
});

describe('what is kept of a broken file analyses without loss', () => {

  for (const rel of Object.keys(manifest)) {
    it(`${rel}: every timed operation lands in a bounded timeline`, async () => {
      const loaded = await loadFiles([`${DIR}/${rel}`]);
      const analysis = loaded.analysis;
      for (const run of analysis.runs) {
        const t = run.throughputPerSecond;
        if (!t) continue;
        expect(t.ok.length).toBeLessThanOrEqual(MAX_TIMELINE_BUCKETS);
        const timed = loaded.files
          .flatMap((f) => f.series)
          .reduce((n, s) => n + (s.kind === 'raw' ? timedSamples(s) : s.kind === 'histogram' ? s.intervals.reduce((m, i) => m + i.histogram.totalCount, 0) : 0), 0);
        const summed = [...t.ok, ...t.failed].reduce((a, b) => a + b, 0);
        expect(summed).toBe(timed);
      }
    });
  }

  it('a run whose timestamps lie decades apart gets wider buckets, and keeps its steps in seconds', async () => {
    const analysis = (await loadFiles([`${DIR}/regression-clock-jump/client1-raw.csv`])).analysis;
    const t = analysis.runs[0]?.throughputPerSecond;
    if (!t) throw new Error('no timeline');
    const spanS = 25 * 365 * 86_400;
    expect(t.bucketS).toBe(Math.ceil((spanS + 1) / MAX_TIMELINE_BUCKETS));
    expect(t.ok.filter((n) => n > 0)).toHaveLength(2);
  });
});
