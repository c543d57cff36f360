import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db.ts';
import { openNodeDb } from '../../src/engine/node-db.ts';
import { mergeHistograms, type MergedHistogram, type Selection } from '../../src/engine/group-merge.ts';
import { Store } from '../../src/engine/store.ts';
import { groupIntoRuns } from '../../src/model/grouping.ts';
import { hdrLayout } from '../../src/model/hdr-layout.ts';
import type { IndexedHistogram, ParsedFile } from '../../src/model/types.ts';
import { prng } from '../../scripts/generate-data.ts';
import { rawSeries } from '../helpers/raw-samples.ts';

/**
 * Merged histograms (clients summed per group, within a window) against sums computed here from
 * the parsed input: windows cutting through seconds, unbounded ends, raw samples with and without a
 * time, series in several groups (and twice in one), buckets of one value in two widths, and values
 * too large for the fast sort.
 */

const T0 = 1_800_000_000; // epoch s of the first interval
const precision = { significantDigits: 2, lowestDiscernibleValue: 1 };
const layout = hdrLayout(precision);

interface Bucket {
  sec: number | null;
  lo: number;
  width: number;
  n: number;
}

/** Every series' buckets as loaded: what the merged histograms must sum. */
const input = new Map<number, Bucket[]>();

function histogramFile(client: string, rand: () => number): { file: ParsedFile; buckets: Bucket[] } {
  const buckets: Bucket[] = [];
  const intervals = Array.from({ length: 30 }, (_, i) => {
    // Counts indices 0–599: buckets 1, 2, 4 and 8 wide.
    const indices = [...new Set(Array.from({ length: 1 + Math.floor(rand() * 12) }, () => Math.floor(rand() * 600)))].sort((a, b) => a - b);
    const count = Float64Array.from(indices, () => 1 + Math.floor(rand() * 5));
    const histogram: IndexedHistogram = { index: Int32Array.from(indices), count, totalCount: count.reduce((a, b) => a + b, 0) };
    // Two intervals a second, starting mid-second.
    const startUs = (T0 + i / 2) * 1e6 + 250_000;
    indices.forEach((index, k) => {
      const lo = layout.valueFromIndex(index);
      buckets.push({ sec: Math.floor(startUs / 1e6), lo, width: layout.sizeOfEquivalentValueRange(lo), n: histogram.count[k] as number });
    });
    return { startUs, lengthUs: 500_000, histogram, line: i + 1 };
  });
  return {
    file: { path: `run/${client}-READ.hdr`, format: 'hdr-log', series: [{ kind: 'histogram', op: 'READ', unit: 'us', precision, timeBase: 'absolute', intervals }], errors: [], skippedLines: 0, lines: 30 },
    buckets,
  };
}

function rawFile(client: string, latency: number[], timeMs: number[]): { file: ParsedFile; buckets: Bucket[] } {
  return {
    file: {
      path: `run/${client}-raw.csv`,
      format: 'ycsb-raw',
      series: [rawSeries('READ', 'us', timeMs, latency)],
      errors: [],
      skippedLines: 0,
      lines: latency.length,
    },
    buckets: latency.map((lo, i) => ({ sec: Number.isNaN(timeMs[i]) ? null : Math.floor((timeMs[i] as number) / 1000), lo, width: 1, n: 1 })),
  };
}

let db: Db;
/**
 * Stores of the same files with different block levels (the last is DuckDB's): windows cut
 * through blocks at every level, or lie inside one; 600 s blocks hold the whole data.
 */
const BLOCK_SIZES = [[1], [2, 4], [3], [2, 6, 12], [60, 600]] as const;
const stores = new Map<readonly number[], Store>();
/** Series ids by client (the same in every store). */
const ids: Record<string, number> = {};
/** The store whose series `expected` reads (any: they agree). */
let store: Store;

beforeAll(async () => {
  db = await openNodeDb();
  const rand = prng(7);
  const files = [
    histogramFile('client1', rand),
    histogramFile('client2', rand),
    // Raw samples, some without a time; some values repeat within a second, and some are the
    // lowest value of a wider histogram bucket: one value in two widths.
    rawFile(
      'client3',
      Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? 300 : 10) + (i % 37)),
      Array.from({ length: 200 }, (_, i) => (i % 9 === 0 ? Number.NaN : (T0 + i / 10) * 1000 + 1)),
    ),
    // Values beyond what the fast sort packs into a double.
    rawFile(
      'client4',
      Array.from({ length: 40 }, (_, i) => 2 ** 50 + (i % 7) * 1024),
      Array.from({ length: 40 }, (_, i) => (T0 + i / 4) * 1000),
    ),
  ];
  for (const blockS of BLOCK_SIZES) {
    // One DuckDB per store: a new Store replaces the tables.
    const own = new Store(blockS === BLOCK_SIZES[0] ? db : await openNodeDb(), { blockSizes: blockS });
    own.addRuns(groupIntoRuns(files.map((f) => f.file)));
    stores.set(blockS, own);
  }
  store = stores.get(BLOCK_SIZES[0]) as Store;
  files.forEach(({ file, buckets }) => {
    const series = store.series.find((s) => s.file === file.path.split('/').pop());
    if (!series) throw new Error(`no series for ${file.path}`);
    ids[series.client] = series.id;
    input.set(series.id, buckets);
  });
});

/** The sum a merged histogram must equal, from the input buckets alone. */
function expected(sel: Selection): { g: number; raw: boolean; lo: number[]; width: number[]; count: number[] }[] {
  const byGroup = new Map<number, { sums: Map<string, number>; raw: boolean }>();
  sel.seriesIds.forEach((id, i) => {
    const from = sel.fromS?.[i] ?? null;
    const to = sel.toS?.[i] ?? null;
    const inWindow = (sec: number | null) =>
      (from === null && to === null) || (sec !== null && (from === null || sec >= Math.ceil(from)) && (to === null || sec < Math.ceil(to)));
    const buckets = (input.get(id) ?? []).filter((b) => inWindow(b.sec));
    if (buckets.length === 0) return;
    const g = sel.groups[i] as number;
    const group = byGroup.get(g) ?? { sums: new Map<string, number>(), raw: true };
    group.raw &&= store.series[id]?.source === 'raw';
    for (const b of buckets) group.sums.set(`${b.lo}/${b.width}`, (group.sums.get(`${b.lo}/${b.width}`) ?? 0) + b.n);
    byGroup.set(g, group);
  });
  return [...byGroup]
    .sort(([a], [b]) => a - b)
    .map(([g, { sums, raw }]) => {
      const keys = [...sums.keys()].map((k) => k.split('/').map(Number) as [number, number]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      return { g, raw, lo: keys.map((k) => k[0]), width: keys.map((k) => k[1]), count: keys.map((k) => sums.get(`${k[0]}/${k[1]}`) as number) };
    });
}

function actual(merged: MergedHistogram[]) {
  return merged.map(({ g, raw, histogram: h }) => {
    expect(h.totalCount).toBe(h.count.reduce((a, b) => a + b, 0));
    return { g, raw, lo: [...h.lo], width: [...h.width], count: [...h.count] };
  });
}

/** Each client alone (groups 0–3), the histogram clients together (10), every client (11), and client1 twice (12). */
function selection(window: [number | null, number | null] | null): Selection {
  const members: [string, number][] = [
    ['client1', 0],
    ['client2', 1],
    ['client3', 2],
    ['client4', 3],
    ['client1', 10],
    ['client2', 10],
    ['client1', 11],
    ['client2', 11],
    ['client3', 11],
    ['client4', 11],
    ['client1', 12],
    ['client1', 12],
  ];
  const seriesIds = members.map(([c]) => ids[c] as number);
  return {
    seriesIds,
    groups: members.map(([, g]) => g),
    ...(window ? { fromS: seriesIds.map(() => (window[0] === null ? null : T0 + window[0])), toS: seriesIds.map(() => (window[1] === null ? null : T0 + window[1])) } : {}),
  };
}

describe.each(BLOCK_SIZES.map((sizes) => ({ sizes, label: sizes.join(' → ') })))('merged histograms equal the sums of their series (blocks of $label s)', ({ sizes: blockS }) => {
  const blockStore = () => stores.get(blockS) as Store;
  const windows: ([number | null, number | null] | null)[] = [null, [0, 30], [3, 11], [2.5, 7.2], [0, 1], [9, null], [null, 4], [40, 50]];
  for (const window of windows) {
    it(`over ${window ? `seconds ${window[0] ?? '…'}–${window[1] ?? '…'}` : 'whole series'}`, () => {
      const sel = selection(window);
      const want = expected(sel);
      expect(actual(mergeHistograms(blockStore(), sel))).toEqual(want);
      if (window && window[0] === 40) expect(want).toEqual([]);
      else expect(want.map((h) => h.g)).toEqual([0, 1, 2, 3, 10, 11, 12]);
    });
  }

  it('keeps a bucket of one value in two widths apart, in width order', () => {
    const everyone = actual(mergeHistograms(blockStore(), selection(null))).find((h) => h.g === 11);
    const twice = everyone?.lo.findIndex((lo, i) => lo === everyone.lo[i + 1]) ?? -1;
    expect(twice).toBeGreaterThanOrEqual(0);
    expect([everyone?.width[twice], everyone?.width[twice + 1]]).toEqual([1, 2]);
  });

  it('per time bucket, the same sums', () => {
    // Up to second 20: after second 15 only the raw clients have data, so those time buckets are raw.
    const sel = selection([2, 20]);
    // Buckets of whole blocks read the worker's blocks; finer ones read the seconds.
    for (const bucketS of [1, 3, 12]) {
      const merged = mergeHistograms(blockStore(), sel, bucketS);
      const tbs = [...new Set(merged.map((m) => m.tb))];
      expect(tbs.length).toBeGreaterThan(bucketS < 12 ? 2 : 0);
      for (const tb of tbs) {
        const one = { ...sel, fromS: sel.seriesIds.map(() => Math.max(T0 + 2, tb)), toS: sel.seriesIds.map(() => Math.min(T0 + 20, tb + bucketS)) };
        expect(actual(merged.filter((m) => m.tb === tb)), `tb ${tb}`).toEqual(expected(one));
      }
    }
  });
});
