import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeState, DEFAULT_STATE } from '../../src/state/view-state.ts';
import {
  csvCell,
  embedSnippet,
  embedUrl,
  escapeXml,
  guardFormula,
  markdownText,
  summaryCsv,
  summaryMarkdown,
  summaryTable,
  toCsv,
  toMarkdown,
} from '../../src/display/export.ts';
import { parseCsv } from '../helpers/csv.ts';
import { opSummary, view } from './helpers/run-views.ts';

describe('CSV', () => {
  it('quotes fields holding separators, quotes, line breaks or edge spaces', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\rhere')).toBe('"cr\rhere"');
    expect(csvCell(' padded ')).toBe('" padded "');
    expect(csvCell(null)).toBe('');
    expect(csvCell(4483)).toBe('4483');
    expect(csvCell(1234.5678)).toBe('1234.5678');
    expect(csvCell(Number.NaN)).toBe('');
    expect(csvCell({ min: 100, max: 250 })).toBe('"[100, 250]"');
  });

  it('guards text that a spreadsheet would run as a formula, never numbers', () => {
    for (const formula of ['=HYPERLINK("http://x","y")', '+1', '-2+3', '@SUM(A1)', '\tx', '\rx']) expect(guardFormula(formula)).toBe(`'${formula}`);
    expect(guardFormula('run=1')).toBe('run=1');
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('=SUM(A1,A2)')).toBe(`"'=SUM(A1,A2)"`);
    expect(csvCell('-cmd|"/c calc"')).toBe(`"'-cmd|""/c calc"""`);
    expect(csvCell(-5)).toBe('-5');
  });

  it('writes CRLF records that parse back to the same cells (formulas guarded)', () => {
    expect(toCsv(['a', 'b'], [['x', 1], [null, 'y,z']])).toBe('a,b\r\nx,1\r\n,"y,z"\r\n');
    fc.assert(
      fc.property(fc.array(fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }), (rows) => {
        const width = Math.max(...rows.map((r) => r.length));
        const padded = rows.map((r) => [...r, ...Array<string>(width - r.length).fill('')]);
        const parsed = parseCsv(toCsv(padded[0] as string[], padded.slice(1)));
        expect(parsed).toEqual(padded.map((r) => r.map(guardFormula)));
      }),
    );
  });
});

describe('Markdown', () => {
  it('escapes what would split a cell, end the table, or become markup', () => {
    expect(markdownText('a|b')).toBe('a\\|b');
    expect(markdownText('two\nlines\r\nhere')).toBe('two lines here');
    expect(markdownText('<script>alert(1)</script>')).toBe('\\<script\\>alert(1)\\</script\\>');
    expect(markdownText('back\\slash|pipe')).toBe('back\\\\slash\\|pipe');
    expect(markdownText('*bold* _em_ `code` [link] ~~s~~ &amp;')).toBe('\\*bold\\* \\_em\\_ \\`code\\` \\[link\\] \\~\\~s\\~\\~ \\&amp;');
    expect(markdownText('sweep-uniform-a/target-1000')).toBe('sweep-uniform-a/target-1000');
  });

  it('writes a GFM table with numeric columns aligned right', () => {
    const md = toMarkdown({ header: ['run', 'p99 (µs)'], numeric: [false, true], rows: [['a|b', 4483], ['c', { min: 1, max: 2 }], ['d', null]] });
    expect(md).toBe('| run | p99 (µs) |\n| --- | ---: |\n| a\\|b | 4483 |\n| c | [1, 2] |\n| d |  |\n');
  });
});

describe('summary export', () => {
  const views = [
    view({
      label: 'sweep/target-1000',
      ops: {
        READ: opSummary({ count: 1000, mean: 812.5, p50: 700, p90: 1500, p95: 2000, p99: 4483, 'p99.9': 9000, 'p99.99': 12000, max: 15000, naive: { maxClientP95: 2100, maxClientP99: 4600, meanClientP99: 4400 } }),
        'READ-FAILED': opSummary({ count: 3 }),
      },
      durationS: 10,
    }),
    view({ label: '=evil,"run"\nx', ops: { UPDATE: opSummary({ count: 5, exact: false, bounds: { p99: { min: 100, max: 250 }, mean: { min: 10, max: 20 } } }) }, durationS: null }),
    view({ label: 'hidden', ops: { READ: opSummary({ count: 1 }) }, durationS: 1, hidden: true }),
  ];

  it('has the table’s columns and rows, hidden runs left out', () => {
    const t = summaryTable(views);
    expect(t.header).toEqual(['run', 'op', 'count', 'ops/s', 'mean (µs)', 'p50 (µs)', 'p90 (µs)', 'p95 (µs)', 'p99 (µs)', 'p99.9 (µs)', 'p99.99 (µs)', 'max (µs)', 'max-of-clients p95 (µs)', 'max-of-clients p99 (µs)']);
    expect(t.numeric).toEqual([false, false, ...Array<boolean>(12).fill(true)]);
    expect(t.rows).toEqual([
      ['sweep/target-1000', 'READ', 1000, 100, 812.5, 700, 1500, 2000, 4483, 9000, 12000, 15000, 2100, 4600],
      ['sweep/target-1000', 'READ-FAILED', 3, 0.3, null, null, null, null, null, null, null, null, null, null],
      ['=evil,"run"\nx', 'UPDATE', 5, null, { min: 10, max: 20 }, null, null, null, { min: 100, max: 250 }, null, null, null, null, null],
    ]);
  });

  it('as CSV: exact numbers, bounds as [min, max], hostile labels quoted and guarded', () => {
    const rows = parseCsv(summaryCsv(views));
    expect(rows).toHaveLength(4);
    expect(rows[1]).toEqual(['sweep/target-1000', 'READ', '1000', '100', '812.5', '700', '1500', '2000', '4483', '9000', '12000', '15000', '2100', '4600']);
    expect(rows[3]?.slice(0, 5)).toEqual([`'=evil,"run"\nx`, 'UPDATE', '5', '', '[10, 20]']);
    expect(rows[3]?.[8]).toBe('[100, 250]');
  });

  it('as Markdown: one line per row, labels escaped', () => {
    const lines = summaryMarkdown(views).trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[2]).toBe('| sweep/target-1000 | READ | 1000 | 100 | 812.5 | 700 | 1500 | 2000 | 4483 | 9000 | 12000 | 15000 | 2100 | 4600 |');
    expect(lines[4]).toBe('| =evil,"run" x | UPDATE | 5 |  | [10, 20] |  |  |  | [100, 250] |  |  |  |  |  |');
  });
});

describe('embed', () => {
  it('links to the chart alone with the rest of the view, embed last', () => {
    const state = { ...DEFAULT_STATE, files: ['sample-results/a/client1-READ.hdr'], theme: 'dark' as const, chart: 'cost' as const };
    const url = embedUrl('https://bench.example/lens/?x=1#chart=cost&v=1', state, 'throughput');
    expect(url).toBe('https://bench.example/lens/?x=1#files=sample-results/a/client1-READ.hdr&chart=throughput&theme=dark&v=2&embed=throughput');
    expect(decodeState(new URL(url).hash)).toEqual({ state: { ...state, chart: 'throughput', embed: 'throughput' }, notices: [] });
  });

  it('gives an iframe snippet with every attribute value escaped', () => {
    expect(embedSnippet('https://bench.example/#chart=throughput&v=1&embed=throughput', 'Throughput over time')).toBe(
      '<iframe src="https://bench.example/#chart=throughput&amp;v=1&amp;embed=throughput" width="100%" height="460" style="border:0" loading="lazy" title="benchlens: Throughput over time"></iframe>',
    );
    const hostile = embedSnippet('https://x/#sla=a"><script>alert(1)</script>', `"><img src=x onerror=alert(1)> & 'q'`);
    expect(hostile).toBe(
      '<iframe src="https://x/#sla=a&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" width="100%" height="460" style="border:0" loading="lazy" title="benchlens: &quot;&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &#39;q&#39;"></iframe>',
    );
    expect(escapeXml(`<a href="x">&'`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;');
  });

  it('a hash with quotes from the state is percent-encoded in the link itself', () => {
    const url = embedUrl('https://bench.example/', { ...DEFAULT_STATE, sla: 'p99 of "READ" <= 3 ms' }, 'latency-vs-load');
    expect(url).not.toMatch(/["<> ]/);
    expect(decodeState(new URL(url).hash).state.sla).toBe('p99 of "READ" <= 3 ms');
  });
});
