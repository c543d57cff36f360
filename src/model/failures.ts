import type { FailureCount, FileFailures } from './types.ts';

/**
 * Failed requests by cause: how many failed of each operation with each status and message, as the
 * tool wrote them. Parsers tally them as they read (one entry per distinct cause, never one per
 * row: a 20-million-row file with three causes costs three entries), the tallies of a run's files
 * are summed, and what a run's `-FAILED` series count beyond every tallied cause is listed with no
 * status and no message, so the causes always add up to the failures counted.
 */

/**
 * Counts by (operation, status, message), in Maps nested by each: a failed row costs three lookups
 * and no string built for it (a 20-million-row file may fail on every row).
 */
export class FailureTally {
  private readonly byOp = new Map<string, Map<string | null, Map<string | null, FailureCount>>>();
  private entries = 0;

  /** `n` failures of `op` (its name without `-FAILED`) with this status and message; empty text is none. */
  add(op: string, status: string | null, message: string | null, n = 1): void {
    if (!(n > 0)) return;
    const s = status === '' ? null : status;
    const m = message === '' ? null : message;
    let byStatus = this.byOp.get(op);
    if (!byStatus) this.byOp.set(op, (byStatus = new Map()));
    let byMessage = byStatus.get(s);
    if (!byMessage) byStatus.set(s, (byMessage = new Map()));
    const seen = byMessage.get(m);
    if (seen) seen.count += n;
    else {
      byMessage.set(m, { op, status: s, message: m, count: n });
      this.entries++;
    }
  }

  addAll(counts: readonly FailureCount[], rename: (op: string) => string = (op) => op): void {
    for (const c of counts) this.add(rename(c.op), c.status, c.message, c.count);
  }

  get size(): number {
    return this.entries;
  }

  /** Failures counted for `op`, every cause together. */
  countOf(op: string): number {
    let n = 0;
    for (const byMessage of this.byOp.get(op)?.values() ?? []) for (const c of byMessage.values()) n += c.count;
    return n;
  }

  /** Most frequent first; ties by operation, status and message. */
  list(): FailureCount[] {
    const out: FailureCount[] = [];
    for (const byStatus of this.byOp.values()) for (const byMessage of byStatus.values()) for (const c of byMessage.values()) out.push({ ...c });
    return out.sort(compareFailures);
  }

  /** The file's failures, or nothing when none was tallied. */
  of(from: FileFailures['from']): FileFailures | undefined {
    return this.size > 0 ? { from, counts: this.list() } : undefined;
  }
}

function compareFailures(a: FailureCount, b: FailureCount): number {
  return b.count - a.count || a.op.localeCompare(b.op) || (a.status ?? '').localeCompare(b.status ?? '') || (a.message ?? '').localeCompare(b.message ?? '');
}

/**
 * A run's failures: the tallies of its files summed, then for every counted `-FAILED` operation
 * (`failedCounts`: its failures as the run's figures count them) what no tally explains, with no
 * status and no message.
 */
export function runFailures(tallied: readonly FailureCount[], failedCounts: ReadonlyMap<string, number>): FailureCount[] {
  const tally = new FailureTally();
  tally.addAll(tallied);
  for (const [op, count] of failedCounts) {
    const rest = count - tally.countOf(op);
    if (rest > 0) tally.add(op, null, null, rest);
  }
  return tally.list();
}

/**
 * Requests of `op` in a run — its successful and its failed ones, as the run's figures count them
 * — that a failure count is a share of; null when the run counts neither.
 */
export function requestsOf(ops: Readonly<Record<string, { count: number }>>, op: string): number | null {
  const ok = Object.hasOwn(ops, op) ? ops[op]?.count : undefined;
  const failed = Object.hasOwn(ops, `${op}-FAILED`) ? ops[`${op}-FAILED`]?.count : undefined;
  return ok === undefined && failed === undefined ? null : (ok ?? 0) + (failed ?? 0);
}
