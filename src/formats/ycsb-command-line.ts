import { clientFromFileName, clientFromPathPrefix, normalisePath } from '../model/naming.ts';
import type { YcsbCommandLine } from '../model/types.ts';

/**
 * YCSB's `site.ycsb.Client` echoes its arguments to stderr as `Command line:` followed by
 * `" " + arg` for every argument, without quoting. Splitting on single spaces and re-joining with
 * single spaces therefore restores an argument that contained spaces exactly; such an argument
 * shows up as stray tokens after the option it belongs to (YCSB itself would have refused a stray
 * token, so a run that produced output never had one).
 *
 * Options and `-p` properties write into one property table in YCSB, in command-line order:
 * `-threads 4 -p threadcount=8` runs 8 threads, `-p threadcount=8 -threads 4` runs 4. The effective
 * values below follow that order. Properties set only inside `-P` workload files are not visible
 * here, so a field is null when the command line does not state it (YCSB's defaults — 1 thread,
 * BasicDB, transaction phase — are not filled in, because a workload file may have overridden them).
 */

const PREFIX = /^\s*Command line:/;

/** Options followed by a value, with the YCSB property each one sets (`-P` names a file instead). */
const VALUE_OPTIONS = new Map([
  ['-threads', 'threadcount'],
  ['-target', 'target'],
  ['-db', 'db'],
  ['-l', 'label'],
  ['-P', ''],
]);

/** Java's Integer.parseInt as YCSB applies it to `-threads` / `-target`. */
function javaInt(text: string | undefined): number | null {
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return null;
  const v = Number(text);
  return Number.isSafeInteger(v) && Math.abs(v) <= 2147483647 ? v : null;
}

/** A `Command line: …` echo (the prefix is optional) as YCSB would have read it. */
export function parseYcsbCommandLine(text: string): YcsbCommandLine {
  let args = text.replace(PREFIX, '').trimEnd();
  if (args.startsWith(' ')) args = args.slice(1);
  const raw = args.trim();
  const tokens = args.length > 0 ? args.split(' ') : [];

  const settings = new Map<string, string>();
  const properties = new Map<string, string>();
  const workloadFiles: string[] = [];
  // Where a stray token (part of a value that contained a space) is appended.
  let extend: ((token: string) => void) | null = null;

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? '';
    const setting = VALUE_OPTIONS.get(token);
    if ((setting !== undefined || token === '-p') && i + 1 >= tokens.length) break;
    if (setting !== undefined) {
      const value = tokens[++i] ?? '';
      if (setting === '') {
        const index = workloadFiles.push(value) - 1;
        extend = (t) => (workloadFiles[index] += ` ${t}`);
      } else {
        settings.set(setting, value);
        extend = (t) => settings.set(setting, `${settings.get(setting) ?? ''} ${t}`);
      }
    } else if (token === '-p') {
      const pair = tokens[++i] ?? '';
      const eq = pair.indexOf('=');
      if (eq < 0) {
        extend = null;
        continue;
      }
      const name = pair.slice(0, eq);
      properties.set(name, pair.slice(eq + 1));
      settings.set(name, pair.slice(eq + 1));
      extend = (t) => {
        const value = `${properties.get(name) ?? ''} ${t}`;
        properties.set(name, value);
        settings.set(name, value);
      };
    } else if (token === '-load' || token === '-t') {
      settings.set('dotransactions', token === '-t' ? 'true' : 'false');
      extend = null;
    } else if (token === '-s') {
      extend = null;
    } else if (extend !== null) {
      extend(token);
    }
  }

  const target = javaInt(settings.get('target'));
  const transactions = settings.get('dotransactions');
  return {
    raw,
    db: settings.get('db') ?? null,
    workloadFiles,
    threads: javaInt(settings.get('threadcount')),
    // YCSB throttles only for a positive target; 0 (its default) means unthrottled.
    target: target !== null && target > 0 ? target : null,
    properties: Object.fromEntries(properties),
    // Java's Boolean.valueOf: only "true" (any case) is true.
    phase: transactions === undefined ? null : transactions.toLowerCase() === 'true' ? 'run' : 'load',
  };
}

/**
 * The client a YCSB command line names through its output paths: the last component of the
 * `hdrhistogram.output.path` prefix (`run/client1-` → client1; `run/client1/` → client1), else the
 * `measurement.raw.output_file` name without extension and `-raw` suffix (`run/client1-raw.csv` →
 * client1).
 */
export function ycsbClientHint(commandLine: YcsbCommandLine): string | undefined {
  const hdrPrefix = commandLine.properties['hdrhistogram.output.path'];
  if (hdrPrefix !== undefined) {
    const hint = clientFromPathPrefix(normalisePath(hdrPrefix).replace(/\/+$/, ''));
    if (hint !== undefined) return hint;
  }
  const rawFile = commandLine.properties['measurement.raw.output_file'];
  if (rawFile !== undefined) {
    const hint = clientFromFileName(normalisePath(rawFile));
    if (hint.length > 0) return hint;
  }
  return undefined;
}
