/**
 * An A/B comparison as plain data (src/analysis/compare.ts computes it): what the page, the
 * report, the CLI print, and what a shared comparison carries to where the per-second data that
 * made its intervals is gone.
 */

export type Verdict = 'better' | 'worse' | 'same';
export type CompareMethod = 'block-bootstrap' | 'between-runs' | 'none';

export interface ComparisonRow {
  op: string;
  /** 'p99', 'p99.9', … or 'throughput'. */
  stat: string;
  /** µs for percentiles, ops/s for throughput. */
  baseline: number | null;
  candidate: number | null;
  ratio: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  verdict: Verdict | null;
  method: CompareMethod;
  /** benchstat's way: "+12.3% ± 4.1%", "~" when not significant, "" without an interval. */
  delta: string;
  /** Why there is no interval, or a caveat on the one given. */
  note?: string;
}

export interface SideSummary {
  label: string;
  runs: string[];
  /** Per run: seconds resampled and the block length used (bootstrap only). */
  seconds: number[];
  blockLengthS: number[];
}

export interface CompareResult {
  baseline: SideSummary;
  candidate: SideSummary;
  percentiles: number[];
  method: CompareMethod;
  /** The method in words, with its parameters, for the page, the report and the CLI. */
  methodText: string;
  confidence: number;
  resamples: number;
  seed: number;
  rows: ComparisonRow[];
  /** Why something asked for could not be compared at all. */
  problems: string[];
  notes: string[];
  /**
   * Shown from a shared comparison (link or file), which has no per-second data: computed from the
   * result files before they were shared, and carried as it was.
   */
  carried?: boolean;
}
