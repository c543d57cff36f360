/**
 * Exact parsing of decimal strings into integers of a smaller unit. Log timestamps such as
 * `1795255808.760` must become exact integer milliseconds/microseconds: multiplying the parsed
 * double by 1000 would give 1795255808759.9998 and put an interval in the wrong second.
 */

import type { LatencyUnit } from './types.ts';

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/**
 * `text` × 10^scale as an integer, or null when `text` is not a plain decimal number, has more
 * fractional digits than `scale` allows without rounding, or the result leaves the safe-integer range.
 */
export function parseScaledDecimal(text: string, scale: number): number | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const [, sign, intPart = '', fracPart = ''] = m;
  if (intPart.length === 0 && fracPart.length === 0) return null;
  if (fracPart.length > scale && !/^0*$/.test(fracPart.slice(scale))) return null;
  const digits = (intPart + fracPart.slice(0, scale).padEnd(scale, '0')).replace(/^0+(?=\d)/, '');
  const value = Number(digits);
  if (!Number.isSafeInteger(value)) return null;
  return sign === '-' ? -value : value;
}

/** Seconds as written in HdrHistogram logs (`12.345`, possibly in exponent form) → integer µs. */
/** Decimal or exponent notation, as Java's Double.toString / printf write seconds. */
const DECIMAL_OR_EXPONENT = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

export function secondsToMicros(text: string): number | null {
  const exact = parseScaledDecimal(text, 6);
  if (exact !== null) return exact;
  // Rare producers write more than 6 decimals or exponent notation; round to the nearest µs.
  // Only those: Number() also takes "" and " " (as 0) and 0x10 or 0b1, which no producer writes.
  if (!DECIMAL_OR_EXPONENT.test(text)) return null;
  const v = Number(text);
  if (!Number.isFinite(v)) return null;
  const us = Math.round(v * 1e6);
  return Number.isSafeInteger(us) ? us : null;
}

/**
 * Milliseconds as a producer prints them (`12.345`, `7`, `-0.5`) → exact integer µs; null when
 * `text` is not a plain decimal, is finer than 1 µs or leaves the safe-integer range. The sign is
 * kept: a parser that reads a latency refuses a negative one itself, in its own words.
 */
export function msToMicros(text: string): number | null {
  // Whole ms (JMeter's elapsed column, read by the million) skip the general decimal rule.
  if (/^\d{1,12}$/.test(text)) return Number(text) * 1000;
  return parseScaledDecimal(text, 3);
}

/**
 * Latest epoch time the engine can hold, in ms: it keeps times as integer µs, exact below 2^53
 * (year 2255). Later times cannot be placed (and made whole analyses fail), so inputs refuse them.
 */
export const MAX_EPOCH_MS = Math.floor(Number.MAX_SAFE_INTEGER / 1000);

/** A non-negative integer field (latency, count) or null. */
export function parseNonNegativeInteger(text: string): number | null {
  if (!/^\s*\d+\s*$/.test(text)) return null;
  const v = Number(text);
  return Number.isSafeInteger(v) ? v : null;
}

/**
 * Microseconds per unit of recorded latency. Figures are shown and reported in µs; a series keeps
 * the unit its producer records in (nanosecond histograms and samples stay exact integers) and its
 * figures are scaled on the way out.
 */
const MICROS_PER: Record<LatencyUnit, number> = { ns: 1e-3, us: 1, ms: 1e3, s: 1e6 };

/** A latency in `unit` as µs (ns divide, so 1234 ns is exactly the nearest double to 1.234). */
export function toMicros(value: number, unit: LatencyUnit): number {
  return unit === 'ns' ? value / 1000 : value * MICROS_PER[unit];
}
