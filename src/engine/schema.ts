/**
 * DuckDB tables. Latency data is stored as histogram buckets (lo, width, n): an HdrHistogram
 * bucket covers lo..lo+width-1; a raw sample is a bucket of width 1. The same percentile SQL then
 * serves both, and merging is a GROUP BY over buckets — never an average of percentiles.
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
  // One row per interval histogram; start_us is epoch µs for absolute logs.
  `CREATE OR REPLACE TABLE intervals (
     interval_id INTEGER NOT NULL,
     series_id INTEGER NOT NULL,
     start_us BIGINT NOT NULL,
     length_us BIGINT NOT NULL,
     n BIGINT NOT NULL
   )`,
  `CREATE OR REPLACE TABLE buckets (
     interval_id INTEGER NOT NULL,
     lo BIGINT NOT NULL,
     width BIGINT NOT NULL,
     n BIGINT NOT NULL
   )`,
  // Raw samples: time as epoch ms (NULL when the input has none), latency in the series unit.
  `CREATE OR REPLACE TABLE samples (
     series_id INTEGER NOT NULL,
     t_ms BIGINT,
     lat BIGINT NOT NULL
   )`,
];
