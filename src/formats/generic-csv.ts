import Papa from 'papaparse';
import type { LatencyUnit, ParsedFile, RawSeries } from '../model/types.ts';
import { LineParserBase, type FormatModule, type FormatOptions } from './format.ts';
import { SampleCounter } from './sample-counter.ts';
import { FailureTally } from '../model/failures.ts';
import { isFailure, isNotOk, parseTimestampMs, ROLE_PATTERNS, toStoredLatency, unitFromHeader, type Role } from './csv-columns.ts';
import { CHECK_ROWS, mappingProblem } from './csv-mapping.ts';

/**
 * Any per-operation CSV with a header row (JMeter's JTL CSV, custom load generators): columns for
 * time, latency, operation, status and client are recognised by their header names, and can be
 * named explicitly. Latencies become integer µs (ns stays ns) so percentiles remain exact; failed
 * operations go to `<OP>-FAILED` series as YCSB reports them, tallied by their status cell as written.
 */

class GenericCsvParser extends LineParserBase {
  private delimiter = ',';
  private header: string[] | null = null;
  private index: Partial<Record<Role, number>> = {};
  private latencyUnit: LatencyUnit = 'ms';
  private storedUnit: LatencyUnit = 'us';
  /** client + op → series index, in order of first appearance. */
  private readonly seriesIndex = new Map<string, number>();
  private readonly seriesKeys: { client?: string; op: string }[] = [];
  private readonly counter: SampleCounter;
  private readonly failures = new FailureTally();

  constructor(
    path: string,
    private readonly options: FormatOptions = {},
  ) {
    super(path);
    this.counter = new SampleCounter(options.rawSamples);
  }

  private split(line: string): string[] {
    if (!line.includes('"')) return line.split(this.delimiter);
    const parsed = Papa.parse<string[]>(line, { delimiter: this.delimiter });
    return parsed.data[0] ?? [];
  }

  private readHeader(line: string, lineNo: number): void {
    this.delimiter = Papa.parse(line, { preview: 1, delimitersToGuess: [',', '\t', ';', '|'] }).meta.delimiter || ',';
    this.header = this.split(line).map((h) => h.trim());
    const mapping = this.options.mapping;
    if (mapping) {
      const columns: Record<Role, string | undefined> = { time: mapping.time, latency: mapping.latency, op: mapping.op, status: mapping.ok, client: mapping.client };
      for (const role of Object.keys(columns) as Role[]) {
        const i = columns[role] === undefined ? -1 : this.header.indexOf(columns[role]);
        if (i >= 0) this.index[role] = i;
      }
      this.latencyUnit = mapping.unit;
      this.checking = [];
    } else {
      for (const role of Object.keys(ROLE_PATTERNS) as Role[]) {
        const i = this.header.findIndex((h) => ROLE_PATTERNS[role].test(h));
        if (i >= 0) this.index[role] = i;
      }
      const latencyHeader = this.index.latency !== undefined ? this.header[this.index.latency] : undefined;
      const unit = latencyHeader ? unitFromHeader(latencyHeader) : null;
      this.latencyUnit = unit ?? 'ms';
      if (latencyHeader !== undefined && unit === null) {
        this.issues.note(0, `the latency column "${latencyHeader}" names no unit; read as ms — map the file's columns to say otherwise`);
      }
    }
    this.storedUnit = this.latencyUnit === 'ns' ? 'ns' : 'us';
    if (this.index.latency === undefined) this.issues.note(lineNo, 'no latency column recognised in the header; name it explicitly');
  }

  /**
   * With a mapping the user gave, the first rows are held until they show the mapping makes sense
   * (`mappingProblem`): a refused mapping reads no row rather than wrong numbers.
   */
  private checking: { text: string; lineNo: number }[] | null = null;
  private refused = false;

  private check(): void {
    const held = this.checking ?? [];
    this.checking = null;
    const problem = this.options.mapping && this.header ? mappingProblem(this.options.mapping, this.header, held.map((r) => this.split(r.text))) : null;
    if (problem) {
      this.refused = true;
      this.issues.note(0, `column mapping refused: ${problem}`);
      this.issues.skippedLines += held.length;
      return;
    }
    for (const r of held) this.row(r.text, r.lineNo);
  }

  line(text: string, lineNo: number): void {
    this.lines = lineNo;
    if (text.trim().length === 0) return;
    if (!this.header) return this.readHeader(text, lineNo);
    if (this.refused) return void this.issues.skippedLines++;
    if (this.checking) {
      this.checking.push({ text, lineNo });
      if (this.checking.length >= CHECK_ROWS) this.check();
      return;
    }
    this.row(text, lineNo);
  }

  private row(text: string, lineNo: number): void {
    const header = this.header ?? [];
    const latencyIndex = this.index.latency;
    if (latencyIndex === undefined) return void this.issues.skippedLines++;
    const fields = this.split(text);
    const latencyText = fields[latencyIndex];
    if (latencyText === undefined) return this.issues.skip(lineNo, `row has ${fields.length} fields, the latency column is #${latencyIndex + 1}`);
    const latency = toStoredLatency(latencyText, this.latencyUnit);
    if (latency === null || latency < 0) {
      return this.issues.skip(lineNo, `latency "${latencyText.slice(0, 40)}" is not a non-negative ${this.latencyUnit} value representable exactly in ${this.storedUnit}`, header[latencyIndex]);
    }
    let timeMs = Number.NaN;
    if (this.index.time !== undefined) {
      const t = parseTimestampMs(fields[this.index.time] ?? '');
      if (t === null) return this.issues.skip(lineNo, `timestamp "${(fields[this.index.time] ?? '').slice(0, 40)}" is not epoch s/ms/µs/ns or ISO-8601 (up to year 2255)`, header[this.index.time]);
      timeMs = t;
    }
    let op = this.index.op !== undefined ? (fields[this.index.op] ?? '').trim() || 'OP' : 'OP';
    if (this.index.status !== undefined) {
      const status = fields[this.index.status] ?? '';
      if (this.options.mapping ? isNotOk(status) : isFailure(status, header[this.index.status] ?? '')) {
        this.failures.add(op, status, null);
        op += '-FAILED';
      }
    }
    const client = this.index.client !== undefined ? (fields[this.index.client] ?? '').trim() || undefined : undefined;
    const key = `${client ?? ''}\u0000${op}`;
    let index = this.seriesIndex.get(key);
    if (index === undefined) {
      index = this.seriesKeys.length;
      this.seriesIndex.set(key, index);
      this.seriesKeys.push(client !== undefined ? { op, client } : { op });
    }
    this.counter.add(index, timeMs, latency);
  }

  finish(): ParsedFile {
    if (this.checking) this.check();
    const counted = this.counter.finish(this.seriesKeys.length);
    const series: RawSeries[] = this.seriesKeys.map((c, i) => ({
      kind: 'raw',
      op: c.op,
      unit: this.storedUnit,
      ...counted[i]!,
      ...(c.client !== undefined ? { client: c.client } : {}),
    }));
    if (series.length === 0 && this.header && !this.refused) this.issues.note(0, 'no rows with a latency found');
    const failures = this.failures.of('requests');
    return this.parsed('generic-csv', { series, ...(failures ? { failures } : {}) });
  }
}

export const genericCsvFormat: FormatModule = {
  id: 'generic-csv',
  label: 'Per-operation CSV (generic)',
  detect(head) {
    const firstLine = head.split('\n', 1)[0] ?? '';
    const meta = Papa.parse<string[]>(firstLine, { preview: 1 });
    const header = (meta.data[0] ?? []).map((h) => h.trim());
    if (header.length < 2) return 0;
    const hasLatency = header.some((h) => ROLE_PATTERNS.latency.test(h));
    if (!hasLatency) return 0;
    return header.some((h) => ROLE_PATTERNS.time.test(h) || ROLE_PATTERNS.op.test(h)) ? 0.7 : 0.5;
  },
  createParser: (path, options) => new GenericCsvParser(path, options),
  // Each part is read after the header. A quote anywhere in the head may open a field holding a
  // line end, which a part starting inside it would misread: such files are read whole.
  partPreamble: (head) => (head.includes('"') ? null : (head.split('\n', 1)[0] ?? null)),
};
