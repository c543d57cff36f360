/**
 * Latency SLA rules such as "p95 of READ <= 10 ms at >= 90000 ops/s": a percentile of one
 * operation's latency must stay at or below a limit, optionally while the run sustains a throughput.
 */

export interface SlaRule {
  /** 0 < percentile ≤ 100, e.g. 95 or 99.9. */
  percentile: number;
  /** Operation (measurement) name as the results write it: READ, UPDATE, READ-MODIFY-WRITE… */
  op: string;
  maxLatencyUs: number;
  minThroughputOpsPerS?: number;
}

/** A percentile as the run knows it: exact, only bounded (e.g. by per-client figures), or unknown. */
export type PercentileValue = number | null | { min: number; max: number };

export interface SlaRun {
  throughputOpsPerS: number;
  /** Latency of percentile `p` of operation `op` in µs; null when the run has no such data. */
  percentileUs: (op: string, p: number) => PercentileValue;
}

/** pass: true/false, or null when the data cannot tell. */
export interface SlaVerdict {
  pass: boolean | null;
  reason: string;
}

/** Decimal places each unit moves the value to reach µs. */
const LATENCY_UNIT_DECIMALS: Record<string, number> = { us: 0, 'µs': 0, 'μs': 0, ms: 3, s: 6 };
const THROUGHPUT_UNIT_DECIMALS: Record<string, number> = { 'ops/s': 0, 'kops/s': 3 };
const NUMBER = String.raw`\d+(?:\.\d+)?`;
const RULE = new RegExp(
  String.raw`^p(${NUMBER})\s+of\s+([A-Za-z_][\w.-]*)\s*(?:<=|≤)\s*(${NUMBER})\s*([^\s\d][^\s]*)` +
    String.raw`(?:\s+at\s*(?:>=|≥)\s*(${NUMBER})\s*(\S+))?$`,
  'i',
);
const EXPECTED_FORM =
  "expected 'p<percentile> of <OP> <= <latency> <us|µs|ms|s> [at >= <throughput> <ops/s|kops/s>]', " +
  "e.g. 'p95 of READ <= 10 ms at >= 90000 ops/s'";

/** Reads a rule; throws an Error naming what is wrong on anything it does not accept. */
export function parseSlaRule(text: string): SlaRule {
  const match = RULE.exec(text.trim());
  if (!match) throw new Error(`cannot read SLA rule '${text}': ${EXPECTED_FORM}`);
  const [, percentileText = '', op = '', latencyText = '', latencyUnit = '', throughputText, throughputUnit] = match;

  const percentile = Number(percentileText);
  if (!(percentile > 0 && percentile <= 100)) {
    throw new Error(`cannot read SLA rule '${text}': the percentile must be above 0 and at most 100, got ${percentileText}`);
  }
  const latencyDecimals = LATENCY_UNIT_DECIMALS[latencyUnit];
  if (latencyDecimals === undefined) {
    throw new Error(`cannot read SLA rule '${text}': unknown latency unit '${latencyUnit}' (use us, µs, ms or s)`);
  }
  const rule: SlaRule = { percentile, op, maxLatencyUs: shiftDecimal(latencyText, latencyDecimals) };
  if (throughputText !== undefined && throughputUnit !== undefined) {
    const throughputDecimals = THROUGHPUT_UNIT_DECIMALS[throughputUnit];
    if (throughputDecimals === undefined) {
      throw new Error(`cannot read SLA rule '${text}': unknown throughput unit '${throughputUnit}' (use ops/s or kops/s)`);
    }
    rule.minThroughputOpsPerS = shiftDecimal(throughputText, throughputDecimals);
  }
  return rule;
}

/**
 * Several rules, all of which must hold: separated by ';' or line breaks. Each one that cannot be
 * read is an error naming it; the rules that can be read are returned beside the errors.
 */
export function parseSlaRules(text: string): { rules: SlaRule[]; errors: string[] } {
  const rules: SlaRule[] = [];
  const errors: string[] = [];
  for (const part of text.split(/[;\n]/)) {
    if (!part.trim()) continue;
    try {
      rules.push(parseSlaRule(part));
    } catch (e) {
      errors.push(e instanceof Error ? e.message : String(e));
    }
  }
  return { rules, errors };
}

/** The rule in the canonical form parseSlaRule reads back to the same rule. */
export function formatSlaRule(rule: SlaRule): string {
  const latency = `p${rule.percentile} of ${rule.op} <= ${formatLatency(rule.maxLatencyUs, 'us')}`;
  return rule.minThroughputOpsPerS === undefined ? latency : `${latency} at >= ${rule.minThroughputOpsPerS} ops/s`;
}

export function evaluateSla(rule: SlaRule, run: SlaRun): SlaVerdict {
  const subject = `p${rule.percentile} of ${rule.op}`;
  const limit = formatLatency(rule.maxLatencyUs, 'µs');
  if (rule.minThroughputOpsPerS !== undefined && run.throughputOpsPerS < rule.minThroughputOpsPerS) {
    // The rule promises the latency at that load; a run that never reached it cannot keep the promise.
    return {
      pass: false,
      reason: `throughput ${formatCount(run.throughputOpsPerS)} ops/s is below the required ${formatCount(rule.minThroughputOpsPerS)} ops/s`,
    };
  }
  const atLoad = rule.minThroughputOpsPerS === undefined ? '' : ` at ${formatCount(run.throughputOpsPerS)} ops/s`;
  const value = run.percentileUs(rule.op, rule.percentile);
  if (value === null) return { pass: null, reason: `the run has no ${rule.op} latencies, so ${subject} is unknown` };
  if (typeof value === 'number') {
    const pass = value <= rule.maxLatencyUs;
    return { pass, reason: `${subject} is ${formatLatency(value, 'µs')}, ${pass ? '≤' : '>'} ${limit}${atLoad}` };
  }
  const range = `between ${formatLatency(value.min, 'µs')} and ${formatLatency(value.max, 'µs')}`;
  if (value.max <= rule.maxLatencyUs) return { pass: true, reason: `${subject} is ${range}, all ≤ ${limit}${atLoad}` };
  if (value.min > rule.maxLatencyUs) return { pass: false, reason: `${subject} is ${range}, all > ${limit}${atLoad}` };
  return { pass: null, reason: `${subject} is only known to lie ${range}, which straddles the ${limit} limit` };
}

/**
 * `digits` (a plain decimal) × 10^decimals, by moving the decimal point in the text: 1.1 ms must be
 * exactly 1100 µs, and 1.1 × 1000 in floating point is 1100.0000000000002.
 */
function shiftDecimal(digits: string, decimals: number): number {
  const [whole = '', fraction = ''] = digits.split('.');
  const padded = fraction.padEnd(decimals, '0');
  return Number(`${whole}${padded.slice(0, decimals)}.${padded.slice(decimals) || '0'}`);
}

/** Latency in the largest unit that keeps it ≥ 1; the µs spelling is the caller's (ASCII for rule text). */
function formatLatency(us: number, microUnit: 'us' | 'µs'): string {
  if (us >= 1e6) return `${us / 1e6} s`;
  if (us >= 1e3) return `${us / 1e3} ms`;
  return `${us} ${microUnit}`;
}

function formatCount(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 1 });
}
