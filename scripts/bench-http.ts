/**
 * The HTTP load tools' per-request files in the bench: native DuckDB's reading of each (the same
 * question the app answers: per operation — label, failures apart as `<label>-FAILED` — the count
 * and exact nearest-rank p50/p99/p99.9, in the unit benchlens keeps: µs for JMeter and Gatling's
 * whole ms, ns for k6's and vegeta's).
 */
import type { HttpTool } from './generate-data.ts';

const quoted = (file: string): string => `'${file.replace(/'/g, "''")}'`;
const columns = (names: Record<string, string>): string => `{${Object.entries(names).map(([k, v]) => `'${k}': '${v}'`).join(', ')}}`;

/** Loads table `t` (op, latency) from a file of `tool`, as DuckDB reads it natively. */
export function nativeHttpSql(tool: HttpTool, file: string): string {
  switch (tool) {
    case 'jmeter':
      return `CREATE TABLE t AS SELECT CASE WHEN success THEN label ELSE label || '-FAILED' END AS op, elapsed * 1000 AS latency
FROM read_csv(${quoted(file)}, header=true, quote='"', escape='"', columns=${columns({ timeStamp: 'BIGINT', elapsed: 'BIGINT', label: 'VARCHAR', responseCode: 'VARCHAR', responseMessage: 'VARCHAR', threadName: 'VARCHAR', dataType: 'VARCHAR', success: 'BOOLEAN', failureMessage: 'VARCHAR', bytes: 'BIGINT', sentBytes: 'BIGINT', grpThreads: 'BIGINT', allThreads: 'BIGINT', URL: 'VARCHAR', Latency: 'BIGINT', IdleTime: 'BIGINT', Connect: 'BIGINT' })})`;
    case 'k6':
      return `CREATE TABLE t AS SELECT CASE WHEN expected_response THEN name ELSE name || '-FAILED' END AS op, CAST(metric_value * 1000000 AS BIGINT) AS latency
FROM read_csv(${quoted(file)}, header=true, columns=${columns({ metric_name: 'VARCHAR', timestamp: 'BIGINT', metric_value: 'DECIMAL(18,6)', check: 'VARCHAR', error: 'VARCHAR', error_code: 'VARCHAR', expected_response: 'BOOLEAN', group: 'VARCHAR', method: 'VARCHAR', name: 'VARCHAR', proto: 'VARCHAR', scenario: 'VARCHAR', service: 'VARCHAR', status: 'VARCHAR', subproto: 'VARCHAR', tls_version: 'VARCHAR', url: 'VARCHAR', extra_tags: 'VARCHAR', metadata: 'VARCHAR' })})
WHERE metric_name = 'http_req_duration'`;
    case 'gatling':
      // Records of 4 (USER), 6 (RUN) and 7 (REQUEST) fields: padded, all text, REQUEST rows cast.
      return `CREATE TABLE t AS SELECT CASE WHEN status = 'OK' THEN name ELSE name || '-FAILED' END AS op, (CAST("end" AS BIGINT) - CAST(start AS BIGINT)) * 1000 AS latency
FROM read_csv(${quoted(file)}, header=false, auto_detect=false, delim='\t', quote='', escape='', null_padding=true, columns=${columns({ record: 'VARCHAR', groups: 'VARCHAR', name: 'VARCHAR', start: 'VARCHAR', end: 'VARCHAR', status: 'VARCHAR', message: 'VARCHAR' })})
WHERE record = 'REQUEST'`;
    case 'vegeta':
      return `CREATE TABLE t AS SELECT method || ' ' || url || CASE WHEN code BETWEEN 200 AND 399 AND coalesce(error, '') = '' THEN '' ELSE '-FAILED' END AS op, latency
FROM read_csv(${quoted(file)}, header=false, quote='"', escape='"', columns=${columns({ timestamp: 'BIGINT', code: 'INTEGER', latency: 'BIGINT', bytes_out: 'BIGINT', bytes_in: 'BIGINT', error: 'VARCHAR', body: 'VARCHAR', attack: 'VARCHAR', seq: 'BIGINT', method: 'VARCHAR', url: 'VARCHAR', headers: 'VARCHAR' })})`;
  }
}

/** The app's question of a run: per operation the count and exact nearest-rank p50, p99, p99.9 (integer ranks). */
export const FIGURES_SQL = `WITH c AS (SELECT op, latency, count(*) AS n FROM t GROUP BY op, latency),
r AS (SELECT op, latency, sum(n) OVER (PARTITION BY op ORDER BY latency) AS cum, sum(n) OVER (PARTITION BY op) AS total FROM c)
SELECT op, any_value(total)::BIGINT AS count,
  min(latency) FILTER (WHERE cum >= (total + 1) // 2)::BIGINT AS p50,
  min(latency) FILTER (WHERE cum >= (total * 99 + 99) // 100)::BIGINT AS p99,
  min(latency) FILTER (WHERE cum >= (total * 999 + 999) // 1000)::BIGINT AS p999
FROM r GROUP BY op ORDER BY op`;
