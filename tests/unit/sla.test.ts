import { describe, expect, it } from 'vitest';
import { evaluateSla, formatSlaRule, parseSlaRule, type PercentileValue, type SlaRule } from '../../src/analysis/sla.ts';

describe('parseSlaRule', () => {
  it('reads the documented example', () => {
    expect(parseSlaRule('p95 of READ <= 10 ms at >= 90000 ops/s')).toEqual({
      percentile: 95,
      op: 'READ',
      maxLatencyUs: 10_000,
      minThroughputOpsPerS: 90_000,
    });
  });

  it('accepts every latency unit, exactly', () => {
    expect(parseSlaRule('p99 of UPDATE <= 750 us').maxLatencyUs).toBe(750);
    expect(parseSlaRule('p99 of UPDATE <= 750 µs').maxLatencyUs).toBe(750);
    expect(parseSlaRule('p99 of UPDATE <= 750 μs').maxLatencyUs).toBe(750); // Greek mu, as keyboards type it
    expect(parseSlaRule('p99 of UPDATE <= 1.1 ms').maxLatencyUs).toBe(1100); // not 1100.0000000000002
    expect(parseSlaRule('p99 of UPDATE <= 0.25 s').maxLatencyUs).toBe(250_000);
    expect(parseSlaRule('p99 of UPDATE <= 2.5ms').maxLatencyUs).toBe(2500);
  });

  it('accepts ≤ and ≥, kops/s, fractional percentiles, and no throughput part', () => {
    expect(parseSlaRule('p99.9 of READ-MODIFY-WRITE ≤ 20 ms at ≥ 1.5 kops/s')).toEqual({
      percentile: 99.9,
      op: 'READ-MODIFY-WRITE',
      maxLatencyUs: 20_000,
      minThroughputOpsPerS: 1500,
    });
    expect(parseSlaRule('  p50 of Intended-READ<=1ms  ')).toEqual({ percentile: 50, op: 'Intended-READ', maxLatencyUs: 1000 });
  });

  it('throws a clear error on anything else', () => {
    expect(() => parseSlaRule('p95 READ <= 10 ms')).toThrow(/cannot read SLA rule 'p95 READ <= 10 ms': expected 'p<percentile> of <OP>/);
    expect(() => parseSlaRule('p95 of READ < 10 ms')).toThrow(/expected/);
    expect(() => parseSlaRule('p95 of READ <= 10')).toThrow(/expected/);
    expect(() => parseSlaRule('p95 of READ <= -1 ms')).toThrow(/expected/);
    expect(() => parseSlaRule('p95 of READ <= 10 ms at 90000 ops/s')).toThrow(/expected/);
    expect(() => parseSlaRule('')).toThrow(/expected/);
    expect(() => parseSlaRule('p95 of READ <= 10 min')).toThrow(/unknown latency unit 'min' \(use us, µs, ms or s\)/);
    expect(() => parseSlaRule('p95 of READ <= 10 ms at >= 5 Mops/s')).toThrow(/unknown throughput unit 'Mops\/s'/);
    expect(() => parseSlaRule('p0 of READ <= 10 ms')).toThrow(/percentile must be above 0 and at most 100, got 0/);
    expect(() => parseSlaRule('p100.5 of READ <= 10 ms')).toThrow(/percentile must be above 0 and at most 100/);
  });
});

describe('formatSlaRule', () => {
  it('writes the canonical form, which reads back to the same rule', () => {
    const texts = [
      'p95 of READ <= 10 ms at >= 90000 ops/s',
      'p99.9 of UPDATE <= 750 us',
      'p99 of SCAN <= 1.1 ms',
      'p50 of READ <= 2 s at >= 1500 ops/s',
    ];
    for (const text of texts) {
      expect(formatSlaRule(parseSlaRule(text))).toBe(text);
    }
  });

  it('round-trips rules written in other spellings', () => {
    for (const text of ['p99.99 of READ ≤ 1500 µs at ≥ 2.5 kops/s', 'p90 of INSERT <= 0.0125 s', 'p95 of READ <= 1000 ms']) {
      const rule = parseSlaRule(text);
      expect(parseSlaRule(formatSlaRule(rule))).toEqual(rule);
    }
    expect(formatSlaRule({ percentile: 99.99, op: 'READ', maxLatencyUs: 1500, minThroughputOpsPerS: 2500 })).toBe(
      'p99.99 of READ <= 1.5 ms at >= 2500 ops/s',
    );
  });
});

describe('evaluateSla', () => {
  const rule: SlaRule = parseSlaRule('p95 of READ <= 10 ms at >= 90000 ops/s');
  const run = (throughputOpsPerS: number, value: PercentileValue) => ({
    throughputOpsPerS,
    percentileUs: (op: string, p: number): PercentileValue => (op === 'READ' && p === 95 ? value : null),
  });

  it('passes when the percentile is within the limit at the required throughput', () => {
    expect(evaluateSla(rule, run(95_000, 8191))).toEqual({ pass: true, reason: 'p95 of READ is 8.191 ms, ≤ 10 ms at 95,000 ops/s' });
    expect(evaluateSla(rule, run(90_000, 10_000)).pass).toBe(true); // the limit itself is allowed
  });

  it('fails when the percentile is above the limit', () => {
    expect(evaluateSla(rule, run(95_000, 10_001))).toEqual({ pass: false, reason: 'p95 of READ is 10.001 ms, > 10 ms at 95,000 ops/s' });
  });

  it('fails when the run fell short of the required throughput, whatever its latency', () => {
    expect(evaluateSla(rule, run(89_999.5, 500))).toEqual({
      pass: false,
      reason: 'throughput 89,999.5 ops/s is below the required 90,000 ops/s',
    });
  });

  it('ignores throughput when the rule has no throughput part', () => {
    expect(evaluateSla(parseSlaRule('p95 of READ <= 10 ms'), run(10, 900))).toEqual({ pass: true, reason: 'p95 of READ is 900 µs, ≤ 10 ms' });
  });

  it('cannot tell when the run has no such operation', () => {
    expect(evaluateSla(parseSlaRule('p95 of SCAN <= 10 ms'), run(95_000, 1))).toEqual({
      pass: null,
      reason: 'the run has no SCAN latencies, so p95 of SCAN is unknown',
    });
  });

  it('decides from a bound when it lies entirely on one side of the limit', () => {
    expect(evaluateSla(rule, run(95_000, { min: 4000, max: 10_000 }))).toEqual({
      pass: true,
      reason: 'p95 of READ is between 4 ms and 10 ms, all ≤ 10 ms at 95,000 ops/s',
    });
    expect(evaluateSla(rule, run(95_000, { min: 10_001, max: 30_000 }))).toEqual({
      pass: false,
      reason: 'p95 of READ is between 10.001 ms and 30 ms, all > 10 ms at 95,000 ops/s',
    });
  });

  it('cannot tell from a bound that straddles the limit', () => {
    expect(evaluateSla(rule, run(95_000, { min: 9000, max: 12_000 }))).toEqual({
      pass: null,
      reason: 'p95 of READ is only known to lie between 9 ms and 12 ms, which straddles the 10 ms limit',
    });
  });
});
