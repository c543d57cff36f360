import { describe, expect, it } from 'vitest';
import type { Analysis } from '../../src/engine/analyse.ts';
import { DEFAULT_STATE } from '../../src/state/view-state.ts';
import { buildRunViews, pageTitle } from '../../src/display/run-views.ts';
import { view } from './helpers/run-views.ts';

/** Runs of `dirs`, each with the per-client YCSB target given (null: unthrottled) and one client. */
function analysisOf(runs: [string, number | null][]): Analysis {
  const list = runs.map(([dir, target], i) => ({ ...view({ id: i, key: dir }).run, target }));
  return { runs: list } as unknown as Analysis;
}

describe('the order runs are listed in', () => {
  it('follows the offered load within a folder, whatever the runs are called; unthrottled last', () => {
    const views = buildRunViews(
      analysisOf([
        ['sweep/2026-11-20T10', 2000],
        ['sweep/2026-11-20T09', null],
        ['sweep/2026-11-20T11', 500],
        ['sweep/2026-11-20T12', 1000],
      ]),
      DEFAULT_STATE,
    );
    expect(views.map((v) => [v.key, v.offeredOpsPerS])).toEqual([
      ['sweep/2026-11-20T11', 500],
      ['sweep/2026-11-20T12', 1000],
      ['sweep/2026-11-20T10', 2000],
      ['sweep/2026-11-20T09', null],
    ]);
  });

  it('keeps folders apart, in natural order, and names with numbers as numbers where the load is unknown', () => {
    const views = buildRunViews(
      analysisOf([
        ['b/run-10', null],
        ['a10/x', 100],
        ['b/run-9', null],
        ['a9/x', 100],
      ]),
      DEFAULT_STATE,
    );
    expect(views.map((v) => v.key)).toEqual(['a9/x', 'a10/x', 'b/run-9', 'b/run-10']);
  });
});

describe('the page title', () => {
  it('names the shown runs, at most three, and counts the rest', () => {
    expect(pageTitle([])).toBe('benchlens — benchmark results, merged exactly');
    const views = [view({ key: 'a/x' }), view({ key: 'a/y', hidden: true }), view({ key: 'b' }), view({ key: 'c' }), view({ key: 'd' }), view({ key: '<b>e' })];
    expect(pageTitle(views.slice(0, 3))).toBe('a/x, b — benchlens');
    expect(pageTitle(views)).toBe('a/x, b, c and 2 more — benchlens');
  });
});
