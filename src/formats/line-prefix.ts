import type { LinePrefixId, StrippedPrefix } from '../model/types.ts';

/**
 * Line prefixes that a harness, a logger or a CI runner writes before every line of a tool's text
 * output: a timestamp in brackets (scylla-cluster-tests, `ts '[%Y-%m-%d %H:%M:%.S]'`), an RFC 3339
 * timestamp and a space (`docker logs -t`, GitHub Actions logs), a syslog/journal header
 * (`Mon DD HH:MM:SS host unit[pid]: `, or `ts`'s default `Mon DD HH:MM:SS `). A file whose lines
 * mostly start with one such shape is read with it removed from each line, once, here: the format
 * modules never see it. Lines without it (a continuation line, a blank line) are passed on as
 * they are, and a format module treats them as it treats any other line.
 */

/** One shape of prefix. */
export interface LinePrefixShape {
  id: LinePrefixId;
  /** What the file entry says was removed. */
  label: string;
  /** Anchored at the line start; the whole match is removed. */
  pattern: RegExp;
}

const DATE_TIME = String.raw`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?`;
const ISO_TIME = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})`;
const SYSLOG_TIME = String.raw`(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?`;

/**
 * The shapes, most specific first: a journal header starts with a timestamp of another shape, and
 * is preferred when it is on as many lines.
 */
export const LINE_PREFIX_SHAPES: readonly LinePrefixShape[] = [
  // Host and unit are single tokens: the pattern cannot run away on a long line.
  {
    id: 'syslog-header',
    label: 'syslog/journal headers (time host unit[pid]:)',
    pattern: new RegExp(`^(?:${SYSLOG_TIME}|${ISO_TIME}) [^\\s:]{1,255} [^\\s:\\[\\]]{1,255}(?:\\[\\d{1,10}\\])?: ?`),
  },
  { id: 'bracketed-timestamp', label: '[date time] timestamps (a test harness, ts)', pattern: new RegExp(`^\\[${DATE_TIME}\\] ?`) },
  { id: 'rfc3339-timestamp', label: 'RFC 3339 timestamps (docker logs -t, CI runners)', pattern: new RegExp(`^${ISO_TIME} `) },
  { id: 'syslog-timestamp', label: 'Mon DD HH:MM:SS timestamps (ts)', pattern: new RegExp(`^${SYSLOG_TIME} `) },
];

/** Lines of the head looked at; a prefix must be on at least this share of those with content. */
const SAMPLE_LINES = 500;
const MIN_SHARE = 0.6;

/** The prefix shape on most lines of `head` (line ends normalised), or null when no shape is on enough of them. */
export function findLinePrefix(head: string): LinePrefixShape | null {
  const lines: string[] = [];
  for (const line of head.split('\n')) {
    if (line.trim().length > 0) lines.push(line);
    if (lines.length >= SAMPLE_LINES) break;
  }
  let best: LinePrefixShape | null = null;
  let bestCount = 0;
  for (const shape of LINE_PREFIX_SHAPES) {
    const count = lines.reduce((n, l) => n + (shape.pattern.test(l) ? 1 : 0), 0);
    if (count > bestCount) {
      best = shape;
      bestCount = count;
    }
  }
  return best && bestCount >= MIN_SHARE * lines.length ? best : null;
}

/** `text` (several lines) with the prefix removed from each line that has it. */
export function stripPrefixes(text: string, shape: LinePrefixShape): string {
  return text
    .split('\n')
    .map((l) => l.replace(shape.pattern, ''))
    .join('\n');
}

/** Removes `shape` from each line it starts, counting them. */
export class PrefixStripper {
  lines = 0;
  constructor(private readonly shape: LinePrefixShape) {}

  strip(line: string): string {
    const m = this.shape.pattern.exec(line);
    if (!m) return line;
    this.lines++;
    return line.slice(m[0].length);
  }

  get stripped(): StrippedPrefix {
    return { shape: this.shape.id, label: this.shape.label, lines: this.lines };
  }
}
