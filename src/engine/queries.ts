import { tableFromArrays } from 'apache-arrow';
import { nextDown } from '../model/hdr-stats.ts';
import type { Db } from './db.ts';

/**
 * The analyses as SQL. A query works on a *selection*: series ids, each mapped to a group number
 * `g` chosen by the caller (e.g. one group per run × operation to merge clients, or one per
 * client). The selection goes into a temporary table from Arrow data, so no value from a file or
 * the user is ever spliced into SQL text.
 */

export interface Selection {
  seriesIds: readonly number[];
  groups: readonly number[];
  /**
   * Optional time window per series (aligned with seriesIds), half-open [from, to) in the series'
   * own time (epoch µs for absolute logs); null = unbounded. Intervals count whole by their start.
   * Per series because each run has its own start: "the first minute" means a different instant for each.
   */
  fromUs?: readonly (number | null)[];
  toUs?: readonly (number | null)[];
}

export interface GroupStats {
  g: number;
  count: number;
  min: number;
  max: number;
  mean: number;
  stddev: number;
  /** Every value exact (raw samples) rather than HdrHistogram buckets. */
  rawValues: boolean;
}

/**
 * Percentile ranks. HdrHistogram groups use HdrHistogram 2.2.2's rule bit for bit (the percentile
 * moved down one ulp, then ceil((p × count) / 100) in double arithmetic, in that order); raw groups use
 * the exact nearest rank ⌈p/100 · n⌉ with integers, from the decimal digits of p.
 */
export function percentileRankTerms(p: number): { pDown: number; num: string; den: string } {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile ${p} must be in (0, 100]`);
  // The shortest decimal that reads back as p (what the user typed), as an exact fraction.
  const [mantissa = '0', exponentText = '0'] = String(p).toLowerCase().split('e');
  const [intPart = '0', frac = ''] = mantissa.split('.');
  const scale = frac.length - Number(exponentText);
  const digits = BigInt(intPart + frac);
  const num = scale >= 0 ? digits : digits * 10n ** BigInt(-scale);
  const den = 100n * 10n ** BigInt(Math.max(0, scale));
  return { pDown: nextDown(p), num: num.toString(), den: den.toString() };
}

function setSelection(db: Db, sel: Selection): void {
  // NaN stands for "unbounded" in the Arrow columns and becomes NULL in the table.
  const bound = (list: readonly (number | null)[] | undefined) => Float64Array.from(sel.seriesIds, (_, i) => list?.[i] ?? Number.NaN);
  db.insert('sel_input', tableFromArrays({ series_id: Int32Array.from(sel.seriesIds), g: Int32Array.from(sel.groups), from_us: bound(sel.fromUs), to_us: bound(sel.toUs) }), true);
  db.exec(`CREATE OR REPLACE TEMP TABLE sel AS
    SELECT series_id, g,
           CASE WHEN isnan(from_us) THEN NULL ELSE from_us::BIGINT END AS from_us,
           CASE WHEN isnan(to_us) THEN NULL ELSE to_us::BIGINT END AS to_us
    FROM sel_input;
    DROP TABLE sel_input`);
}

function windowed(sel: Selection): boolean {
  return [...(sel.fromUs ?? []), ...(sel.toUs ?? [])].some((v) => v !== null && v !== undefined);
}

/** Parameter $1 of the histogram CTEs: the time bucket in seconds, or null for none. */
function histParams(bucketS: number | null = null): [number | null] {
  return [bucketS];
}

/**
 * Buckets of the selection, summed per group and time bucket: (g, tb, lo, width, n, raw). `tb` is
 * the epoch second starting the time bucket ($1 seconds wide), or 0 when $1 is null.
 */
const HIST_FROM_ROWS = `
  h AS MATERIALIZED (
    SELECT sel.g, CASE WHEN $1::BIGINT IS NULL THEN 0 ELSE i.start_us // 1000000 // $1::BIGINT * $1::BIGINT END AS tb,
           b.lo, b.width, sum(b.n)::BIGINT AS n, false AS raw
    FROM sel
    JOIN intervals i ON i.series_id = sel.series_id
    JOIN buckets b ON b.interval_id = i.interval_id
    WHERE (sel.from_us IS NULL OR i.start_us >= sel.from_us) AND (sel.to_us IS NULL OR i.start_us < sel.to_us)
    GROUP BY ALL
    UNION ALL
    SELECT sel.g, CASE WHEN $1::BIGINT IS NULL THEN 0 ELSE s.t_ms // 1000 // $1::BIGINT * $1::BIGINT END AS tb,
           s.lat AS lo, 1::BIGINT AS width, count(*)::BIGINT AS n, true AS raw
    FROM sel
    JOIN samples s ON s.series_id = sel.series_id
    WHERE (sel.from_us IS NULL OR s.t_ms * 1000 >= sel.from_us) AND (sel.to_us IS NULL OR s.t_ms * 1000 < sel.to_us)
      AND ($1::BIGINT IS NULL OR s.t_ms IS NOT NULL)
    GROUP BY ALL
  )`;

/**
 * The same for whole series (no window, no time buckets), from `series_hist`: every series' buckets
 * already summed once at load, so merging clients costs thousands of rows, not millions. $1 (no
 * time buckets here) keeps the parameter list of HIST_FROM_ROWS.
 */
const HIST_FROM_SERIES = `
  h AS MATERIALIZED (
    SELECT sel.g, 0 AS tb, sh.lo, sh.width, sum(sh.n)::BIGINT AS n, bool_and(sh.raw) AS raw
    FROM sel JOIN series_hist sh ON sh.series_id = sel.series_id
    WHERE $1::BIGINT IS NULL
    GROUP BY sel.g, sh.lo, sh.width
  )`;

function histCte(sel: Selection, bucketS: number | null): string {
  return !windowed(sel) && bucketS === null ? HIST_FROM_SERIES : HIST_FROM_ROWS;
}

/** Rebuild `series_hist` after loading: each series' buckets (or raw values) summed over all time. */
export function refreshSeriesHistograms(db: Db): void {
  db.exec(`CREATE OR REPLACE TABLE series_hist AS
    SELECT i.series_id, b.lo, b.width, sum(b.n)::BIGINT AS n, false AS raw
    FROM intervals i JOIN buckets b ON b.interval_id = i.interval_id GROUP BY ALL
    UNION ALL
    SELECT series_id, lat AS lo, 1::BIGINT AS width, count(*)::BIGINT AS n, true AS raw
    FROM samples GROUP BY ALL`);
}

/** Count, min, max, mean and standard deviation exactly as HdrHistogram computes them (bucket mid-points). */
export function groupStats(db: Db, sel: Selection): GroupStats[] {
  setSelection(db, sel);
  const rows = db.query(
    `WITH ${histCte(sel, null)},
     s AS (
       SELECT g, sum(n) AS total, min(lo) AS min_lo, max(lo + width - 1) AS max_hi,
              sum(n * (lo + width // 2)::HUGEINT)::DOUBLE / sum(n)::DOUBLE AS mean,
              bool_and(raw) AS raw_values
       FROM h GROUP BY g
     )
     SELECT s.g, s.total::BIGINT AS count, s.min_lo::BIGINT AS min, s.max_hi::BIGINT AS max, s.mean,
            sqrt(sum(h.n::DOUBLE * pow((h.lo + h.width // 2)::DOUBLE - s.mean, 2)) / s.total::DOUBLE) AS stddev,
            s.raw_values
     FROM s JOIN h ON h.g = s.g
     GROUP BY s.g, s.total, s.min_lo, s.max_hi, s.mean, s.raw_values
     ORDER BY s.g`,
    histParams(),
  );
  return rows.map((r) => ({
    g: r.g as number,
    count: r.count as number,
    min: r.min as number,
    max: r.max as number,
    mean: r.mean as number,
    stddev: r.stddev as number,
    rawValues: r.raw_values as boolean,
  }));
}

/** Percentile values per group: result[g][i] is the value at percentiles[i] (null when the group is empty). */
export function groupPercentiles(db: Db, sel: Selection, percentiles: readonly number[]): Map<number, (number | null)[]> {
  const out = new Map<number, (number | null)[]>();
  for (const row of percentileRows(db, sel, percentiles, null)) {
    let values = out.get(row.g);
    if (!values) {
      values = percentiles.map(() => null);
      out.set(row.g, values);
    }
    values[row.idx] = row.value;
  }
  return out;
}

export interface BucketPercentile {
  g: number;
  /** Epoch second at the start of the time bucket (0 without bucketing). */
  tb: number;
  /** Index into the requested percentiles. */
  idx: number;
  value: number;
}

/**
 * Percentiles of the merged histogram of each group, per time bucket of `bucketS` seconds when
 * given: intervals are merged first, then the percentile is read once per bucket — never an
 * average or maximum of per-interval or per-client percentiles.
 */
export function percentileRows(db: Db, sel: Selection, percentiles: readonly number[], bucketS: number | null): BucketPercentile[] {
  setSelection(db, sel);
  const terms = percentiles.map(percentileRankTerms);
  db.exec('CREATE OR REPLACE TEMP TABLE pct (idx INTEGER, p_down DOUBLE, num VARCHAR, den VARCHAR)');
  db.insert(
    'pct',
    tableFromArrays({
      idx: Int32Array.from(percentiles, (_, i) => i),
      p_down: Float64Array.from(terms, (t) => t.pDown),
      num: terms.map((t) => t.num),
      den: terms.map((t) => t.den),
    }),
    false,
  );
  const rows = db.query(
    `WITH ${histCte(sel, bucketS)},
     c AS MATERIALIZED (
       SELECT g, tb, lo, width, raw,
              sum(n) OVER (PARTITION BY g, tb ORDER BY lo ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cum
       FROM h
     ),
     t AS (SELECT g, tb, max(cum) AS total, bool_and(raw) AS raw FROM c GROUP BY g, tb),
     r AS (
       SELECT t.g, t.tb, pct.idx,
              CASE WHEN t.raw
                THEN greatest(1, (pct.num::HUGEINT * t.total::HUGEINT + pct.den::HUGEINT - 1) // pct.den::HUGEINT)
                ELSE greatest(1, ceil((pct.p_down * t.total::DOUBLE) / 100.0::DOUBLE))::HUGEINT
              END AS rank
       FROM t CROSS JOIN pct
       WHERE t.total > 0
     )
     SELECT r.g, r.tb::BIGINT AS tb, r.idx, min(c.lo + c.width - 1)::BIGINT AS value
     FROM r JOIN c ON c.g = r.g AND c.tb = r.tb AND c.cum >= r.rank
     GROUP BY r.g, r.tb, r.idx
     ORDER BY r.g, r.tb, r.idx`,
    histParams(bucketS),
  );
  return rows.map((r) => ({ g: r.g as number, tb: r.tb as number, idx: r.idx as number, value: r.value as number }));
}

export interface SecondCounts {
  g: number;
  /** Epoch second starting the bucket (absolute logs and raw samples) or seconds since the log's origin. */
  sec: number;
  ok: number;
  failed: number;
}

/**
 * Operations per second. An interval histogram counts whole in the second holding its start (as
 * HdrHistogram's log processor assigns intervals); a raw sample in the second of its timestamp.
 * `op_kind` 'failed' series (READ-FAILED …) count as failed, 'op' as ok; others are not throughput.
 */
export function countsPerSecond(db: Db, sel: Selection, bucketS = 1): SecondCounts[] {
  setSelection(db, sel);
  const rows = db.query(
    `WITH x AS (
       SELECT sel.g, i.start_us // 1000000 // $1::BIGINT * $1::BIGINT AS sec, s.op_kind, sum(i.n) AS n
       FROM sel JOIN series s ON s.series_id = sel.series_id JOIN intervals i ON i.series_id = sel.series_id
       WHERE s.op_kind IN ('op', 'failed')
         AND (sel.from_us IS NULL OR i.start_us >= sel.from_us) AND (sel.to_us IS NULL OR i.start_us < sel.to_us)
       GROUP BY ALL
       UNION ALL
       SELECT sel.g, r.t_ms // 1000 // $1::BIGINT * $1::BIGINT AS sec, s.op_kind, count(*) AS n
       FROM sel JOIN series s ON s.series_id = sel.series_id JOIN samples r ON r.series_id = sel.series_id
       WHERE s.op_kind IN ('op', 'failed') AND r.t_ms IS NOT NULL
         AND (sel.from_us IS NULL OR r.t_ms * 1000 >= sel.from_us) AND (sel.to_us IS NULL OR r.t_ms * 1000 < sel.to_us)
       GROUP BY ALL
     )
     SELECT g, sec::BIGINT AS sec,
            coalesce(sum(n) FILTER (WHERE op_kind = 'op'), 0)::BIGINT AS ok,
            coalesce(sum(n) FILTER (WHERE op_kind = 'failed'), 0)::BIGINT AS failed
     FROM x GROUP BY g, sec ORDER BY g, sec`,
    histParams(bucketS),
  );
  return rows.map((r) => ({ g: r.g as number, sec: r.sec as number, ok: r.ok as number, failed: r.failed as number }));
}

export interface Extent {
  g: number;
  startUs: number;
  endUs: number;
}

/** Time covered per group: earliest interval start to latest interval end (raw: first to last sample). */
export function groupExtents(db: Db, sel: Selection): Extent[] {
  setSelection(db, sel);
  const rows = db.query(
    `SELECT g, min(a)::BIGINT AS start_us, max(b)::BIGINT AS end_us FROM (
       SELECT sel.g, i.start_us AS a, i.start_us + i.length_us AS b
       FROM sel JOIN intervals i ON i.series_id = sel.series_id
       UNION ALL
       SELECT sel.g, min(r.t_ms) * 1000, max(r.t_ms) * 1000
       FROM sel JOIN samples r ON r.series_id = sel.series_id
       GROUP BY sel.g
     ) WHERE a IS NOT NULL GROUP BY g ORDER BY g`,
  );
  return rows.map((r) => ({ g: r.g as number, startUs: r.start_us as number, endUs: r.end_us as number }));
}
