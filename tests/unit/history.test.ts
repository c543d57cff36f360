import { describe, expect, it } from 'vitest';
import { isHistory, labelsFromRunFile, orderRuns, parseOrder, patternRegex, seriesChanges, type HistoryRun } from '../../src/analysis/history.ts';
import { Rng } from '../../src/analysis/rng.ts';
import { simulateHistory } from './helpers/history-sim.ts';
import { runList } from '../../src/display/decide.ts';

const run = (label: string, extra: Partial<HistoryRun> = {}): HistoryRun => ({ key: `results/${label}`, label, startEpochMs: null, labels: {}, ops: ['READ', 'UPDATE'], target: null, system: 'Redis', ...extra });

describe('history: which runs, in what order', () => {
  it('orders by name in natural order: build-9 before build-10', () => {
    const runs = ['build-10', 'build-9', 'build-1', 'build-100'].map((l) => run(l));
    expect(orderRuns(runs, { kind: 'name' }).runs.map((r) => r.label)).toEqual(['build-1', 'build-9', 'build-10', 'build-100']);
  });

  it('orders by start time; runs timed from their own start go last, by name, and are said', () => {
    const runs = [run('c', { startEpochMs: 3000 }), run('a', { startEpochMs: 2000 }), run('b', { startEpochMs: 1000 }), run('z', { startEpochMs: 5, relativeTime: true }), run('y')];
    const { runs: ordered, problems } = orderRuns(runs, { kind: 'time' });
    expect(ordered.map((r) => r.label)).toEqual(['b', 'a', 'c', 'y', 'z']);
    expect(problems).toEqual(['2 run(s) have no start time (their logs count from their own start) and are put last, by name: y, z']);
  });

  it('orders by a label in natural order, whatever the folders are called', () => {
    const runs = [run('x', { labels: { build: '1.10' } }), run('y', { labels: { build: '1.9' } }), run('w', { labels: { build: '1.2' } })];
    expect(orderRuns(runs, { kind: 'label', key: 'build' }).runs.map((r) => r.label)).toEqual(['w', 'y', 'x']);
  });

  it('orders by the part of the folder name a pattern marks', () => {
    const runs = ['nightly-a-20260102', 'nightly-b-20251231', 'nightly-c-20260101', 'other'].map((l) => run(`results/${l}`));
    const { runs: ordered, problems } = orderRuns(runs, parseOrder('pattern:nightly-*-{}'));
    expect(ordered.map((r) => r.label)).toEqual(['results/nightly-b-20251231', 'results/nightly-c-20260101', 'results/nightly-a-20260102', 'results/other']);
    expect(problems[0]).toContain('do not match nightly-*-{}');
  });

  it('reads a pattern as text: only * and {} mean anything', () => {
    expect(patternRegex('v(1).{}').exec('v(1).7')?.[1]).toBe('7');
    expect(patternRegex('v(1).{}').exec('v1x7')).toBeNull();
    expect(() => parseOrder('pattern:build')).toThrow(/one \{\}/);
    expect(() => parseOrder('sideways')).toThrow(/expected time, name/);
    expect(parseOrder('label:commit')).toEqual({ kind: 'label', key: 'commit' });
  });

  it('is a history when at least 3 runs of one system share operations and target', () => {
    expect(isHistory([run('a'), run('b'), run('c')])).toBe(true);
    expect(isHistory([run('a'), run('b')])).toBe(false);
    expect(isHistory([run('a'), run('b'), run('c', { ops: ['READ'] })])).toBe(false);
    expect(isHistory([run('a', { target: 1000 }), run('b', { target: 2000 }), run('c', { target: 3000 })])).toBe(false);
    expect(isHistory([run('a'), run('b'), run('c', { system: 'Mongo' })])).toBe(false);
  });

  it('reads labels from benchlens.json, and says what is wrong with a bad one', () => {
    expect(labelsFromRunFile('{"labels": {"build": "123", "version": 7}, "files": ["a.hdr"]}')).toEqual({ labels: { build: '123', version: '7' } });
    expect(labelsFromRunFile('{"files": []}')).toEqual({ labels: {} });
    expect(labelsFromRunFile('{"labels": {"build": {"x": 1}}}')).toEqual({ error: 'label "build" must be a string or a number' });
    expect(labelsFromRunFile('[1]')).toHaveProperty('error');
    expect(labelsFromRunFile('{')).toHaveProperty('error');
  });
});

describe('history: series and their change points', () => {
  it('names each change by the run where it starts and its position', () => {
    const points = simulateHistory(new Rng(7), { runs: 20, stepAt: 10, factor: 1.2 }).map((p, i) => ({ run: `build-${i + 1}`, ...p }));
    const s = seriesChanges('READ', 'p99', points);
    expect(s.changes.map((c) => [c.run, c.index])).toEqual([['build-11', 10]]);
  });

  it('finds a change of error rate from none to some', () => {
    const points = Array.from({ length: 20 }, (_, i) => ({ run: `r${i}`, value: i >= 12 ? 0.01 + (i % 3) * 0.001 : 0, ciLow: null, ciHigh: null }));
    const s = seriesChanges('all operations', 'errors', points);
    expect(s.changes.map((c) => c.index)).toEqual([12]);
    expect(s.changes[0]!.before).toBeCloseTo(0, 12);
    expect(s.changes[0]!.after).toBeGreaterThan(0.009);
  });

  it('looks for no change in a series with a run missing the figure, and says why', () => {
    const points = [1, 2, 3, 4, 5, 6, 7].map((v, i) => ({ run: `r${i}`, value: i === 3 ? null : v, ciLow: null, ciHigh: null }));
    const s = seriesChanges('READ', 'p99', points);
    expect(s.changes).toEqual([]);
    expect(s.note).toBe('1 run(s) have no p99: no change is looked for');
  });

  it('a Compare side may be the runs before or after a change: a JSON list of run keys, nothing else', () => {
    expect(runList('["results/build-1","results/build-2"]')).toEqual(['results/build-1', 'results/build-2']);
    for (const text of ['results/build-1', '[]', '[1]', '["a",', 'system=Redis']) expect(runList(text), text).toBeNull();
  });
});
