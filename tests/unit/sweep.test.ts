import { describe, expect, it } from 'vitest';
import { capacityOf, findKnee, utilisationPct } from '../../src/analysis/sweep.ts';

describe('load sweeps', () => {
  it('finds the knee where a flat curve turns steep', () => {
    const points = [100, 200, 300, 400, 500, 600, 700].map((x, i) => ({ x, y: [1, 1.1, 1.2, 1.4, 2, 6, 20][i] as number }));
    expect(findKnee(points)).toBe(4);
  });

  it('reports no knee on a flat curve, a short sweep or a straight line', () => {
    expect(findKnee([1, 2, 3, 4].map((x) => ({ x, y: 10 + (x % 2) })))).toBeNull();
    expect(findKnee([{ x: 1, y: 1 }, { x: 2, y: 50 }])).toBeNull();
    expect(findKnee([1, 2, 3, 4, 5].map((x) => ({ x, y: x * 10 })))).toBeNull();
  });

  it('utilisation is throughput over the best run of the system', () => {
    expect(capacityOf([100, null, 400, 250])).toBe(400);
    expect(capacityOf([null])).toBeNull();
    expect(utilisationPct(100, 400)).toBe(25);
    expect(utilisationPct(100, 0)).toBeNull();
  });
});
