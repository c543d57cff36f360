import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ParsedFile, PrintedSeries } from '../../src/model/types.ts';
import { ycsbTextFormat } from '../../src/formats/ycsb-text.ts';

const CORPUS = join(import.meta.dirname, '../fixtures/corpus');
const HEAD_CHARS = 64 * 1024;

interface ExpectedClient {
  client: string;
  stdout: string;
  stderr: string;
}
interface ExpectedRun {
  dir: string;
  startEpochMs: number;
  clients: ExpectedClient[];
  ops: Record<string, { perClient: { client: string; ycsb: Record<string, number> }[] }>;
  ycsbOverall: { client: string; 'RunTime(ms)': number; 'Throughput(ops/sec)': number }[];
}
interface ExpectedScenario {
  runs?: ExpectedRun[];
}

const expected = JSON.parse(readFileSync(join(CORPUS, 'expected.json'), 'utf8')) as Record<string, ExpectedScenario>;
const runs = Object.values(expected).flatMap((s) => s.runs ?? []);
const clients = runs.flatMap((run) => run.clients.map((client) => ({ run, client })));

function read(relative: string): string {
  return readFileSync(join(CORPUS, relative), 'utf8');
}

/** Lines as a reader would hand them over: split on LF, CRLF or CR, no phantom line after the last terminator. */
function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|\n|\r/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function parse(lines: string[], path = 'test.txt'): ParsedFile {
  const parser = ycsbTextFormat.createParser(path);
  lines.forEach((line, i) => parser.line(line, i + 1));
  return parser.finish();
}

const parseText = (text: string, path?: string) => parse(splitLines(text), path);

/** The oracle's verbatim YCSB figures of one op, in the shape of a PrintedSeries. */
function oracleSeries(op: string, ycsb: Record<string, number>): Omit<PrintedSeries, 'kind' | 'unit'> {
  const series: Omit<PrintedSeries, 'kind' | 'unit'> = { op, count: NaN, mean: null, min: null, max: null, percentiles: {}, returns: {} };
  for (const [key, value] of Object.entries(ycsb)) {
    if (key === 'Operations' || key === 'Total Operations') series.count = value;
    else if (key === 'AverageLatency(us)' || key === 'Average') series.mean = value;
    else if (key === 'MinLatency(us)' || key === 'Min') series.min = value;
    else if (key === 'MaxLatency(us)' || key === 'Max') series.max = value;
    else if (key === '95thPercentileLatency(us)') series.percentiles.p95 = value;
    else if (key === '99thPercentileLatency(us)') series.percentiles.p99 = value;
    else if (/^p[\d.]+$/.test(key)) series.percentiles[key] = value;
    else if (key.startsWith('Return=')) series.returns[key.slice('Return='.length)] = value;
    else if (key !== 'Below is a summary of latency in microseconds:') throw new Error(`oracle key ${key} not mapped`);
  }
  return series;
}

function oracleFor(run: ExpectedRun, client: string) {
  return Object.entries(run.ops).flatMap(([op, o]) => {
    const pc = o.perClient.find((p) => p.client === client);
    return pc ? [oracleSeries(op, pc.ycsb)] : [];
  });
}

const isThroughputOp = (op: string) => op !== 'CLEANUP' && !op.startsWith('Intended-') && !op.endsWith('-FAILED');

const STATUS_LINE = / sec: \d+ operations;/;

describe('ycsb-text: corpus stdout against expected.json', () => {
  it.each(clients.map(({ run, client }) => [`${run.dir}/${client.stdout}`, run, client] as const))('%s', (file, run, client) => {
    const parsed = parseText(read(file), file);
    expect(parsed.errors).toEqual([]);
    expect(parsed.skippedLines).toBe(0);
    expect(parsed.format).toBe('ycsb-text');

    const oracle = oracleFor(run, client.client);
    expect(oracle.length).toBeGreaterThan(0);
    expect(parsed.series.map((s) => s.op).sort()).toEqual(oracle.map((s) => s.op).sort());
    for (const want of oracle) {
      const got = parsed.series.find((s) => s.op === want.op);
      expect(got, want.op).toEqual({ kind: 'printed', unit: 'us', ...want });
    }

    const overall = run.ycsbOverall.find((o) => o.client === client.client);
    expect(overall).toBeDefined();
    expect(parsed.overall).toEqual({ runTimeMs: overall?.['RunTime(ms)'], throughputOpsPerS: overall?.['Throughput(ops/sec)'] });
  });
});

describe('ycsb-text: corpus stderr status lines', () => {
  let emptyIntervals = 0;
  let infinities = 0;

  it.each(clients.map(({ run, client }) => [`${run.dir}/${client.stderr}`, run, client] as const))('%s', (file, run, client) => {
    const text = read(file);
    const parsed = parseText(text, file);
    expect(parsed.errors).toEqual([]);
    expect(parsed.skippedLines).toBe(0);
    expect(parsed.series).toEqual([]);
    expect(parsed.clientHint).toBe(client.client);

    const statusLines = splitLines(text).filter((l) => STATUS_LINE.test(l));
    const status = parsed.status ?? [];
    expect(status).toHaveLength(statusLines.length);
    statusLines.forEach((line, i) => {
      const point = status[i];
      const head = /(\d+) sec: (\d+) operations;/.exec(line);
      expect(point?.elapsedS).toBe(Number(head?.[1]));
      expect(point?.operations).toBe(Number(head?.[2]));
      const current = /; (\S+) current ops\/sec;/.exec(line)?.[1];
      if (current === undefined || current === '∞') expect(point?.currentOpsPerS).toBeNull();
      else expect(point?.currentOpsPerS).toBe(Number(current));
      if (current === '∞') infinities++;
      const date = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d):(\d{3}) /.exec(line);
      const [y, mo, d, h, mi, s, ms] = (date?.slice(1) ?? []).map(Number);
      expect(point?.localTimeMs).toBe(Date.UTC(y ?? NaN, (mo ?? NaN) - 1, d, h, mi, s, ms));
      for (const m of line.matchAll(/\[([^\]:]+): Count=0, Max=0, Min=9223372036854775807, Avg=NaN[^\]]*\]/g)) {
        emptyIntervals++;
        expect(point?.ops[m[1] ?? '']).toEqual({ count: 0, max: null, min: null, avg: null, percentiles: {} });
      }
      for (const m of line.matchAll(/\[([^\]:]+): Count=([1-9]\d*), Max=(\d+), Min=(\d+), Avg=([\d.]+), 90=(\d+), 99=(\d+), 99\.9=(\d+), 99\.99=(\d+)\]/g)) {
        const [, name = '', ...figures] = m;
        const [count, max, min, avg, p90, p99, p999, p9999] = figures.map(Number);
        expect(point?.ops[name]).toEqual({ count, max, min, avg, percentiles: { p90, p99, 'p99.9': p999, 'p99.99': p9999 } });
      }
      for (const m of line.matchAll(/(\S+) count: (\d+), average latency\(us\): ([\d.]+)/g)) {
        expect(point?.ops[m[1] ?? '']).toEqual({ count: Number(m[2]), max: null, min: null, avg: Number(m[3]), percentiles: {} });
      }
      expect(Object.keys(point?.ops ?? {}).sort()).toEqual([...line.matchAll(/\[([^\]:]+): |(\S+) count: /g)].map((m) => m[1] ?? m[2]).sort());
    });

    // The final status line counts every operation call, which is what the Return= lines count.
    const calls = oracleFor(run, client.client)
      .filter((s) => isThroughputOp(s.op))
      .reduce((sum, s) => sum + Object.values(s.returns).reduce((a, b) => a + b, 0), 0);
    expect(status[status.length - 1]?.operations).toBe(calls);
    // The corpus machine ran in UTC (its HdrHistogram logs say so), so local time ≈ run start.
    expect(Math.abs((status[0]?.localTimeMs ?? 0) - run.startEpochMs)).toBeLessThan(5000);
  });

  it('met the corpus quirks: empty intervals and ∞ throughput', () => {
    expect(emptyIntervals).toBeGreaterThan(0);
    expect(infinities).toBeGreaterThan(0);
  });

  it('reads raw-mode status figures (raw-csv-b)', () => {
    const rawRun = runs.find((r) => r.dir.startsWith('raw-csv-b'));
    const file = `${rawRun?.dir}/${rawRun?.clients[0]?.stderr}`;
    const status = parseText(read(file)).status ?? [];
    expect(status.length).toBeGreaterThan(2);
    for (const point of status) {
      expect(Object.keys(point.ops)).toContain('READ');
      expect(point.ops.READ?.count).toBeGreaterThan(0);
      expect(point.ops.READ?.avg).toBeGreaterThan(0);
      expect(point.ops.READ?.min).toBeNull();
    }
  });
});

describe('ycsb-text: edge variants built from corpus files', () => {
  const { run, client } = clients.find((c) => c.run.dir.startsWith('split-for-heat')) ?? clients[0]!;
  const stdout = read(`${run.dir}/${client.stdout}`);
  const stderr = read(`${run.dir}/${client.stderr}`);
  const base = { out: parseText(stdout), err: parseText(stderr) };
  const content = (f: ParsedFile) => ({ ...f, lines: 0 });

  it('CRLF line ends, also when the reader splits on LF only', () => {
    const crlf = stdout.replace(/\n/g, '\r\n');
    expect(content(parseText(crlf))).toEqual(content(base.out));
    expect(content(parse(crlf.split('\n')))).toEqual(content(base.out));
    expect(content(parse(stderr.replace(/\n/g, '\r\n').split('\n')))).toEqual(content(base.err));
  });

  it('a byte-order mark', () => {
    expect(parseText('\uFEFF' + stdout)).toEqual(base.out);
    expect(parseText('\uFEFF' + stderr)).toEqual(base.err);
  });

  it('trailing blank lines', () => {
    const parsed = parseText(stdout + '\n\n  \n\n');
    expect(content(parsed)).toEqual(content(base.out));
    expect(parsed.lines).toBe(base.out.lines + 4);
  });

  it('a status line cut mid-bracket is skipped with an error naming its line; the rest is kept', () => {
    const lines = splitLines(stderr);
    const last = lines.length - 1;
    const lastLine = lines[last] ?? '';
    expect(STATUS_LINE.test(lastLine)).toBe(true);
    lines[last] = lastLine.slice(0, lastLine.lastIndexOf('[') + 12);
    const parsed = parse(lines);
    expect(parsed.skippedLines).toBe(1);
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]?.line).toBe(last + 1);
    expect(parsed.status).toEqual(base.err.status?.slice(0, -1));
    expect(parsed.commandLine).toEqual(base.err.commandLine);
  });

  it('a status line cut before its counts is reported too', () => {
    const lines = splitLines(stderr);
    const i = lines.findIndex((l) => STATUS_LINE.test(l) && l.includes('['));
    lines[i] = (lines[i] ?? '').slice(0, 26);
    const parsed = parse(lines);
    expect(parsed.errors.map((e) => e.line)).toEqual([i + 1]);
    expect(parsed.status).toHaveLength((base.err.status?.length ?? 0) - 1);
  });

  it('stdout and stderr in one file, concatenated either way or interleaved', () => {
    const outLines = splitLines(stdout);
    const errLines = splitLines(stderr);
    const interleaved: string[] = [];
    for (let i = 0; i < Math.max(outLines.length, errLines.length); i++) {
      if (i < errLines.length) interleaved.push(errLines[i] ?? '');
      if (i < outLines.length) interleaved.push(outLines[i] ?? '');
    }
    for (const lines of [[...outLines, ...errLines], [...errLines, ...outLines], interleaved]) {
      const parsed = parse(lines);
      expect(parsed.errors).toEqual([]);
      expect(parsed.series).toEqual(base.out.series);
      expect(parsed.overall).toEqual(base.out.overall);
      expect(parsed.status).toEqual(base.err.status);
      expect(parsed.commandLine).toEqual(base.err.commandLine);
      expect(parsed.clientHint).toBe(client.client);
    }
  });

  it('a bad value is an error with its line number; the rest of the block is kept', () => {
    const lines = splitLines(stdout);
    const i = lines.findIndex((l) => l.startsWith('[READ], AverageLatency(us), '));
    lines[i] = '[READ], AverageLatency(us), abc';
    const parsed = parse(lines);
    expect(parsed.skippedLines).toBe(1);
    expect(parsed.errors).toEqual([expect.objectContaining({ line: i + 1, field: 'AverageLatency(us)' })]);
    const read = parsed.series.find((s) => s.op === 'READ');
    const want = base.out.series.find((s) => s.op === 'READ');
    expect(read).toEqual({ ...want, mean: null });
  });

  it('a block whose count line is bad is dropped, with a note', () => {
    const lines = splitLines(stdout);
    const i = lines.findIndex((l) => l.startsWith('[UPDATE], Operations, '));
    lines[i] = '[UPDATE], Operations, 12.5';
    const parsed = parse(lines);
    expect(parsed.errors[0]?.line).toBe(i + 1);
    expect(parsed.errors.some((e) => e.message.includes('UPDATE') && e.line > i + 1)).toBe(true);
    expect(parsed.series.map((s) => s.op)).toEqual(base.out.series.map((s) => s.op).filter((op) => op !== 'UPDATE'));
  });

  it('two summaries in one file: the later wins, with a note', () => {
    const other = clients.find((c) => c.run !== run) ?? clients[0]!;
    const second = read(`${other.run.dir}/${other.client.stdout}`);
    const parsed = parseText(stdout + second);
    expect(parsed.series).toEqual(parseText(second).series);
    expect(parsed.errors).toHaveLength(1);
    const secondStart = splitLines(second).findIndex((l) => l.startsWith('[OVERALL], RunTime(ms), '));
    expect(parsed.errors[0]?.line).toBe(splitLines(stdout).length + secondStart + 1);
  });
});

describe('ycsb-text: detection', () => {
  it.each(clients.flatMap(({ run, client }) => [`${run.dir}/${client.stdout}`, `${run.dir}/${client.stderr}`]))('%s', (file) => {
    const head = read(file).slice(0, HEAD_CHARS);
    expect(ycsbTextFormat.detect(head, 'unknown')).toBeGreaterThan(0.5);
    expect(ycsbTextFormat.detect(head, file.split('/').pop() ?? '')).toBeGreaterThan(0.5);
  });

  const otherFiles = readdirSync(CORPUS, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(hdr|hlog|hgrm|csv)$/.test(f));

  it('finds the other formats in the corpus', () => {
    expect(otherFiles.some((f) => f.endsWith('.hdr'))).toBe(true);
    expect(otherFiles.some((f) => f.endsWith('-raw.csv'))).toBe(true);
  });

  it.each(otherFiles)('scores 0 on %s', (file) => {
    const head = read(file).slice(0, HEAD_CHARS);
    expect(ycsbTextFormat.detect(head, file.split('/').pop() ?? '')).toBe(0);
    expect(ycsbTextFormat.detect(head, 'client1.stderr.txt')).toBe(0);
  });

  it('uses a YCSB-like file name only as a weak hint', () => {
    expect(ycsbTextFormat.detect('', 'client1.stderr.txt')).toBeLessThan(0.25);
    expect(ycsbTextFormat.detect('', 'unknown')).toBe(0);
  });
});

describe('ycsb-text: variants YCSB prints that the corpus lacks', () => {
  const parseLines = (...lines: string[]) => parse(lines);

  it('histogram measurement summary: buckets and variance are passed over', () => {
    const f = parseLines(
      '[READ], Operations, 10',
      '[READ], AverageLatency(us), 1500.5',
      '[READ], LatencyVariance(us), 20.25',
      '[READ], MinLatency(us), 800',
      '[READ], MaxLatency(us), 4100',
      '[READ], 95thPercentileLatency(us), 3000',
      '[READ], 99thPercentileLatency(us), 4000',
      '[READ], Return=OK, 10',
      '[READ], 0, 2',
      '[READ], 1, 5',
      '[READ], >1000, 0',
    );
    expect(f.errors).toEqual([]);
    expect(f.series).toEqual([
      { kind: 'printed', op: 'READ', unit: 'us', count: 10, mean: 1500.5, min: 800, max: 4100, percentiles: { p95: 3000, p99: 4000 }, returns: { OK: 10 } },
    ]);
  });

  it('hdrhistogram.percentiles with fractional and ordinal labels; ms percentiles of YCSB 0.1', () => {
    const f = parseLines(
      '[SCAN], Operations, 3',
      '[SCAN], 50thPercentileLatency(us), 7',
      '[SCAN], 1stPercentileLatency(us), 5',
      '[SCAN], 99.9PercentileLatency(us), 9',
      '[SCAN], 99.99PercentileLatency(us), 9',
      '[INSERT], Operations, 1',
      '[INSERT], 95thPercentileLatency(ms), 4',
    );
    const percentiles = f.series.map((s) => (s.kind === 'printed' ? s.percentiles : null));
    expect(percentiles).toEqual([{ p50: 7, p1: 5, 'p99.9': 9, 'p99.99': 9 }, { p95: 4000 }]);
  });

  it('an empty measurement has no latencies; NaN averages become null', () => {
    const f = parseLines('[READ], Operations, 0', '[READ], AverageLatency(us), NaN', '[READ], MinLatency(us), -1', '[READ], MaxLatency(us), -1');
    expect(f.series[0]).toMatchObject({ count: 0, mean: null, min: null, max: null, percentiles: {} });
  });

  it('JVM statistics blocks are not operations', () => {
    const f = parseLines('[MAX_MEM_USED], MBs, 200', '[THREAD_COUNT], Operations, 5', '[TOTAL_GCs], Count, 3', '[READ], Operations, 1');
    expect(f.series.map((s) => s.op)).toEqual(['READ']);
  });

  it('status lines without a date, with a label, with a decimal comma, and Java 8 NaN', () => {
    const f = parseLines(
      ' 10 sec: 5000 operations; 500,5 current ops/sec; [READ: Count=3, Max=9, Min=1, Avg=4,33, 50=3, 90=9, 99=9, 99.9=9, 99.99=9]',
      'run-a2026-01-02 03:04:05:006 20 sec: 6000 operations; 100 current ops/sec; est completion in 1 hour 5 minutes [READ: Count=0, Max=0, Min=9223372036854775807, Avg=\uFFFD, 90=0, 99=0, 99.9=0, 99.99=0]',
    );
    expect(f.errors).toEqual([]);
    expect(f.status).toEqual([
      { elapsedS: 10, operations: 5000, currentOpsPerS: 500.5, localTimeMs: null, ops: { READ: { count: 3, max: 9, min: 1, avg: 4.33, percentiles: { p50: 3, p90: 9, p99: 9, 'p99.9': 9, 'p99.99': 9 } } } },
      { elapsedS: 20, operations: 6000, currentOpsPerS: 100, localTimeMs: Date.UTC(2026, 0, 2, 3, 4, 5, 6), ops: { READ: { count: 0, max: null, min: null, avg: null, percentiles: {} } } },
    ]);
  });

  it('hdrhistogram+raw prints its second summary on the next line', () => {
    const f = parseLines(
      '2026-01-02 03:04:05:006 1 sec: 10 operations; 10 current ops/sec; [HdrREAD: Count=10, Max=9, Min=1, Avg=4, 90=9, 99=9, 99.9=9, 99.99=9]',
      'RawREAD count: 10, average latency(us): 4.00 [HdrUPDATE: Count=0, Max=0, Min=9223372036854775807, Avg=NaN, 90=0, 99=0, 99.9=0, 99.99=0]',
      ' ',
      '[HdrREAD: Count=1, Max=1, Min=1, Avg=1, 90=1, 99=1, 99.9=1, 99.99=1]',
    );
    expect(Object.keys(f.status?.[0]?.ops ?? {})).toEqual(['HdrREAD', 'RawREAD', 'HdrUPDATE']);
    expect(f.status?.[0]?.ops.RawREAD).toEqual({ count: 10, max: null, min: null, avg: 4, percentiles: {} });
    expect(f.errors.map((e) => e.line)).toEqual([4]);
  });

  it('average-only status figures (histogram, timeseries) are noted once, not kept', () => {
    const f = parseLines(
      '2026-01-02 03:04:05:006 1 sec: 10 operations; 10 current ops/sec; [READ AverageLatency(us)=4.5] [UPDATE AverageLatency(us)=3]',
      '2026-01-02 03:04:06:006 2 sec: 20 operations; 10 current ops/sec; [READ AverageLatency(us)=4.5]',
    );
    expect(f.skippedLines).toBe(0);
    expect(f.errors).toHaveLength(1);
    expect(f.status?.map((p) => p.ops)).toEqual([{}, {}]);
  });

  it('timeseries status lines printed to both streams are kept once', () => {
    const line = '2026-01-02 03:04:05:006 1 sec: 10 operations; 10 current ops/sec; [READ AverageLatency(us)=4.5]';
    expect(parseLines(line, line, 'x', line).status).toHaveLength(1);
  });

  it('free text is passed over silently; malformed summary and status lines are not', () => {
    const f = parseLines(
      'Exception in thread "main" java.lang.RuntimeException: boom',
      '\tat site.ycsb.Client.main(Client.java:1)',
      '[WARN] Couldn\'t read hdrhistogram.percentiles value',
      'Raw data measurement: will output to stdout.',
      'READ latency raw data: op, timestamp(ms), latency(us)',
      'READ,1795255946488,4181',
      '[READ], Operations',
      '2026-01-02 03:04:05:006 1 sec: 10 operations; abc current ops/sec;',
      '2026-01-02 03:04:05:006 1 sec: 10 operations; 10 current ops/sec; [READ: Count=x]',
      '[OVERALL], RunTime(ms), 1e',
    );
    expect(f.errors.map((e) => e.line)).toEqual([7, 8, 9, 10]);
    expect(f.skippedLines).toBe(4);
    expect(f.series).toEqual([]);
  });
});
