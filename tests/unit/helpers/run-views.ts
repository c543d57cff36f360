import type { RunAnalysis } from '../../../src/engine/analyse.ts';
import type { RunView } from '../../../src/display/run-views.ts';
import type { Figures, OpSummary } from '../../../src/model/figures.ts';

/** An operation's summary from a merged histogram, holding only the figures a test gives. */
export function opSummary(figures: Partial<OpSummary>): OpSummary {
  return {
    count: 0,
    mean: null,
    stddev: null,
    min: null,
    max: null,
    p50: null,
    p90: null,
    p95: null,
    p99: null,
    'p99.9': null,
    'p99.99': null,
    source: 'histogram',
    exact: true,
    naive: { maxClientP95: null, maxClientP99: null, meanClientP99: null },
    perClient: [],
    ...figures,
  };
}

/** The figures the charts read: a count and a p99, inexact when only bounds are known. */
export function op(count: number, p99: number | null, bounds?: Figures['bounds']): OpSummary {
  return opSummary({ count, p99, ...(bounds ? { bounds } : {}), exact: bounds === undefined });
}

let nextId = 1;

/**
 * A shown run of 100 s at 1,000 ops/s (READ p99 2 ms, UPDATE p99 3 ms), labelled ScyllaDB ·
 * workloada · uniform · unthrottled, with whatever a test changes. Ids count up per test file
 * unless given, so runs a test does not name never share one.
 */
export function view(
  labels: Partial<Omit<RunView, 'run'>> & { id?: number; throughput?: number | null; durationS?: number | null; ops?: Record<string, OpSummary> },
): RunView {
  const id = labels.id ?? nextId++;
  const key = labels.key ?? `results/run-${id}`;
  const run: RunAnalysis = {
    id,
    label: key,
    dir: key,
    paths: [],
    partial: false,
    comparison: null,
    clients: [{ client: 'client1', files: [] }],
    target: null,
    threadsPerClient: null,
    db: null,
    workload: null,
    properties: {},
    failures: [],
    failuresFrom: 'requests',
    startEpochMs: null,
    endEpochMs: null,
    durationS: labels.durationS === undefined ? 100 : labels.durationS,
    throughput: labels.throughput === undefined ? 1000 : labels.throughput,
    totalOps: 0,
    ops: labels.ops ?? { READ: op(1000, 2000), UPDATE: op(1000, 3000) },
    allRequests: null,
    throughputPerSecond: null,
    steps: [],
  };
  return {
    run,
    key,
    label: labels.label ?? key,
    system: labels.system ?? 'ScyllaDB',
    workload: labels.workload ?? 'workloada',
    distribution: labels.distribution ?? 'uniform',
    nodes: labels.nodes ?? null,
    loadLevel: labels.loadLevel ?? 'unthrottled',
    hidden: labels.hidden ?? false,
    offeredOpsPerS: null,
    deliveredPct: null,
    utilisationPct: labels.utilisationPct ?? null,
    utilisationSource: null,
  };
}
