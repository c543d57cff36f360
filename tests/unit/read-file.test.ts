import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hgrmFormat } from '../../src/formats/hgrm.ts';
import { inChunks, isFailed, isUnrecognised, oneChunk, readFile, readText, type FileOutcome, type FailedFile } from '../../src/formats/read-file.ts';

/**
 * The kind of a failed file is set where the failure is made, and callers (the app's and the CLI's
 * loaders, the part reader) decide by it, never by the message, which stays as users read it.
 */

function failed(o: FileOutcome): FailedFile {
  if (!isFailed(o)) throw new Error(`read as ${o.format}`);
  return o;
}

const bytes = (path: string, data: Uint8Array) => readFile(path, oneChunk(data));

describe('a failed file says what kind of failure it is', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('empty: nothing but white space; passed over as no result file', async () => {
    const o = failed(await readText('run/blank.txt', ' \n\n\t\n'));
    expect(o.kind).toBe('empty');
    expect(o.errors).toEqual([{ file: 'run/blank.txt', line: 0, message: 'the file is empty' }]);
    expect(isUnrecognised(o)).toBe(true);
  });

  it('unrecognised: prose no format claims; passed over', async () => {
    const o = failed(await readText('run/notes.txt', 'We ran the test twice.\nThe second run was on a warm cache.\n'));
    expect(o.kind).toBe('unrecognised');
    expect(o.errors[0]?.message).toMatch(/^not a recognised benchmark result format \(/);
    expect(o.csv).toBeUndefined();
    expect(isUnrecognised(o)).toBe(true);
  });

  it('needs-mapping: a table of columns no format names, offered with its preview; passed over until mapped', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => `${1700000000 + i};${(i * 37) % 90};get;yes;h${i % 3}`);
    const o = failed(await readText('run/custom.csv', ['when;dur;kind;verdict;host', ...rows].join('\n')));
    expect(o.kind).toBe('needs-mapping');
    expect(o.csv?.header).toEqual(['when', 'dur', 'kind', 'verdict', 'host']);
    expect(isUnrecognised(o)).toBe(true);
  });

  it("folder-listing: a web server's page for a folder linked without its /; reported, not passed over", async () => {
    const html = readFileSync('tests/fixtures/listings/nginx-1.22.1-run-a.html', 'utf8');
    const o = failed(await readText('results/run-a', html));
    expect(o.kind).toBe('folder-listing');
    expect(isUnrecognised(o)).toBe(false);
  });

  it('unreadable: gzip cut before any content, and a Parquet file that can only be streamed; reported', async () => {
    const cut = gzipSync(Buffer.from('  \n')).subarray(0, 12);
    const o = failed(await bytes('run/blank.txt.gz', cut));
    expect(o.kind).toBe('unreadable');
    expect(o.errors[0]?.message).toBe('run/blank.txt.gz: the gzip data ends before its end marker — the file was cut short');
    expect(isUnrecognised(o)).toBe(false);
    const parquet = failed(await bytes('run/samples.parquet', new TextEncoder().encode('PAR1 and the rest')));
    expect(parquet.kind).toBe('unreadable');
    expect(parquet.errors[0]?.message).toBe('run/samples.parquet: a Parquet file, which is read by seeking in it; this input can only be streamed');
  });

  it('internal: a parser that throws fails its file alone; reported', async () => {
    vi.spyOn(hgrmFormat, 'createParser').mockReturnValue({
      line() {
        throw new TypeError('a parser bug');
      },
      finish() {
        throw new TypeError('not reached');
      },
    });
    const o = failed(await readText('run/a.hgrm', '       Value     Percentile TotalCount 1/(1-Percentile)\n\n     1.000 0.000000000000          1           1.00\n'));
    expect(o.kind).toBe('internal');
    expect(o.errors[0]?.message).toBe('run/a.hgrm could not be read because of an internal error (TypeError: a parser bug)');
    expect(isUnrecognised(o)).toBe(false);
  });
});

describe('a file handed over in one large chunk', () => {
  // The head is gathered 64 KiB at a time: a chunk holding far more is cut into pieces, at places
  // that fall inside a character, inside a line, and inside the leading blank lines.
  const rows = Array.from({ length: 12_000 }, (_, i) => (i % 997 === 5 ? `RÉAD,1795255946${String(i % 1000).padStart(3, '0')},${i}` : `READ,1795255946${String(i % 1000).padStart(3, '0')},${(i * 7919) % 50_000}`));
  const text = `${'\n'.repeat(70_000)}READ latency raw data: op, timestamp(ms), latency(us)\n${rows.join('\n')}\n`;
  const encodings: [string, (t: string) => Uint8Array][] = [
    ['UTF-8 (read from bytes)', (t) => new TextEncoder().encode(t)],
    ['UTF-16LE (read as text)', (t) => new Uint8Array(Buffer.from(`\uFEFF${t}`, 'utf16le'))],
  ];
  for (const [name, encode] of encodings) {
    it(`reads as it does in small chunks: ${name}`, async () => {
      const data = encode(text);
      expect(data.length).toBeGreaterThan(3 * 64 * 1024);
      const whole = await readFile('c.csv', oneChunk(data));
      const pieces = await readFile('c.csv', inChunks(data, 1_000));
      if (isFailed(whole)) throw new Error(whole.errors[0]?.message);
      expect(whole.series.map((s) => [s.op, s.kind === 'raw' ? s.samples : 0])).toEqual([['READ', 12_000 - 13]]);
      expect(whole.errors.filter((e) => e.line > 0)).toHaveLength(13);
      expect(whole).toEqual(pieces);
    });
  }
});
