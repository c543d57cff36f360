import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hgrmFormat } from '../../src/formats/hgrm.ts';
import { isFailed, isUnrecognised, oneChunk, readFile, readText, type FileOutcome, type FailedFile } from '../../src/formats/read-file.ts';

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
