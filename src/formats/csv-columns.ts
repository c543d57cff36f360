import { MAX_EPOCH_MS, parseScaledDecimal } from '../model/numbers.ts';
import type { LatencyUnit } from '../model/types.ts';

/**
 * How per-operation CSV columns are recognised by their header names (time, latency with its unit,
 * operation, status, client) and how their cells are read: shared by the generic CSV reader and the
 * column mapping the user can give instead.
 */

export type Role = 'time' | 'latency' | 'op' | 'status' | 'client';

export const ROLE_PATTERNS: Record<Role, RegExp> = {
  time: /^(timestamp|timeStamp|time|ts|epoch|start|start_?time|end|end_?time|date_?time|datetime|date)([\s_(].*)?$/i,
  latency: /^(latency|lat|elapsed|duration|response_?time|rt|took|service_?time)([\s_(].*)?$/i,
  op: /^(op|operation|label|type|method|request|query|name|command)$/i,
  status: /^(success|ok|status|result|error|failed|response_?code|code|outcome)$/i,
  client: /^(client|host|hostname|loader|worker|instance|node)$/i,
};

const UNIT_SUFFIX = /(?:[_\s([]|^)(ns|us|µs|μs|ms|s|sec|secs|seconds|millis|micros|nanos)[)\]]?$/i;

export function unitFromHeader(header: string): LatencyUnit | null {
  const m = UNIT_SUFFIX.exec(header.trim());
  if (!m) return /^elapsed$/i.test(header.trim()) ? 'ms' : null; // JMeter's elapsed is ms
  const u = (m[1] ?? '').toLowerCase();
  if (u === 'ns' || u === 'nanos') return 'ns';
  if (u === 'us' || u === 'µs' || u === 'μs' || u === 'micros') return 'us';
  if (u === 'ms' || u === 'millis') return 'ms';
  return 's';
}

/** Latency text in `unit` → integer in the stored unit (µs, or ns for ns input); null if not exact. */
export function toStoredLatency(text: string, unit: LatencyUnit): number | null {
  switch (unit) {
    case 'ns':
      return parseScaledDecimal(text, 0);
    case 'us':
      return parseScaledDecimal(text, 0);
    case 'ms':
      return parseScaledDecimal(text, 3);
    case 's':
      return parseScaledDecimal(text, 6);
  }
}

/**
 * A plain decimal (`123.45`) times 10^shift, as the double nearest the exact result: the point is
 * moved in the text, so `1795255808.123` s is exactly 1795255808123 ms (multiplying the parsed
 * double by 1000 is not) and ns keep every digit that fits.
 */
function shiftDecimal(text: string, shift: number): number {
  const dot = text.indexOf('.');
  const int = dot < 0 ? text : text.slice(0, dot);
  const digits = int + (dot < 0 ? '' : text.slice(dot + 1));
  const point = int.length + shift;
  if (point <= 0) return Number(`0.${'0'.repeat(-point)}${digits}`);
  if (point >= digits.length) return Number(digits.padEnd(point, '0'));
  return Number(`${digits.slice(0, point)}.${digits.slice(point)}`);
}

/** Epoch number or ISO-8601 text → epoch ms. Magnitude tells seconds from ms/µs/ns. */
export function parseTimestampMs(text: string): number | null {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) {
    const intDigits = t.split('.')[0]?.length ?? 0;
    const v = Number(t);
    // 18+ integer digits: ns (now ≈ 1.8e18); they exceed 2^53, so the magnitude is read from the text.
    const ms = intDigits >= 18 ? shiftDecimal(t, -6) : v < 1e11 ? shiftDecimal(t, 3) : v < 1e14 ? v : shiftDecimal(t, -3);
    return ms <= MAX_EPOCH_MS ? ms : null;
  }
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(t)) {
    const ms = Date.parse(t.includes('T') ? t : t.replace(' ', 'T'));
    return Number.isFinite(ms) && Math.abs(ms) <= MAX_EPOCH_MS ? ms : null;
  }
  return null;
}

export function isFailure(value: string, header: string): boolean {
  const v = value.trim().toLowerCase();
  if (/^(error|failed|failure)$/i.test(header)) return v !== '' && v !== '0' && v !== 'false' && v !== 'none';
  if (/^(success|ok)$/i.test(header)) return !(v === 'true' || v === '1' || v === 'ok' || v === 'yes');
  if (/^\d{3}$/.test(v)) return Number(v) >= 400; // HTTP-style codes
  return !(v === 'ok' || v === 'success' || v === 'true' || v === '0' || v === '');
}

/** A cell of a column the user named as the success flag: false, 0, no, KO, failed, error or an HTTP error code. */
export function isNotOk(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (/^\d{3}$/.test(v)) return Number(v) >= 400;
  return /^(false|0|no|n|ko|fail|failed|failure|error|err)$/.test(v);
}
