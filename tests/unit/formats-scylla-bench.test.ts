import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import { detectFormat } from '../../src/formats/registry.ts';
import { goDurationToNanos } from '../../src/formats/scylla-bench.ts';
import type { HistogramSeries, IntervalsSeries, ParsedFile, PrintedSeries } from '../../src/model/types.ts';

/**
 * scylla-bench on real output of v0.1.0, v1.1.1 and v1.3.2 (tests/fixtures/scylla-bench,
 * SOURCES.md). Expected figures are read from the same output by the test's own few lines: the
 * rows' columns, the Results block's `Total ops` and latencies.
 */

const DIR = join(import.meta.dirname, '../fixtures/scylla-bench');
const fixture = (name: string): string => readFileSync(join(DIR, name), 'utf8');
const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

async function parse(name: string, text: string): Promise<ParsedFile> {
  const out = await readText(name, text);
  if (isFailed(out)) throw new Error(out.errors.map((e) => e.message).join('; '));
  expect(out.format).toBe('scylla-bench');
  return out;
}

function intervals(file: ParsedFile, op: string): IntervalsSeries {
  const s = file.series.find((x) => x.op === op && x.kind === 'intervals');
  if (!s || s.kind !== 'intervals') throw new Error(`no intervals for ${op}`);
  return s;
}

function summary(file: ParsedFile, op: string): PrintedSeries | undefined {
  const s = file.series.find((x) => x.op === op && x.kind === 'printed');
  return s?.kind === 'printed' ? s : undefined;
}

/** The test's own reading of the per-second rows: [time text, ops, errors, line]. */
function rowsOf(text: string): { time: string; ops: number; errors: number; line: number }[] {
  const out: { time: string; ops: number; errors: number; line: number }[] = [];
  text.split('\n').forEach((l, i) => {
    const t = l.trim().split(/\s+/);
    if (t.length >= 4 && /^[\d.]+(?:m|s|h)/.test(t[0] ?? '') && /^\d+$/.test(t[1] ?? '') && /^\d+$/.test(t[3] ?? '')) out.push({ time: t[0] as string, ops: Number(t[1]), errors: Number(t[3]), line: i + 1 });
  });
  return out;
}

function totalOps(text: string): number {
  return Number(/^Total ops:\s+(\d+)/m.exec(text)?.[1]);
}

/** `  mean:\t\t 4.246403ms` in the block after `name :` → µs. */
function blockFigure(text: string, block: string, key: string): number {
  const after = text.slice(text.indexOf(`${block}\n`) + block.length);
  const m = new RegExp(`^\\s+${key.replace('.', '\\.')}:\\s+([\\d.]+)ms`, 'm').exec(after);
  if (!m) throw new Error(`no ${key} in ${block}`);
  return Math.round(Number(m[1]) * 1e6) / 1000;
}

describe('Go durations', () => {
  it('are read exactly to the nanosecond, as time.Duration.String writes them', () => {
    expect(goDurationToNanos('2.416392808s')).toBe(2416392808);
    expect(goDurationToNanos('1m0.5s')).toBe(60.5e9);
    expect(goDurationToNanos('2h49m59.979177235s')).toBe(((2 * 60 + 49) * 60 + 59) * 1e9 + 979177235);
    expect(goDurationToNanos('786µs')).toBe(786000);
    expect(goDurationToNanos('1.105919ms')).toBe(1105919);
    expect(goDurationToNanos('123ns')).toBe(123);
    expect(goDurationToNanos('0s')).toBe(0);
    for (const bad of ['', '1.2.3s', '5 ms', 'ms', '-1s', '+Inf', '1d']) expect(goDurationToNanos(bad), bad).toBeNull();
  });
});

describe('scylla-bench text output', () => {
  it('v1.1.1: the per-second rows sum to Total ops; raw is the mode, c-o fixed is Intended-<mode>', async () => {
    const text = fixture('v1.1.1-write.txt');
    const file = await parse('v1.1.1-write.txt', text);
    const rows = rowsOf(text);
    const write = intervals(file, 'write');
    expect(write.timeBase).toBe('relative');
    expect(write.rows.map((r) => r.count)).toEqual(rows.map((r) => r.ops));
    expect(sum(write.rows.map((r) => r.count))).toBe(totalOps(text));
    // One-second rows: `1s`, `2s` … end the intervals.
    expect(write.rows.map((r) => r.startUs + r.lengthUs)).toEqual(rows.map((r) => Number(r.time.replace('s', '')) * 1e6));
    expect(write.rows.map((r) => r.line)).toEqual(rows.map((r) => r.line));
    expect(summary(file, 'write')).toMatchObject({ count: totalOps(text), unit: 'us', mean: blockFigure(text, 'raw latency :', 'mean'), max: blockFigure(text, 'raw latency :', 'max') });
    expect(summary(file, 'write')?.percentiles).toEqual({
      'p99.9': blockFigure(text, 'raw latency :', '99.9th'),
      p99: blockFigure(text, 'raw latency :', '99th'),
      p95: blockFigure(text, 'raw latency :', '95th'),
      p90: blockFigure(text, 'raw latency :', '90th'),
      p50: blockFigure(text, 'raw latency :', 'median'),
    });
    expect(summary(file, 'Intended-write')?.mean).toBe(blockFigure(text, 'c-o fixed latency :', 'mean'));
    expect(file.producer?.settings?.Mode).toBe('write');
    expect(file.producer?.settings?.['Maximum rate']).toBe('2000 op/s');
    expect(file.errors).toEqual([]);
  });

  it('a row latency `2ms` is 2000 µs, `6.8ms` 6800 µs: the figures are µs', async () => {
    const text = fixture('v1.1.1-write.txt');
    const row = intervals(await parse('v1.1.1-write.txt', text), 'write').rows[0];
    const tokens = (text.split('\n').find((l) => /^\s+1s\s/.test(l)) as string).trim().split(/\s+/);
    const us = (t: string | undefined): number => Math.round((goDurationToNanos(t as string) as number) / 1000);
    expect(row?.max).toBe(us(tokens[4]));
    expect(row?.percentiles).toEqual({ 'p99.9': us(tokens[5]), p99: us(tokens[6]), p95: us(tokens[7]), p90: us(tokens[8]), p50: us(tokens[9]) });
    expect(row?.mean).toBe(us(tokens[10]));
  });

  it('v1.3.2: the last partial second is not printed, so the rows fall short of the summary count', async () => {
    const text = fixture('v1.3.2-write.txt');
    const file = await parse('v1.3.2-write.txt', text);
    const printed = sum(rowsOf(text).map((r) => r.ops));
    expect(printed).toBeLessThan(totalOps(text));
    expect(sum(intervals(file, 'write').rows.map((r) => r.count))).toBe(printed);
    expect(summary(file, 'write')?.count).toBe(totalOps(text));
    expect(file.producer?.settings?.['Retries.number']).toBe('10');
  });

  it('v0.1.0: unrounded times, `operations/s` header and one Latency block', async () => {
    const text = fixture('v0.1.0-read.txt');
    const file = await parse('v0.1.0-read.txt', text);
    const rows = rowsOf(text);
    expect(intervals(file, 'read').rows.map((r) => r.count)).toEqual(rows.map((r) => r.ops));
    expect(intervals(file, 'read').rows[0]?.lengthUs).toBe(Math.round((goDurationToNanos(rows[0]?.time as string) as number) / 1000));
    expect(summary(file, 'read')).toMatchObject({ count: totalOps(text), mean: blockFigure(text, 'Latency:', 'mean') });
    expect(summary(file, 'Intended-read')).toBeUndefined();
  });

  it('-measure-latency=false: rows of counts only, and the run\'s count from Total ops', async () => {
    // The v1.1.1 output as it reads without latency columns (`withoutLatencyLineFmt`) and blocks.
    const text = fixture('v1.1.1-write.txt');
    const countsOnly = text
      .replace(/^(\s*time\s+ops\/s\s+rows\/s\s+errors).*$/m, '$1')
      .replace(/^(\s+\d+s\s+\d+\s+\d+\s+\d+)\s.*$/gm, '$1')
      .replace(/^raw latency :[\s\S]*$/m, '');
    const file = await parse('counts.txt', countsOnly);
    expect(file.errors).toEqual([]);
    expect(intervals(file, 'write').rows.map((r) => r.count)).toEqual(rowsOf(text).map((r) => r.ops));
    expect(intervals(file, 'write').rows.every((r) => r.mean === null && r.max === null)).toBe(true);
    expect(summary(file, 'write')).toMatchObject({ count: totalOps(text), mean: null });
  });

  it('mixed mode: one operation `mixed`; the per-type blocks carry no count and are not read', async () => {
    const text = fixture('v1.1.1-mixed.txt');
    const file = await parse('v1.1.1-mixed.txt', text);
    expect([...new Set(file.series.map((s) => s.op))].sort()).toEqual(['Intended-mixed', 'mixed']);
    expect(summary(file, 'mixed')?.mean).toBe(blockFigure(text, 'raw latency :', 'mean'));
  });
});

describe('scylla-bench HdrHistogram log', () => {
  async function histograms(name: string): Promise<Map<string, HistogramSeries>> {
    const file = await parse(name, fixture(name));
    expect(file.errors).toEqual([]);
    return new Map(file.series.flatMap((s) => (s.kind === 'histogram' ? [[s.op, s] as const] : [])));
  }
  const count = (s: HistogramSeries | undefined): number => sum(s?.intervals.map((i) => i.histogram.totalCount) ?? []);

  it('raw → the mode named by the file, co-fixed → Intended-; ns; counts equal the text output of the same run', async () => {
    const byOp = await histograms('v1.1.1-write.hdr');
    expect([...byOp.keys()].sort()).toEqual(['Intended-write', 'write']);
    const total = totalOps(fixture('v1.1.1-write.txt'));
    expect(count(byOp.get('write'))).toBe(total);
    expect(count(byOp.get('Intended-write'))).toBe(total);
    expect(byOp.get('write')?.unit).toBe('ns');
    // `#[Basetime:` (hdrhistogram-go 1.2's spelling) is not read, `#[StartTime:` places the intervals.
    const start = Number(/#\[StartTime: (\d+)/.exec(fixture('v1.1.1-write.hdr'))?.[1]);
    const first = Number(/^Tag=raw,([\d.]+),/m.exec(fixture('v1.1.1-write.hdr'))?.[1]);
    expect(byOp.get('write')?.timeBase).toBe('absolute');
    expect(byOp.get('write')?.intervals[0]?.startUs).toBe(Math.round((start + first) * 1e6));
  });

  it('a log whose name does not say the mode reads as `ops`', async () => {
    const file = await parse('latencies.hdr', fixture('v1.1.1-write.hdr'));
    expect(file.series.map((s) => s.op).sort()).toEqual(['Intended-ops', 'ops']);
  });

  it('mixed mode: the per-type histograms are read, the combined ones (raw holds each operation twice) are not', async () => {
    const text = fixture('v1.1.1-mixed.hdr');
    const byOp = await histograms('v1.1.1-mixed.hdr');
    expect([...byOp.keys()].sort()).toEqual(['Intended-read', 'Intended-write', 'read', 'write']);
    // The printed rows of the same run count each operation once.
    const printed = sum(rowsOf(fixture('v1.1.1-mixed.txt')).map((r) => r.ops));
    expect(count(byOp.get('read')) + count(byOp.get('write'))).toBe(printed);
    expect(count(byOp.get('Intended-read')) + count(byOp.get('Intended-write'))).toBe(printed);
    expect(text).toMatch(/^Tag=raw,/m);
  });

  it('v1.2+ starts written as epoch seconds over a millisecond base (negative) are scaled back', async () => {
    // The same intervals as scylla-bench v1.2+ writes them: start = (epoch s − base ms) / 1000, length / 1000.
    const original = fixture('v1.1.1-write.hdr');
    const base = Number(/#\[StartTime: (\d+)/.exec(original)?.[1]);
    const buggy = original
      .replace('#[Basetime:', '#[BaseTime:')
      .replace(/^(Tag=[^,]+),([\d.]+),([\d.]+),/gm, (_, tag: string, start: string, length: string) => {
        const startS = base + Math.floor(Number(start));
        return `${tag},${((startS - base * 1000) / 1000).toFixed(6)},${(Math.round(Number(length)) / 1000).toFixed(6)},`;
      });
    expect(buggy).toMatch(/^Tag=raw,-\d+\.\d+,0\.001000,/m);
    const fixed = await parse('v1.2-write.hdr', buggy);
    const reference = await parse('v1.1.1-write.hdr', original);
    const starts = (f: ParsedFile): number[] => (f.series[0]?.kind === 'histogram' ? f.series[0].intervals.map((i) => i.startUs) : []);
    expect(starts(fixed)).toEqual(starts(reference).map((us) => Math.floor(us / 1e6) * 1e6));
    expect(fixed.errors).toEqual([]);
  });

  it('is recognised as scylla-bench, not as a plain HdrHistogram log or cassandra-stress', () => {
    expect(detectFormat(fixture('v1.1.1-write.hdr'), 'x.hdr')?.id).toBe('scylla-bench');
    const headerOnly = fixture('v1.1.1-write.hdr').split('\n').slice(0, 5).join('\n').replace('#[Basetime:', '#[BaseTime:');
    expect(detectFormat(headerOnly, 'x.hdr')?.id).toBe('scylla-bench');
  });
});

describe('scylla-bench bad input', () => {
  const text = fixture('v1.1.1-write.txt');
  const lines = text.split('\n');
  const rows = rowsOf(text);

  it('a row cut short is reported with its line and not read; the rows before it are kept', async () => {
    const third = rows[2] as { line: number };
    const cut = [...lines.slice(0, third.line - 1), (lines[third.line - 1] as string).slice(0, 30)].join('\n');
    const file = await parse('cut.txt', cut);
    expect(file.errors).toEqual([expect.objectContaining({ line: third.line, message: expect.stringMatching(/a cut or garbled row/) })]);
    expect(file.skippedLines).toBe(1);
    expect(intervals(file, 'write').rows).toHaveLength(2);
    expect(file.series.some((s) => s.kind === 'printed')).toBe(false);
  });

  it('Go log lines glued to a row (retries) leave the row readable', async () => {
    const first = rows[0] as { line: number };
    const glued = lines.map((l, i) => (i === first.line - 1 ? `${l}2023/03/01 19:59:48 [query statement="INSERT …"] || retry: attempt №0, sleep for 48ms` : l)).join('\n');
    const file = await parse('glued.txt', glued);
    expect(file.errors).toEqual([]);
    expect(intervals(file, 'write').rows[0]?.count).toBe(rows[0]?.ops);
  });

  it('errors in a row become a write-FAILED interval counted apart from the operations', async () => {
    const second = rows[1] as { line: number; ops: number };
    const withErrors = lines.map((l, i) => (i === second.line - 1 ? l.replace(/^(\s*\S+\s+\d+\s+\d+\s+)0(\s)/, '$17$2') : l)).join('\n');
    const file = await parse('errors.txt', withErrors);
    const failed = intervals(file, 'write-FAILED');
    expect(failed.rows).toEqual([expect.objectContaining({ count: 7, line: second.line })]);
    expect(intervals(file, 'write').rows[1]?.count).toBe(second.ops);
  });

  it('two outputs concatenated: both read, the second after the first, no whole-file summary', async () => {
    const file = await parse('twice.txt', `${text}\n${text}`);
    const write = intervals(file, 'write');
    expect(write.rows).toHaveLength(2 * rows.length);
    expect(sum(write.rows.map((r) => r.count))).toBe(2 * totalOps(text));
    expect(write.rows[rows.length]?.startUs).toBe(Number((rows.at(-1)?.time as string).replace('s', '')) * 1e6);
    expect(file.series.some((s) => s.kind === 'printed')).toBe(false);
    expect(file.producer?.settings?.runs).toMatch(/^2 runs/);
  });

  it('Windows line ends read the same as Unix ones', async () => {
    const lf = await parse('lf.txt', text);
    const crlf = await parse('crlf.txt', text.replace(/\n/g, '\r\n'));
    expect(crlf.series).toEqual(lf.series);
    expect(crlf.errors).toEqual([]);
  });
});
