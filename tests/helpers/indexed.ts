import { hdrLayout } from '../../src/model/hdr-layout.ts';
import type { HdrPrecision, IndexedHistogram, SparseHistogram } from '../../src/model/types.ts';

/** The buckets of `h` by counts index in `precision`, as the decoder gives them; each must be a bucket of it. */
export function indexedOf(precision: HdrPrecision, h: SparseHistogram): IndexedHistogram {
  const layout = hdrLayout(precision);
  const index = Int32Array.from(h.lo, (lo, i) => {
    if (layout.sizeOfEquivalentValueRange(lo) !== h.width[i] || layout.lowestEquivalentValue(lo) !== lo) throw new RangeError(`${lo}/${h.width[i]} is not a bucket`);
    return layout.countsArrayIndex(lo);
  });
  // As the decoder keeps them (BucketCounts): 32-bit when every count fits, else doubles.
  const count = h.count.every((c) => c <= 0xffffffff) ? Uint32Array.from(h.count) : Float64Array.from(h.count);
  return { index, count, totalCount: h.totalCount };
}
