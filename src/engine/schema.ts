import type { Db } from './db.ts';

/**
 * DuckDB tables. Latency data is stored as histogram buckets (lo, width, n): an HdrHistogram bucket
 * covers lo..lo+width-1; a raw sample is a bucket of width 1. The same merge and percentile code
 * then serves both, and merging is a sum over buckets — never an average of percentiles.
 *
 * Every interactive question (a time window, a time bucket of a chart) is asked in whole seconds.
 * The per-second buckets stay in the worker (SecondCells), which sums windows and time buckets
 * from them and from its blocks; DuckDB holds them pre-merged per block of seconds (`blocks`, a
 * few hundred thousand rows instead of tens of millions) for whole-series sums. Raw samples
 * collapse to one bucket per (second, latency value): exact, and far fewer rows than samples.
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
  // Latency buckets per series pre-merged over blocks of whole seconds (block_s: the block's first
  // second, a multiple of the block size; NULL for buckets with no time: raw samples without a
  // timestamp, a comparison's histograms). Several rows may share a key: readers sum.
  `CREATE OR REPLACE TABLE blocks (
     series_id INTEGER NOT NULL,
     block_s BIGINT,
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

/** Rebuild `series_hist` after loading: each series' buckets (or raw values) summed over all time. */
export function refreshSeriesHistograms(db: Db): void {
  db.exec(`CREATE OR REPLACE TABLE series_hist AS
    SELECT b.series_id, b.lo, b.width, sum(b.n)::BIGINT AS n, s.source = 'raw' AS raw
    FROM blocks b JOIN series s ON s.series_id = b.series_id GROUP BY ALL`);
}
