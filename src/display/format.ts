/** Number formatting for tables, axes and tooltips. Latencies are stored in µs. */

export interface LatencyScale {
  unit: 'µs' | 'ms' | 's';
  divisor: number;
}

/** The unit that keeps a range of µs values readable (an axis shows one unit throughout). */
export function latencyScale(maxUs: number): LatencyScale {
  if (maxUs >= 10_000_000) return { unit: 's', divisor: 1_000_000 };
  if (maxUs >= 10_000) return { unit: 'ms', divisor: 1_000 };
  return { unit: 'µs', divisor: 1 };
}

// toLocaleString builds a new formatter on every call: thousands of table cells and ticks per
// render spent tens of milliseconds in it. The same formatter, kept, formats identically.
const numberFormats = new Map<number, Intl.NumberFormat>();

export function formatNumber(v: number, maxDigits = 0): string {
  let format = numberFormats.get(maxDigits);
  if (!format) {
    format = new Intl.NumberFormat('en-US', { maximumFractionDigits: maxDigits });
    numberFormats.set(maxDigits, format);
  }
  return format.format(v);
}

/** A latency with its own unit, e.g. 4,483 µs → "4.48 ms". */
export function formatLatency(us: number | null | undefined): string {
  if (us === null || us === undefined || !Number.isFinite(us)) return '–';
  const { unit, divisor } = latencyScale(Math.abs(us) * 10);
  const v = us / divisor;
  return `${formatNumber(v, v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${unit}`;
}

const belowOne = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2 });

/**
 * A rate (ops/s, requests/s): whole above 100, one decimal above 1, two significant digits below
 * (3 requests over 176 s → "0.017"), so a rate that is not zero never reads as 0. The one
 * function every table, axis, tooltip and report formats rates with.
 */
export function formatOps(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (v !== 0 && Math.abs(v) < 1) return belowOne.format(v);
  return formatNumber(v, Math.abs(v) >= 100 ? 0 : 1);
}

export function formatPct(v: number | null | undefined, digits = 1): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return `${formatNumber(v, digits)}%`;
}

/** Seconds as m:ss or h:mm:ss for time axes relative to a run's start. */
export function formatOffset(seconds: number): string {
  // An axis padded before the run's start has negative ticks: the sign once, then the magnitude.
  if (Math.round(seconds) < 0) return `−${formatOffset(-seconds)}`;
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** A run's start: a UTC date, or, for a run timed from its own start, no date at all. */
export function formatRunStart(run: { startEpochMs: number | null; relativeTime?: boolean }): string {
  return run.relativeTime ? 'elapsed time only' : formatEpochMs(run.startEpochMs);
}

export function formatEpochMs(ms: number | null): string {
  if (ms === null) return '–';
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

/** `text` cut to at most `max` characters in the middle (`/api/users/…/orders?page=2`): both ends of a name tell it apart. */
export function middleEllipsis(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}
