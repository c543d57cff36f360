import { beforeAll, describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import { analyseStore, type Analysis, type RunAnalysis } from '../../src/engine/analyse.ts';
import { openNodeDb } from '../../src/engine/node-db.ts';
import { Store } from '../../src/engine/store.ts';
import { groupIntoRuns } from '../../src/model/grouping.ts';
import { fileTally } from '../../src/model/file-tally.ts';

/**
 * A load sends its figures before its throughput timelines (the table shows while the timelines
 * are computed): the first analysis must hold the same figures as the full one, no timeline, and
 * the full one must reuse its figures rather than compute them again.
 */

const withoutTimeline = ({ throughputPerSecond: _t, steps: _s, ...rest }: RunAnalysis) => rest;

let first: Analysis;
let full: Analysis;
beforeAll(async () => {
  const loaded = await loadFiles(['tests/fixtures/corpus/split-for-heat']);
  const store = new Store(await openNodeDb());
  store.addRuns(groupIntoRuns(loaded.files));
  const files = loaded.files.map(fileTally);
  first = analyseStore(store, loaded.errors, loaded.ignored, {}, files, 'pending');
  full = analyseStore(store, loaded.errors, loaded.ignored, {}, files);
});

describe('summary first, then timelines', () => {
  it('sends the figures without timelines or steps, marked as such', () => {
    expect(first.timelinesPending).toBe(true);
    expect(first.runs.length).toBeGreaterThan(0);
    for (const run of first.runs) expect([run.throughputPerSecond, run.steps]).toEqual([null, []]);
  });

  it('then the full analysis: the same figures, with the timelines and the split-for-heat steps', () => {
    expect(full.timelinesPending).toBeUndefined();
    expect(full.runs.map(withoutTimeline)).toEqual(first.runs.map(withoutTimeline));
    expect(full.runs.every((r) => r.throughputPerSecond !== null)).toBe(true);
    expect(full.runs.some((r) => r.steps.length > 0)).toBe(true);
  });

  it('computes the figures once: the full analysis carries the first one’s', () => {
    full.runs.forEach((run, i) => expect(run.ops).toBe(first.runs[i]?.ops));
  });
});
