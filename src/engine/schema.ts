/**
 * DuckDB tables. Latency data is stored as histogram buckets (lo, width, n): an HdrHistogram bucket
 * covers lo..lo+width-1; a raw sample is a bucket of width 1. The same merge and percentile code
 * then serves both, and merging is a sum over buckets — never an average of percentiles.
 *
 * Every interactive question (a time window, a time bucket of a chart) is asked in whole seconds.
 * The per-second buckets stay in the worker (SecondCells), which sums windows and time buckets
 * from them and from its blocks; DuckDB holds each series' sum over all time (`series_buckets`,
 * thousands of rows a series instead of millions; the figures read the worker's copy, a shared
 * link the table). Raw samples collapse to one bucket per (second, latency value): exact, and far
 * fewer rows than samples.
 *
 * A new Store replaces the tables (one dataset per database).
 * Series metadata (run, client, operation, source file) lives in `series`; all names arrive as
 * Arrow data, never as SQL text.
 */
export const SCHEMA_SQL = [
  `CREATE OR REPLACE TABLE series (
     series_id INTEGER PRIMARY KEY,
     run_id INTEGER NOT NULL,
     client VARCHAR NOT NULL,
     op VARCHAR NOT NULL,
     op_kind VARCHAR NOT NULL,
     source VARCHAR NOT NULL,
     file VARCHAR NOT NULL
   )`,
  // One row per interval histogram (or per second of a comparison's throughput); start_us is epoch
  // µs for absolute logs. Throughput counts an interval whole in the second holding its start.
  `CREATE OR REPLACE TABLE intervals (
     series_id INTEGER NOT NULL,
     start_us BIGINT NOT NULL,
     length_us BIGINT NOT NULL,
     n BIGINT NOT NULL
   )`,
  // Each series' latency buckets summed over all its time (and its samples without a time), one
  // row per bucket: summed in the worker from its coarsest blocks as the series is added.
  `CREATE OR REPLACE TABLE series_buckets (
     series_id INTEGER NOT NULL,
     lo BIGINT NOT NULL,
     width BIGINT NOT NULL,
     n BIGINT NOT NULL
   )`,
  // Raw samples per series and second, for throughput (interval logs have their intervals).
  `CREATE OR REPLACE TABLE raw_seconds (
     series_id INTEGER NOT NULL,
     sec BIGINT NOT NULL,
     n BIGINT NOT NULL
   )`,
  // First and last instant of each raw series (ms precision), which its per-second cells no longer hold.
  `CREATE OR REPLACE TABLE raw_extents (
     series_id INTEGER NOT NULL,
     start_us BIGINT NOT NULL,
     end_us BIGINT NOT NULL
   )`,
];
