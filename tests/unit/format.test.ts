import { describe, expect, it } from 'vitest';
import { formatOps } from '../../src/views/format.ts';

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
