import type { Bound, RunSummary } from './figures.ts';

/**
 * A run's headline figures, the first row of its overview in the page and the report: every
 * request of the run (its all-requests row, failures apart), its throughput and error rate.
 */
export interface HeadlineFigure {
  stat: 'requests' | 'throughput' | 'errors' | 'p50' | 'p95' | 'p99';
  name: string;
  kind: 'count' | 'rate' | 'pct' | 'latency';
  /** The exact figure (µs for latencies), or null where only a bound (or nothing) is known. */
  value: number | null;
  bound?: Bound;
  title: string;
}

export function headlineOf(run: RunSummary): HeadlineFigure[] {
  const all = run.allRequests;
  const ok = all?.count ?? 0;
  const failed = all?.failed ?? 0;
  const total = ok + failed;
  const merged = all && all.ops > 1 ? `all ${all.ops} operations' requests merged` : 'its requests';
  const latency = (stat: 'p50' | 'p95' | 'p99'): HeadlineFigure => {
    const value = all?.[stat] ?? null;
    const bound = value === null ? all?.bounds?.[stat] : undefined;
    return {
      stat,
      name: stat,
      kind: 'latency',
      value,
      ...(bound ? { bound } : {}),
      title: bound
        ? `only a bound is known: ${all?.note ?? 'the files give per-operation summaries'}`
        : value === null
          ? `not known: ${all?.note ?? 'the files give no latencies of single requests'}`
          : `${stat} of ${merged}, exact (failed requests apart)`,
    };
  };
  return [
    { stat: 'requests', name: 'requests', kind: 'count', value: all ? total : null, title: `${ok.toLocaleString('en-US')} successful, ${failed.toLocaleString('en-US')} failed` },
    { stat: 'throughput', name: 'throughput', kind: 'rate', value: run.throughput, title: 'requests (failed ones too) per second over the run' },
    { stat: 'errors', name: 'errors', kind: 'pct', value: total > 0 ? (failed / total) * 100 : null, title: `${failed.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} requests failed` },
    latency('p50'),
    latency('p95'),
    latency('p99'),
  ];
}
