import type { LatencyUnit, RawSeries } from '../../src/model/types.ts';

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
    counts: { sec: Float64Array.from(cells, (c) => c.sec), value: Float64Array.from(cells, (c) => c.value), n: Float64Array.from(cells, (c) => c.n) },
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
  return Array.from(s.counts.value, (v, i) => Array<string>(s.counts.n[i] as number).fill(`${s.counts.sec[i]}|${v}`)).flat().sort();
}

/** Samples that have a time (they count in throughput). */
export function timedSamples(s: RawSeries): number {
  let total = 0;
  for (let i = 0; i < s.counts.n.length; i++) if (!Number.isNaN(s.counts.sec[i])) total += s.counts.n[i] as number;
  return total;
}

/** A raw series with its counts in (second, value) order, so two parses compare whatever their order; other series unchanged. */
export function inCountOrder<S extends { kind: string }>(s: S): S {
  if (s.kind !== 'raw') return s;
  const raw = s as unknown as RawSeries;
  // NaN (no time) first: a comparator returning NaN would leave the order to chance.
  const second = (i: number) => (Number.isNaN(raw.counts.sec[i]) ? -Infinity : (raw.counts.sec[i] as number));
  const order = Array.from(raw.counts.value, (_, i) => i).sort((a, b) => second(a) - second(b) || (raw.counts.value[a] as number) - (raw.counts.value[b] as number));
  const pick = (column: Float64Array) => Float64Array.from(order, (i) => column[i] as number);
  return { ...raw, counts: { sec: pick(raw.counts.sec), value: pick(raw.counts.value), n: pick(raw.counts.n) } } as unknown as S;
}
