/**
 * DuckDB tables. Latency data is stored as histogram buckets (lo, width, n) per series and per
 * second (`cells`): an HdrHistogram bucket covers lo..lo+width-1; a raw sample is a bucket of width
 * 1. The same percentile SQL then serves both, and merging is a GROUP BY over buckets — never an
 * average of percentiles.
 *
 * Why per second, with the second in the row: every interactive question (a time window, a time
 * bucket of a chart) is asked in whole seconds, so one scan of `cells` with no join answers it; raw
 * samples collapse to one row per (series, second, latency value) — exact, and at real benchmark
 * rates several times fewer rows than samples.
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
  // Latency buckets per series and second (epoch s for absolute logs and raw samples; NULL for raw
  // samples without a time). Several rows may share a key: readers sum.
  `CREATE OR REPLACE TABLE cells (
     series_id INTEGER NOT NULL,
     sec BIGINT,
     lo BIGINT NOT NULL,
     width BIGINT NOT NULL,
     n BIGINT NOT NULL
   )`,
  // First and last instant of each raw series (ms precision), which its per-second cells no longer hold.
  `CREATE OR REPLACE TABLE raw_extents (
     series_id INTEGER NOT NULL,
     start_us BIGINT NOT NULL,
     end_us BIGINT NOT NULL
   )`,
];
