import type { PercentileKey } from './percentiles.ts';
import type { FailureCount } from './types.ts';

/**
 * What the engine reports per run and operation (src/engine/summary.ts computes it): the merged
 * figures, their bounds where only bounds are known, each client's own, and the run's throughput
 * over time. Plain data, shared by the engine, the snapshots that carry it and the views.
 */

/** Where a series' figures come from; 'intervals': a producer's periodic report (see IntervalsSeries). */
export type SeriesSource = 'histogram' | 'raw' | 'distribution' | 'summary' | 'intervals';

export interface Bound {
  min: number;
  max: number;
}

export interface Figures {
  count: number;
  mean: number | null;
  stddev: number | null;
  min: number | null;
  max: number | null;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  'p99.9': number | null;
  'p99.99': number | null;
  /** Where a figure cannot be known exactly, the interval it lies in. */
  bounds?: Partial<Record<PercentileKey | 'mean', Bound>>;
}

export interface ClientFigures extends Figures {
  client: string;
  file: string;
  source: SeriesSource;
  exact: boolean;
}

export interface OpSummary extends Figures {
  source: SeriesSource | 'mixed';
  exact: boolean;
  /** Why the figures could not be merged exactly, when they could not. */
  note?: string;
  naive: { maxClientP95: number | null; maxClientP99: number | null; meanClientP99: number | null };
  perClient: ClientFigures[];
}

/**
 * Every request of a run in one row: the merged figures of all its operations (kind 'op': not
 * failures, intended twins, derived views such as a tool's own aggregated row, or cleanup),
 * exact when every operation's data merges (histograms of one precision and unit, or raw samples);
 * otherwise the count and mean are exact and the percentiles bounded. Failures stay apart.
 */
/** The all-requests row's name in tables (the page, the report, the CLI). */
export const ALL_REQUESTS = 'all requests';

export interface AllRequests extends Figures {
  exact: boolean;
  /** Why the operations could not be merged exactly, when they could not. */
  note?: string;
  /** How many operations were merged. */
  ops: number;
  /** Failed requests of the run (every `-FAILED` operation), not in `count`. */
  failed: number;
}

export interface RunSummary {
  id: number;
  label: string;
  dir: string;
  /** Full paths of the run's files, as loaded. */
  paths: string[];
  clients: { client: string; files: string[] }[];
  /** Per-client `-target` ops/s from the YCSB command line; null when unthrottled or unknown. */
  target: number | null;
  threadsPerClient: number | null;
  db: string | null;
  workload: string | null;
  properties: Record<string, string>;
  startEpochMs: number | null;
  endEpochMs: number | null;
  /**
   * True when the run's times count from its own start, not from the epoch (a tool that logs
   * elapsed seconds only, such as cassandra-stress's text log): its start is then no date.
   */
  relativeTime?: boolean;
  durationS: number | null;
  /** Operations (failed included; CLEANUP and Intended-* excluded) per second over the run. */
  throughput: number | null;
  totalOps: number;
  ops: Record<string, OpSummary>;
  /** Every request of the run merged (see AllRequests); null when the run has no operation. */
  allRequests: AllRequests | null;
  /**
   * Failed requests of the whole run by operation, status and message, most frequent first
   * (src/model/failures.ts); empty for a run opened from a comparison, which does not carry them.
   */
  failures: FailureCount[];
  /**
   * 'requests': every count is from per-request rows (exact); 'report': some are only what a
   * tool's own report says (vegeta's `status_codes`, Locust's failures file).
   */
  failuresFrom: 'requests' | 'report';
}

/**
 * Operations of a run in absolute time, all clients summed, in buckets of `bucketS` seconds
 * (1 unless the run spans more than MAX_TIMELINE_BUCKETS seconds).
 */
export interface ThroughputSeries {
  startEpochS: number;
  /** Seconds per entry of `ok` / `failed`; absent in snapshot files written before it existed (= 1). */
  bucketS?: number;
  ok: number[];
  failed: number[];
}
