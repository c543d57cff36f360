import { packageVersion } from './package-files.ts';

/**
 * The `benchlens` command's subcommands. A command is a module in src/cli/ that exports `USAGE`
 * (its help) and `main(args)` (its exit code: 0 all read, 1 something skipped or failed, 2 bad
 * usage); adding one is one line in COMMANDS. A module is imported only when its command runs,
 * so `benchlens cost` starts neither DuckDB nor React.
 */
export interface CommandModule {
  USAGE: string;
  main(args: string[]): number | Promise<number>;
}

export interface Command {
  /** One line for `benchlens --help`. */
  about: string;
  load(): Promise<CommandModule>;
}

export const COMMANDS: Readonly<Record<string, Command>> = {
  summarize: { about: 'merged figures per run and operation (a table, or --json)', load: () => import('./summarize.ts') },
  compare: { about: 'a candidate against a baseline, with confidence intervals; capacity and price at an SLA', load: () => import('./compare.ts') },
  history: { about: 'runs of one test in order: each figure per run with its interval, and where it changed', load: () => import('./history.ts') },
  check: { about: 'a gate for CI: SLA rules, a regression against a baseline, the newest run of a history; JUnit XML', load: () => import('./check.ts') },
  report: { about: 'one self-contained HTML report of the runs, figures and charts', load: () => import('./report.ts') },
  reduce: { about: 'raw per-operation files to HdrHistogram interval logs, in constant memory', load: () => import('./reduce.ts') },
  chart: { about: "one of the dashboard's charts as an SVG document, or its data as JSON", load: () => import('./chart.ts') },
  cost: { about: 'monthly cost of a throughput on DynamoDB against a node-priced cluster', load: () => import('./cost.ts') },
  query: { about: 'SQL (DuckDB) over the loaded results: runs, ops, seconds, latency_buckets, requests, file_<n>', load: () => import('./query.ts') },
};

export const USAGE = `usage: benchlens <command> [options] [<files-or-folders>...]
       benchlens <command> --help     the command's options
       benchlens --version

Exact, shareable analysis of load-benchmark results: the same parsers, merging and figures as the
benchlens app, on the command line.

commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.about}`)
  .join('\n')}

Exit code: 0 all read, 1 something was skipped or failed (see standard error), 2 bad usage,
3 internal error.`;

const HELP = ['--help', '-h'];

/** `benchlens <command> <args>`: the command's exit code; help and bad usage handled here for every command. */
export async function dispatch(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (HELP.includes(name)) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (name === '--version') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    process.stderr.write(`error: no command ${name}\n\n${USAGE}\n`);
    return 2;
  }
  const module = await command.load();
  if (rest.some((a) => HELP.includes(a))) {
    process.stdout.write(`${module.USAGE}\n`);
    return 0;
  }
  return module.main(rest);
}
