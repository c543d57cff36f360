/**
 * The common data model every input format parses into.
 *
 * A file yields one ParsedFile: the latency series it holds (one per operation, or per tag), plus
 * whatever run metadata it carries (a YCSB command line, a summary, a per-second status series).
 * Grouping files into runs and clients happens later (src/model/grouping.ts) so that each format
 * module only has to describe what is inside one file.
 */

/**
 * Which input format module read a file. The generic formats are named after what they are; a
 * producer's own outputs (text, CSV, JSON, HdrHistogram logs it tags its own way) after the producer,
 * whichever of its files it is: `summarize --json` reports this as `files[].format`.
 */
export const FORMAT_IDS = [
  'hdr-log',
  'hgrm',
  'ycsb-raw',
  /** YCSB stdout (summary) and/or stderr (command line, status lines): often redirected into one file. */
  'ycsb-text',
  'generic-csv',
  /** Per-operation rows in Parquet, columns recognised as in a per-operation CSV. */
  'parquet',
  'cassandra-stress',
  'scylla-bench',
  'nosqlbench',
  'memtier',
  'pgbench',
  'sysbench',
  'go-ycsb',
  'redis-benchmark',
  'k6',
  'jmeter',
  'gatling',
  'wrk',
  'vegeta',
  'locust',
] as const;
export type FormatId = (typeof FORMAT_IDS)[number];

/** Time unit of recorded latency values. */
export type LatencyUnit = 'ns' | 'us' | 'ms' | 's';

/** One problem found in a file. `line` is 1-based; 0 means the file as a whole. */
export interface ParseIssue {
  file: string;
  line: number;
  field?: string;
  message: string;
}

/**
 * The precision of an HdrHistogram: two histograms can only be summed bucket by bucket when this
 * matches (otherwise bucket boundaries differ).
 */
export interface HdrPrecision {
  significantDigits: number;
  lowestDiscernibleValue: number;
}

/**
 * A histogram as non-empty buckets, in value order. `lo[i]` is the lowest value equivalent to the
 * bucket, `width[i]` the size of its equivalent-value range (1 for exact values); the bucket holds
 * the values lo..lo+width-1. Numbers, not BigInt: counts and values stay below 2^53 in practice and
 * the decoder refuses anything larger.
 */
export interface SparseHistogram {
  lo: Float64Array;
  width: Float64Array;
  count: Float64Array;
  totalCount: number;
}

/**
 * Counts of buckets: 32-bit where every count of the histogram fits (nearly always), else doubles.
 * Decoding an hour of interval logs spends more on filling fresh memory with its buckets than on
 * anything but inflating them: a third less memory per bucket is a third less of that.
 */
export type BucketCounts = Float64Array | Uint32Array;

/**
 * An HdrHistogram as decoded: its non-empty buckets by their index in the counts array of its
 * precision, ascending (`HdrLayout.bucketBounds` gives their lo and width). An hour of interval
 * logs is tens of millions of buckets: an index and a count take half the memory of lo, width and
 * count, and the worker sums buckets by index without working it out from a value.
 */
export interface IndexedHistogram {
  index: Int32Array;
  count: BucketCounts;
  totalCount: number;
}

/** One interval of an interval log, timed in microseconds; its buckets are in the series' precision. */
export interface HistogramInterval {
  /** Interval start: epoch µs when `timeBase` is 'absolute', else µs since an unknown origin. */
  startUs: number;
  lengthUs: number;
  histogram: IndexedHistogram;
  /** 1-based line number in the source file, for error reports. */
  line: number;
}

export interface SeriesBase {
  /** Operation or measurement name as the producer wrote it: READ, UPDATE, READ-FAILED, Intended-READ… */
  op: string;
  unit: LatencyUnit;
  /** Client named by the file's content (a `client` column); otherwise grouping derives it. */
  client?: string;
  /**
   * 'run': figures of the whole run, every client and thread together — a tool's own final
   * report (pgbench's stdout). Beside per-request data of the same operation in the same run, it
   * is shown as the tool's report (`<op> (report)`), never added to that data.
   */
  scope?: 'run';
}

/** HdrHistogram interval log data for one operation (or tag). */
export interface HistogramSeries extends SeriesBase {
  kind: 'histogram';
  precision: HdrPrecision;
  timeBase: 'absolute' | 'relative';
  intervals: HistogramInterval[];
}

/**
 * Raw per-operation samples, counted exactly per (second, latency value) as they are read: every
 * question asked of them is about whole seconds, and a 20-million-row file then costs a few
 * hundred thousand counts instead of 20 million pairs held for the whole session. Times are
 * epoch ms (YCSB: the operation's end). Failed operations form their own series (`READ-FAILED`),
 * as YCSB reports them.
 */
export interface RawSeries extends SeriesBase {
  kind: 'raw';
  /** Samples read (the sum of `counts.n`). */
  samples: number;
  /** Earliest and latest sample time in ms, which the per-second counts no longer hold; null when no sample has a time. */
  firstMs: number | null;
  lastMs: number | null;
  counts: SampleCountColumns;
}

/**
 * A raw series' counts: one cell per distinct (second, value), second after second. A second is
 * held once for its cells, not once per cell: at 8 bytes of 24 per cell, that was a third of the
 * memory of a large run's counts, and every question reads them a second at a time anyway.
 */
export interface SampleCountColumns {
  /** The seconds with samples, ascending, each once; NaN last: the samples without a time. */
  secs: Float64Array;
  /** The cells of `secs[k]` are `starts[k]` to `starts[k + 1] - 1`; one entry more than `secs`. */
  starts: Uint32Array;
  value: Float64Array;
  n: Float64Array;
}

/** A percentile distribution (`.hgrm`): rows of (value, percentile, cumulative count). */
export interface DistributionSeries extends SeriesBase {
  kind: 'distribution';
  rows: { value: number; percentile: number; totalCount: number }[];
  totalCount: number;
  /** From the `SubBuckets` footer (lowest discernible value assumed 1); null when absent. */
  precision: HdrPrecision | null;
  mean: number | null;
  stddev: number | null;
  max: number | null;
  /**
   * Every non-empty bucket is a row, each exact for every rank it holds (sysbench's `--histogram`
   * table, a decoded HdrHistogram): clients' distributions of one bucket layout (the same
   * precision, or a producer's fixed buckets when it is null) then sum exactly, row by row.
   */
  allBuckets?: true;
}

/** Printed figures: a tool's own figures with no underlying samples (YCSB's stdout block for one operation, a tool's end-of-run output). */
export interface PrintedSeries extends SeriesBase {
  kind: 'printed';
  count: number;
  mean: number | null;
  /** Standard deviation when the producer printed it (or its sums give it exactly). */
  stddev?: number | null;
  min: number | null;
  max: number | null;
  /** Percentile label ('p95', 'p99.9', …) to value, as the producer printed it. */
  percentiles: Record<string, number>;
  /** YCSB `Return=STATUS, n` lines. */
  returns: Record<string, number>;
}

/**
 * One interval of a producer's own periodic report (cassandra-stress's and scylla-bench's rows,
 * sysbench's `[ 10s ]` lines, pgbench's aggregated log, memtier's per-second JSON, Locust's stats
 * history): the count is exact, and so are min, max and a mean from sums; its percentiles are the
 * tool's own, of that interval only.
 */
export interface IntervalRow {
  /** Interval start: epoch µs when the series' `timeBase` is 'absolute', else µs since the run's start. */
  startUs: number;
  lengthUs: number;
  /** Operations completed in the interval (for a `-FAILED` series: failed ones). */
  count: number;
  mean: number | null;
  stddev: number | null;
  min: number | null;
  max: number | null;
  /** Percentile label ('p50', 'p95', 'p99.9', …) to value, as the producer printed it (in `unit`). */
  percentiles: Record<string, number>;
  /** 1-based line number in the source file. */
  line: number;
}

/**
 * Printed figures per interval for one operation (a producer's periodic lines): throughput over
 * time is exact from them; a percentile over several intervals (or clients) is only bounded by the
 * intervals' own values (the p-quantile of a union lies between the smallest and the largest
 * p-quantile of its parts).
 */
export interface IntervalsSeries extends SeriesBase {
  kind: 'intervals';
  timeBase: 'absolute' | 'relative';
  rows: IntervalRow[];
}

export type LatencySeries = HistogramSeries | RawSeries | DistributionSeries | PrintedSeries | IntervalsSeries;

/** A YCSB client's parsed command line (echoed as the first stderr line, or recovered from paths). */
export interface YcsbCommandLine {
  raw: string;
  db: string | null;
  workloadFiles: string[];
  threads: number | null;
  /** Per-client target ops/s (`-target`), null when unthrottled. */
  target: number | null;
  /** `-p name=value` properties, in order (later wins). */
  properties: Record<string, string>;
  phase: 'run' | 'load' | null;
}

/** One line of YCSB's per-interval status output. */
export interface StatusPoint {
  /** Whole seconds since the client started, as printed. */
  elapsedS: number;
  /** Cumulative operations so far. */
  operations: number;
  /** Throughput of the last interval; null for `∞` or missing. */
  currentOpsPerS: number | null;
  /** Local wall-clock time printed at the start of the line, ms (timezone unknown). */
  localTimeMs: number | null;
  /** Per-measurement figures of this interval. */
  ops: Record<string, StatusOpFigures>;
}

export interface StatusOpFigures {
  count: number;
  max: number | null;
  min: number | null;
  avg: number | null;
  percentiles: Record<string, number>;
}

/** A run's time and rate as its tool printed them: YCSB's `[OVERALL]` block, wrk's `N requests in 3.00s` and `Requests/sec`. */
export interface OverallSummary {
  runTimeMs: number | null;
  throughputOpsPerS: number | null;
}

/** What one file contributes. */
export interface ParsedFile {
  /** Path as given (relative path in a dropped folder, or the CLI argument path). */
  path: string;
  format: FormatId;
  series: LatencySeries[];
  commandLine?: YcsbCommandLine;
  overall?: OverallSummary;
  status?: StatusPoint[];
  /**
   * What the producer says about itself and the run (non-YCSB tools): its version, the command
   * line or settings it echoes, in its own words. Shown as the run's provenance.
   */
  producer?: ProducerInfo;
  /**
   * A client name the file's content states (e.g. the prefix in YCSB's `hdrhistogram.output.path`);
   * grouping falls back to the file name when absent.
   */
  clientHint?: string;
  /**
   * The prefix a harness, logger or CI runner wrote before the file's lines (a timestamp), removed
   * before the format module read them.
   */
  linePrefix?: StrippedPrefix;
  /** Failed requests by status and message, as the tool wrote them (src/model/failures.ts). */
  failures?: FileFailures;
  /**
   * Why this file, read in parts (src/engine/file-parts.ts), must be read whole instead: what the
   * parser saw that a part cannot read as the whole file would (a quoted field holding a line end).
   */
  partUnsafe?: string;
  errors: ParseIssue[];
  /** Lines that were not used because they were malformed (each also reported in `errors`, capped). */
  skippedLines: number;
  /** Total lines read. */
  lines: number;
}

/** The shapes of line prefix recognised (src/formats/line-prefix.ts). */
export type LinePrefixId = 'syslog-header' | 'bracketed-timestamp' | 'rfc3339-timestamp' | 'syslog-timestamp';

/** What a file entry says about a prefix removed from its lines. */
export interface StrippedPrefix {
  shape: LinePrefixId;
  label: string;
  /** Lines it was removed from; the file's other lines were read as they are. */
  lines: number;
}

/** Failed requests of one operation with one status and message (tallied by src/model/failures.ts). */
export interface FailureCount {
  /** The operation's name, without `-FAILED`. */
  op: string;
  /** The status as the tool wrote it (`500`, `KO`, `ERROR`); null where it writes none. */
  status: string | null;
  /** The message as the tool wrote it; null where it writes none. */
  message: string | null;
  count: number;
}

/**
 * A file's failures: 'requests' when counted from its per-request rows (exact), 'report' when only
 * the tool's own report gives them (vegeta's `status_codes`, Locust's failures file).
 */
export interface FileFailures {
  from: 'requests' | 'report';
  counts: FailureCount[];
}

export interface ProducerInfo {
  tool: string;
  version?: string;
  /** The command line or settings header as the tool printed it. */
  command?: string;
  /** Named settings the tool printed (threads, rate, duration, …), as text. */
  settings?: Record<string, string>;
}

/**
 * Labels of an operation name: what it measures and whether it counts as throughput. 'derived':
 * another view of requests that other operations already count (a sample's time to first byte, a
 * tool's all-requests row), shown but never counted again.
 */
export type OpKind = 'op' | 'failed' | 'intended' | 'cleanup' | 'derived';
