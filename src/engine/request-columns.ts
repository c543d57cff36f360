import { ROLE_PATTERNS, unitFromHeader, type Role } from '../formats/csv-columns.ts';
import { FAILURES, SKIPPED, TRANSACTION_LOG } from '../formats/pgbench.ts';
import { MAX_EPOCH_MS } from '../model/numbers.ts';
import type { FormatId, ProducerInfo } from '../model/types.ts';

/**
 * How a CSV-shaped input's own columns, as DuckDB reads them (`file_<n>`), become the `requests`
 * table's columns: per format, SQL expressions over the columns `t.<name>` (names quoted, never
 * pasted from the file as text). The rules are the parsers' (src/formats/jmeter.ts, k6.ts,
 * vegeta.ts, generic-csv.ts, ycsb-raw.ts, pgbench.ts): what makes a request failed, its unit, its operation name. The
 * status and message come from the file's own columns; where a layout has none they are NULL.
 */

export interface FileColumn {
  name: string;
  /** DuckDB's type name for the column (BIGINT, VARCHAR, TIMESTAMP, …). */
  type: string;
}

/** SQL expressions giving each `requests` column from one file's row `t`; `where` keeps its request rows. */
export interface RequestSelect {
  op: string;
  /** The client where the row names it (else the file's). */
  client?: string;
  timeMs: string;
  latencyUs: string;
  ok: string;
  status: string;
  message: string;
  thread: string;
  url: string;
  where?: string;
}

/**
 * `value` is one of `options` (constants of ours), as a scalar function: an `IN (…)` list becomes a
 * join of its own, which DuckDB then runs on every row even when the column it feeds is not read.
 */
const oneOf = (value: string, options: readonly string[]) => `list_contains([${options.map((o) => `'${o}'`).join(', ')}], ${value})`;

const col = (c: FileColumn) => `t."${c.name.replaceAll('"', '""')}"`;
const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL.*)$/;
const TEMPORAL = /^(TIMESTAMP.*|DATE)$/;
/** Text in SQL, lower-cased and trimmed. */
const text = (c: FileColumn) => `lower(trim(${col(c)}::VARCHAR))`;

/**
 * A time column as epoch ms: a TIMESTAMP as it is; a number by its magnitude, as parseTimestampMs
 * reads one (s below 10^11, ms below 10^14, µs below 10^17, else ns); other text not at all.
 */
function epochMs(c: FileColumn): string {
  if (TEMPORAL.test(c.type)) return `epoch_ms(${col(c)}::TIMESTAMP)`;
  if (!NUMERIC.test(c.type)) return 'NULL';
  const v = `${col(c)}::DOUBLE`;
  return `CASE WHEN ${v} < 1e11 THEN ${v} * 1000 WHEN ${v} < 1e14 THEN ${v} WHEN ${v} < 1e17 THEN ${v} / 1000 ELSE ${v} / 1e6 END`;
}


function find(columns: readonly FileColumn[], name: string): FileColumn | undefined {
  return columns.find((c) => c.name === name);
}

function jmeter(columns: readonly FileColumn[]): RequestSelect | null {
  const time = find(columns, 'timeStamp');
  const elapsed = find(columns, 'elapsed');
  const label = find(columns, 'label');
  if (!time || !elapsed || !label) return null;
  const success = find(columns, 'success');
  const code = find(columns, 'responseCode');
  const message = find(columns, 'responseMessage');
  const failure = find(columns, 'failureMessage');
  const thread = find(columns, 'threadName');
  const url = find(columns, 'URL');
  return {
    op: col(label),
    timeMs: epochMs(time),
    latencyUs: `${col(elapsed)}::DOUBLE * 1000`,
    // JMeter writes success as true/false; without the column, an HTTP error code is a failure.
    ok: success ? `${text(success)} = 'true'` : code ? `coalesce(TRY_CAST(${col(code)} AS INTEGER) < 400, true)` : 'true',
    status: code ? col(code) : 'NULL',
    message: failure && message ? `coalesce(nullif(${col(failure)}::VARCHAR, ''), ${col(message)})` : message ? col(message) : failure ? col(failure) : 'NULL',
    thread: thread ? col(thread) : 'NULL',
    // JMeter writes "null" where a sampler has no URL.
    url: url ? `nullif(${col(url)}::VARCHAR, 'null')` : 'NULL',
  };
}

/** k6 `--out csv`: one row per metric sample; the request durations are the requests. */
function k6(columns: readonly FileColumn[]): RequestSelect | null {
  const metric = find(columns, 'metric_name');
  const time = find(columns, 'timestamp');
  const value = find(columns, 'metric_value');
  if (!metric || !time || !value) return null;
  const name = find(columns, 'name');
  const method = find(columns, 'method');
  const url = find(columns, 'url');
  const status = find(columns, 'status');
  const expected = find(columns, 'expected_response');
  const errorCode = find(columns, 'error_code');
  const error = find(columns, 'error');
  const v = (c: FileColumn | undefined) => (c ? `coalesce(${col(c)}::VARCHAR, '')` : "''");
  // operation() of src/formats/k6.ts: the name tag unless it is the URL, else METHOD URL (gRPC: the name).
  const op = `CASE WHEN ${col(metric)} = 'grpc_req_duration' THEN coalesce(nullif(${v(name)}, ''), nullif(${v(url)}, ''), ${col(metric)})
    WHEN ${v(name)} <> '' AND ${v(name)} <> ${v(url)} THEN ${v(name)}
    WHEN ${col(metric)} = 'http_req_duration' THEN coalesce(nullif(trim(${v(method)} || ' ' || ${v(url)}), ''), ${col(metric)})
    ELSE coalesce(nullif(${v(url)}, ''), ${col(metric)}) END`;
  const failed = `CASE WHEN ${oneOf(v(expected), ['true', 'false'])} THEN ${v(expected)} = 'false'
    WHEN ${v(errorCode)} <> '' THEN true
    WHEN ${v(status)} = '' THEN false
    WHEN ${col(metric)} = 'http_req_duration' THEN NOT coalesce(TRY_CAST(${v(status)} AS DOUBLE) > 0 AND TRY_CAST(${v(status)} AS DOUBLE) < 400, false)
    ELSE ${v(status)} <> CASE WHEN ${col(metric)} = 'grpc_req_duration' THEN '0' ELSE '101' END END`;
  return {
    op,
    timeMs: epochMs(time),
    latencyUs: `${col(value)}::DOUBLE * 1000`,
    ok: `NOT (${failed})`,
    status: status ? col(status) : 'NULL',
    message: error ? `nullif(${col(error)}::VARCHAR, '')` : 'NULL',
    thread: 'NULL',
    url: url ? `nullif(${col(url)}::VARCHAR, '')` : 'NULL',
    where: oneOf(col(metric), ['http_req_duration', 'grpc_req_duration', 'ws_session_duration']),
  };
}

/** vegeta `encode --to csv`: no header; timestamp (ns), code, latency (ns), bytes out, bytes in, error, body, attack, seq, method, url, headers. */
function vegeta(columns: readonly FileColumn[]): RequestSelect | null {
  if (columns.length < 6) return null;
  const [time, code, latency, , , error] = columns as [FileColumn, FileColumn, FileColumn, FileColumn, FileColumn, FileColumn];
  if (!NUMERIC.test(time.type) || !NUMERIC.test(latency.type)) return null;
  const method = columns[9];
  const url = columns[10];
  return {
    op: method && url ? `concat_ws(' ', ${col(method)}, ${col(url)})` : "''",
    timeMs: `${col(time)}::DOUBLE / 1e6`,
    latencyUs: `${col(latency)}::DOUBLE / 1000`,
    ok: `coalesce(TRY_CAST(${col(code)} AS INTEGER) BETWEEN 200 AND 399, false) AND coalesce(${col(error)}::VARCHAR, '') = ''`,
    status: col(code),
    message: `nullif(${col(error)}::VARCHAR, '')`,
    thread: 'NULL',
    url: url ? col(url) : 'NULL',
  };
}

/** A per-operation CSV: columns recognised by their header names, as the generic CSV reader does. */
function generic(columns: readonly FileColumn[]): RequestSelect | null {
  const role = (r: Role) => columns.find((c) => ROLE_PATTERNS[r].test(c.name));
  const latency = role('latency');
  if (!latency) return null;
  const time = role('time');
  const op = role('op');
  const status = role('status');
  const unit = unitFromHeader(latency.name) ?? 'ms';
  let ok = 'true';
  if (status) {
    const v = text(status);
    // isFailure of src/formats/csv-columns.ts.
    if (/^(error|failed|failure)$/i.test(status.name)) ok = oneOf(`coalesce(${v}, '')`, ['', '0', 'false', 'none']);
    else if (/^(success|ok)$/i.test(status.name)) ok = oneOf(`coalesce(${v}, '')`, ['true', '1', 'ok', 'yes']);
    else ok = `CASE WHEN regexp_matches(coalesce(${v}, ''), '^[0-9]{3}$') THEN ${v}::INTEGER < 400 ELSE ${oneOf(`coalesce(${v}, '')`, ['ok', 'success', 'true', '0', ''])} END`;
  }
  return {
    // The cell as DuckDB reads it (the parser also trims spaces around it), OP when empty.
    op: op ? `coalesce(nullif(${col(op)}::VARCHAR, ''), 'OP')` : "'OP'",
    timeMs: time ? epochMs(time) : 'NULL',
    // As toMicros: ns divided, the others multiplied.
    latencyUs: unit === 'ns' ? `${col(latency)}::DOUBLE / 1000` : `${col(latency)}::DOUBLE * ${{ us: 1, ms: 1000, s: 1e6 }[unit]}`,
    ok,
    status: status ? col(status) : 'NULL',
    message: 'NULL',
    thread: 'NULL',
    url: 'NULL',
  };
}

/** YCSB raw measurements: `OP,timestamp(ms),latency(us)`; YCSB names a failed operation's rows OP-FAILED. */
function ycsbRaw(columns: readonly FileColumn[]): RequestSelect | null {
  const [op, time, latency] = columns;
  if (!op || !time || !latency) return null;
  return {
    op: `regexp_replace(${col(op)}, '-FAILED$', '', 'i')`,
    timeMs: `${col(time)}::DOUBLE`,
    latencyUs: `${col(latency)}::DOUBLE`,
    ok: `NOT regexp_matches(${col(op)}, '-FAILED$', 'i')`,
    status: 'NULL',
    message: 'NULL',
    thread: 'NULL',
    url: 'NULL',
    // The rows YcsbRawParser takes (header lines do not read as numbers and are gone already) of
    // requests (opKind): Intended- rows time the same requests again, CLEANUP is the threads' cleanup.
    where: `regexp_matches(${col(op)}, '^[A-Za-z][A-Za-z0-9_-]*$') AND NOT regexp_matches(${col(op)}, '^(Intended-.*|CLEANUP)$', 'i') AND ${col(time)} BETWEEN 0 AND ${MAX_EPOCH_MS} AND ${col(latency)} >= 0`,
  };
}

/**
 * pgbench `-l`: `client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]`,
 * `time` the latency in µs or the word a skipped or failed transaction has instead (its status
 * here). With a lag column the latency is measured from the scheduled start: the request's own is
 * time − lag, as the parser takes it (which skips a row whose lag exceeds its time).
 */
function pgbench(columns: readonly FileColumn[]): RequestSelect | null {
  const named = (name: string) => find(columns, name);
  const time = named('time');
  const script = named('script_no');
  const epoch = named('time_epoch');
  const us = named('time_us');
  if (!time || !script || !epoch || !us) return null;
  const lag = named('schedule_lag');
  const latency = `TRY_CAST(${col(time)} AS BIGINT)`;
  const failed = oneOf(col(time), [SKIPPED, ...FAILURES]);
  return {
    op: `'script' || ${col(script)}`,
    timeMs: `${col(epoch)} * 1000 + ${col(us)} // 1000`,
    latencyUs: lag ? `${latency} - ${col(lag)}` : latency,
    ok: `NOT ${failed}`,
    status: `CASE WHEN ${failed} THEN ${col(time)} END`,
    message: 'NULL',
    thread: 'NULL',
    url: 'NULL',
    where: `(${failed} OR ${latency} IS NOT NULL)${lag ? ` AND NOT coalesce(${col(lag)} > ${latency}, false)` : ''}`,
  };
}

/**
 * A Gatling 2.x–3.12 text simulation.log, as its lines split at tabs (`fields`, 1-based): the
 * REQUEST records of the four layouts requestFields of src/formats/gatling.ts tells apart by
 * their fields, with its rules — groups joined by ' / ' before the name, KO failed, the latency
 * end − start in whole ms, the time the end.
 */
function gatling(columns: readonly FileColumn[]): RequestSelect | null {
  if (!find(columns, 'fields')) return null;
  const f = (i: number) => `t.fields[${i}]`;
  const n = 'len(t.fields)';
  const integer = (v: string) => `regexp_matches(coalesce(${v}, ''), '^[0-9]{1,16}$')`;
  const status = (i: number) => oneOf(`coalesce(${f(i)}, '')`, ['OK', 'KO']);
  // The first field of each layout's groups, name, start, end, status and message.
  const layout = `CASE WHEN ${f(1)} = 'REQUEST' AND ${n} = 7 AND ${status(6)} THEN [2, 3, 4, 5, 6, 7]
    WHEN ${f(1)} = 'REQUEST' AND ${n} = 8 AND ${integer(f(2))} AND ${status(7)} THEN [3, 4, 5, 6, 7, 8]
    WHEN ${f(1)} = 'REQUEST' AND ${n} >= 9 AND ${integer(f(3))} AND ${status(8)} THEN [4, 5, 6, 7, 8, 9]
    WHEN ${f(3)} = 'REQUEST' AND ${n} >= 11 AND ${status(10)} THEN [4, 5, 6, 9, 10, 11] END`;
  const field = (k: number) => `t.fields[(${layout})[${k}]]`;
  const [groups, name, start, end, outcome, message] = [1, 2, 3, 4, 5, 6].map(field) as [string, string, string, string, string, string];
  return {
    op: `CASE WHEN ${groups} <> '' THEN replace(${groups}, ',', ' / ') || ' / ' || ${name} ELSE ${name} END`,
    timeMs: `${end}::BIGINT`,
    latencyUs: `(${end}::BIGINT - ${start}::BIGINT) * 1000`,
    ok: `${outcome} = 'OK'`,
    status: outcome,
    message: `nullif(${message}, '')`,
    thread: 'NULL',
    url: 'NULL',
    where: `(${layout}) IS NOT NULL AND ${integer(start)} AND ${integer(end)} AND ${end}::BIGINT <= ${MAX_EPOCH_MS} AND ${end}::BIGINT >= ${start}::BIGINT`,
  };
}

const BY_FORMAT: Partial<Record<FormatId, (columns: readonly FileColumn[]) => RequestSelect | null>> = { jmeter, k6, vegeta, 'generic-csv': generic, 'ycsb-raw': ycsbRaw, pgbench, gatling };

/** How `requests` reads a file of `format` with these columns, or null when it has no per-request rows. */
export function requestSelect(format: FormatId, columns: readonly FileColumn[]): RequestSelect | null {
  return BY_FORMAT[format]?.(columns) ?? null;
}

/** Delimited text DuckDB reads with the layout given, not sniffed: its delimiter and its columns. */
export interface FixedLayout {
  delim: string;
  columns: FileColumn[];
  /** What `file_<n>` makes of those columns (its own columns then `view`), where not the columns themselves. */
  project?: { select: string; view: FileColumn[] };
}

/**
 * The layout of an input whose lines DuckDB reads as they are, without a header it could sniff:
 * YCSB raw measurements, a pgbench per-transaction log with the extra columns its parser found, and
 * a Gatling text log's lines.
 * Lines that do not read in it (YCSB's header lines) are left out by DuckDB.
 */
export function fixedLayout(format: FormatId, producer: ProducerInfo | undefined, perRequest: boolean): FixedLayout | null {
  const c = (name: string, type = 'BIGINT'): FileColumn => ({ name, type });
  if (format === 'ycsb-raw') return { delim: ',', columns: [c('op', 'VARCHAR'), c('timestamp_ms'), c('latency_us')] };
  // A text simulation.log (the binary one has no rows its parser reads): whole lines, split at tabs
  // (the records' fields vary in number by type and Gatling version; a message holds no tab).
  if (format === 'gatling' && perRequest) return { delim: '\u0001', columns: [c('line', 'VARCHAR')], project: { select: `string_split(line, chr(9)) AS fields`, view: [c('fields', 'VARCHAR[]')] } };
  const settings = producer?.settings;
  if (format !== 'pgbench' || settings?.log !== TRANSACTION_LOG.log) return null;
  const extra = [...(settings[TRANSACTION_LOG.lag] === 'yes' ? [c('schedule_lag')] : []), ...(settings[TRANSACTION_LOG.retries] === 'yes' ? [c('retries')] : [])];
  return { delim: ' ', columns: [c('client_id'), c('transaction_no'), c('time', 'VARCHAR'), c('script_no'), c('time_epoch'), c('time_us'), ...extra] };
}
