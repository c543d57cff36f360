import type { LatencyUnit, RawSeries, SampleCountColumns } from '../../src/model/types.ts';

/**
 * What a parser must produce for these samples, counted with a string-keyed map — a different
 * method from the parsers' hash table, so a counting bug cannot pass on both sides.
 */
export function rawSeries(op: string, unit: LatencyUnit, timeMs: ArrayLike<number>, latency: ArrayLike<number>, client?: string): RawSeries {
  const counts = new Map<string, { sec: number; value: number; n: number }>();
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < latency.length; i++) {
    const t = timeMs[i] as number;
    const value = latency[i] as number;
    // -0 ms is 0 ms.
    first = Math.min(first, Number.isNaN(t) ? Infinity : t + 0);
    last = Math.max(last, Number.isNaN(t) ? -Infinity : t + 0);
    const sec = Math.floor(t / 1000) + 0;
    const key = `${sec}|${value}`;
    const c = counts.get(key);
    if (c) c.n++;
    else counts.set(key, { sec, value, n: 1 });
  }
  const cells = [...counts.values()];
  return {
    kind: 'raw',
    op,
    unit,
    samples: latency.length,
    firstMs: first <= last ? first : null,
    lastMs: first <= last ? last : null,
    counts: countColumns(cells),
    ...(client !== undefined ? { client } : {}),
  };
}

/** Every sample's latency (each value repeated by its count), ascending. */
export function latencies(s: RawSeries): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.counts.value.length; i++) for (let k = 0; k < (s.counts.n[i] as number); k++) out.push(s.counts.value[i] as number);
  return out.sort((a, b) => a - b);
}

/** One `second|value` record per sample, sorted: a damaged line then costs its own record only. */
export function sampleRecords(s: RawSeries): string[] {
  const sec = cellSeconds(s.counts);
  return Array.from(s.counts.value, (v, i) => Array<string>(s.counts.n[i] as number).fill(`${sec[i]}|${v}`)).flat().sort();
}

/** Samples that have a time (they count in throughput). */
export function timedSamples(s: RawSeries): number {
  let total = 0;
  const sec = cellSeconds(s.counts);
  for (let i = 0; i < s.counts.n.length; i++) if (!Number.isNaN(sec[i])) total += s.counts.n[i] as number;
  return total;
}

/** A raw series with its counts in (second, value) order, so two parses compare whatever their order; other series unchanged. */
export function inCountOrder<S extends { kind: string }>(s: S): S {
  if (s.kind !== 'raw') return s;
  const raw = s as unknown as RawSeries;
  const sec = cellSeconds(raw.counts);
  const cells = Array.from(raw.counts.value, (value, i) => ({ sec: sec[i] as number, value, n: raw.counts.n[i] as number }));
  // By value here, then by second (stable) in countColumns.
  return { ...raw, counts: countColumns(cells.sort((a, b) => a.value - b.value)) } as unknown as S;
}

/** Each cell's second (NaN: no time), as the counts hold it once per second. */
export function cellSeconds({ secs, starts, value }: SampleCountColumns): Float64Array {
  const sec = new Float64Array(value.length);
  for (let k = 0; k < secs.length; k++) sec.fill(secs[k] as number, starts[k], starts[k + 1]);
  return sec;
}

/** Cells as a raw series' counts: grouped by second in ascending order (stable), the untimed last. */
export function countColumns(cells: readonly { sec: number; value: number; n: number }[]): SampleCountColumns {
  // NaN (no time) last: a comparator returning NaN would leave the order to chance.
  const key = (s: number) => (Number.isNaN(s) ? Infinity : s);
  const untimed = (s: number) => (Number.isNaN(s) ? 1 : 0);
  const sorted = [...cells].sort((a, b) => key(a.sec) - key(b.sec) || untimed(a.sec) - untimed(b.sec));
  const secs: number[] = [];
  const starts: number[] = [];
  sorted.forEach((c, i) => {
    if (i === 0 || !Object.is(c.sec, sorted[i - 1]!.sec)) {
      secs.push(c.sec);
      starts.push(i);
    }
  });
  starts.push(sorted.length);
  return { secs: Float64Array.from(secs), starts: Uint32Array.from(starts), value: Float64Array.from(sorted, (c) => c.value), n: Float64Array.from(sorted, (c) => c.n) };
}
