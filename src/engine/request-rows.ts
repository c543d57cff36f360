import { makeVector, Table } from 'apache-arrow';
import { isFailed, readFile, type ReadOptions } from '../formats/read-file.ts';
import type { CountedSamples, RawSampleSink } from '../formats/sample-counter.ts';
import { opKind } from '../model/naming.ts';
import { toMicros } from '../model/numbers.ts';
import type { FormatId, RawSeries, SampleCountColumns } from '../model/types.ts';
import type { Db, SqlValue } from './db.ts';

/**
 * Per-request rows of an input DuckDB cannot read in place (a JTL in XML, k6's and vegeta's JSON,
 * Parquet — DuckDB-WASM here has neither its JSON nor its Parquet extension): the file is read
 * again by its own parser, which hands each raw sample to a sink instead of counting it
 * (`FormatOptions.rawSamples`, as the `reduce` command reads files). The operation, what failed,
 * the unit and the time are therefore the parser's own, not a copy of its rules.
 *
 * The samples go into DuckDB in batches as they are read (never the whole file in JavaScript), then
 * become a table of one row per sample: `op` (the series as the parser names it: READ,
 * READ-FAILED, `GET /x (first byte)`), `kind` (opKind), `client`, `time_ms` (epoch ms, or ms from the
 * start where the file has no date; NULL without a time) and `latency_us`.
 */

/** How to read an input again from its start. */
export interface Reread {
  chunks: () => AsyncIterable<Uint8Array>;
  options: Pick<ReadOptions, 'totalBytes' | 'randomAccess' | 'csvMappings'>;
}

/** Samples per batch handed to DuckDB: bounded memory for any size of file. */
const BATCH = 1 << 20;

const STAGING = 'bl_staging';

/**
 * Reads `path` again with the parser of `format` and makes `table` (a name of ours) of its raw
 * samples. Throws with the parser's message when the file no longer reads as it did.
 */
export async function materialiseParserRows(db: Db, table: string, path: string, format: FormatId, reread: Reread, signal: AbortSignal): Promise<void> {
  let series = new Int32Array(BATCH);
  let time = new Float64Array(BATCH);
  let value = new Float64Array(BATCH);
  let filled = 0;
  let created = false;
  const flush = () => {
    if (filled === 0 && created) return;
    db.insert(STAGING, new Table({ s: makeVector(series.subarray(0, filled)), t: makeVector(time.subarray(0, filled)), v: makeVector(value.subarray(0, filled)) }), !created);
    created = true;
    filled = 0;
  };
  const seriesOfCounts = new Map<SampleCountColumns, number>();
  const sink: RawSampleSink = {
    add(s, timeMs, v) {
      if (filled === BATCH) {
        flush();
        // The batch's arrays went to DuckDB as an IPC copy: new ones, not the same overwritten.
        series = new Int32Array(BATCH);
        time = new Float64Array(BATCH);
        value = new Float64Array(BATCH);
      }
      series[filled] = s;
      time[filled] = timeMs;
      value[filled++] = v;
    },
    end(counted: readonly CountedSamples[]) {
      counted.forEach((c, i) => seriesOfCounts.set(c.counts, i));
    },
  };
  db.exec(`DROP TABLE IF EXISTS ${STAGING}`);
  try {
    const outcome = await readFile(path, reread.chunks(), { ...reread.options, formatId: format, signal, format: { rawSamples: sink } });
    if (isFailed(outcome)) throw new Error(`${path}: ${outcome.errors[0]?.message ?? 'could not be read again'}`);
    flush();
    // Series index → what the parser made of it; a series the sink never saw has no rows.
    const named = outcome.series
      .filter((s): s is RawSeries => s.kind === 'raw')
      .map((s) => ({ s, i: seriesOfCounts.get(s.counts) }))
      .filter((x): x is { s: RawSeries; i: number } => x.i !== undefined);
    const cases = named.length ? `CASE s ${named.map(() => 'WHEN ? THEN ?').join(' ')} END` : 'NULL';
    const params = (pick: (s: RawSeries) => SqlValue) => named.flatMap(({ s, i }) => [i, pick(s)]);
    db.exec(`DROP TABLE IF EXISTS ${table}`);
    // Every name goes in as a parameter; `table` and STAGING are ours. The unit as toMicros takes
    // it: ns divided by 1000, the others multiplied.
    db.query(
      `CREATE TABLE ${table} AS SELECT (${cases})::VARCHAR AS op, (${cases})::VARCHAR AS kind, (${cases})::VARCHAR AS client,
         CASE WHEN isnan(t) THEN NULL ELSE t END AS time_ms,
         CASE WHEN (${cases}) = 'ns' THEN v / 1000 ELSE v * (${cases})::DOUBLE END AS latency_us
       FROM ${STAGING} WHERE list_contains(?::INTEGER[], s)`,
      [
        ...params((s) => s.op),
        ...params((s) => opKind(s.op)),
        ...params((s) => s.client ?? null),
        ...params((s) => s.unit),
        ...params((s) => toMicros(1, s.unit)),
        `[${named.map((x) => x.i).join(',')}]`,
      ],
    );
  } finally {
    db.exec(`DROP TABLE IF EXISTS ${STAGING}`);
  }
}

