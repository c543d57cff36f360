import { precisionFromSubBuckets } from '../model/hdr-layout.ts';
import { baseName, splitClientAndOp, withoutCompression } from '../model/naming.ts';
import type { DistributionSeries, HdrPrecision, ParsedFile } from '../model/types.ts';
import { LineParserBase, type FormatModule } from './format.ts';

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

class HgrmParser extends LineParserBase {
  private readonly rows: DistributionSeries['rows'] = [];
  private mean: number | null = null;
  private stddev: number | null = null;
  private max: number | null = null;
  private footerCount: number | null = null;
  private precision: HdrPrecision | null = null;
  /** Java writes the footer after plain-layout rows only (never in the CSV layout). */
  private plainRows = false;

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    const line = text.trim();
    if (line.length === 0) return;
    if (line.startsWith('#')) return this.footer(line, lineNo);
    if (/^"?Value"?[\s,]/.test(line)) return;
    const plain = PLAIN_ROW.exec(line);
    const m = plain ?? CSV_ROW.exec(line);
    if (plain) this.plainRows = true;
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

  /**
   * A footer figure, or null. NaN is what Java prints for an empty histogram; anything infinite or
   * negative (no latency or spread is) means a damaged line, which is said.
   */
  private figure(text: string, name: string, lineNo: number): number | null {
    const v = Number(text);
    if (Number.isFinite(v) && v >= 0) return v;
    if (text !== 'NaN') this.issues.note(lineNo, `footer ${name} "${text}" is not a non-negative number; it is not used`);
    return null;
  }

  private footer(line: string, lineNo: number): void {
    let m = FOOTER_MEAN.exec(line);
    if (m) {
      this.mean = this.figure(m[1] ?? '', 'mean', lineNo);
      this.stddev = this.figure(m[2] ?? '', 'standard deviation', lineNo);
      return;
    }
    m = FOOTER_MAX.exec(line);
    if (m) {
      this.max = this.figure(m[1] ?? '', 'max', lineNo);
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
      } else if (this.footerCount === null && this.plainRows) {
        // Without the footer nothing shows whether rows are missing at the end (a cut copy).
        this.issues.note(0, `no footer with the total count (#[Max = …, Total count = …]); the file may be truncated after its last row (percentile ${last.percentile})`);
      }
      const stem = withoutCompression(baseName(this.path)).replace(/\.(hgrm|txt|csv)$/i, '');
      series.push({
        kind: 'distribution',
        op: splitClientAndOp(stem).op ?? stem,
        unit: 'us',
        rows: this.rows,
        totalCount: last.totalCount,
        precision: this.precision,
        mean: this.mean,
        stddev: this.stddev,
        max: this.max ?? last.value,
      });
    } else {
      this.issues.note(0, 'no percentile distribution rows found');
    }
    return this.parsed('hgrm', { series });
  }
}

export const hgrmFormat: FormatModule = {
  id: 'hgrm',
  label: 'HdrHistogram percentile distribution (.hgrm)',
  detect(head, fileName) {
    // [ \t], not \s: with the m flag \s also eats line ends, and a head of blank lines made every
    // line start rescan all the rest (quadratic: seconds for 64 KiB).
    if (/^[ \t]*"?Value"?[ \t,]+"?Percentile"?[ \t,]+"?TotalCount"?/m.test(head)) return 1;
    if (/^#\[Buckets\s*=.*SubBuckets/m.test(head)) return 0.9;
    return /\.hgrm(\.gz)?$/i.test(fileName) ? 0.3 : 0;
  },
  createParser: (path) => new HgrmParser(path),
};
