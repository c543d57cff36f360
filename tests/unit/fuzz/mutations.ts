import fc from 'fast-check';
import { gzipSync } from 'fflate';

/**
 * How files reach the reader (line ends, BOM, encoding, gzip, chunking) and how they get damaged
 * (flipped bits, impossible numbers, cut, duplicated or reordered lines, garbage, huge lines).
 */

// ---------------------------------------------------------------------------------------------
// Transport: must never change the parse

export interface Transport {
  eol: '\n' | '\r\n' | '\r';
  bom: boolean;
  encoding: 'utf-8' | 'utf-16le' | 'utf-16be';
  gzip: 'none' | 'single' | 'multi';
  chunkSizes: number[];
}

export const transportArb: fc.Arbitrary<Transport> = fc.record({
  eol: fc.constantFrom<Transport['eol']>('\n', '\r\n', '\r'),
  bom: fc.boolean(),
  encoding: fc.constantFrom<Transport['encoding']>('utf-8', 'utf-16le', 'utf-16be'),
  gzip: fc.constantFrom<Transport['gzip']>('none', 'single', 'multi'),
  // Sizes down to 1 byte split CRLF pairs, multi-byte characters, UTF-16 units and the gzip header.
  chunkSizes: fc.array(fc.oneof(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 70_000 })), { maxLength: 4 }),
});

export function encodeText(text: string, encoding: Transport['encoding'], bom: boolean): Uint8Array {
  if (encoding === 'utf-8') {
    const body = new TextEncoder().encode(text);
    if (!bom) return body;
    const out = new Uint8Array(body.length + 3);
    out.set([0xef, 0xbb, 0xbf]);
    out.set(body, 3);
    return out;
  }
  const le = encoding === 'utf-16le';
  // UTF-16 is always sent with its BOM here; BOM-less UTF-16 has its own test (it is guessed).
  const out = new Uint8Array(2 + text.length * 2);
  const put = (i: number, unit: number) => {
    out[i] = le ? unit & 255 : unit >>> 8;
    out[i + 1] = le ? unit >>> 8 : unit & 255;
  };
  put(0, 0xfeff);
  for (let i = 0; i < text.length; i++) put(2 + 2 * i, text.charCodeAt(i));
  return out;
}

/** Gzip members concatenated (as `cat a.gz b.gz` makes), each a slice of the data. */
export function gzipMembers(bytes: Uint8Array, members: number): Uint8Array {
  const parts: Uint8Array[] = [];
  const step = Math.ceil(bytes.length / members) || 1;
  for (let i = 0; i < Math.max(1, bytes.length); i += step) parts.push(gzipSync(bytes.subarray(i, i + step)));
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function applyTransport(text: string, t: Transport): Uint8Array {
  const bytes = encodeText(t.eol === '\n' ? text : text.replace(/\n/g, t.eol), t.encoding, t.bom || t.encoding !== 'utf-8');
  if (t.gzip === 'single') return gzipSync(bytes);
  if (t.gzip === 'multi') return gzipMembers(bytes, 3);
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Damage

/** Numbers no producer writes but files contain anyway. */
export const WEIRD_NUMBERS = [
  'NaN',
  'Infinity',
  '-Infinity',
  '∞',
  '\uFFFD',
  '-1',
  '-0',
  '-9223372036854775808',
  '9223372036854775807',
  '1e309',
  '-1e309',
  '4.9e-324',
  '9007199254740993',
  '99999999999999999999999999999999',
  '0x1F',
  '1_000',
  '1,5',
  '1.2.3',
  '',
  ' ',
  '+5',
  '.5',
  '5.',
  '1e3',
  '00000000000000000000001',
];

/** Lines from elsewhere: other formats, a client's stderr, markup, SQL, control characters. */
export const FOREIGN_LINES = [
  'READ latency raw data: op, timestamp(ms), latency(us)',
  'READ,1795255946488,4181',
  '#[StartTime: 1795255808.760 (seconds since epoch), Sat Nov 21 10:10:08 UTC 2026]',
  '#[BaseTime: 0.000 (seconds since epoch)]',
  '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"',
  'Tag=READ,0.059,0.518,0.012,HISTFAAAACl42pNpmSzMwMDAxAABzFCaEUrLQ2gmBqZKRiZpRiYGRjYHJgZGBmYGBgYAVEQEMg==',
  '0.059,0.518,0.012,HISTggAAAWt42u3cTW7CMBCGYU9S6BW66F04W6Xuu+hFuUG7ADaWRoHWxPl53o0VG',
  '       Value     Percentile TotalCount 1/(1-Percentile)',
  '      21.000 0.000000000000          1           1.00',
  '#[Mean    =      261.467, StdDeviation   =     1590.803]',
  '#[Max     =    79743.000, Total count    =        36897]',
  '#[Buckets =            7, SubBuckets     =         2048]',
  '[OVERALL], RunTime(ms), 25043',
  '[READ], Operations, 12261',
  '[READ], AverageLatency(us), NaN',
  '[READ], 99thPercentileLatency(us), -1',
  '[READ], Return=OK, 12261',
  '2026-11-21 10:10:09:337 1 sec: 614 operations; ∞ current ops/sec; est completion in 38 days [READ: Count=309, Max=12055, Min=48, Avg=NaN, 90=2341]',
  '2026-11-21 10:10:09:337 1 sec: 614 operations; 609.13 current ops/sec; [READ: Count=309, Max=',
  'READ count: 18377, average latency(us): 162.09',
  '[READ: Count=1, Max=1, Min=1, Avg=1, 90=1]',
  'Command line: -db site.ycsb.BasicDB -P workloads/workloada -threads 4 -target 100 -p hdrhistogram.output.path=/tmp/c1-',
  'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space',
  '\tat site.ycsb.Client.main(Client.java:1011)',
  'SLF4J: Failed to load class "org.slf4j.impl.StaticLoggerBinder".',
  'timestamp,latency_ms,op',
  "x'); DROP TABLE runs; --",
  '<script>alert(1)</script>',
  '\u0000\u0001\u0002\u0007\u001b[31m',
  '\uFEFF',
  '\uD800',
  '\uDC00\uD800',
  '\u2028\u2029',
  ',,,,,,,,',
  '"unterminated,"quote',
  '[',
  ']',
  '[]',
  ' sec: ',
  'HIST',
];

const base64Char = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=!-_ ');

/** Any UTF-16 units, lone surrogates and control characters included. */
export const anyUnits = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 60 }).map((units) => String.fromCharCode(...units));

export type Mutation =
  | { kind: 'bitflip'; at: number; pos: number; bit: number }
  | { kind: 'number'; at: number; nth: number; value: string }
  | { kind: 'cut'; at: number; pos: number }
  | { kind: 'duplicate'; at: number }
  | { kind: 'delete'; at: number }
  | { kind: 'swap'; at: number; other: number }
  | { kind: 'insert'; at: number; line: string }
  | { kind: 'base64'; at: number; pos: number; char: string }
  | { kind: 'cookie'; at: number; chars: string }
  | { kind: 'token'; at: number; from: string; to: string }
  | { kind: 'split'; at: number; pos: number; by: string }
  | { kind: 'long'; at: number; pos: number; length: number; times: number };

export const TOKEN_SWAPS: [string, string][] = [
  ['_ms', '_ns'],
  ['_us', '_s'],
  ['latency', 'lat_ns'],
  ['ms', 's'],
  [',', ';'],
  [',', ',,'],
  ['.', ','],
  [' sec: ', ' sec:'],
  ['Count=', 'Count = '],
  ['Count=', 'Max='],
  ['[', ''],
  [']', ''],
  ['=', ''],
  ['READ', "READ'); DROP TABLE buckets; --"],
  ['Tag=', 'Tag=,'],
  ['Tag=', 'tag='],
  ['HIST', 'HISTHIST'],
  ['-', '+'],
  [' ', '\t'],
  ['"', ''],
  ['#[', '['],
  ['1', '0'],
  ['0', ''],
];

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('bitflip' as const), at: fc.nat(), pos: fc.nat(), bit: fc.integer({ min: 0, max: 15 }) }),
  fc.record({ kind: fc.constant('number' as const), at: fc.nat(), nth: fc.nat({ max: 8 }), value: fc.constantFrom(...WEIRD_NUMBERS) }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat(), pos: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat(), other: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), line: fc.oneof(fc.constantFrom(...FOREIGN_LINES), anyUnits, fc.string()) }),
  fc.record({ kind: fc.constant('base64' as const), at: fc.nat(), pos: fc.nat(), char: base64Char }),
  fc.record({ kind: fc.constant('cookie' as const), at: fc.nat(), chars: fc.string({ unit: base64Char, minLength: 1, maxLength: 6 }) }),
  fc.record({ kind: fc.constant('token' as const), at: fc.nat(), from: fc.constant(''), to: fc.constant('') }).chain((m) =>
    fc.constantFrom(...TOKEN_SWAPS).map(([from, to]) => ({ ...m, from, to })),
  ),
  fc.record({ kind: fc.constant('split' as const), at: fc.nat(), pos: fc.nat(), by: fc.constantFrom('\r', '\n', '\r\n', '\n\n') }),
  fc.record({ kind: fc.constant('long' as const), at: fc.nat(), pos: fc.nat(), length: fc.integer({ min: 1, max: 12 }), times: fc.integer({ min: 2, max: 3000 }) }),
);

const NUMBER = /\d+(?:\.\d+)?/g;

/** Applies one mutation to a list of lines (in place semantics, returns the new list). */
export function mutate(lines: string[], m: Mutation): string[] {
  if (lines.length === 0) return m.kind === 'insert' ? [m.line] : lines;
  const out = [...lines];
  const i = m.at % out.length;
  const line = out[i] as string;
  switch (m.kind) {
    case 'bitflip': {
      if (line.length === 0) return out;
      const p = m.pos % line.length;
      out[i] = line.slice(0, p) + String.fromCharCode(line.charCodeAt(p) ^ (1 << m.bit)) + line.slice(p + 1);
      return out;
    }
    case 'number': {
      const matches = [...line.matchAll(NUMBER)];
      const hit = matches[m.nth % Math.max(1, matches.length)];
      if (!hit || hit.index === undefined) return out;
      out[i] = line.slice(0, hit.index) + m.value + line.slice(hit.index + hit[0].length);
      return out;
    }
    case 'cut':
      out[i] = line.slice(0, m.pos % (line.length + 1));
      return out;
    case 'duplicate':
      out.splice(i, 0, line);
      return out;
    case 'delete':
      out.splice(i, 1);
      return out;
    case 'swap': {
      const j = m.other % out.length;
      out[i] = out[j] as string;
      out[j] = line;
      return out;
    }
    case 'insert':
      out.splice(i, 0, m.line);
      return out;
    case 'base64': {
      const h = line.indexOf('HIST');
      if (h < 0) return out;
      const p = h + 4 + (m.pos % Math.max(1, line.length - h - 4));
      out[i] = line.slice(0, p) + m.char + line.slice(p + 1);
      return out;
    }
    case 'cookie': {
      const h = line.indexOf('HIST');
      if (h < 0) return out;
      out[i] = `${line.slice(0, h + 4)}${m.chars}${line.slice(h + 4 + m.chars.length)}`;
      return out;
    }
    case 'token':
      out[i] = line.replace(m.from, m.to);
      return out;
    case 'split': {
      const p = m.pos % (line.length + 1);
      out[i] = line.slice(0, p) + m.by + line.slice(p);
      return out;
    }
    case 'long': {
      const p = m.pos % (line.length + 1);
      const piece = line.slice(p, p + m.length) || 'x';
      out[i] = line.slice(0, p) + piece.repeat(m.times) + line.slice(p);
      return out;
    }
  }
}

export const splitLines = (text: string): string[] => {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};
