import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { type Analysis } from '../../src/engine/analyse.ts';
import { fileNotes } from '../../src/model/file-tally.ts';

/**
 * One run written twice by one tool (k6's `--out csv` and `--out json`; scylla-bench's text log
 * and its HDR log) is counted once, from the exact file, and the file list says which and why.
 */

const K6 = 'tests/fixtures/k6';
const SB = 'tests/fixtures/scylla-bench';
const OP = 'POST http://localhost:8080/users';


function folder(name: string): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'benchlens-same-')), name);
  mkdirSync(dir);
  return dir;
}

const analyse = async (dir: string): Promise<Analysis> => (await loadFiles([dir])).analysis;
const entry = (a: Analysis, name: string) => a.files.find((f) => f.path.endsWith(`/${name}`));

describe("k6's --out csv and --out json of one run", () => {
  let both: Analysis;
  let jsonAlone: Analysis;
  beforeAll(async () => {
    const dir = folder('k6-run');
    for (const f of ['create-user-data.csv.gz', 'create-user-data.json.gz', 'create-user-summary.json']) copyFileSync(path.join(K6, f), path.join(dir, f));
    both = await analyse(dir);
    const alone = folder('k6-json');
    copyFileSync(path.join(K6, 'create-user-data.json.gz'), path.join(alone, 'create-user-data.json.gz'));
    jsonAlone = await analyse(alone);
  });

  it('are counted once: the figures of the JSON file alone', () => {
    const op = both.runs[0]?.ops[OP];
    expect(op?.count).toBe(1000);
    expect(both.runs).toHaveLength(1);
    const { count, mean, p50, p99, max } = jsonAlone.runs[0]!.ops[OP]!;
    expect({ count: op?.count, mean: op?.mean, p50: op?.p50, p99: op?.p99, max: op?.max }).toEqual({ count, mean, p50, p99, max });
    expect(both.runs[0]?.totalOps).toBe(jsonAlone.runs[0]?.totalOps);
  });

  it('the file list says the JSON is counted (times to the millisecond) and the CSV is not', () => {
    const csv = entry(both, 'create-user-data.csv.gz');
    const json = entry(both, 'create-user-data.json.gz');
    expect(csv?.sameRequests).toMatchObject({ counted: false, other: json?.path });
    expect(json?.sameRequests).toMatchObject({ counted: true, other: csv?.path });
    expect(csv?.sameRequests?.reason).toBe('the same 1,000 samples (same latencies); create-user-data.json.gz times them to the millisecond');
    expect(fileNotes(csv!)[0]).toMatch(/^not counted: .*create-user-data\.json\.gz holds the same 1,000 samples/);
    expect(entry(both, 'create-user-summary.json')?.sameRequests).toBeUndefined();
  });

  it('one latency different: not the same requests, both counted', async () => {
    const dir = folder('k6-changed');
    copyFileSync(path.join(K6, 'create-user-data.csv.gz'), path.join(dir, 'create-user-data.csv.gz'));
    const json = new TextDecoder().decode(gunzipSync(readFileSync(path.join(K6, 'create-user-data.json.gz'))));
    // A mutated copy: the first request's duration 220.336425 ms becomes 220.336426 ms.
    expect(json).toContain('"value":220.336425,');
    writeFileSync(path.join(dir, 'create-user-data-mutated-one-value.json'), json.replace('"value":220.336425,', '"value":220.336426,'));
    const a = await analyse(dir);
    expect(a.files.every((f) => f.sameRequests === undefined)).toBe(true);
    expect(a.runs[0]?.ops[OP]?.count).toBe(2000);
  });
});

describe("scylla-bench's text log beside its HDR log", () => {
  it('write: counted once, from the histograms', async () => {
    const dir = folder('sb-write');
    for (const f of ['v1.1.1-write.txt', 'v1.1.1-write.hdr']) copyFileSync(path.join(SB, f), path.join(dir, f));
    const a = await analyse(dir);
    const write = a.runs[0]?.ops.write;
    expect(write?.count).toBe(30000);
    expect(write?.source).toBe('histogram');
    expect(write?.exact).toBe(true);
    expect(entry(a, 'v1.1.1-write.txt')?.sameRequests).toMatchObject({ counted: false, reason: 'the same 30,000 requests (same count in each of 15 intervals); v1.1.1-write.hdr has exact latencies' });
    expect(entry(a, 'v1.1.1-write.hdr')?.sameRequests?.counted).toBe(true);
  });

  it("mixed: the text's `mixed` rows are the HDR log's read and write together, interval by interval", async () => {
    const dir = folder('sb-mixed');
    for (const f of ['v1.1.1-mixed.txt', 'v1.1.1-mixed.hdr']) copyFileSync(path.join(SB, f), path.join(dir, f));
    const a = await analyse(dir);
    expect(Object.keys(a.runs[0]?.ops ?? {}).filter((op) => !op.startsWith('Intended-')).sort()).toEqual(['read', 'write']);
    expect((a.runs[0]?.ops.read?.count ?? 0) + (a.runs[0]?.ops.write?.count ?? 0)).toBe(13317);
    expect(entry(a, 'v1.1.1-mixed.txt')?.sameRequests?.counted).toBe(false);
  });

  it('two clients whose text logs count the same per second (a fixed rate) are two clients', async () => {
    const dir = folder('sb-two-clients');
    for (const c of ['client1', 'client2']) copyFileSync(path.join(SB, 'v1.1.1-write.txt'), path.join(dir, `${c}.txt`));
    const a = await analyse(dir);
    expect(a.files.every((f) => f.sameRequests === undefined)).toBe(true);
    expect(a.runs[0]?.ops.write?.count).toBe(60000);
  });
});

describe('the other producers that write one run twice', () => {
  it("vegeta's results encoded to CSV and to JSON: counted once, the first of two equally exact files", async () => {
    const dir = folder('vegeta-run');
    for (const f of ['mixed.csv', 'mixed.json']) copyFileSync(path.join('tests/fixtures/vegeta', f), path.join(dir, f));
    const a = await analyse(dir);
    expect(a.runs[0]?.ops['GET http://127.0.0.1:18080/index.html']?.count).toBe(50);
    expect(a.runs[0]?.totalOps).toBe(200);
    expect(entry(a, 'mixed.csv')?.sameRequests).toMatchObject({ counted: true, reason: 'the same 200 samples (same latencies); both hold them exactly; the first is counted' });
    expect(entry(a, 'mixed.json')?.sameRequests?.counted).toBe(false);
  });

  it("cassandra-stress's text log beside its -log hdrfile: counted once, from the histograms", async () => {
    const dir = folder('cs-run');
    for (const f of ['mixed-fixed2000.log', 'mixed-fixed2000.hdr']) copyFileSync(path.join('tests/fixtures/cassandra-stress', f), path.join(dir, f));
    const a = await analyse(dir);
    expect(a.runs[0]?.ops.READ).toMatchObject({ count: 30186, source: 'histogram', exact: true });
    expect(a.runs[0]?.ops.WRITE?.count).toBe(9823);
    expect(entry(a, 'mixed-fixed2000.log')?.sameRequests).toMatchObject({ counted: false, reason: 'the same 40,009 requests (same count in each of 21 intervals); mixed-fixed2000.hdr has exact latencies' });
  });
});
