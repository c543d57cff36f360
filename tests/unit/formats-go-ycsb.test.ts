import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { goYcsbFormat } from '../../src/formats/go-ycsb.ts';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import { detectFormat } from '../../src/formats/registry.ts';
import { opKind } from '../../src/model/naming.ts';
import type { IntervalsSeries, ParsedFile, RawSeries, PrintedSeries } from '../../src/model/types.ts';

const DIR = join(import.meta.dirname, '../fixtures/go-ycsb');
const fixture = (name: string) => readFileSync(join(DIR, name), 'utf8');

async function parse(name: string, text: string): Promise<ParsedFile> {
  const outcome = await readText(`run/${name}`, text);
  if (isFailed(outcome)) throw new Error(outcome.errors.map((e) => e.message).join('; '));
  return outcome;
}

function byOp<T extends ParsedFile['series'][number]['kind']>(file: ParsedFile, kind: T): Map<string, Extract<ParsedFile['series'][number], { kind: T }>> {
  return new Map(file.series.filter((s) => s.kind === kind).map((s) => [s.op, s as Extract<ParsedFile['series'][number], { kind: T }>]));
}

/** The plain reports of a go-ycsb stdout, read with a few lines of test code: name, Takes(s), Count and the other figures. */
function plainReports(text: string): { lineNo: number; name: string; takes: number; fields: Record<string, number>; final: boolean }[] {
  const out: { lineNo: number; name: string; takes: number; fields: Record<string, number>; final: boolean }[] = [];
  let final = false;
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('Run finished')) final = true;
    const m = /^(\S+)\s+- (.*)$/.exec(line);
    if (!m) return;
    const fields = Object.fromEntries(m[2]!.split(', ').map((p) => [p.split(': ')[0]!, Number(p.split(': ')[1])]));
    out.push({ lineNo: i + 1, name: m[1]!, takes: fields['Takes(s)']!, fields, final });
  });
  return out;
}

const NAME = (name: string) => (name === 'TOTAL' ? 'TOTAL (all requests)' : name.replace(/_ERROR$/, '-FAILED'));

describe('go-ycsb', () => {
  it('recognises every kind of go-ycsb output from its content, and YCSB text is not go-ycsb', () => {
    for (const f of ['run-redis-plain.stdout.txt', 'run-redis-table.stdout.txt', 'run-redis-json.stdout.txt', 'run-redis-csv.stdout.txt', 'run-redis-raw-output-file.csv']) {
      expect(detectFormat(fixture(f), 'unknown')?.id, f).toBe('go-ycsb');
    }
    const ycsb = readFileSync(join(import.meta.dirname, '../fixtures/corpus/sweep-uniform-a/target-1000/client1.stdout.txt'), 'utf8');
    expect(goYcsbFormat.detect(ycsb, 'client1.stdout.txt')).toBe(0);
  });

  it('plain reports: the final report is the summary; periodic counts are the differences of the cumulative counts', async () => {
    const text = fixture('run-redis-plain.stdout.txt');
    const file = await parse('run-redis-plain.stdout.txt', text);
    expect(file.errors).toEqual([]);
    const reports = plainReports(text);
    const finals = reports.filter((r) => r.final);
    const summaries = byOp(file, 'printed');
    expect([...summaries.keys()].sort()).toEqual(finals.map((r) => NAME(r.name)).sort());
    for (const r of finals) {
      const s = summaries.get(NAME(r.name)) as PrintedSeries;
      expect(s.unit).toBe('us');
      expect(s.count).toBe(r.fields.Count);
      expect(s.mean).toBe(r.fields['Avg(us)']);
      expect([s.min, s.max]).toEqual([r.fields['Min(us)'], r.fields['Max(us)']]);
      expect(s.percentiles).toEqual({ p50: r.fields['50th(us)'], p90: r.fields['90th(us)'], p95: r.fields['95th(us)'], p99: r.fields['99th(us)'], 'p99.9': r.fields['99.9th(us)'], 'p99.99': r.fields['99.99th(us)'] });
    }
    const intervals = byOp(file, 'intervals');
    for (const r of finals) {
      const series = intervals.get(NAME(r.name)) as IntervalsSeries;
      // Independent: every report's count less the report before it, in the order printed.
      const printed = reports.filter((p) => p.name === r.name).map((p) => p.fields.Count!);
      const expected = printed.map((c, i) => c - (i === 0 ? 0 : printed[i - 1]!)).filter((c, i) => c > 0 || i < printed.length - 1);
      expect(series.rows.map((row) => row.count)).toEqual(expected);
      expect(series.rows.reduce((a, row) => a + row.count, 0)).toBe(r.fields.Count);
      expect(series.timeBase).toBe('relative');
    }
    // Reports every second: rows are back to back from 0.
    const read = intervals.get('READ') as IntervalsSeries;
    expect(read.rows.slice(0, 3).map((row) => [row.startUs, row.lengthUs])).toEqual([
      [0, 1_000_000],
      [1_000_000, 1_000_000],
      [2_000_000, 1_000_000],
    ]);
    // The first interval is the whole life of the measurement: its printed figures are its own.
    const first = reports.find((p) => p.name === 'READ')!;
    expect(read.rows[0]).toMatchObject({ min: first.fields['Min(us)'], max: first.fields['Max(us)'], percentiles: { p99: first.fields['99th(us)'] } });
    expect(read.rows[1]).toMatchObject({ min: null, max: null, percentiles: {} });
  });

  it('TOTAL is every request again: kept, never counted as throughput', async () => {
    const file = await parse('run-redis-plain.stdout.txt', fixture('run-redis-plain.stdout.txt'));
    const total = byOp(file, 'printed').get('TOTAL (all requests)') as PrintedSeries;
    const ops = [...byOp(file, 'printed').values()].filter((s) => opKind(s.op) === 'op');
    expect(opKind(total.op)).toBe('derived');
    expect(total.count).toBe(ops.reduce((a, s) => a + s.count, 0));
  });

  it('table and JSON styles give the same figures as their own printed values', async () => {
    for (const name of ['run-redis-table.stdout.txt', 'run-redis-json.stdout.txt']) {
      const text = fixture(name);
      const file = await parse(name, text);
      expect(file.errors, name).toEqual([]);
      const after = text.slice(text.indexOf('Run finished'));
      // Final counts as printed, read by the test: table cells or JSON fields.
      const finals = name.includes('table')
        ? after
            .split('\n')
            .filter((l) => /^\| [A-Z]/.test(l) && !l.startsWith('| OPERATION'))
            .map((l) => l.split('|').map((c) => c.trim()))
            .map((c) => [c[1]!, Number(c[3])] as const)
        : (JSON.parse(after.split('\n')[1]!) as Record<string, string>[]).map((e) => [e.Operation!, Number(e.Count)] as const);
      const summaries = byOp(file, 'printed');
      for (const [op, count] of finals) expect(summaries.get(NAME(op))?.count, `${name} ${op}`).toBe(count);
      for (const [op, count] of finals) {
        const rows = (byOp(file, 'intervals').get(NAME(op)) as IntervalsSeries).rows;
        expect(rows.reduce((a, r) => a + r.count, 0), `${name} ${op} intervals`).toBe(count);
      }
    }
  });

  it('csv samples are raw and exact: per operation the rows of the file, TOTAL rows left out', async () => {
    for (const name of ['run-redis-csv.stdout.txt', 'run-redis-raw-output-file.csv']) {
      const text = fixture(name);
      const file = await parse(name, text);
      expect(file.errors).toEqual([]);
      const rows = text
        .split('\n')
        .filter((l) => /^[A-Z_]+,\d+,\d+$/.test(l))
        .map((l) => l.split(','));
      for (const op of new Set(rows.map((r) => r[0]!).filter((o) => o !== 'TOTAL'))) {
        const mine = rows.filter((r) => r[0] === op);
        const s = byOp(file, 'raw').get(NAME(op)) as RawSeries;
        expect(s.samples).toBe(mine.length);
        expect(s.unit).toBe('us');
        const latencies = mine.map((r) => Number(r[2]));
        expect(Math.max(...s.counts.value)).toBe(Math.max(...latencies));
        expect(Math.min(...s.counts.value)).toBe(Math.min(...latencies));
        // Start times are epoch µs: the earliest sample's ms.
        expect(s.firstMs).toBe(Math.min(...mine.map((r) => Math.floor(Number(r[1]) / 1000))));
      }
    }
  });

  it('failed operations become <OP>-FAILED, timed on the run clock, not their own', async () => {
    const text = fixture('run-redis-stopped-server.stdout.txt');
    const file = await parse('run-redis-stopped-server.stdout.txt', text);
    expect(file.errors).toEqual([]);
    expect(byOp(file, 'printed').size).toBe(0); // stopped before its final report
    const failed = byOp(file, 'intervals').get('UPDATE-FAILED') as IntervalsSeries;
    const reports = plainReports(text);
    const errors = reports.filter((r) => r.name === 'UPDATE_ERROR');
    expect(failed.rows.reduce((a, r) => a + r.count, 0)).toBe(errors[errors.length - 1]!.fields.Count);
    // UPDATE_ERROR first appears in the report READ prints at 3.0 s, its own clock at 0.8 s.
    const firstReport = reports.find((r) => r.lineNo > errors[0]!.lineNo - 4 && r.name === 'READ')!;
    expect(failed.rows[0]!.startUs + failed.rows[0]!.lengthUs).toBe(firstReport.takes * 1e6);
    expect(opKind(failed.op)).toBe('failed');
  });

  it('two runs in one file: the later is kept and the note says which lines were dropped', async () => {
    const load = fixture('load-redis.stdout.txt');
    const run = fixture('run-redis-plain.stdout.txt');
    const file = await parse('both.txt', load + run);
    const banner = load.split('\n').length - 1 + run.split('\n').indexOf('***************** properties *****************') + 1;
    expect(file.errors).toEqual([expect.objectContaining({ line: banner, message: expect.stringMatching(/^a second go-ycsb run starts here; .* \(lines 4–/) })]);
    expect([...byOp(file, 'printed').keys()].sort()).toEqual(['READ', 'TOTAL (all requests)', 'UPDATE']);
    expect(file.producer?.settings?.command).toBe('run');
  });

  it('CRLF line ends read the same', async () => {
    const text = fixture('run-redis-plain.stdout.txt');
    const lf = await parse('a.txt', text);
    const crlf = await parse('a.txt', text.replace(/\n/g, '\r\n'));
    expect(crlf.series).toEqual(lf.series);
    expect(crlf.errors).toEqual([]);
  });

  it('a cut report line is skipped with its line and reason; a run cut mid-report keeps what it printed', async () => {
    const lines = fixture('run-redis-plain.stdout.txt').split('\n');
    const at = lines.findIndex((l) => l.startsWith('UPDATE - Takes(s): 3.0'));
    const cut = [...lines.slice(0, at), lines[at]!.slice(0, lines[at]!.indexOf(', Max(us)'))].join('\n');
    const file = await parse('cut.txt', cut);
    expect(file.errors).toEqual([{ file: 'run/cut.txt', line: at + 1, message: 'the report of UPDATE has no Max(us) (cut short?)' }]);
    expect(file.skippedLines).toBe(1);
    const reports = plainReports(cut).filter((r) => r.fields['99.99th(us)'] !== undefined);
    // READ and TOTAL were printed for 3.0 s before the cut: their counts so far are all kept.
    const read = byOp(file, 'intervals').get('READ') as IntervalsSeries;
    expect(read.rows.reduce((a, r) => a + r.count, 0)).toBe(reports.filter((r) => r.name === 'READ').pop()!.fields.Count);
    const update = byOp(file, 'intervals').get('UPDATE') as IntervalsSeries;
    expect(update.rows.reduce((a, r) => a + r.count, 0)).toBe(reports.filter((r) => r.name === 'UPDATE').pop()!.fields.Count);
  });

  it('older versions: without 50th/90th/95th (2019–2022), with 95th and 99th only (2018)', async () => {
    // Lines in the formats of pkg/measurement/histogram.go at c735d75 (2019) and e7bc9b0 (2018).
    const text = [
      'READ   - Takes(s): 10.0, Count: 1000, OPS: 100.0, Avg(us): 500, Min(us): 100, Max(us): 9000, 99th(us): 2000, 99.9th(us): 8000, 99.99th(us): 9000',
      'Run finished, takes 10.2s',
      'READ - Takes(s): 10.2, Count: 1020, OPS: 100.0, Avg(us): 501, Min(us): 100, Max(us): 9000, 95th(us): 1000, 99th(us): 2000',
    ].join('\n');
    const file = await parse('old.txt', text);
    expect(file.errors).toEqual([]);
    expect((byOp(file, 'printed').get('READ') as PrintedSeries).percentiles).toEqual({ p95: 1000, p99: 2000 });
    expect((byOp(file, 'intervals').get('READ') as IntervalsSeries).rows.map((r) => [r.startUs, r.lengthUs, r.count])).toEqual([
      [0, 10_000_000, 1000],
      [10_000_000, 200_000, 20],
    ]);
  });

  it('a count that goes down is refused with its line', async () => {
    const text = [
      'READ   - Takes(s): 1.0, Count: 10, OPS: 10.0, Avg(us): 5, Min(us): 1, Max(us): 9, 50th(us): 5, 99th(us): 9',
      'READ   - Takes(s): 2.0, Count: 7, OPS: 3.5, Avg(us): 5, Min(us): 1, Max(us): 9, 50th(us): 5, 99th(us): 9',
    ].join('\n');
    const file = await parse('down.txt', text);
    expect(file.errors).toEqual([{ file: 'run/down.txt', line: 2, message: 'count of READ went down from 10 to 7; counts are cumulative' }]);
  });
});
