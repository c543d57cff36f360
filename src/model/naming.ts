import type { OpKind } from './types.ts';

/** Path and name conventions of benchmark producers (YCSB, cassandra-stress, HdrHistogram tools). */

export function baseName(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? path : path.slice(i + 1);
}

export function dirName(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** Normalise Windows separators and `./` so paths from drops, URLs and the CLI compare equal. */
export function normalisePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/{2,}/g, '/');
}

export function withoutCompression(name: string): string {
  return name.replace(/\.(gz|gzip)$/i, '');
}

/**
 * Names producers' modules give to other views of requests already counted elsewhere: JMeter's
 * `<label> (first byte)` (its Latency column), a tool's row of every operation together (Locust's
 * `Aggregated (all requests)`), a report's figures of one operation's successes and failures
 * together (`<op> (including failures)`), and a tool's whole-run report beside the per-request
 * data it summarises (`<op> (report)`).
 */
const DERIVED = / \((?:first byte|all requests|including failures|report)\)$/;

/** The name a whole-run report of `op` takes beside per-request data of it (see SeriesBase.scope). */
export function reportOf(op: string): string {
  return `${op} (report)`;
}

/**
 * The name of a report's figures that cover the successful and the failed requests of `op`
 * together (vegeta's latencies, wrk's thread stats, Locust's per-name row): shown, never counted
 * again, and never given to the successes alone.
 */
export function includingFailuresOf(op: string): string {
  return `${op} (including failures)`;
}

/** The suffix that makes `op` another view of requests counted elsewhere (` (first byte)` …), or ''. */
export function derivedSuffix(op: string): string {
  return DERIVED.exec(op)?.[0] ?? '';
}

/** How a measurement name counts: throughput counts 'op' and 'failed'; never 'intended', 'cleanup' or 'derived'. */
export function opKind(op: string): OpKind {
  if (DERIVED.test(op)) return 'derived';
  if (/^Intended-/i.test(op)) return 'intended';
  if (/-FAILED$/i.test(op)) return 'failed';
  if (/^CLEANUP$/i.test(op)) return 'cleanup';
  return 'op';
}

/** The operation a failed/intended measurement belongs to: READ-FAILED → READ, Intended-READ → READ. */
export function baseOp(op: string): string {
  return op.replace(/^Intended-/i, '').replace(/-FAILED$/i, '');
}

const OP_TOKEN = /^[A-Z][A-Z0-9_]*$/;

/**
 * Split a file base name (no extension) like `client1-READ`, `client1-Intended-READ`,
 * `client2-READ-MODIFY-WRITE` or `READ` into client prefix and measurement name. YCSB names its
 * files `<hdrhistogram.output.path><MEASUREMENT>.hdr`, and measurement names are upper case
 * (with `Intended-` prefixes), so trailing upper-case tokens form the measurement.
 */
export function splitClientAndOp(stem: string, knownOp?: string): { client: string; op: string | null } {
  if (knownOp && stem.endsWith(knownOp)) {
    return { client: trimSeparators(stem.slice(0, stem.length - knownOp.length)), op: knownOp };
  }
  const tokens = stem.split('-');
  let i = tokens.length;
  while (i > 0) {
    const t = tokens[i - 1] ?? '';
    if (OP_TOKEN.test(t) || (t === 'Intended' && i < tokens.length)) i--;
    else break;
  }
  if (i === tokens.length) return { client: trimSeparators(stem), op: null };
  return { client: trimSeparators(tokens.slice(0, i).join('-')), op: tokens.slice(i).join('-') };
}

const SEPARATOR = /[-_.\s]/;

export function trimSeparators(s: string): string {
  // A loop, not /[-_.\s]+$/: that regex retries from every separator of a long inner run (a path
  // prefix with thousands of spaces in a command line took seconds), scanning to its end each time.
  let start = 0;
  let end = s.length;
  while (start < end && SEPARATOR.test(s.charAt(start))) start++;
  while (end > start && SEPARATOR.test(s.charAt(end - 1))) end--;
  return s.slice(start, end);
}

/** Client name from a YCSB text or raw file name: `client1.stdout.txt`, `client1-raw.csv` → client1. */
export function clientFromFileName(name: string): string {
  const stem = withoutCompression(baseName(name))
    .replace(/\.(stdout|stderr|out|err)(\.(txt|log))?$/i, '')
    .replace(/\.(txt|log|csv|hdr|hlog|hgrm)$/i, '')
    .replace(/[-_.]?raw$/i, '');
  return trimSeparators(stem);
}

/** Client name from a path prefix such as YCSB's `hdrhistogram.output.path=run/client1-`. */
export function clientFromPathPrefix(prefix: string): string | undefined {
  const name = trimSeparators(baseName(normalisePath(prefix)));
  return name.length > 0 ? name : undefined;
}
