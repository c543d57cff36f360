/**
 * Load sweeps: one system measured at several load levels. Utilisation puts systems of different
 * capacity on one axis; the knee is where latency stops being flat and starts to climb.
 */

export interface SweepPoint {
  x: number;
  y: number;
}

/** Achieved throughput as a percentage of capacity. */
export function utilisationPct(throughput: number, capacity: number): number | null {
  return capacity > 0 && Number.isFinite(throughput) ? (throughput / capacity) * 100 : null;
}

/** Capacity of a system: the highest throughput any of its runs achieved (its unthrottled run). */
export function capacityOf(throughputs: readonly (number | null)[]): number | null {
  const values = throughputs.filter((t): t is number => t !== null && Number.isFinite(t) && t > 0);
  return values.length ? Math.max(...values) : null;
}

/** Smallest rise (last ÷ first latency) for which a curve is said to have a knee at all. */
const MIN_RISE_FOR_KNEE = 2;

/**
 * The knee of a latency-vs-load curve (Kneedle): scale both axes to [0, 1] and take the point
 * furthest below the chord from the first to the last point — where a flat-then-steep curve bends.
 * Returns the index into `points` sorted by x, or null when the curve never climbs steeply
 * (less than doubling) or has fewer than three points.
 */
export function findKnee(points: readonly SweepPoint[]): number | null {
  const sorted = [...points].sort((a, b) => a.x - b.x);
  if (sorted.length < 3) return null;
  const first = sorted[0] as SweepPoint;
  const last = sorted[sorted.length - 1] as SweepPoint;
  if (!(first.y > 0) || last.y / first.y < MIN_RISE_FOR_KNEE || last.x === first.x) return null;
  const minY = Math.min(...sorted.map((p) => p.y));
  const maxY = Math.max(...sorted.map((p) => p.y));
  let best = -1;
  let bestGap = 0;
  sorted.forEach((p, i) => {
    const xn = (p.x - first.x) / (last.x - first.x);
    const yn = (p.y - minY) / (maxY - minY);
    const gap = xn - yn;
    if (i > 0 && i < sorted.length - 1 && gap > bestGap) {
      bestGap = gap;
      best = i;
    }
  });
  return best >= 0 ? best : null;
}
