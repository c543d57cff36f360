import { describe, expect, it } from 'vitest';
import { intendedLines } from '../../src/charts/IntendedVsActual.tsx';
import { latencyRows, timeTicks } from '../../src/charts/LatencyOverTime.tsx';
import {
  distributionRows,
  formatPercentileLabel,
  MAX_AXIS_PERCENTILE,
  maxRowValue,
  PERCENTILE_AXIS,
  percentileAxisX,
  percentileFromAxis,
  runColours,
  runOpLines,
} from '../../src/charts/PercentileDistribution.tsx';
import type { RunAnalysis } from '../../src/engine/analyse.ts';
import type { RunView } from '../../src/display/run-views.ts';
import { DISTRIBUTION_PERCENTILES } from '../../src/model/percentiles.ts';

/** Only the fields the charts read; the rest of a run's analysis is irrelevant here. */
function view(id: number, label: string, system: string, offeredOpsPerS: number | null, ops: string[] = ['READ', 'UPDATE']): RunView {
  return {
    run: { id, ops: Object.fromEntries(ops.map((op) => [op, {}])) } as unknown as RunAnalysis,
    key: label,
    label,
    system,
    workload: 'a',
    distribution: 'uniform',
    nodes: null,
    loadLevel: '',
    hidden: false,
    offeredOpsPerS,
    deliveredPct: null,
    utilisationPct: null,
    utilisationSource: null,
  };
}

const colours = new Map([
  ['Redis', '#2563eb'],
  ['Cassandra', '#dc2626'],
]);

describe('log percentile axis', () => {
  it('places p at log10(1/(1−p/100))', () => {
    expect(percentileAxisX(0)).toBe(0);
    expect(percentileAxisX(90)).toBeCloseTo(1, 12);
    expect(percentileAxisX(99)).toBeCloseTo(2, 12);
    expect(percentileAxisX(99.9)).toBeCloseTo(3, 12);
    expect(percentileAxisX(99.99)).toBeCloseTo(4, 12);
    expect(percentileAxisX(99.999)).toBeCloseTo(5, 9);
  });

  it('clamps p100 to the end of the axis instead of infinity', () => {
    expect(percentileAxisX(100)).toBe(percentileAxisX(MAX_AXIS_PERCENTILE));
    expect(Number.isFinite(percentileAxisX(100))).toBe(true);
  });

  it('reads positions back as percentiles, and labels the ticks', () => {
    for (const p of DISTRIBUTION_PERCENTILES.filter((q) => q <= MAX_AXIS_PERCENTILE)) expect(percentileFromAxis(percentileAxisX(p))).toBe(p);
    expect(PERCENTILE_AXIS.ticks.map(PERCENTILE_AXIS.tickFormatter)).toEqual(['0%', '90%', '99%', '99.9%', '99.99%', '99.999%']);
    expect(formatPercentileLabel(percentileAxisX(99.95))).toBe('p99.95');
  });
});

describe('distributionRows', () => {
  it('makes one row per percentile with a column per series, sorted along the axis', () => {
    const rows = distributionRows([
      { key: 's0', percentiles: [99, 50], values: [900, 100] },
      { key: 's1', percentiles: [50, 99.9], values: [120, 5000] },
    ]);
    expect(rows.map((r) => r.x)).toEqual([percentileAxisX(50), percentileAxisX(99), percentileAxisX(99.9)]);
    expect(rows[0]).toMatchObject({ s0: 100, s1: 120 });
    expect(rows[1]).toEqual({ x: percentileAxisX(99), s0: 900 });
    expect(maxRowValue(rows, ['s0', 's1'])).toBe(5000);
  });

  it('drops p100, which would otherwise sit on p99.999 with another value', () => {
    const rows = distributionRows([{ key: 's0', percentiles: [99.99, 99.999, 100], values: [10, 20, 7000] }]);
    expect(rows.map((r) => r.s0)).toEqual([10, 20]);
    expect(rows.every((r) => Number.isFinite(r.x))).toBe(true);
  });
});

describe('runColours and runOpLines', () => {
  const views = [view(1, 'target-2000', 'Redis', 2000), view(2, 'unthrottled', 'Redis', null), view(3, 'target-500', 'Redis', 500), view(4, 'c', 'Cassandra', 1000)];

  it('keeps a lone run of a system in its colour and shades a sweep from faint (low load) to strong', () => {
    const c = runColours(views, colours);
    expect(c.get(4)).toBe('#dc2626');
    expect(c.get(3)).toBe('color-mix(in srgb, #2563eb, var(--panel) 40%)');
    expect(c.get(1)).toBe('#2563eb');
    expect(c.get(2)).toBe('color-mix(in srgb, #2563eb, var(--text) 40%)');
  });

  it('draws one line per (run, op), dashed per op, and skips runs not shown', () => {
    const series = [
      { runId: 1, op: 'READ' },
      { runId: 1, op: 'UPDATE' },
      { runId: 4, op: 'READ' },
      { runId: 9, op: 'READ' },
    ];
    const lines = runOpLines(series, views, colours);
    expect(lines.map((l) => l.name)).toEqual(['target-2000 · READ', 'target-2000 · UPDATE', 'c · READ']);
    expect(lines.map((l) => l.dash)).toEqual(['', '6 3', '']);
    expect(new Set(lines.map((l) => l.key)).size).toBe(3);
  });

  it('names lines by operation alone for one run, and by run alone for one operation', () => {
    expect(runOpLines([{ runId: 1, op: 'READ' }, { runId: 1, op: 'UPDATE' }], views, colours).map((l) => l.name)).toEqual(['READ', 'UPDATE']);
    expect(runOpLines([{ runId: 1, op: 'READ' }, { runId: 3, op: 'READ' }], views, colours).map((l) => l.name)).toEqual(['target-2000', 'target-500']);
  });
});

describe('latencyRows', () => {
  it('merges series on the bucket grid and leaves holes where a series has no bucket', () => {
    const rows = latencyRows(
      [
        { key: 's0', t: [0, 1, 3], values: [10, 11, 13] },
        { key: 's1', t: [0, 1, 2], values: [20, null, 22] },
      ],
      1,
    );
    expect(rows).toEqual([
      { t: 0, s0: 10, s1: 20 },
      { t: 1, s0: 11, s1: null },
      // s0 has no bucket at 2 s: a null there, so its line breaks instead of joining 1 s to 3 s.
      { t: 2, s0: null, s1: 22 },
      { t: 3, s0: 13 },
    ]);
  });

  it('aligns runs that started at different phases of wide buckets', () => {
    // 10-s buckets on epoch multiples: a run starting at …07 has buckets at t = −7, 3, 13; one starting at …02 at −2, 8, 18.
    const rows = latencyRows(
      [
        { key: 's0', t: [-7, 3, 13], values: [1, 2, 3] },
        { key: 's1', t: [-2, 8, 18], values: [4, 5, 6] },
      ],
      10,
    );
    expect(rows).toEqual([
      { t: 0, s0: 1, s1: 4 },
      { t: 10, s0: 2, s1: 5 },
      { t: 20, s0: 3, s1: 6 },
    ]);
  });
});

describe('timeTicks', () => {
  it('steps by round seconds and minutes, at most ten steps', () => {
    expect(timeTicks(25)).toEqual([0, 5, 10, 15, 20, 25]);
    expect(timeTicks(180)).toEqual([0, 30, 60, 90, 120, 150, 180]);
    expect(timeTicks(3 * 3600 + 10)).toEqual([0, 1800, 3600, 5400, 7200, 9000, 10800]);
    expect(timeTicks(0)).toEqual([0]);
    expect(timeTicks(30 * 86_400).length).toBeLessThanOrEqual(11);
  });
});

describe('intendedLines', () => {
  const pct = (values: number[]) => ({ percentiles: [50, 99], values });
  const views = [view(1, 'target-5000', 'Redis', 5000, ['READ', 'Intended-READ', 'UPDATE', 'Intended-UPDATE']), view(2, 'target-800', 'Redis', 800, ['READ'])];

  it('pairs each Intended-X with X of the same run: actual solid first, same colour', () => {
    const lines = intendedLines(
      [
        { runId: 1, op: 'READ', ...pct([100, 200]) },
        { runId: 1, op: 'Intended-READ', ...pct([150, 9000]) },
        { runId: 1, op: 'UPDATE', ...pct([110, 210]) },
        { runId: 1, op: 'Intended-UPDATE', ...pct([160, 9500]) },
        { runId: 2, op: 'READ', ...pct([1, 2]) },
      ],
      views,
    );
    expect(lines.map((l) => [l.name, l.intended])).toEqual([
      ['READ actual', false],
      ['READ intended', true],
      ['UPDATE actual', false],
      ['UPDATE intended', true],
    ]);
    expect(lines[0]?.colour).toBe(lines[1]?.colour);
    expect(lines[0]?.colour).not.toBe(lines[2]?.colour);
  });

  it('draws nothing when no shown run has intended latencies', () => {
    expect(intendedLines([{ runId: 2, op: 'READ', ...pct([1, 2]) }], views)).toEqual([]);
    expect(intendedLines([{ runId: 7, op: 'Intended-READ', ...pct([1, 2]) }], views)).toEqual([]);
  });
});
