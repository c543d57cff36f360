import type { ParseIssue } from '../model/types.ts';

/**
 * A command's entry: its exit code from `main`, 3 with the stack for an internal error.
 * process.exitCode rather than process.exit: exiting at once would cut off output still being
 * written to a pipe.
 */
export function runMain(main: (args: string[]) => Promise<number>): void {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 3;
    },
  );
}

/** Every problem found while reading, one `file:line: message` line each, on standard error. */
export function reportProblems(errors: readonly ParseIssue[]): void {
  for (const e of errors) process.stderr.write(`${e.file}${e.line ? `:${e.line}` : ''}: ${e.message}\n`);
}
