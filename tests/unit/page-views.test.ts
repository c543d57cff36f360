import { describe, expect, it } from 'vitest';
import { chartOps, currentView, firstView, offeredViews } from '../../src/display/page-views.ts';
import { op, view } from './helpers/run-views.ts';

const NO_LABELS = { runs: {} };

/** The first view follows the data; the user's choice wins when the data offers it. */
describe('page views', () => {
  it('opens a single run on its overview', () => {
    expect(firstView([view({})], NO_LABELS)).toBe('overview');
  });

  it('opens a sweep (several load levels) on the charts', () => {
    const sweep = [view({ loadLevel: '1,000 ops/s' }), view({ loadLevel: '2,000 ops/s' })];
    expect(firstView(sweep, NO_LABELS)).toBe('charts');
    expect(offeredViews(sweep, NO_LABELS)).toEqual(['overview', 'charts']);
  });

  it('opens repeats of one test on their history, and offers it only then', () => {
    const repeats = [view({}), view({}), view({})];
    expect(firstView(repeats, NO_LABELS)).toBe('history');
    expect(offeredViews(repeats, NO_LABELS)).toContain('history');
    // Other operations: another test, not a repeat.
    expect(firstView([view({}), view({}), view({ ops: { GET: op(10, 5) } })], NO_LABELS)).toBe('charts');
  });

  it("keeps the user's choice when the data offers it", () => {
    const one = [view({})];
    expect(currentView(one, { view: 'charts', runs: {} })).toBe('charts');
    expect(currentView(one, { view: 'history', runs: {} })).toBe('overview');
  });

  it('charts the busiest operations, at most 10 lines, in the runs own order', () => {
    const ops = Object.fromEntries(Array.from({ length: 37 }, (_, i) => [`GET /item/${i}`, op(i + 1, 1000)]));
    const runs = [view({ ops: { ...ops, 'GET /item/0-FAILED': op(500, 10) } })];
    const drawn = chartOps(runs, []);
    expect(drawn).toHaveLength(10);
    expect(drawn).toEqual(Array.from({ length: 10 }, (_, i) => `GET /item/${27 + i}`));
    // Drawn once per run for two runs: five operations.
    expect(chartOps(runs, [], 2)).toHaveLength(5);
    expect(chartOps(runs, ['GET /item/3', 'nope'])).toEqual(['GET /item/3']);
  });
});
