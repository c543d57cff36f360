/**
 * The HTTP load tools' per-request files in the bench: native DuckDB's reading of each (the same
 * question the app answers: per operation — label, failures apart as `<label>-FAILED` — the count
 * and exact nearest-rank p50/p99/p99.9, in the unit benchlens keeps: µs for JMeter and Gatling's
 * whole ms, ns for k6's and vegeta's).
 */
import type { HttpTool } from './generate-data.ts';
import type { Peer } from './bench-peers.ts';

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

/** The part of the bench's native reference these cases use (see findNative in bench.ts). */
interface NativeReference {
  engine: string;
  run(files: readonly string[], query: string, load?: string): Promise<{ seconds: number; rows: (string | number)[][] }>;
}

/** File names as the tools write them (detection goes by content; the name is only a hint). */
const FILE_NAMES: Record<HttpTool, string> = { jmeter: 'results.jtl', k6: 'k6-results.csv', gatling: 'simulation.log', vegeta: 'results.csv' };
/** What benchlens keeps each tool's latencies in: µs per unit of the native figures. */
const NATIVE_DIVISOR: Record<HttpTool, number> = { jmeter: 1, gatling: 1, k6: 1000, vegeta: 1000 };

export interface HttpCase {
  case: string;
  tool: HttpTool;
  rows: number;
  mb: number;
  /** Per repetition, benchlens then native back to back: seconds and their ratio. */
  appSeconds: number[];
  nativeSeconds: number[];
  ratios: number[];
  /** The Chromium renderer's peak resident set in each repetition, MB. */
  peakMemoryMB: (number | null)[];
  /** The engine's parse of the file on one core of this process (Node): CPU seconds and MB per CPU second. */
  parseCpuSeconds: number;
  mbPerCoreSecond: number;
  figuresMatch: boolean | null;
  /**
   * With `--peers`, the tool users would otherwise run on the file (JMeter's dashboard, Gatling's
   * reports), once: its seconds, and whether its report counts the file's requests.
   */
  peer?: { name: string; seconds: number; requestsMatch: boolean } | { missing: string };
}

const median = (v: readonly number[]): number => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
export const minMedian = (v: readonly number[]): string => `${Math.min(...v).toFixed(2)}/${median(v).toFixed(2)}`;

/** CPU seconds of this process while `file` is parsed by the engine's readFile (one core: no parse workers). */
export async function parseCpuSeconds(file: string): Promise<number> {
  const [{ openAsBlob }, { fileChunks }, { readFile, isFailed }] = await Promise.all([import('node:fs'), import('../src/engine/input-stream.ts'), import('../src/formats/read-file.ts')]);
  const before = process.cpuUsage();
  const outcome = await readFile(file, fileChunks(await openAsBlob(file), 0));
  const used = process.cpuUsage(before);
  if (isFailed(outcome)) throw new Error(`${file}: ${outcome.errors[0]?.message}`);
  return (used.user + used.system) / 1e6;
}

/**
 * Each tool's file of each size, generated (one hour, ~2 % failed) and handed to the built app's
 * file input `reps` times, each time followed at once by native DuckDB answering the same question
 * on the same file: the ratio of each pair, so a shared machine's load weighs on both alike.
 */
export async function httpToolCases(options: {
  baseUrl: string;
  dir: string;
  tools: readonly HttpTool[];
  rows: readonly number[];
  reps: number;
  native: NativeReference | null;
  /** The tools' own report generators (./bench-peers.ts), run once per case after the app's repetitions. */
  peers?: Partial<Record<HttpTool, Peer>>;
  log: (s: string) => void;
}): Promise<HttpCase[]> {
  const [{ mkdirSync, rmSync, statSync }, path, { writeHttpToolRun }, { appWithFiles }] = await Promise.all([import('node:fs'), import('node:path'), import('./generate-data.ts'), import('./bench-app.ts')]);
  const out: HttpCase[] = [];
  for (const tool of options.tools) {
    for (const rows of options.rows) {
      mkdirSync(options.dir, { recursive: true });
      const file = path.join(options.dir, FILE_NAMES[tool]);
      const expected = await writeHttpToolRun(tool, rows, 3600, file);
      const mb = statSync(file).size / 1e6;
      const cpu = await parseCpuSeconds(file);
      const row: HttpCase = { case: `${tool} ${FILE_NAMES[tool]}, ${rows.toLocaleString('en-US')} ${tool === 'k6' ? 'lines' : 'requests'}`, tool, rows, mb: Number(mb.toFixed(1)), appSeconds: [], nativeSeconds: [], ratios: [], peakMemoryMB: [], parseCpuSeconds: Number(cpu.toFixed(3)), mbPerCoreSecond: Math.round(mb / cpu), figuresMatch: null };
      for (let rep = 0; rep < options.reps; rep++) {
        const shown = await appWithFiles(options.baseUrl, [file], expected);
        const native = options.native ? await options.native.run([file], FIGURES_SQL, nativeHttpSql(tool, file)) : null;
        row.appSeconds.push(Number(shown.appSeconds.toFixed(3)));
        row.peakMemoryMB.push(shown.peakMemoryMB === null ? null : Math.round(shown.peakMemoryMB));
        if (native) {
          row.nativeSeconds.push(Number(native.seconds.toFixed(3)));
          row.ratios.push(Number((shown.appSeconds / native.seconds).toFixed(2)));
          const d = NATIVE_DIVISOR[tool];
          const same = native.rows.every(([op, count, p50, p99, p999]) => {
            const s = shown.figures[String(op)];
            return s !== undefined && s.count === count && s.p50 === Number(p50) / d && s.p99 === Number(p99) / d && s['p99.9'] === Number(p999) / d;
          });
          row.figuresMatch = (row.figuresMatch ?? true) && same;
        }
        options.log(`${row.case} (${row.mb} MB): app ${shown.appSeconds.toFixed(2)} s${native ? `, native ${native.seconds.toFixed(2)} s` : ''}`);
      }
      const peer = options.peers?.[tool];
      if (peer && 'missing' in peer) row.peer = peer;
      else if (peer) {
        const run = peer.run(file);
        row.peer = { name: run.name, seconds: Number(run.seconds.toFixed(2)), requestsMatch: run.requests === rows };
        options.log(`${row.case}: ${run.name} ${run.seconds.toFixed(2)} s, ${run.requests.toLocaleString('en-US')} requests in its report`);
      }
      out.push(row);
      rmSync(file, { force: true });
    }
  }
  return out;
}

/** The cases as a table: min/median of the repetitions. */
export function printHttpCases(cases: readonly HttpCase[], ycsbRawMbPerCoreSecond: number | null): void {
  console.log(`\nHTTP tools' per-request files, the built app from files handed over to the figures on screen, beside native DuckDB (min/median of ${cases[0]?.appSeconds.length ?? 0}, each pair back to back)`);
  console.log(['case'.padEnd(44), 'MB'.padStart(6), 'app s'.padStart(11), 'native s'.padStart(11), 'ratio'.padStart(11), 'MB/s/core'.padStart(10), 'peak MB'.padStart(8), 'equal'.padStart(6)].join(' '));
  for (const c of cases) {
    console.log([c.case.padEnd(44), String(c.mb).padStart(6), minMedian(c.appSeconds).padStart(11), (c.nativeSeconds.length ? minMedian(c.nativeSeconds) : '–').padStart(11), (c.ratios.length ? minMedian(c.ratios) : '–').padStart(11), String(c.mbPerCoreSecond).padStart(10), String(Math.max(...c.peakMemoryMB.map((m) => m ?? 0)) || '–').padStart(8), (c.figuresMatch === null ? '–' : c.figuresMatch ? 'yes' : 'NO').padStart(6)].join(' '));
  }
  const withPeers = cases.filter((c) => c.peer !== undefined);
  if (withPeers.length > 0) {
    console.log(`\nThe tools' own reports on the same files (one run each, JVM start-up included), beside the app's median`);
    console.log(['case'.padEnd(44), 'tool'.padEnd(22), 'tool s'.padStart(8), 'app s'.padStart(7), 'app/tool'.padStart(9), 'counts'.padStart(7)].join(' '));
    for (const c of withPeers) {
      const p = c.peer!;
      if ('missing' in p) console.log(`${c.case.padEnd(44)} not run: ${p.missing}`);
      else console.log([c.case.padEnd(44), p.name.padEnd(22), p.seconds.toFixed(2).padStart(8), median(c.appSeconds).toFixed(2).padStart(7), (median(c.appSeconds) / p.seconds).toFixed(3).padStart(9), (p.requestsMatch ? 'equal' : 'NOT').padStart(7)].join(' '));
    }
  }
  if (ycsbRawMbPerCoreSecond !== null) console.log(`MB/s/core: the engine's parse on one core (Node, CPU time); YCSB raw (1M rows) for comparison: ${ycsbRawMbPerCoreSecond} MB/s/core`);
}
