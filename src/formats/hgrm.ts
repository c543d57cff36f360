import { baseName, splitClientAndOp, withoutCompression } from '../model/naming.ts';
import type { DistributionSeries, HdrPrecision, ParsedFile } from '../model/types.ts';
import { IssueLog, type FormatModule, type LineParser } from './format.ts';

/**
 * HdrHistogram percentile distributions (`outputPercentileDistribution`, `.hgrm`), in the plain
 * column layout and the CSV layout. A distribution lists (value, percentile, cumulative count) at
 * percentile ticks only, so most percentiles can only be bounded from it — see
 * src/model/distribution.ts.
 */

const PLAIN_ROW = /^\s*([\d.]+(?:[eE][+-]?\d+)?)\s+([\d.]+)\s+(\d+)(?:\s+(\S+))?\s*$/;
const CSV_ROW = /^\s*([\d.]+(?:[eE][+-]?\d+)?),([\d.]+),(\d+)(?:,(.*))?$/;
const FOOTER_MEAN = /^#\[Mean\s*=\s*([\d.eE+-]+|NaN),\s*StdDeviation\s*=\s*([\d.eE+-]+|NaN)\]/;
const FOOTER_MAX = /^#\[Max\s*=\s*([\d.eE+-]+),\s*Total count\s*=\s*(\d+)\]/;
const FOOTER_BUCKETS = /^#\[Buckets\s*=\s*(\d+),\s*SubBuckets\s*=\s*(\d+)\]/;

/** HdrHistogram sizes sub-buckets as 2^ceil(log2(2 × 10^digits)); invert that. */
function precisionFromSubBuckets(subBuckets: number): HdrPrecision | null {
  for (let digits = 0; digits <= 5; digits++) {
    if (2 ** Math.ceil(Math.log2(2 * 10 ** digits)) === subBuckets) return { significantDigits: digits, lowestDiscernibleValue: 1 };
  }
  return null;
}

class HgrmParser implements LineParser {
  private readonly issues: IssueLog;
  private readonly rows: DistributionSeries['rows'] = [];
  private mean: number | null = null;
  private stddev: number | null = null;
  private max: number | null = null;
  private footerCount: number | null = null;
  private precision: HdrPrecision | null = null;
  private lines = 0;

  constructor(private readonly path: string) {
    this.issues = new IssueLog(path);
  }

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    const line = text.trim();
    if (line.length === 0) return;
    if (line.startsWith('#')) return this.footer(line);
    if (/^"?Value"?[\s,]/.test(line)) return;
    const m = PLAIN_ROW.exec(line) ?? CSV_ROW.exec(line);
    if (!m) return this.issues.skip(lineNo, `not a percentile distribution row (value, percentile, total count): "${line.slice(0, 80)}"`);
    const value = Number(m[1]);
    const percentile = Number(m[2]);
    const totalCount = Number(m[3]);
    if (!Number.isFinite(value) || !(percentile >= 0 && percentile <= 1) || !Number.isSafeInteger(totalCount)) {
      return this.issues.skip(lineNo, 'value, percentile (0–1) or total count out of range');
    }
    const prev = this.rows[this.rows.length - 1];
    if (prev && (totalCount < prev.totalCount || value < prev.value || percentile < prev.percentile)) {
      return this.issues.skip(lineNo, 'row goes backwards (value, percentile and count must not decrease)');
    }
    this.rows.push({ value, percentile, totalCount });
  }

  private footer(line: string): void {
    let m = FOOTER_MEAN.exec(line);
    if (m) {
      this.mean = Number(m[1]);
      this.stddev = Number(m[2]);
      return;
    }
    m = FOOTER_MAX.exec(line);
    if (m) {
      this.max = Number(m[1]);
      this.footerCount = Number(m[2]);
      return;
    }
    m = FOOTER_BUCKETS.exec(line);
    if (m) this.precision = precisionFromSubBuckets(Number(m[2]));
  }

  finish(): ParsedFile {
    const last = this.rows[this.rows.length - 1];
    const series: DistributionSeries[] = [];
    if (last) {
      if (this.footerCount !== null && this.footerCount !== last.totalCount) {
        this.issues.note(0, `footer total count ${this.footerCount} differs from the last row's ${last.totalCount}; the file may be truncated`);
      }
      const stem = withoutCompression(baseName(this.path)).replace(/\.(hgrm|txt|csv)$/i, '');
      series.push({
        kind: 'distribution',
        op: splitClientAndOp(stem).op ?? stem,
        unit: 'us',
        rows: this.rows,
        totalCount: last.totalCount,
        precision: this.precision,
        mean: Number.isFinite(this.mean) ? this.mean : null,
        stddev: Number.isFinite(this.stddev) ? this.stddev : null,
        max: this.max ?? last.value,
      });
    } else {
      this.issues.note(0, 'no percentile distribution rows found');
    }
    return {
      path: this.path,
      format: 'hgrm',
      series,
      errors: this.issues.errors,
      skippedLines: this.issues.skippedLines,
      lines: this.lines,
    };
  }
}

export const hgrmFormat: FormatModule = {
  id: 'hgrm',
  label: 'HdrHistogram percentile distribution (.hgrm)',
  detect(head, fileName) {
    if (/^\s*"?Value"?[\s,]+"?Percentile"?[\s,]+"?TotalCount"?/m.test(head)) return 1;
    if (/^#\[Buckets\s*=.*SubBuckets/m.test(head)) return 0.9;
    return /\.hgrm(\.gz)?$/i.test(fileName) ? 0.3 : 0;
  },
  createParser: (path) => new HgrmParser(path),
};
