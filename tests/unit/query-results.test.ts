import { describe, expect, it } from 'vitest';
import type { QueryResult } from '../../src/engine/user-query.ts';
import { queryChart, sortRows } from '../../src/views/query-results.ts';

const result = (columns: [string, QueryResult['columns'][number]['kind']][], rows: QueryResult['rows']): QueryResult => ({
  columns: columns.map(([name, kind]) => ({ name, kind, type: kind === 'number' ? 'BIGINT' : kind === 'time' ? 'TIMESTAMP' : 'VARCHAR' })),
  rows,
  totalRows: rows.length,
  elapsedMs: 1,
});

describe('Query view results', () => {
  it('sorts numbers as numbers and text naturally, NULL last either way', () => {
    const rows = [[10, 'b'], [null, 'a10'], [9, 'a9'], [100, null]];
    expect(sortRows(rows, { column: 0, descending: false }).map((r) => r[0])).toEqual([9, 10, 100, null]);
    expect(sortRows(rows, { column: 0, descending: true }).map((r) => r[0])).toEqual([100, 10, 9, null]);
    expect(sortRows(rows, { column: 1, descending: false }).map((r) => r[1])).toEqual(['a9', 'a10', 'b', null]);
    expect(sortRows(rows, null)).toEqual(rows);
  });

  it('draws a line per category over a time column when there is one category and one measure', () => {
    const chart = queryChart(
      result([['minute', 'time'], ['status', 'text'], ['errors', 'number']], [
        ['2026-11-25 00:05:00', '500', 11],
        ['2026-11-25 00:05:00', '0', 50],
        ['2026-11-25 00:06:00', '500', 2],
      ]),
    );
    expect(chart?.kind).toBe('line');
    expect(chart?.series).toEqual(['500', '0']);
    expect(chart?.data).toEqual([
      { x: Date.UTC(2026, 10, 25, 0, 5), '500': 11, '0': 50 },
      { x: Date.UTC(2026, 10, 25, 0, 6), '500': 2 },
    ]);
  });

  it('draws a line per measure over a numeric time column, bars of the last measure over a category, nothing without numbers', () => {
    const line = queryChart(result([['second', 'number'], ['ok', 'number'], ['failed', 'number']], [[1795000001, 5, 0], [1795000000, 4, 1]]));
    expect(line?.kind).toBe('line');
    expect(line?.series).toEqual(['ok', 'failed']);
    expect(line?.data.map((d) => d.x)).toEqual([1795000000, 1795000001]);
    const bars = queryChart(result([['url', 'text'], ['requests', 'number'], ['p99_us', 'number']], [['/a', 250, 3], ['/b', 2, 1]]));
    expect(bars).toMatchObject({ kind: 'bar', series: ['p99_us'], data: [{ x: '/a', p99_us: 3 }, { x: '/b', p99_us: 1 }] });
    expect(queryChart(result([['path', 'text']], [['x']]))).toBeNull();
  });
});
