import { describe, expect, it } from 'vitest';
import type { LoadProgress } from '../../src/engine/protocol.ts';
import { overallProgress } from '../../src/views/load-eta.ts';

const file = (path: string, bytesRead: number, totalBytes: number | null, done = false): LoadProgress => ({ path, bytesRead, totalBytes, lines: 0, done });

describe('overall load progress', () => {
  it('sums bytes over files and projects the time left at the rate so far', () => {
    // 300 MB of 1,000 MB in 6 s: 700 MB more at 50 MB/s.
    const p = overallProgress([file('a', 200e6, 200e6, true), file('b', 100e6, 500e6), file('c', 0, 300e6)], 6000);
    expect(p).toEqual({ readBytes: 300e6, totalBytes: 1000e6, etaS: 14 });
  });

  it('counts a finished file whole, even when its last progress event was throttled away', () => {
    expect(overallProgress([file('a', 10, 100, true)], 2000).readBytes).toBe(100);
  });

  it('gives no estimate without a total, before anything is read, or in the first second', () => {
    expect(overallProgress([file('a', 50, 100), file('u', 10, null)], 5000)).toEqual({ readBytes: 60, totalBytes: null, etaS: null });
    expect(overallProgress([file('a', 0, 100)], 5000).etaS).toBeNull();
    expect(overallProgress([file('a', 50, 100)], 999).etaS).toBeNull();
  });
});
