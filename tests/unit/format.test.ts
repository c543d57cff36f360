import { describe, expect, it } from 'vitest';
import { formatOffset, formatOps } from '../../src/display/format.ts';

/** Rates read the same everywhere: never a bare 0 for a rate that is not zero. */
describe('formatOps', () => {
  it('gives rates below 1/s two significant digits', () => {
    expect(formatOps(3 / 176)).toBe('0.017');
    expect(formatOps(0.5)).toBe('0.5');
    expect(formatOps(0.000123)).toBe('0.00012');
    expect(formatOps(-0.25)).toBe('-0.25');
  });
  it('keeps one decimal up to 100 and whole numbers above', () => {
    expect(formatOps(0)).toBe('0');
    expect(formatOps(1.04)).toBe('1');
    expect(formatOps(12.34)).toBe('12.3');
    expect(formatOps(1234.5)).toBe('1,235');
    expect(formatOps(null)).toBe('–');
  });
});

/** Time since a run's start on chart axes: an axis padded before the start reads as negative time. */
describe('formatOffset', () => {
  it('writes minutes:seconds, and hours once there are any', () => {
    expect(formatOffset(75)).toBe('1:15');
    expect(formatOffset(3725.4)).toBe('1:02:05');
    expect(formatOffset(0)).toBe('0:00');
  });
  it('puts the sign once before a negative offset, never inside its fields', () => {
    expect(formatOffset(-226)).toBe('−3:46');
    expect(formatOffset(-134)).toBe('−2:14');
    expect(formatOffset(-0.4)).toBe('0:00');
  });
});
