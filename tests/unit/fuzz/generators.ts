import fc from 'fast-check';
import { indexedOf } from '../../helpers/indexed.ts';
import { rawSeries } from '../../helpers/raw-samples.ts';
import { encodeHistogramV2Compressed } from '../../../src/model/hdr-codec.ts';
import { hdrLayout } from '../../../src/model/hdr-layout.ts';
import type {
  DistributionSeries,
  HdrPrecision,
  HistogramSeries,
  ParsedFile,
  RawSeries,
  StatusOpFigures,
  StatusPoint,
  PrintedSeries,
} from '../../../src/model/types.ts';

/**
 * Valid files of every format, each with the parse it must give back. The expected values are
 * computed from what was generated (integers, exact decimals), never by calling the parser.
 */

export interface Generated {
  path: string;
  text: string;
  /** What the parse must equal (compared field by field with toEqual). */
  expected: Pick<ParsedFile, 'format' | 'series'> & Partial<Pick<ParsedFile, 'status' | 'overall' | 'commandLine' | 'clientHint' | 'producer'>>;
  /** File-level notes (line 0) the parse must carry, in order; no other error is allowed. */
  notes: RegExp[];
}

/** `value / 10^decimals` written with exactly `decimals` decimals (value a non-negative integer). */
export function fixed(value: number, decimals: number): string {
  if (decimals === 0) return String(value);
  const s = String(value).padStart(decimals + 1, '0');
  return `${s.slice(0, s.length - decimals)}.${s.slice(s.length - decimals)}`;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

// ---------------------------------------------------------------------------------------------
// HdrHistogram interval logs

const precisionArb: fc.Arbitrary<HdrPrecision> = fc.record({
  significantDigits: fc.integer({ min: 0, max: 5 }),
  lowestDiscernibleValue: fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 100_000 }) }),
});

interface Buckets {
  lo: number[];
  width: number[];
  count: number[];
}

/** Recorded values → the histogram's non-empty buckets, as a Java histogram would hold them. */
function bucketsOf(precision: HdrPrecision, values: { v: number; c: number }[]): Buckets {
  const layout = hdrLayout(precision);
  const byIndex = new Map<number, number>();
  for (const { v, c } of values) {
    const index = layout.countsArrayIndex(v);
    byIndex.set(index, (byIndex.get(index) ?? 0) + c);
  }
  const indices = [...byIndex.keys()].sort((a, b) => a - b);
  const lo = indices.map((i) => layout.valueFromIndex(i));
  return { lo, width: lo.map((l) => layout.sizeOfEquivalentValueRange(l)), count: indices.map((i) => byIndex.get(i) ?? 0) };
}

const valuesArb = fc.array(
  fc.record({
    v: fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 2 ** 40 })),
    c: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 2 ** 40 })),
  }),
  { maxLength: 25 },
);

export function encodeBuckets(precision: HdrPrecision, b: Buckets, highest = 3_600_000_000): string {
  const total = b.count.reduce((a, c) => a + c, 0);
  return encodeHistogramV2Compressed({
    precision,
    highestTrackableValue: Math.max(highest, 2 * precision.lowestDiscernibleValue),
    integerToDoubleConversionRatio: 1,
    histogram: { lo: Float64Array.from(b.lo), width: Float64Array.from(b.width), count: Float64Array.from(b.count), totalCount: total },
  });
}

const OPS = ['READ', 'UPDATE', 'INSERT', 'SCAN', 'READ-MODIFY-WRITE', 'CLEANUP', 'READ-FAILED', 'Intended-READ'] as const;
/** Tags as cassandra-stress and friends write them, plus hostile ones (no comma or space: the log's separators). */
const TAGS = ['READ', 'UPDATE', 'write', 'q1', 'Tag', "x');DROP_TABLE_buckets;--", '<b>READ</b>', 'Ünïcode', '𝔘𝔭𝔡', '', ' '] as const;

type TimeMode = 'base' | 'start' | 'absolute' | 'relative';

export const hdrLogArb: fc.Arbitrary<Generated> = fc
  .record({
    precision: precisionArb,
    otherPrecision: fc.option(precisionArb, { nil: undefined }),
    fileOp: fc.constantFrom(...OPS),
    loggingFor: fc.option(fc.constantFrom(...OPS), { nil: undefined }),
    mode: fc.constantFrom<TimeMode>('base', 'start', 'absolute', 'relative'),
    startTimeMs: fc.integer({ min: 1_500_000_000_000, max: 1_900_000_000_000 }),
    withVersion: fc.boolean(),
    withColumns: fc.boolean(),
    withStartTimeInAbsolute: fc.boolean(),
    intervals: fc.array(
      fc.record({
        tag: fc.option(fc.constantFrom(...TAGS), { nil: null, freq: 2 }),
        startMs: fc.integer({ min: 0, max: 5_000_000 }),
        lengthMs: fc.integer({ min: 0, max: 5000 }),
        maxDecimals: fc.integer({ min: 0, max: 3 }),
        values: valuesArb,
      }),
      { minLength: 1, maxLength: 12 },
    ),
  })
  .map((g) => {
    const lines: string[] = [];
    const baseMs = g.startTimeMs - (g.startTimeMs % 1000);
    if (g.loggingFor) lines.push(`#[Logging for: ${g.loggingFor}]`);
    if (g.withVersion) lines.push('#[Histogram log format version 1.3]');
    const startTimeLine = `#[StartTime: ${fixed(g.startTimeMs, 3)} (seconds since epoch), Sat Nov 21 10:10:08 UTC 2026]`;
    if (g.mode === 'base') {
      lines.push(startTimeLine, `#[BaseTime: ${fixed(baseMs, 3)} (seconds since epoch)]`);
    } else if (g.mode === 'start' || (g.mode === 'absolute' && g.withStartTimeInAbsolute)) {
      lines.push(startTimeLine);
    }
    if (g.withColumns) lines.push('"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"');
    const untaggedOp = g.loggingFor ?? g.fileOp;
    const series = new Map<string, HistogramSeries>();
    for (const i of g.intervals) {
      // An empty or blank tag names nothing: the interval is the log's untagged op.
      const op = i.tag !== null && i.tag.trim() !== '' ? i.tag : untaggedOp;
      // Every op keeps one precision (mixing is an error case of its own); the second one goes to tags.
      const precision = op !== untaggedOp && g.otherPrecision ? g.otherPrecision : g.precision;
      const b = bucketsOf(precision, i.values);
      const stampMs = g.mode === 'absolute' ? g.startTimeMs + i.startMs : i.startMs;
      const stamp = fixed(stampMs, 3);
      lines.push(`${i.tag !== null ? `Tag=${i.tag},` : ''}${stamp},${fixed(i.lengthMs, 3)},${fixed(i.lengthMs * 7, i.maxDecimals)},${encodeBuckets(precision, b)}`);
      const offsetUs = g.mode === 'base' ? baseMs * 1000 : g.mode === 'start' ? g.startTimeMs * 1000 : 0;
      let s = series.get(op);
      if (!s) {
        s = { kind: 'histogram', op, unit: 'us', precision, timeBase: g.mode === 'relative' ? 'relative' : 'absolute', intervals: [] };
        series.set(op, s);
      }
      s.intervals.push({
        startUs: stampMs * 1000 + offsetUs,
        lengthUs: i.lengthMs * 1000,
        histogram: indexedOf(precision, { lo: Float64Array.from(b.lo), width: Float64Array.from(b.width), count: Float64Array.from(b.count), totalCount: b.count.reduce((a, c) => a + c, 0) }),
        line: lines.length,
      });
    }
    return { path: `run/client1-${g.fileOp}.hdr`, text: `${lines.join('\n')}\n`, expected: { format: 'hdr-log', series: [...series.values()] }, notes: [] } satisfies Generated;
  });

// ---------------------------------------------------------------------------------------------
// .hgrm percentile distributions

export const hgrmArb: fc.Arbitrary<Generated> = fc
  .record({
    steps: fc.array(fc.record({ dv: fc.integer({ min: 0, max: 5_000_000 }), dp: fc.integer({ min: 0, max: 100_000 }), dc: fc.integer({ min: 0, max: 1_000_000 }) }), { minLength: 1, maxLength: 30 }),
    csv: fc.boolean(),
    footer: fc.boolean(),
    digits: fc.integer({ min: 0, max: 5 }),
    op: fc.constantFrom('READ', 'UPDATE', 'SCAN'),
    meanMilli: fc.integer({ min: 0, max: 10 ** 9 }),
  })
  .map((g) => {
    // Percentiles as integers of 10^-12 so they print exactly with 12 decimals and parse back to the same double.
    let value = 0;
    let pct = 0;
    let total = 0;
    const raw = g.steps.map((s) => {
      value += s.dv;
      pct = Math.min(10 ** 12, pct + s.dp * 10 ** 6);
      total += s.dc;
      return { value, pct, total };
    });
    const rows: DistributionSeries['rows'] = raw.map((r) => ({ value: Number(fixed(r.value, 3)), percentile: Number(fixed(r.pct, 12)), totalCount: r.total }));
    const lines: string[] = [];
    if (g.csv) {
      lines.push('"Value","Percentile","TotalCount","1/(1-Percentile)"');
      for (const r of raw) lines.push(`${fixed(r.value, 3)},${fixed(r.pct, 12)},${r.total},${r.pct === 10 ** 12 ? 'Infinity' : (1 / (1 - r.pct / 1e12)).toFixed(2)}`);
    } else {
      lines.push('       Value     Percentile TotalCount 1/(1-Percentile)', '');
      for (const r of raw) {
        const cols = `${fixed(r.value, 3).padStart(12)} ${fixed(r.pct, 12)} ${String(r.total).padStart(10)}`;
        lines.push(r.pct === 10 ** 12 ? cols : `${cols} ${(1 / (1 - r.pct / 1e12)).toFixed(2).padStart(14)}`);
      }
    }
    const subBuckets = 2 ** Math.ceil(Math.log2(2 * 10 ** g.digits));
    const last = rows[rows.length - 1] as (typeof rows)[number];
    // The footer is what Java writes after plain rows only; a plain file without it is reported (truncation).
    const withFooter = g.footer && !g.csv;
    if (withFooter) {
      lines.push(`#[Mean    = ${fixed(g.meanMilli, 3).padStart(12)}, StdDeviation   = ${fixed(g.meanMilli * 2, 3).padStart(12)}]`);
      lines.push(`#[Max     = ${fixed(raw[raw.length - 1]?.value ?? 0, 3).padStart(12)}, Total count    = ${String(last.totalCount).padStart(12)}]`);
      lines.push(`#[Buckets = ${String(20).padStart(12)}, SubBuckets     = ${String(subBuckets).padStart(12)}]`);
    }
    const series: DistributionSeries = {
      kind: 'distribution',
      op: g.op,
      unit: 'us',
      rows,
      totalCount: last.totalCount,
      precision: withFooter ? { significantDigits: g.digits, lowestDiscernibleValue: 1 } : null,
      mean: withFooter ? Number(fixed(g.meanMilli, 3)) : null,
      stddev: withFooter ? Number(fixed(g.meanMilli * 2, 3)) : null,
      max: last.value,
    };
    return { path: `merged/merged-${g.op}.hgrm`, text: `${lines.join('\n')}\n`, expected: { format: 'hgrm', series: [series] }, notes: !g.csv && !g.footer ? [/no footer/] : [] } satisfies Generated;
  });

// ---------------------------------------------------------------------------------------------
// YCSB raw CSV

const rawOpArb = fc.oneof(fc.constantFrom(...OPS), fc.stringMatching(/^[A-Za-z][\w-]{0,10}$/));

export const ycsbRawArb: fc.Arbitrary<Generated> = fc
  .record({
    blocks: fc.array(
      fc.record({
        op: rawOpArb,
        header: fc.boolean(),
        rows: fc.array(fc.record({ t: fc.integer({ min: 1_000_000_000_000, max: 9_007_199_254_740 }), l: fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 2 ** 53 - 1 })) }), { maxLength: 20 }),
      }),
      { minLength: 1, maxLength: 5 },
    ),
    client: fc.constantFrom('client1', 'c2', 'node-3'),
  })
  .filter((g) => g.blocks.some((b) => b.header) || g.blocks.some((b) => b.rows.length > 0))
  .map((g) => {
    const lines: string[] = [];
    const cols = new Map<string, { t: number[]; l: number[] }>();
    for (const b of g.blocks) {
      if (b.header) lines.push(`${b.op} latency raw data: op, timestamp(ms), latency(us)`);
      for (const r of b.rows) {
        lines.push(`${b.op},${r.t},${r.l}`);
        let c = cols.get(b.op);
        if (!c) cols.set(b.op, (c = { t: [], l: [] }));
        c.t.push(r.t);
        c.l.push(r.l);
      }
    }
    const series: RawSeries[] = [...cols].map(([op, c]) => rawSeries(op, 'us', c.t, c.l));
    return { path: `raw/${g.client}-raw.csv`, text: `${lines.join('\n')}\n`, expected: { format: 'ycsb-raw', series }, notes: series.length === 0 ? [/no raw measurement rows/] : [] } satisfies Generated;
  });

// ---------------------------------------------------------------------------------------------
// Generic per-operation CSV

type Unit = 'ns' | 'us' | 'ms' | 's';
const LATENCY_HEADERS: [string, Unit][] = [
  ['latency_ms', 'ms'],
  ['latency_us', 'us'],
  ['lat_ns', 'ns'],
  ['elapsed', 'ms'],
  ['duration_s', 's'],
  ['latency', 'ms'],
  ['response_time(ms)', 'ms'],
  ['service_time µs', 'us'],
];
const TIME_HEADERS = ['timestamp', 'timeStamp', 'ts', 'time', 'start_time', 'epoch'];
const OP_HEADERS = ['op', 'operation', 'label', 'type', 'method'];
/** Status column header, a value meaning success, a value meaning failure. */
const STATUS_COLUMNS: [string, string, string][] = [
  ['success', 'true', 'false'],
  ['ok', '1', '0'],
  ['status', 'OK', 'ERROR'],
  ['status', '200', '503'],
  ['error', '0', 'timeout'],
  ['failed', 'false', 'true'],
  ['response_code', '204', '404'],
  ['result', 'success', 'failure'],
];
const CLIENT_HEADERS = ['client', 'host', 'worker'];
const FILLER_HEADERS = ['threadName', 'bytes', 'URL'];
type TimeStyle = 's' | 'ms' | 'us' | 'ns' | 'iso';

/** An exact decimal string with its point moved `shift` places right, as a double (correctly rounded). */
export function shiftDecimal(text: string, shift: number): number {
  const [int = '', frac = ''] = text.split('.');
  const digits = int + frac;
  const point = int.length + shift;
  const padded = point > digits.length ? digits.padEnd(point, '0') : digits;
  return Number(`${padded.slice(0, Math.max(point, 0)) || '0'}.${padded.slice(Math.max(point, 0)) || '0'}`);
}

function timeText(ms: number, sub: number, style: TimeStyle): string {
  switch (style) {
    case 's':
      return fixed(ms, 3);
    case 'ms':
      return String(ms);
    case 'us':
      return String(ms * 1000 + (sub % 1000));
    case 'ns':
      return `${ms}${pad(sub, 6)}`;
    case 'iso':
      return new Date(ms).toISOString();
  }
}

function latencyText(us: number, unit: Unit, decimalsSeed: number): { text: string; stored: number } {
  switch (unit) {
    case 'ns':
      return { text: String(us), stored: us };
    case 'us':
      return { text: String(us), stored: us };
    case 'ms':
      // Trailing zeros trimmed sometimes, as producers print 1.5 rather than 1.500.
      return { text: decimalsSeed % 2 === 0 ? fixed(us, 3) : String(Number(fixed(us, 3))), stored: us };
    case 's':
      return { text: fixed(us, 6), stored: us };
  }
}

function csvField(value: string, delimiter: string, quote: boolean): string {
  const needs = value.includes(delimiter) || value.includes('"') || /^\s|\s$/.test(value);
  return quote || needs ? `"${value.replace(/"/g, '""')}"` : value;
}

export const genericCsvArb: fc.Arbitrary<Generated> = fc
  .record({
    delimiter: fc.constantFrom(',', ';', '\t', '|'),
    latency: fc.constantFrom(...LATENCY_HEADERS),
    time: fc.option(fc.record({ header: fc.constantFrom(...TIME_HEADERS), style: fc.constantFrom<TimeStyle>('s', 'ms', 'us', 'ns', 'iso') }), { nil: undefined }),
    op: fc.option(fc.constantFrom(...OP_HEADERS), { nil: undefined }),
    status: fc.option(fc.constantFrom(...STATUS_COLUMNS), { nil: undefined }),
    client: fc.option(fc.constantFrom(...CLIENT_HEADERS), { nil: undefined }),
    filler: fc.option(fc.constantFrom(...FILLER_HEADERS), { nil: undefined }),
    order: fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
    rows: fc.array(
      fc.record({
        ms: fc.integer({ min: 1_500_000_000_000, max: 1_900_000_000_000 }),
        sub: fc.integer({ min: 0, max: 999_999 }),
        us: fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 10 ** 12 })),
        op: fc.constantFrom('READ', 'UPDATE', 'GET /a,b', 'q"1', '', 'Ünï'),
        failed: fc.boolean(),
        client: fc.constantFrom('c1', 'node-2', ''),
        quote: fc.boolean(),
        decimalsSeed: fc.nat(),
      }),
      { maxLength: 15 },
    ),
  })
  .map((g) => {
    const [latencyHeader, unit] = g.latency;
    const columns: { header: string; value: (r: (typeof g.rows)[number]) => string }[] = [];
    columns.push({ header: latencyHeader, value: (r) => latencyText(r.us, unit, r.decimalsSeed).text });
    if (g.time) {
      const style = g.time.style;
      columns.push({ header: g.time.header, value: (r) => timeText(r.ms, r.sub, style) });
    }
    if (g.op) columns.push({ header: g.op, value: (r) => r.op });
    if (g.status) {
      const [, ok, bad] = g.status;
      columns.push({ header: g.status[0], value: (r) => (r.failed ? bad : ok) });
    }
    if (g.client) columns.push({ header: g.client, value: (r) => r.client });
    // Fewer than two columns is not recognised as CSV at all; a filler column makes two.
    if (g.filler || columns.length < 2) columns.push({ header: g.filler ?? 'bytes', value: () => 'x' });
    // A random column order: roles are found by header name, not position.
    const ordered = columns.map((c, i) => ({ c, k: g.order[i] ?? 0 })).sort((a, b) => a.k - b.k).map((x) => x.c);
    const lines = [ordered.map((c) => c.header).join(g.delimiter)];
    const cols = new Map<string, { client?: string; op: string; t: number[]; l: number[] }>();
    for (const r of g.rows) {
      lines.push(ordered.map((c) => csvField(c.value(r), g.delimiter, r.quote)).join(g.delimiter));
      let op = g.op ? r.op || 'OP' : 'OP';
      if (g.status && r.failed) op += '-FAILED';
      const client = g.client && r.client ? r.client : undefined;
      const key = `${client ?? ''}\u0000${op}`;
      let c = cols.get(key);
      if (!c) cols.set(key, (c = { op, t: [], l: [], ...(client !== undefined ? { client } : {}) }));
      let t = Number.NaN;
      if (g.time) {
        const style = g.time.style;
        const text = timeText(r.ms, r.sub, style);
        t = style === 's' ? shiftDecimal(text, 3) : style === 'ms' || style === 'iso' ? r.ms : style === 'us' ? shiftDecimal(text, -3) : shiftDecimal(text, -6);
      }
      c.t.push(t);
      c.l.push(latencyText(r.us, unit, r.decimalsSeed).stored);
    }
    const series: RawSeries[] = [...cols.values()].map((c) => rawSeries(c.op, unit === 'ns' ? 'ns' : 'us', c.t, c.l, c.client));
    // A bare `latency` header says no unit: read as ms, and said.
    const notes = [...(latencyHeader === 'latency' ? [/names no unit; read as ms/] : []), ...(series.length === 0 ? [/no rows with a latency/] : [])];
    return { path: 'load/results.csv', text: `${lines.join('\n')}\n`, expected: { format: 'generic-csv', series }, notes } satisfies Generated;
  });

// ---------------------------------------------------------------------------------------------
// YCSB text output (stderr status lines, stdout summary)

const figuresArb = fc.record({
  name: fc.constantFrom('READ', 'UPDATE', 'INSERT', 'READ-FAILED', 'CLEANUP'),
  count: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10 ** 9 })),
  max: fc.integer({ min: 0, max: 10 ** 9 }),
  min: fc.integer({ min: 0, max: 10 ** 6 }),
  avgCenti: fc.integer({ min: 0, max: 10 ** 9 }),
  p: fc.array(fc.integer({ min: 0, max: 10 ** 7 }), { minLength: 4, maxLength: 4 }),
  raw: fc.boolean(),
});

type FiguresGen = typeof figuresArb extends fc.Arbitrary<infer T> ? T : never;

/** DecimalFormat("#.##"): no trailing zeros, no point for whole numbers. */
const hashDecimal = (centi: number) => String(Number(fixed(centi, 2)));

function bracket(f: FiguresGen): { text: string; figures: StatusOpFigures } {
  if (f.raw) {
    const avg = f.count === 0 ? null : Number(fixed(f.avgCenti, 2));
    return { text: `${f.name} count: ${f.count}, average latency(us): ${fixed(f.avgCenti, 2)}`, figures: { count: f.count, max: null, min: null, avg, percentiles: {} } };
  }
  if (f.count === 0) {
    return { text: `[${f.name}: Count=0, Max=0, Min=9223372036854775807, Avg=NaN, 90=0, 99=0, 99.9=0, 99.99=0]`, figures: { count: 0, max: null, min: null, avg: null, percentiles: {} } };
  }
  const [p90 = 0, p99 = 0, p999 = 0, p9999 = 0] = f.p;
  return {
    text: `[${f.name}: Count=${f.count}, Max=${f.max}, Min=${f.min}, Avg=${hashDecimal(f.avgCenti)}, 90=${p90}, 99=${p99}, 99.9=${p999}, 99.99=${p9999}]`,
    figures: { count: f.count, max: f.max, min: f.min, avg: Number(fixed(f.avgCenti, 2)), percentiles: { p90, p99, 'p99.9': p999, 'p99.99': p9999 } },
  };
}

const summaryArb = fc.record({
  op: fc.constantFrom('READ', 'UPDATE', 'SCAN', 'INSERT', 'READ-MODIFY-WRITE', 'READ-FAILED'),
  count: fc.integer({ min: 1, max: 10 ** 9 }),
  mean: fc.double({ min: 0, max: 1e7, noNaN: true }),
  min: fc.integer({ min: 0, max: 10 ** 6 }),
  max: fc.integer({ min: 0, max: 10 ** 9 }),
  p95: fc.integer({ min: 0, max: 10 ** 9 }),
  p99: fc.integer({ min: 0, max: 10 ** 9 }),
  p999: fc.option(fc.integer({ min: 0, max: 10 ** 9 }), { nil: undefined }),
  returns: fc.uniqueArray(fc.record({ status: fc.constantFrom('OK', 'ERROR', 'NOT_FOUND', 'SERVICE_UNAVAILABLE'), n: fc.integer({ min: 0, max: 10 ** 9 }) }), { selector: (r) => r.status, maxLength: 3 }),
});

export const ycsbTextArb: fc.Arbitrary<Generated> = fc
  .record({
    commandLine: fc.option(
      fc.record({
        db: fc.constantFrom('site.ycsb.BasicDB', 'corpus.ycsb.RedisDB'),
        threads: fc.integer({ min: 1, max: 512 }),
        target: fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }),
        client: fc.constantFrom('client1', 'c-2', "o'brien;--"),
      }),
      { nil: undefined },
    ),
    status: fc.array(
      fc.record({
        elapsed: fc.integer({ min: 0, max: 100_000 }),
        ops: fc.integer({ min: 0, max: 10 ** 12 }),
        currentCenti: fc.option(fc.integer({ min: 0, max: 10 ** 9 }), { nil: undefined }),
        dateMs: fc.integer({ min: 1_500_000_000_000, max: 1_900_000_000_000 }),
        figures: fc.uniqueArray(figuresArb, { selector: (f) => f.name, maxLength: 3 }),
      }),
      { maxLength: 6 },
    ),
    overall: fc.option(fc.record({ runTime: fc.integer({ min: 0, max: 10 ** 9 }), throughput: fc.double({ min: 0, max: 1e7, noNaN: true }) }), { nil: undefined }),
    summaries: fc.uniqueArray(summaryArb, { selector: (s) => s.op, maxLength: 4 }),
  })
  .filter((g) => g.commandLine !== undefined || g.status.length > 0 || g.overall !== undefined || g.summaries.length > 0)
  .map((g) => {
    const lines: string[] = [];
    const expected: Generated['expected'] = { format: 'ycsb-text', series: [] };
    if (g.commandLine) {
      const c = g.commandLine;
      const raw = `-t -db ${c.db} -P workloads/workloada -threads ${c.threads}${c.target !== undefined ? ` -target ${c.target}` : ''} -s -p hdrhistogram.output.path=run/${c.client}-`;
      lines.push(`Command line: ${raw}`, 'YCSB Client 0.17.0', '', 'Loading workload...', 'Starting test.');
      expected.commandLine = {
        raw,
        db: c.db,
        workloadFiles: ['workloads/workloada'],
        threads: c.threads,
        target: c.target ?? null,
        properties: { 'hdrhistogram.output.path': `run/${c.client}-` },
        phase: 'run',
      };
      // The hint is the path prefix's last component without its trailing separators.
      expected.clientHint = c.client.replace(/[-_.\s]+$/, '');
    }
    const status: StatusPoint[] = [];
    for (const s of g.status) {
      const d = new Date(s.dateMs);
      const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)} ${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}:${pad(d.getUTCMilliseconds(), 3)}`;
      const current = s.currentCenti !== undefined ? ` ${hashDecimal(s.currentCenti)} current ops/sec;` : '';
      const parts = s.figures.map(bracket);
      lines.push(`${date} ${s.elapsed} sec: ${s.ops} operations;${current} est completion in 1 minute ${parts.map((p) => p.text).join(' ')}`.trimEnd());
      status.push({
        elapsedS: s.elapsed,
        operations: s.ops,
        currentOpsPerS: s.currentCenti !== undefined ? Number(fixed(s.currentCenti, 2)) : null,
        localTimeMs: s.dateMs,
        ops: Object.fromEntries(s.figures.map((f, i) => [f.name, (parts[i] as { figures: StatusOpFigures }).figures])),
      });
    }
    if (status.length > 0) expected.status = status;
    if (g.overall) {
      lines.push(`[OVERALL], RunTime(ms), ${g.overall.runTime}`, `[OVERALL], Throughput(ops/sec), ${String(g.overall.throughput)}`);
      lines.push('[TOTAL_GCS_G1_Young_Generation], Count, 4', '[TOTAL_GC_TIME_%], Time(%), 0.1197939543984347');
      expected.overall = { runTimeMs: g.overall.runTime, throughputOpsPerS: g.overall.throughput };
    }
    for (const s of g.summaries) {
      lines.push(
        `[${s.op}], Operations, ${s.count}`,
        `[${s.op}], AverageLatency(us), ${String(s.mean)}`,
        `[${s.op}], MinLatency(us), ${s.min}`,
        `[${s.op}], MaxLatency(us), ${s.max}`,
        `[${s.op}], 95thPercentileLatency(us), ${s.p95}`,
        `[${s.op}], 99thPercentileLatency(us), ${s.p99}`,
      );
      if (s.p999 !== undefined) lines.push(`[${s.op}], 99.9PercentileLatency(us), ${s.p999}`);
      for (const r of s.returns) lines.push(`[${s.op}], Return=${r.status}, ${r.n}`);
      const series: PrintedSeries = {
        kind: 'printed',
        op: s.op,
        unit: 'us',
        count: s.count,
        mean: s.mean,
        min: s.min,
        max: s.max,
        percentiles: { p95: s.p95, p99: s.p99, ...(s.p999 !== undefined ? { 'p99.9': s.p999 } : {}) },
        returns: Object.fromEntries(s.returns.map((r) => [r.status, r.n])),
      };
      expected.series.push(series);
    }
    return { path: 'run/client1.out.txt', text: `${lines.join('\n')}\n`, expected, notes: [] } satisfies Generated;
  });

export const FORMAT_ARBS = {
  'hdr-log': hdrLogArb,
  hgrm: hgrmArb,
  'ycsb-raw': ycsbRawArb,
  'ycsb-text': ycsbTextArb,
  'generic-csv': genericCsvArb,
} as const;

export type FormatKey = keyof typeof FORMAT_ARBS;
export const FORMAT_KEYS = Object.keys(FORMAT_ARBS) as FormatKey[];
