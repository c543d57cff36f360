import type { CellValue, QueryResult, ResultColumn } from '../engine/user-query.ts';

/**
 * The Query view's handling of a result: sorting the rows shown, and the one-click chart — a line
 * over a time column (one line per value of a category column beside it, if there is one), or bars
 * of the last number column over a category.
 */

/** Numbers in order, then text, NULL last whichever way. */
function compare(a: CellValue, b: CellValue): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), 'en', { numeric: true });
}

export function sortRows(rows: readonly CellValue[][], sort: { column: number; descending: boolean } | null): CellValue[][] {
  if (!sort) return [...rows];
  const sign = sort.descending ? -1 : 1;
  return [...rows].sort((x, y) => {
    const a = x[sort.column] ?? null;
    const b = y[sort.column] ?? null;
    // NULL stays last in both directions.
    if (a === null || b === null) return compare(a, b);
    return sign * compare(a, b);
  });
}

export interface QueryChart {
  kind: 'line' | 'bar';
  /** One object per x: `x` and a value per series. */
  data: Record<string, number | string | null>[];
  series: string[];
  formatX: (x: number) => string;
}

/** Most lines or bar series drawn; more would be unreadable. */
const MAX_SERIES = 8;
const TIME_NAME = /(^|_)(second|sec|minute|hour|day|time|ts|timestamp|epoch|bucket)(_|$)|_(ms|s)$/i;

const isTimeColumn = (c: ResultColumn) => c.kind === 'time' || (c.kind === 'number' && TIME_NAME.test(c.name));

/** A time column's value as a number on the x axis: ms for instants, the value itself for numbers. */
function timeValue(c: ResultColumn, v: CellValue): number | null {
  if (v === null) return null;
  if (c.kind === 'time') {
    const ms = Date.parse(String(v).replace(' ', 'T') + (/[zZ]|[+-]\d\d:?\d\d$/.test(String(v)) ? '' : 'Z'));
    return Number.isFinite(ms) ? ms : null;
  }
  return typeof v === 'number' ? v : null;
}

function timeFormat(c: ResultColumn): (x: number) => string {
  if (c.kind === 'time') return (x) => new Date(x).toISOString().replace('T', ' ').replace(/\.000Z$|Z$/, '');
  // Epoch seconds or ms by name and size; other numbers as they are.
  if (/(^|_)(second|sec|s)$/i.test(c.name)) return (x) => (x > 1e9 ? new Date(x * 1000).toISOString().slice(11, 19) : String(x));
  if (/_ms$/i.test(c.name)) return (x) => (x > 1e12 ? new Date(x).toISOString().slice(11, 23) : String(x));
  return (x) => String(x);
}

/** The chart for a result, or null when it has nothing to draw (no number column). */
export function queryChart(result: QueryResult): QueryChart | null {
  const { columns, rows } = result;
  const time = columns.findIndex(isTimeColumn);
  const numbers = columns.map((c, i) => ({ c, i })).filter(({ c, i }) => c.kind === 'number' && i !== time);
  if (numbers.length === 0 || rows.length === 0) return null;
  const categories = columns.map((c, i) => ({ c, i })).filter(({ c }) => c.kind === 'text' || c.kind === 'boolean');
  if (time >= 0) {
    const tc = columns[time] as ResultColumn;
    const byX = new Map<number, Record<string, number | string | null>>();
    const series = new Set<string>();
    // One category and one measure: a line per category value (errors per minute by status).
    const pivot = categories.length === 1 && numbers.length === 1 ? categories[0] : undefined;
    for (const r of rows) {
      const x = timeValue(tc, r[time] ?? null);
      if (x === null) continue;
      const point = byX.get(x) ?? { x };
      byX.set(x, point);
      for (const { c, i } of numbers) {
        const name = pivot ? cellName(r[pivot.i] ?? null) : c.name;
        if (!series.has(name) && series.size >= MAX_SERIES) continue;
        series.add(name);
        const v = r[i];
        if (typeof v !== 'number') point[name] ??= null;
        // Several rows of one category at one x (a pivot) add up.
        else point[name] = pivot ? ((point[name] as number | null | undefined) ?? 0) + v : v;
      }
    }
    const data = [...byX.values()].sort((a, b) => (a.x as number) - (b.x as number));
    return { kind: 'line', data, series: [...series], formatX: timeFormat(tc) };
  }
  // Bars of one measure, the last number column (counts beside a p99 would flatten one of them).
  const category = categories[0] ?? numbers[0];
  const measures = numbers.filter(({ i }) => i !== category?.i).slice(-1);
  if (!category || measures.length === 0) return null;
  const data = rows.map((r) => ({ x: cellName(r[category.i] ?? null), ...Object.fromEntries(measures.map(({ c, i }) => [c.name, typeof r[i] === 'number' ? r[i] : null])) }));
  return { kind: 'bar', data, series: measures.map(({ c }) => c.name), formatX: String };
}

const cellName = (v: CellValue) => (v === null ? 'NULL' : String(v));
