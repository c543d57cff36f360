/**
 * The query tables' documentation as data (no engine code): the Query view's schema panel, the
 * `query` command's help and docs/query.md list these names and columns. The tables themselves are
 * built in src/engine/query-tables.ts.
 */

export interface TableDoc {
  name: string;
  about: string;
  columns: readonly (readonly [name: string, type: string, about: string])[];
}

/** The documented tables and columns: the schema panel and docs/query.md list these. */
export const QUERY_TABLES: readonly TableDoc[] = [
  {
    name: 'runs',
    about: 'one row per run',
    columns: [
      ['run', 'VARCHAR', 'the run label, as in the summary'],
      ['dir', 'VARCHAR', 'its folder (the run key)'],
      ['tool', 'VARCHAR', "the inputs' formats"],
      ['start_ms', 'DOUBLE', 'first instant, epoch ms (ms from its start when relative_time)'],
      ['end_ms', 'DOUBLE', 'last instant'],
      ['relative_time', 'BOOLEAN', 'timed from its own start, not from the epoch'],
      ['clients', 'INTEGER', 'number of clients'],
      ['system', 'VARCHAR', 'label'],
      ['workload', 'VARCHAR', 'label'],
      ['distribution', 'VARCHAR', 'label'],
      ['nodes', 'DOUBLE', 'label'],
      ['load_level', 'VARCHAR', 'label'],
      ['utilisation_pct', 'DOUBLE', 'label'],
      ['repeat', 'VARCHAR', 'label'],
    ],
  },
  {
    name: 'ops',
    about: 'the summary table: per run and operation, merged across clients',
    columns: [
      ['run', 'VARCHAR', ''],
      ['op', 'VARCHAR', 'READ, READ-FAILED, Intended-READ, …'],
      ['kind', 'VARCHAR', 'op, failed, intended, derived or cleanup'],
      ['count', 'BIGINT', 'requests'],
      ['failed', 'BIGINT', 'of an op: the count of its -FAILED op; of a failed op: its count'],
      ['ops_per_s', 'DOUBLE', "count ÷ the run's duration"],
      ['mean_us', 'DOUBLE', ''],
      ['min_us', 'DOUBLE', ''],
      ['p50_us', 'DOUBLE', 'likewise p90_us, p95_us, p99_us, p99_9_us, p99_99_us; NULL where only bounds exist'],
      ['max_us', 'DOUBLE', ''],
      ['exact', 'BOOLEAN', 'merged exactly (otherwise the summary shows bounds)'],
    ],
  },
  {
    name: 'seconds',
    about: 'per run, operation and second, the requests counted (the series the summary merges)',
    columns: [
      ['run', 'VARCHAR', ''],
      ['op', 'VARCHAR', ''],
      ['kind', 'VARCHAR', 'as in ops; throughput is kind IN (\'op\', \'failed\')'],
      ['second', 'BIGINT', 'epoch s, or s from the start where the run has no date; NULL: requests of clients with no time'],
      ['count', 'BIGINT', ''],
      ['failed', 'BIGINT', 'those of them that failed (count of a -FAILED op, else 0)'],
    ],
  },
  {
    name: 'latency_buckets',
    about: "each run and operation's merged distribution: the buckets the summary's percentiles are read from",
    columns: [
      ['run', 'VARCHAR', ''],
      ['op', 'VARCHAR', ''],
      ['lo_us', 'DOUBLE', 'lowest value of the bucket'],
      ['hi_us', 'DOUBLE', 'highest value equivalent to the bucket (HdrHistogram); the value itself for raw samples'],
      ['count', 'BIGINT', ''],
      ['raw', 'BOOLEAN', 'raw samples (exact nearest rank) rather than HdrHistogram buckets'],
    ],
  },
  {
    name: 'requests',
    about: 'one row per request, from inputs with per-request rows (JTL, k6, vegeta, Gatling, YCSB raw, go-ycsb, pgbench -l, per-operation CSV, Parquet)',
    columns: [
      ['run', 'VARCHAR', ''],
      ['client', 'VARCHAR', ''],
      ['file', 'INTEGER', 'n of its file_<n>'],
      ['op', 'VARCHAR', 'the operation (label, name tag, METHOD URL), without -FAILED'],
      ['time_ms', 'DOUBLE', 'epoch ms (ms from the start where the file has no date)'],
      ['latency_us', 'DOUBLE', ''],
      ['ok', 'BOOLEAN', ''],
      ['status', 'VARCHAR', 'response code (Gatling: OK or KO), where the file has one and DuckDB reads it in place'],
      ['message', 'VARCHAR', 'response or failure message, where the file has one'],
      ['thread', 'VARCHAR', "JMeter's threadName (its thread group and number), where the file has one"],
      ['url', 'VARCHAR', 'the URL requested, where the file has one'],
    ],
  },
  {
    name: 'files',
    about: 'one row per input file; file_<n> holds the file’s own columns where DuckDB reads it, else its parser’s rows',
    columns: [
      ['n', 'INTEGER', ''],
      ['path', 'VARCHAR', ''],
      ['run', 'VARCHAR', ''],
      ['client', 'VARCHAR', ''],
      ['format', 'VARCHAR', ''],
      ['queryable', 'BOOLEAN', 'it has a file_<n>'],
      ['requests_from', 'VARCHAR', "'file': requests reads it in place; 'parser': from its parser's rows; NULL: none"],
    ],
  },
];

/** Example queries the Query view offers. */
export const EXAMPLE_QUERIES: readonly { title: string; sql: string }[] = [
  {
    title: 'p99 per run and operation (exact, from latency_buckets)',
    sql: `SELECT run, op, sum(count) AS requests,
       bl_percentile(hi_us, count, raw, 0.99) AS p99_us
FROM latency_buckets
GROUP BY run, op
ORDER BY run, op`,
  },
  {
    title: 'errors by status per minute',
    sql: `SELECT date_trunc('minute', make_timestamp((time_ms * 1000)::BIGINT)) AS minute,
       status, count(*) AS errors
FROM requests
WHERE NOT ok
GROUP BY minute, status
ORDER BY minute, status`,
  },
  {
    title: 'p99 per thread group',
    sql: `SELECT regexp_replace(thread, ' [0-9]+-[0-9]+$', '') AS thread_group,
       count(*) AS requests,
       bl_percentile(latency_us, 1, true, 0.99) AS p99_us
FROM requests
GROUP BY thread_group
ORDER BY p99_us DESC`,
  },
  {
    title: 'slowest URLs',
    sql: `SELECT coalesce(url, op) AS url, count(*) AS requests,
       bl_percentile(latency_us, 1, true, 0.99) AS p99_us,
       max(latency_us) AS max_us
FROM requests
GROUP BY 1
ORDER BY p99_us DESC
LIMIT 20`,
  },
  {
    title: 'throughput per second (ok and failed)',
    sql: `SELECT second, sum(count) - sum(failed) AS ok, sum(failed) AS failed
FROM seconds
WHERE kind IN ('op', 'failed') AND second IS NOT NULL
GROUP BY second
ORDER BY second`,
  },
];
