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

/**
 * Buckets of the selection, summed per group and time bucket: (g, tb, lo, width, n, raw). `tb` is
 * the epoch second starting the time bucket ($1 seconds wide), or 0 when $1 is null. Rows are
 * read once per series (`hs`), then regrouped: a series in both its client's group and its run's
 * costs one scan. A series has one window, whatever groups it is in.
 */
const HIST_FROM_ROWS = `
  ss AS (SELECT DISTINCT series_id, from_us, to_us FROM sel),
  hs AS (
    SELECT ss.series_id, CASE WHEN $1::BIGINT IS NULL THEN 0 ELSE i.start_us // 1000000 // $1::BIGINT * $1::BIGINT END AS tb,
           b.lo, b.width, sum(b.n)::BIGINT AS n, false AS raw
    FROM ss
    JOIN intervals i ON i.series_id = ss.series_id
    JOIN buckets b ON b.interval_id = i.interval_id
    WHERE (ss.from_us IS NULL OR i.start_us >= ss.from_us) AND (ss.to_us IS NULL OR i.start_us < ss.to_us)
    GROUP BY ALL
    UNION ALL
    SELECT ss.series_id, CASE WHEN $1::BIGINT IS NULL THEN 0 ELSE s.t_ms // 1000 // $1::BIGINT * $1::BIGINT END AS tb,
           s.lat AS lo, 1::BIGINT AS width, count(*)::BIGINT AS n, true AS raw
    FROM ss
    JOIN samples s ON s.series_id = ss.series_id
    WHERE (ss.from_us IS NULL OR s.t_ms * 1000 >= ss.from_us) AND (ss.to_us IS NULL OR s.t_ms * 1000 < ss.to_us)
      AND ($1::BIGINT IS NULL OR s.t_ms IS NOT NULL)
    GROUP BY ALL
  ),
  h AS (
    SELECT sel.g, hs.tb, hs.lo, hs.width, sum(hs.n)::BIGINT AS n, bool_and(hs.raw) AS raw
    FROM sel JOIN hs ON hs.series_id = sel.series_id
    GROUP BY ALL
  )`;

/**
 * The same for whole series (no window, no time buckets), from `series_hist`: every series'
 * buckets already summed once at load, so merging clients costs thousands of rows, not millions.
 * $1 (no time buckets here) keeps the parameter list of HIST_FROM_ROWS.
 */
const HIST_FROM_SERIES = `
  h AS (
    SELECT sel.g, 0 AS tb, sh.lo, sh.width, sum(sh.n)::BIGINT AS n, bool_and(sh.raw) AS raw
    FROM sel JOIN series_hist sh ON sh.series_id = sel.series_id
    WHERE $1::BIGINT IS NULL
    GROUP BY sel.g, sh.lo, sh.width
  )`;

function histCte(sel: Selection, bucketS: number | null): string {
  return windowed(sel) || bucketS !== null ? HIST_FROM_ROWS : HIST_FROM_SERIES;
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

/**
 * Rank of percentile k in a group, as SQL over numbered parameters (never pasted values): exact
 * integers ⌈num·total/den⌉ for raw samples; for histograms HdrHistogram 2.2.2's double
 * arithmetic, ceil((p_down · total) / 100) in that order.
 */
function rankSql(first: number): string {
  const [num, den, pDown] = [first, first + 1, first + 2].map((i) => `$${i}`);
  // A group never mixes raw samples with histogram buckets (such merges are refused), so each
  // row's own flag tells the group's rule.
  return `CASE WHEN raw
    THEN greatest(1, (${num}::VARCHAR::HUGEINT * total::HUGEINT + ${den}::VARCHAR::HUGEINT - 1) // ${den}::VARCHAR::HUGEINT)
    ELSE greatest(1, ceil((${pDown}::DOUBLE * total::DOUBLE) / 100.0::DOUBLE))::HUGEINT
  END`;
}

export interface GroupSummary extends GroupStats {
  /** Epoch second starting the time bucket (0 without bucketing). */
  tb: number;
  /** Values at the requested percentiles, in order (null when the group is empty). */
  values: (number | null)[];
}

/**
 * For every group (and time bucket of `bucketS` seconds, when given): count, min, max and mean
 * exactly as HdrHistogram computes them (bucket mid-points, exact integer sums), the standard
 * deviation (from exact sums in one pass: equal to HdrHistogram's two-pass value except where it is
 * below ~1e-4 of the mean), and the values at `percentiles` — read once from the merged histogram,
 * never averaged or maxed over clients or intervals. One window pass and one aggregate; a series
 * may stand in several groups (its client's and its run's), so per-client and merged figures come
 * from one query.
 */
export function groupSummaries(db: Db, sel: Selection, percentiles: readonly number[], bucketS: number | null = null): GroupSummary[] {
  setSelection(db, sel);
  const terms = percentiles.map(percentileRankTerms);
  const pctColumns = terms.map((_, k) => `min(lo + width - 1) FILTER (WHERE cum >= ${rankSql(2 + 3 * k)})::BIGINT AS p${k}`);
  const rows = db.query(
    `WITH ${histCte(sel, bucketS)},
     c AS (
       SELECT g, tb, lo, width, n, raw, lo + width // 2 AS mid,
              sum(n) OVER (PARTITION BY g, tb ORDER BY lo ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cum,
              sum(n) OVER (PARTITION BY g, tb) AS total
       FROM h
     ),
     s AS (
       SELECT g, tb, any_value(total) AS total, min(lo) AS min_lo, max(lo + width - 1) AS max_hi,
              sum(n * mid::HUGEINT) AS s1, sum(n * mid::HUGEINT * mid::HUGEINT) AS s2, bool_and(raw) AS raw_values${pctColumns.map((col) => `,\n              ${col}`).join('')}
       FROM c WHERE total > 0
       GROUP BY g, tb
     )
     SELECT g, tb::BIGINT AS tb, total::BIGINT AS count, min_lo::BIGINT AS min, max_hi::BIGINT AS max,
            s1::DOUBLE / total::DOUBLE AS mean,
            sqrt(greatest(0, s2::DOUBLE / total::DOUBLE - pow(s1::DOUBLE / total::DOUBLE, 2))) AS stddev,
            raw_values${terms.map((_, k) => `, p${k}`).join('')}
     FROM s ORDER BY g, tb`,
    [bucketS, ...terms.flatMap((t) => [t.num, t.den, t.pDown])],
  );
  return rows.map((r) => ({
    g: r.g as number,
    tb: r.tb as number,
    count: r.count as number,
    min: r.min as number,
    max: r.max as number,
    mean: r.mean as number,
    stddev: r.stddev as number,
    rawValues: r.raw_values as boolean,
    values: terms.map((_, k) => (r[`p${k}`] ?? null) as number | null),
  }));
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
    [bucketS],
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

/** The merged histogram of each group over all time, bucket by bucket in value order. */
export function mergedBuckets(db: Db, sel: Selection): { g: number; lo: number; width: number; n: number }[] {
  setSelection(db, sel);
  return db
    .query(
      `SELECT sel.g, sh.lo, sh.width, sum(sh.n)::BIGINT AS n
       FROM sel JOIN series_hist sh ON sh.series_id = sel.series_id
       GROUP BY sel.g, sh.lo, sh.width ORDER BY sel.g, sh.lo`,
    )
    .map((r) => ({ g: r.g as number, lo: r.lo as number, width: r.width as number, n: r.n as number }));
}
