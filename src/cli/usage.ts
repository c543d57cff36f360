import { DEFAULT_ORDER, parseOrder, type HistoryOrder } from '../analysis/history.ts';

/** A command line that cannot be run as written: said with the command's usage, exit code 2. */
export class UsageError extends Error {}

/**
 * The options `parse` reads from `args`; null once the mistake and `usage` are written to standard
 * error (the command then exits 2). node:util's parseArgs says an unknown option with a TypeError.
 */
export function parseOrSay<T>(parse: (args: string[]) => T, args: string[], usage: string): T | null {
  try {
    return parse(args);
  } catch (e) {
    if (!(e instanceof UsageError) && !(e instanceof TypeError)) throw e;
    process.stderr.write(`error: ${e.message}\n\n${usage}\n`);
    return null;
  }
}

/** `--order time|name|label:KEY|pattern:…` of the history commands; the default order without it. */
export function orderOption(value: string | undefined): HistoryOrder {
  if (value === undefined) return DEFAULT_ORDER;
  try {
    return parseOrder(value);
  } catch (e) {
    throw new UsageError(`--order: ${(e as Error).message}`);
  }
}
