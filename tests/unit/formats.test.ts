import { readFileSync } from 'node:fs';
import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { inChunks, isFailed, readFile, readText, type FileOutcome } from '../../src/formats/read-file.ts';
import { detectFormat } from '../../src/formats/registry.ts';
import type { HistogramSeries, ParsedFile, RawSeries } from '../../src/model/types.ts';
import { latencies } from '../helpers/raw-samples.ts';

/**
 * Every format module on real files and their edge variants: detection from content alone (the
 * file renamed `unknown`), CRLF, BOM, UTF-16, gzip, trailing blank lines, truncated last lines,
 * and bad lines that are skipped with an error naming file, line and reason.
 */

const C = 'tests/fixtures/corpus';
const text = (p: string) => readFileSync(`${C}/${p}`, 'utf8');
const HDR = text('sweep-uniform-a/target-1000/client1-READ.hdr');
const TAGGED = text('tagged-from-sweep/client1-tagged.hlog');
const HGRM = text('tagged-from-sweep/merged-READ.hgrm');
const RAW = text('raw-csv-b/target-unthrottled/client1-raw.csv');
const STDOUT = text('sweep-uniform-a/target-1000/client1.stdout.txt');

function parsed(outcome: FileOutcome): ParsedFile {
  if (isFailed(outcome)) throw new Error(`failed: ${outcome.errors.map((e) => e.message).join('; ')}`);
  return outcome;
}

const histogramCount = (f: ParsedFile) =>
  f.series.filter((s): s is HistogramSeries => s.kind === 'histogram').reduce((a, s) => a + s.intervals.reduce((b, i) => b + i.histogram.totalCount, 0), 0);
const intervalCount = (f: ParsedFile) => f.series.reduce((a, s) => a + (s.kind === 'histogram' ? s.intervals.length : 0), 0);

describe('detection picks the module from content alone', () => {
  const cases: [string, string, string][] = [
    ['hdr-log', 'YCSB .hdr', HDR],
    ['hdr-log', 'tagged .hlog', TAGGED],
    ['hgrm', '.hgrm', HGRM],
    ['ycsb-raw', 'raw CSV', RAW.slice(0, 65536)],
    ['ycsb-text', 'stdout', STDOUT],
    ['ycsb-text', 'stderr', text('sweep-uniform-a/target-1000/client1.stderr.txt')],
    ['jmeter', 'JMeter CSV', 'timeStamp,elapsed,label,responseCode,success\n1795255808000,12,READ,200,true\n'],
  ];
  for (const [id, name, content] of cases) {
    it(`${name} → ${id}, named "unknown"`, () => {
      expect(detectFormat(content, 'unknown')?.id).toBe(id);
    });
  }
  it('recognises nothing in prose, even prose quoting log lines, and nothing in binary garbage', () => {
    expect(detectFormat(text('README.md').replace(/^#.*$/gm, ''), 'notes')).toBeNull();
    expect(detectFormat(String.fromCharCode(...Array.from({ length: 500 }, (_, i) => (i * 7919) % 256)), 'unknown')).toBeNull();
  });
});

describe('HdrHistogram interval log', () => {
  it('reads every interval of a YCSB log with absolute times (StartTime + relative timestamps)', async () => {
    const f = parsed(await readText('run/client1-READ.hdr', HDR));
    const s = f.series[0] as HistogramSeries;
    expect(f.series).toHaveLength(1);
    expect(s.op).toBe('READ');
    expect(s.timeBase).toBe('absolute');
    expect(s.intervals).toHaveLength(27);
    // StartTime 1795255808.760 + first StartTimestamp 0.059, exact integer µs.
    expect(s.intervals[0]?.startUs).toBe(1_795_255_808_819_000);
    expect(histogramCount(f)).toBe(12261);
    expect(f.errors).toEqual([]);
  });

  it('gives the same intervals for CRLF, a BOM, UTF-16, gzip, chunked input and trailing blank lines', async () => {
    const reference = parsed(await readText('a.hdr', HDR));
    const variants: [string, Uint8Array][] = [
      ['CRLF', new TextEncoder().encode(HDR.replace(/\n/g, '\r\n'))],
      ['BOM', new TextEncoder().encode(`\uFEFF${HDR}`)],
      ['trailing blank lines', new TextEncoder().encode(`${HDR}\n\n\n`)],
      ['UTF-16LE with BOM', new Uint8Array([0xff, 0xfe, ...new Uint8Array(Uint16Array.from(HDR, (c) => c.charCodeAt(0)).buffer)])],
      ['gzip', gzipSync(new TextEncoder().encode(HDR))],
    ];
    for (const [name, bytes] of variants) {
      const f = parsed(await readFile('a.hdr', inChunks(bytes, 997)));
      expect(intervalCount(f), name).toBe(intervalCount(reference));
      expect(histogramCount(f), name).toBe(histogramCount(reference));
      expect(f.errors, name).toEqual([]);
    }
  });

  it('reads a header-less log (no StartTime): relative times, op from the file name', async () => {
    const body = HDR.split('\n').filter((l) => !l.startsWith('#') && !l.startsWith('"')).join('\n');
    const f = parsed(await readText('client7-UPDATE.hdr', body));
    const s = f.series[0] as HistogramSeries;
    expect(s.op).toBe('UPDATE');
    expect(s.timeBase).toBe('relative');
    expect(s.intervals[0]?.startUs).toBe(59_000);
    expect(histogramCount(f)).toBe(12261);
  });

  it('keeps empty intervals (count 0) as intervals', async () => {
    const f = parsed(await readText('x.hdr', text('split-for-heat/target-800/client1-CLEANUP.hdr')));
    const s = f.series[0] as HistogramSeries;
    expect(s.intervals.some((i) => i.histogram.totalCount === 0)).toBe(true);
    expect(histogramCount(f)).toBe(4);
  });

  it('skips a truncated last line and a corrupt histogram with errors naming file, line and reason; keeps the rest', async () => {
    const lines = HDR.trimEnd().split('\n');
    const corruptLine = 10;
    const corrupt = lines.map((l, i) => (i === corruptLine - 1 ? l.replace(/,HIST(.{10})/, ',HISTzz$1') : l));
    const cut = `${corrupt.join('\n').slice(0, -40)}`;
    const f = parsed(await readText('dir/client1-READ.hdr', cut));
    expect(f.skippedLines).toBe(2);
    expect(f.errors.map((e) => [e.file, e.line])).toEqual([
      ['dir/client1-READ.hdr', corruptLine],
      ['dir/client1-READ.hdr', lines.length],
    ]);
    expect(f.errors[0]?.message).toMatch(/cannot be decoded/);
    expect(intervalCount(f)).toBe(27 - 2);
  });

  it('splits a tagged log into one series per tag, timed from BaseTime', async () => {
    const f = parsed(await readText('t.hlog', TAGGED));
    expect(f.series.map((s) => s.op).sort()).toEqual(['READ', 'UPDATE']);
    const read = f.series.find((s) => s.op === 'READ') as HistogramSeries;
    expect(read.intervals[0]?.startUs).toBe(1_795_255_808_819_000);
  });

  it('refuses an interval whose precision differs from the rest of its series', async () => {
    const { encodeHistogramV2Compressed } = await import('../../src/model/hdr-codec.ts');
    const twoDigits = encodeHistogramV2Compressed({
      precision: { significantDigits: 2, lowestDiscernibleValue: 1 },
      highestTrackableValue: 1000,
      integerToDoubleConversionRatio: 1,
      histogram: { lo: Float64Array.of(10), width: Float64Array.of(1), count: Float64Array.of(3), totalCount: 3 },
    });
    const f = parsed(await readText('p.hdr', `${HDR.trimEnd()}\n25.000,1.000,0.001,${twoDigits}\n`));
    expect(f.errors).toHaveLength(1);
    expect(f.errors[0]?.message).toMatch(/precision/);
    expect(histogramCount(f)).toBe(12261);
  });
});

describe('YCSB raw CSV', () => {
  it('reads every block (READ, CLEANUP, UPDATE) as its own series', async () => {
    const f = parsed(await readText('r/client1-raw.csv', RAW));
    const count = (op: string) => (f.series.find((s) => s.op === op) as RawSeries | undefined)?.samples;
    expect([count('READ'), count('UPDATE'), count('CLEANUP')]).toEqual([285212, 14788, 4]);
    expect(f.errors).toEqual([]);
  });

  it('skips bad rows and a truncated last line with their line numbers; CRLF and no header are fine', async () => {
    const small = ['READ,1795255946488,4181', 'READ,1795255946488,abc', 'UPDATE,1795255946506,854', 'READ,17952559'].join('\r\n');
    const f = parsed(await readText('x.csv', small, { formatId: 'ycsb-raw' }));
    expect(f.errors.map((e) => e.line)).toEqual([2, 4]);
    expect(f.skippedLines).toBe(2);
    expect(f.series.map((s) => [s.op, (s as RawSeries).samples])).toEqual([
      ['READ', 1],
      ['UPDATE', 1],
    ]);
  });
});

describe('.hgrm percentile distribution', () => {
  it('reads rows and the footer; plain and CSV layouts give the same distribution', async () => {
    const plain = parsed(await readText('merged-READ.hgrm', HGRM));
    const d = plain.series[0];
    if (d?.kind !== 'distribution') throw new Error('not a distribution');
    expect(d.op).toBe('READ');
    expect(d.totalCount).toBe(36897);
    expect(d.max).toBe(79743);
    expect(d.precision).toEqual({ significantDigits: 3, lowestDiscernibleValue: 1 });
    const csv = HGRM.split('\n')
      .map((l) => (l.startsWith('#') || l.trim() === '' ? l : l.trim().split(/\s+/).join(',')))
      .join('\n')
      .replace('Value,Percentile,TotalCount,1/(1-Percentile)', '"Value","Percentile","TotalCount","1/(1-Percentile)"');
    const fromCsv = parsed(await readText('merged-READ.csv', csv, { formatId: 'hgrm' })).series[0];
    expect(fromCsv?.kind === 'distribution' && fromCsv.rows).toEqual(d.rows);
  });

  it('notes a truncated distribution (footer count differs from the last row)', async () => {
    const lines = HGRM.split('\n');
    const cut = [...lines.slice(0, 30), ...lines.filter((l) => l.startsWith('#['))].join('\n');
    const f = parsed(await readText('cut.hgrm', cut));
    expect(f.errors[0]?.message).toMatch(/truncated/);
  });
});

describe('generic per-operation CSV', () => {
  it('reads JMeter columns as the JMeter module does: epoch ms, elapsed in ms, label, success → <OP>-FAILED', async () => {
    const csv = 'timeStamp,elapsed,label,responseCode,success,threadName\n1795255808000,12,READ,200,true,t1\n1795255808100,7,READ,500,false,t1\n1795255808200,3,UPDATE,200,true,t2\n';
    const f = parsed(await readText('jmeter.csv', csv));
    expect(f.format).toBe('jmeter');
    const byOp = Object.fromEntries(f.series.map((s) => [s.op, latencies(s as RawSeries)]));
    expect(byOp).toEqual({ READ: [12000], 'READ-FAILED': [7000], UPDATE: [3000] });
    expect(f.series[0]?.unit).toBe('us');
  });

  it('takes the latency unit from the header, ISO timestamps, a client column, and a column mapping', async () => {
    const csv = 'when,op,lat_ns,client\n2026-11-21T10:10:08.500Z,GET,1500,a\n2026-11-21T10:10:09Z,GET,2500,b\n';
    const f = parsed(await readText('x.csv', csv, { formatId: 'generic-csv', format: { mapping: { time: 'when', latency: 'lat_ns', unit: 'ns', op: 'op', client: 'client' } } }));
    expect(f.series.map((s) => [s.client, s.op, s.unit, latencies(s as RawSeries), (s as RawSeries).firstMs, Array.from((s as RawSeries).counts.secs)])).toEqual([
      ['a', 'GET', 'ns', [1500], Date.UTC(2026, 10, 21, 10, 10, 8, 500), [Date.UTC(2026, 10, 21, 10, 10, 8) / 1000]],
      ['b', 'GET', 'ns', [2500], Date.UTC(2026, 10, 21, 10, 10, 9), [Date.UTC(2026, 10, 21, 10, 10, 9) / 1000]],
    ]);
  });

  it('skips rows whose latency cannot be represented exactly, naming line and column', async () => {
    const csv = 'ts,latency_ms\n1795255808,1.5\n1795255808,1.23456\n1795255808,-3\n';
    const f = parsed(await readText('x.csv', csv));
    expect(latencies(f.series[0] as RawSeries)).toEqual([1500]);
    expect(f.errors.map((e) => [e.line, e.field])).toEqual([
      [3, 'latency_ms'],
      [4, 'latency_ms'],
    ]);
  });
});

describe('whole-file failures', () => {
  it('an empty file and an unrecognised file fail alone with a message naming them', async () => {
    const empty = await readText('empty.hdr', '\n\n');
    const junk = await readText('junk.bin', 'hello world\nthis is not a benchmark result\n');
    expect(isFailed(empty) && empty.errors[0]?.message).toMatch(/empty/);
    expect(isFailed(junk) && junk.errors[0]).toMatchObject({ file: 'junk.bin', line: 0 });
  });

  it('a corrupt gzip fails with a message naming the file', async () => {
    const gz = gzipSync(new TextEncoder().encode(HDR)).slice(0, 200);
    gz[100] = (gz[100] ?? 0) ^ 0xff;
    const outcome = await readFile('broken.hdr.gz', inChunks(gz));
    const message = isFailed(outcome) ? outcome.errors[0]?.message : (outcome.errors[0]?.message ?? 'parsed without error');
    expect(message).toMatch(/broken\.hdr\.gz/);
  });
});
