/**
 * Little's Law check of a closed-loop load generator (YCSB, cassandra-stress, …): each client thread
 * has at most one request outstanding, so N threads at mean latency W can never exceed N / W
 * operations per second. When a run's threads were nearly all busy and it still fell short of its
 * target, the loader, not the database, set the throughput.
 */

/** Threads count as "nearly all busy" from this fraction of the available concurrency. */
const BUSY_FRACTION = 0.9;
/**
 * A run within this fraction of its target met it: YCSB's overall throughput includes the ramp-up and
 * the partial last second, so runs that kept up come out 1–2% below target.
 */
const TARGET_MET_FRACTION = 0.95;

export interface LittlesLawInput {
  clients: number;
  threadsPerClient: number;
  /** Achieved throughput of the whole run (all clients), ops/s. */
  throughputOpsPerS: number;
  /** Mean latency over all operations, µs. */
  meanLatencyUs: number;
  /** Offered throughput of the whole run, ops/s; absent for an unthrottled run. */
  targetOpsPerS?: number;
}

export interface LittlesLawResult {
  /** Threads available: clients × threads per client. */
  concurrency: number;
  /** Threads busy on average: throughput × mean latency (L = λW). */
  impliedConcurrency: number;
  /** The most these threads can do at this mean latency: concurrency / mean latency, ops/s. */
  maxThroughputAtThisLatency: number;
  /** Threads a target would need at this mean latency; null without a target. */
  threadsNeededForTarget: number | null;
  loaderBound: boolean;
  reason: string;
}

export function littlesLaw(input: LittlesLawInput): LittlesLawResult {
  const { clients, threadsPerClient, throughputOpsPerS, meanLatencyUs, targetOpsPerS } = input;
  requirePositiveInteger('clients', clients);
  requirePositiveInteger('threadsPerClient', threadsPerClient);
  if (!Number.isFinite(throughputOpsPerS) || throughputOpsPerS < 0) {
    throw new RangeError(`throughputOpsPerS must be a finite number ≥ 0, got ${throughputOpsPerS}`);
  }
  if (!Number.isFinite(meanLatencyUs) || meanLatencyUs <= 0) {
    throw new RangeError(`meanLatencyUs must be a finite number > 0, got ${meanLatencyUs}`);
  }
  if (targetOpsPerS !== undefined && (!Number.isFinite(targetOpsPerS) || targetOpsPerS <= 0)) {
    throw new RangeError(`targetOpsPerS must be a finite number > 0, got ${targetOpsPerS}`);
  }

  const concurrency = clients * threadsPerClient;
  // Products and quotients of µs before dividing by 10^6, so that e.g. 200,000 × 6,200 µs is exactly 1,240.
  const impliedConcurrency = (throughputOpsPerS * meanLatencyUs) / 1e6;
  const maxThroughputAtThisLatency = (concurrency * 1e6) / meanLatencyUs;
  const threadsNeededForTarget = targetOpsPerS === undefined ? null : ceilTolerant((targetOpsPerS * meanLatencyUs) / 1e6);
  const busy = impliedConcurrency / concurrency;
  const nearlyAllBusy = busy >= BUSY_FRACTION;
  const metTarget = targetOpsPerS !== undefined && throughputOpsPerS >= TARGET_MET_FRACTION * targetOpsPerS;
  const loaderBound = nearlyAllBusy && !metTarget;

  const threads = `${fmt(concurrency)} threads`;
  const busyText = `${fmt(impliedConcurrency, 1)} of ${threads} busy on average (${fmt(100 * busy)}%)`;
  const ceiling = `at ${formatLatency(meanLatencyUs)} mean latency they cannot exceed ${fmt(maxThroughputAtThisLatency)} ops/s`;
  let reason: string;
  if (!nearlyAllBusy) {
    reason = `${busyText}: the load generator had spare threads, so it did not limit the throughput.`;
  } else if (targetOpsPerS === undefined) {
    reason =
      `${busyText} with no target: ${ceiling}, so the throughput measures what these threads can do ` +
      `at this latency rather than the database's capacity; add threads or clients to find the latter.`;
  } else if (metTarget) {
    reason = `${busyText}, but the run reached ${fmt((100 * throughputOpsPerS) / targetOpsPerS)}% of its ${fmt(targetOpsPerS)} ops/s target.`;
  } else {
    reason =
      `${busyText}: ${ceiling}, short of the ${fmt(targetOpsPerS)} ops/s target, ` +
      `which needs at least ${fmt(threadsNeededForTarget ?? 0)} threads at this latency.`;
  }
  return { concurrency, impliedConcurrency, maxThroughputAtThisLatency, threadsNeededForTarget, loaderBound, reason };
}

/** ⌈x⌉, ignoring the last-bit excess of a floating-point product (1240.0000000000002 → 1240). */
function ceilTolerant(x: number): number {
  return Math.ceil(x * (1 - 1e-12));
}

function fmt(value: number, fractionDigits = 0): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: fractionDigits });
}

function formatLatency(us: number): string {
  return us >= 1000 ? `${fmt(us / 1000, 3)} ms` : `${fmt(us, 1)} µs`;
}

function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer, got ${value}`);
}
