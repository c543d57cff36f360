import { hdrLayout } from '../../src/model/hdr-layout.ts';
import type { HdrPrecision, IndexedHistogram, SparseHistogram } from '../../src/model/types.ts';

/** The buckets of `h` by counts index in `precision`, as the decoder gives them; each must be a bucket of it. */
export function indexedOf(precision: HdrPrecision, h: SparseHistogram): IndexedHistogram {
  const layout = hdrLayout(precision);
  const index = Int32Array.from(h.lo, (lo, i) => {
    if (layout.sizeOfEquivalentValueRange(lo) !== h.width[i] || layout.lowestEquivalentValue(lo) !== lo) throw new RangeError(`${lo}/${h.width[i]} is not a bucket`);
    return layout.countsArrayIndex(lo);
  });
  return { index, count: Float64Array.from(h.count), totalCount: h.totalCount };
}
