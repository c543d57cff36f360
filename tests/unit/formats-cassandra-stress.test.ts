import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import { detectFormat } from '../../src/formats/registry.ts';
import type { HistogramSeries, IntervalsSeries, ParsedFile, PrintedSeries } from '../../src/model/types.ts';

/**
 * cassandra-stress on real output of cassandra-stress 3.11.11 (tests/fixtures/cassandra-stress,
 * SOURCES.md). Every expected figure is worked out here from the file's own lines — the interval
 * rows' cumulative counts, the Results block — by a few lines of test code.
 */

const DIR = join(import.meta.dirname, '../fixtures/cassandra-stress');
const fixture = (name: string): string => readFileSync(join(DIR, name), 'utf8');

async function parse(name: string, text: string): Promise<ParsedFile> {
  const out = await readText(name, text);
  if (isFailed(out)) throw new Error(out.errors.map((e) => e.message).join('; '));
  expect(out.format).toBe('cassandra-stress');
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

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** Interval rows of one type as the test reads them: [cumulative ops, time s, errors] by line. */
function rowsOf(text: string, type: string): { cumulative: number; time: number; errors: number; line: number }[] {
  const out: { cumulative: number; time: number; errors: number; line: number }[] = [];
  text.split('\n').forEach((l, i) => {
    const f = l.split(',').map((x) => x.trim());
    if (f[0] === type && f.length === 19) out.push({ cumulative: Number(f[1]), time: Number(f[11]), errors: Number(f[13]), line: i + 1 });
  });
  return out;
}

/** Differences of cumulative counts: what each interval added. */
function perInterval(cumulative: readonly number[]): number[] {
  return cumulative.map((c, i) => c - (i === 0 ? 0 : (cumulative[i - 1] as number)));
}

/** `Latency 99th percentile   :    3.5 ms [WRITE: 3.5 ms]` → the per-operation value of `op`, ms. */
function resultFigure(text: string, label: string, op: string): number {
  const line = text.split('\n').find((l) => l.startsWith(label));
  const m = line && new RegExp(`${op}: ([\\d,.]+)`).exec(line);
  if (!m) throw new Error(`no ${label} for ${op}`);
  return Number((m[1] as string).replace(/,/g, ''));
}

describe('cassandra-stress text log', () => {
  it('reads one operation type from its total rows: counts are the cumulative counts differenced', async () => {
    const text = fixture('write-threads4.log');
    const file = await parse('write-threads4.log', text);
    const rows = rowsOf(text, 'total');
    const write = intervals(file, 'WRITE');
    expect(write.timeBase).toBe('relative');
    expect(write.unit).toBe('us');
    expect(write.rows.map((r) => r.count)).toEqual(perInterval(rows.map((r) => r.cumulative)));
    // The run's own total: Results' "Total partitions" (one partition per write).
    expect(sum(write.rows.map((r) => r.count))).toBe(resultFigure(text, 'Total partitions', 'WRITE'));
    // Intervals end at the `time` column and follow one another.
    expect(write.rows.map((r) => r.startUs + r.lengthUs)).toEqual(rows.map((r) => Math.round(r.time * 1e6)));
    expect(write.rows.slice(1).map((r) => r.startUs)).toEqual(rows.slice(0, -1).map((r) => Math.round(r.time * 1e6)));
    expect(write.rows.map((r) => r.line)).toEqual(rows.map((r) => r.line));
    // The total row is never an operation of its own.
    expect(file.series.map((s) => s.op).sort()).toEqual(['WRITE', 'WRITE']);
    expect(file.producer?.command).toBe('Running WRITE with 4 threads for 40000 iteration');
    expect(file.producer?.settings?.['Rate.Thread Count']).toBe('4');
  });

  it('keeps each interval row figures in µs from the printed milliseconds', async () => {
    const text = fixture('write-threads4.log');
    const file = await parse('write-threads4.log', text);
    const first = text.split('\n').find((l) => l.startsWith('total,')) as string;
    const f = first.split(',').map((x) => x.trim());
    const row = intervals(file, 'WRITE').rows[0];
    expect(row?.mean).toBe(Math.round(Number(f[5]) * 1000));
    expect(row?.percentiles).toEqual({ p50: Math.round(Number(f[6]) * 1000), p95: Math.round(Number(f[7]) * 1000), p99: Math.round(Number(f[8]) * 1000), 'p99.9': Math.round(Number(f[9]) * 1000) });
    expect(row?.max).toBe(Math.round(Number(f[10]) * 1000));
  });

  it('gives the Results block as a whole-run summary, its count from the rows', async () => {
    const text = fixture('write-threads4.log');
    const s = summary(await parse('write-threads4.log', text), 'WRITE');
    expect(s?.count).toBe(rowsOf(text, 'total').at(-1)?.cumulative);
    expect(s?.unit).toBe('us');
    expect(s?.mean).toBe(resultFigure(text, 'Latency mean', 'WRITE') * 1000);
    expect(s?.max).toBe(resultFigure(text, 'Latency max', 'WRITE') * 1000);
    expect(s?.percentiles).toEqual({
      p50: resultFigure(text, 'Latency median', 'WRITE') * 1000,
      p95: resultFigure(text, 'Latency 95th percentile', 'WRITE') * 1000,
      p99: resultFigure(text, 'Latency 99th percentile', 'WRITE') * 1000,
      'p99.9': Math.round(resultFigure(text, 'Latency 99.9th percentile', 'WRITE') * 1000),
    });
  });

  it('mixed workloads: one series per operation type, the total row summing them is not one', async () => {
    const text = fixture('mixed-fixed2000.log');
    const file = await parse('mixed-fixed2000.log', text);
    const ops = [...new Set(file.series.map((s) => s.op))].sort();
    expect(ops).toEqual(['READ', 'WRITE']);
    for (const op of ['READ', 'WRITE']) {
      const rows = rowsOf(text, op);
      expect(intervals(file, op).rows.map((r) => r.count)).toEqual(perInterval(rows.map((r) => r.cumulative)));
      expect(sum(intervals(file, op).rows.map((r) => r.count))).toBe(resultFigure(text, 'Total partitions', op));
    }
    // Each interval's operation rows add up to its total row.
    const totals = perInterval(rowsOf(text, 'total').map((r) => r.cumulative));
    const both = intervals(file, 'READ').rows.map((r, i) => r.count + (intervals(file, 'WRITE').rows[i]?.count ?? 0));
    expect(both).toEqual(totals);
  });

  it('intervals before a second type appeared print only their total row: they go to the type seen first', async () => {
    // The real mixed log as it reads when WRITE starts in the second interval: the first interval's
    // READ and WRITE rows go, and its 226 writes leave every cumulative count after it.
    const text = fixture('mixed-fixed2000.log');
    const firstWrite = rowsOf(text, 'WRITE')[0]?.cumulative as number;
    let seen = 0;
    const shifted = text
      .split('\n')
      .flatMap((l) => {
        const f = l.split(',');
        if (f.length !== 19 || !['READ', 'WRITE', 'total'].includes(f[0] as string)) return [l];
        if (f[0] !== 'total' && seen === 0) return [];
        if (f[0] === 'total') seen++;
        if (f[0] === 'READ') return [l];
        return [[f[0], String(Number(f[1]) - firstWrite).padStart(f[1]?.length ?? 0), ...f.slice(2)].join(',')];
      })
      .join('\n');
    const file = await parse('late-write.log', shifted);
    expect(file.errors).toEqual([]);
    const reads = rowsOf(text, 'READ').map((r) => r.cumulative);
    expect(intervals(file, 'READ').rows.map((r) => r.count)).toEqual(perInterval(reads));
    expect(intervals(file, 'WRITE').rows.map((r) => r.count)).toEqual(perInterval(rowsOf(text, 'WRITE').map((r) => r.cumulative)).slice(1));
  });

  it('failed operations: the errors column becomes <OP>-FAILED, taken out of the operation count', async () => {
    const text = fixture('read-cl-two-errors.log');
    const file = await parse('read-cl-two-errors.log', text);
    const rows = rowsOf(text, 'total');
    const failed = intervals(file, 'READ-FAILED');
    expect(failed.rows.map((r) => r.count)).toEqual(rows.map((r) => r.errors));
    expect(sum(failed.rows.map((r) => r.count))).toBe(resultFigure(text, 'Total errors', 'READ'));
    // Every operation failed: none is left under READ; the latencies (cassandra-stress times failed
    // attempts too) are the failures' own, per interval and in the Results block.
    expect(sum(intervals(file, 'READ').rows.map((r) => r.count))).toBe(0);
    expect(intervals(file, 'READ').rows.every((r) => r.mean === null && Object.keys(r.percentiles).length === 0)).toBe(true);
    expect(summary(file, 'READ')).toBeUndefined();
    const means = rows.map((r) => Number((text.split('\n')[r.line - 1] ?? '').split(',')[5]?.trim().replace('.', '')) * 100);
    expect(failed.rows.map((r) => r.mean)).toEqual(means);
    expect(summary(file, 'READ-FAILED')).toMatchObject({ count: 3000, mean: Math.round(resultFigure(text, 'Latency mean', 'READ') * 1000), max: Math.round(resultFigure(text, 'Latency max', 'READ') * 1000) });
    expect(file.series.some((s) => s.op.endsWith('(all requests)'))).toBe(false);
  });

  it('an auto-rate sweep: every run read one after another on one relative timeline, no per-run summary', async () => {
    const text = fixture('read-auto-sweep.log');
    const file = await parse('read-auto-sweep.log', text);
    const read = intervals(file, 'READ');
    // The sweep table at the end lists each run's whole-run count; they are not intervals.
    const sweep = text.split('\n').filter((l) => / threadCount, READ,/.test(l));
    expect(sweep).toHaveLength(10);
    expect(sum(read.rows.map((r) => r.count))).toBe(sum(sweep.map((l) => Number(l.split(',')[2]))));
    for (let i = 1; i < read.rows.length; i++) {
      const previous = read.rows[i - 1] as (typeof read.rows)[number];
      expect(read.rows[i]?.startUs).toBe(previous.startUs + previous.lengthUs);
    }
    expect(file.series.some((s) => s.kind === 'printed')).toBe(false);
    expect(file.producer?.settings?.runs).toMatch(/^10 runs .*threads: 4, 8, 16, 24, 36, 54, 81, 121, 181, 271/);
    expect(file.errors).toEqual([]);
  });

  it('a three-minute log at one-second intervals: 181 rows, relative times exact to the µs', async () => {
    const text = fixture('write-throttle1500-3min.log');
    const rows = rowsOf(text, 'total');
    const write = intervals(await parse('write-throttle1500-3min.log', text), 'WRITE');
    expect(write.rows).toHaveLength(rows.length);
    expect(rows.length).toBe(181);
    expect(write.rows.at(-1)?.startUs).toBe(Math.round((rows.at(-2)?.time as number) * 1e6));
    expect(sum(write.rows.map((r) => r.count))).toBe(rows.at(-1)?.cumulative);
  });

  it('a log spanning hours: times past 10,000 s and counts past 2^32 stay exact', async () => {
    // The 3-minute log moved 3 hours and 5 billion operations on: what a long run's rows look like.
    const text = fixture('write-throttle1500-3min.log').replace(/^total,\s*(\d+),(.*?),\s*([\d.]+),(\s*[\d.]+,\s*\d+,[^\n]*)$/gm, (_, ops: string, mid: string, time: string, rest: string) => {
      return `total,${String(Number(ops) + 5e9).padStart(14)},${mid},${(Number(time) + 10800).toFixed(1).padStart(7)},${rest}`;
    });
    const rows = rowsOf(text, 'total');
    expect(rows[0]?.time).toBe(10801);
    const write = intervals(await parse('long.log', text), 'WRITE');
    expect(write.rows[0]?.count).toBe(rows[0]?.cumulative);
    expect(write.rows[1]?.startUs).toBe(10801 * 1e6);
    expect(write.rows.at(-1)?.startUs).toBe(Math.round((rows.at(-2)?.time as number) * 1e6));
    expect(write.rows.slice(1).map((r) => r.count)).toEqual(perInterval(rows.map((r) => r.cumulative)).slice(1));
  });
});

describe('cassandra-stress HdrHistogram log', () => {
  async function histograms(name: string): Promise<Map<string, HistogramSeries>> {
    const file = await parse(name, fixture(name));
    expect(file.errors).toEqual([]);
    return new Map(file.series.flatMap((s) => (s.kind === 'histogram' ? [[s.op, s] as const] : [])));
  }
  const count = (s: HistogramSeries | undefined): number => sum(s?.intervals.map((i) => i.histogram.totalCount) ?? []);

  it('-st is the operation, in ns, with absolute times from its BaseTime; its count is the text log of the same run', async () => {
    const byOp = await histograms('write-threads4.hdr');
    expect([...byOp.keys()]).toEqual(['WRITE']);
    const write = byOp.get('WRITE');
    expect(write?.unit).toBe('ns');
    expect(write?.timeBase).toBe('absolute');
    const base = Number(/#\[BaseTime: ([\d.]+)/.exec(fixture('write-threads4.hdr'))?.[1]);
    expect(write?.intervals[0]?.startUs).toBe(Math.round((base + 0.001) * 1e6));
    expect(count(write)).toBe(rowsOf(fixture('write-threads4.log'), 'total').at(-1)?.cumulative);
  });

  it('-rt is Intended-<OP>, -wt is not read; each count matches the text log of the same run', async () => {
    const byOp = await histograms('mixed-fixed2000.hdr');
    expect([...byOp.keys()].sort()).toEqual(['Intended-READ', 'Intended-WRITE', 'READ', 'WRITE']);
    const text = fixture('mixed-fixed2000.log');
    for (const op of ['READ', 'WRITE']) {
      const total = rowsOf(text, op).at(-1)?.cumulative;
      expect(count(byOp.get(op))).toBe(total);
      expect(count(byOp.get(`Intended-${op}`))).toBe(total);
    }
    const file = await parse('mixed-fixed2000.hdr', fixture('mixed-fixed2000.hdr'));
    const waits = fixture('mixed-fixed2000.hdr').split('\n').filter((l) => /^Tag=\w+-wt,/.test(l)).length;
    expect(file.producer?.settings?.['wait-time (-wt) intervals not read']).toBe(String(waits));
  });

  it('is recognised as cassandra-stress, not as a plain HdrHistogram log', () => {
    expect(detectFormat(fixture('mixed-fixed2000.hdr'), 'x.hdr')?.id).toBe('cassandra-stress');
    expect(detectFormat(fixture('write-threads4.hdr'), 'x.hdr')?.id).toBe('cassandra-stress');
  });
});

describe('cassandra-stress bad input', () => {
  const lines = fixture('mixed-fixed2000.log').split('\n');

  it('a log cut mid-interval: the rows without their total row are reported by line, the rest kept', async () => {
    // Cut after the READ and WRITE rows of the fifth interval, before its total row.
    const totals = lines.flatMap((l, i) => (l.startsWith('total,') ? [i] : []));
    const cut = (totals[4] as number) - 2;
    const file = await parse('cut.log', lines.slice(0, cut + 2).join('\n'));
    expect(file.errors.map((e) => e.line)).toEqual([cut + 1, cut + 2]);
    expect(file.errors[0]?.message).toMatch(/no closing "total" row/);
    expect(file.skippedLines).toBe(2);
    expect(intervals(file, 'READ').rows).toHaveLength(4);
    expect(sum(intervals(file, 'READ').rows.map((r) => r.count))).toBe(rowsOf(lines.join('\n'), 'READ')[3]?.cumulative);
  });

  it('a last line cut short is reported with its line number and not read', async () => {
    const text = fixture('write-threads4.log');
    const all = text.split('\n');
    const third = all.findIndex((l, i) => l.startsWith('total,') && all.slice(0, i).filter((x) => x.startsWith('total,')).length === 2);
    const cutLine = (all[third] as string).slice(0, 40);
    const file = await parse('cut.log', [...all.slice(0, third), cutLine].join('\n'));
    expect(file.errors).toEqual([expect.objectContaining({ line: third + 1, message: expect.stringMatching(/comma-separated fields/) })]);
    expect(intervals(file, 'WRITE').rows).toHaveLength(2);
  });

  it('two logs concatenated: both runs read, the second after the first, no whole-file summary', async () => {
    const text = fixture('write-threads4.log');
    const once = intervals(await parse('once.log', text), 'WRITE');
    const file = await parse('twice.log', `${text}\n${text}`);
    const twice = intervals(file, 'WRITE');
    expect(twice.rows).toHaveLength(2 * once.rows.length);
    const end = (once.rows.at(-1)?.startUs ?? 0) + (once.rows.at(-1)?.lengthUs ?? 0);
    expect(twice.rows[once.rows.length]?.startUs).toBe(end);
    expect(sum(twice.rows.map((r) => r.count))).toBe(2 * sum(once.rows.map((r) => r.count)));
    expect(summary(file, 'WRITE')).toBeUndefined();
    expect(file.producer?.settings?.runs).toMatch(/^2 runs/);
  });

  it('Windows line ends read the same as Unix ones', async () => {
    const lf = await parse('lf.log', lines.join('\n'));
    const crlf = await parse('crlf.log', lines.join('\r\n'));
    expect(crlf.series).toEqual(lf.series);
    expect(crlf.errors).toEqual([]);
  });

  it('4.x logs (type column 50 wide), 3.0 (`type,` header) and 2.1 (no type column) read alike', async () => {
    const text = fixture('write-threads4.log');
    const reference = intervals(await parse('3.11.log', text), 'WRITE').rows;
    const wide = text.replace(/^type {7}total ops,/m, `${'type'.padEnd(50)}${'total ops,'.padStart(11)}`).replace(/^total, {5}/gm, `${'total,'.padEnd(50)}`);
    expect(wide).toMatch(/^total, {44}/m);
    expect(intervals(await parse('4.x.log', wide), 'WRITE').rows).toEqual(reference);
    const v30 = text.replace(/^type {7}total ops,/m, 'type,      total ops,');
    expect(intervals(await parse('3.0.log', v30), 'WRITE').rows).toEqual(reference);
    const v21 = text.replace(/^type {7}total ops,/m, 'total ops ,').replace(/^total,\s+/gm, '');
    expect(intervals(await parse('2.1.log', v21), 'WRITE').rows).toEqual(reference);
  });

  it('a decimal comma (a JVM in a German locale) is refused row by row, never misread', async () => {
    const text = fixture('write-threads4.log').replace(/^(total,.*?)(\d)\.(\d)/m, '$1$2,$3');
    const file = await parse('locale.log', text);
    const line = text.split('\n').findIndex((l) => l.startsWith('total,')) + 1;
    expect(file.errors).toEqual([expect.objectContaining({ line, message: expect.stringMatching(/20 comma-separated fields, its header 19/) })]);
    expect(file.skippedLines).toBe(1);
  });

  it('a file with no rows at all says so', async () => {
    const file = await parse('empty.log', 'Running WRITE with 4 threads for 40000 iteration\n');
    expect(file.series).toEqual([]);
    expect(file.errors[0]?.message).toMatch(/no cassandra-stress interval rows/);
  });
});
