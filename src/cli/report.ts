/**
 * `benchlens report --out report.html [options] <file-or-folder>...`: the runs, merged
 * figures and charts of the given result files as one self-contained HTML file to attach to a pull
 * request, a ticket or an e-mail (no script, no network needed to read it).
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseSlaRule } from '../analysis/sla.ts';
import { buildReport } from '../report/build-report.ts';
import type { FileProvenance } from '../model/file-tally.ts';
import { DEFAULT_STATE, type ViewState } from '../state/view-state.ts';
import { loadOnDisk } from '../engine/node-inputs.ts';
import { packageVersion } from './package-files.ts';
import { reportProblems } from './run-main.ts';
import { parseOrSay, UsageError } from './usage.ts';

export const USAGE = `usage: benchlens report --out FILE.html [--title T] [--app-url URL]
         [--sla RULE] [--percentile P] [--op OP] [--window FROM-TO] [--focus RUN,...] <file-or-folder>...

Writes one self-contained HTML report: runs and their files (size, SHA-256, command lines), the
summary table with merged and naive figures, every chart as inline SVG, and the method.
  --out FILE      where to write the report (required)
  --title T       its title (default: "benchlens report — " and the runs)
  --app-url URL   the benchlens the "Open in benchlens" link opens (default ./index.html, beside the
                  report); without it the snapshot file is always attached as well
  --sla RULE      e.g. "p99 of READ <= 10 ms at >= 1000 ops/s": verdicts in the table, line in the charts
  --percentile P  percentile of the latency charts (default ${DEFAULT_STATE.percentile})
  --op OP         only this operation in the charts
  --window A-B    seconds after each run's start the figures cover (e.g. 10-70)
  --focus RUN     runs of the time charts, by label or folder (default: the first run)

Exit code: 0 all read, 1 something was skipped (listed in the report and on stderr), 2 bad usage,
3 internal error.`;


function sha256(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

function parse(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      title: { type: 'string' },
      'app-url': { type: 'string' },
      sla: { type: 'string' },
      percentile: { type: 'string' },
      op: { type: 'string' },
      window: { type: 'string' },
      focus: { type: 'string' },
    },
  });
  if (!values.out) throw new UsageError('--out FILE is required');
  if (positionals.length === 0) throw new UsageError('no result files or folders given');
  const state: ViewState = structuredClone(DEFAULT_STATE);
  if (values.sla !== undefined) {
    try {
      parseSlaRule(values.sla);
    } catch (e) {
      throw new UsageError(`--sla: ${e instanceof Error ? e.message : String(e)}`);
    }
    state.sla = values.sla;
  }
  if (values.percentile !== undefined) {
    const p = Number(values.percentile);
    if (!(p > 0 && p < 100)) throw new UsageError(`--percentile ${values.percentile} must be between 0 and 100`);
    state.percentile = p;
  }
  if (values.op !== undefined) state.op = values.op;
  if (values.window !== undefined) {
    const m = /^(\d+(?:\.\d+)?)?-(\d+(?:\.\d+)?)?$/.exec(values.window);
    const fromS = m?.[1] !== undefined ? Number(m[1]) : null;
    const toS = m?.[2] !== undefined ? Number(m[2]) : null;
    if (!m || (fromS === null && toS === null) || (fromS !== null && toS !== null && fromS >= toS)) throw new UsageError(`--window ${values.window} must look like 10-70`);
    state.window = { fromS, toS };
  }
  return { out: values.out, title: values.title, appUrl: values['app-url'], focus: values.focus?.split(',').filter(Boolean) ?? [], paths: positionals, state };
}

export async function main(args: string[]): Promise<number> {
  const options = parseOrSay(parse, args, USAGE);
  if (options === null) return 2;
  const { engine, analysis } = await loadOnDisk(options.paths, { window: options.state.window });
  const store = await engine.queryStore();
  const labels = new Map(store.runs.map((r) => [r.label, r.key]));
  const unknown = options.focus.filter((f) => !labels.has(f) && !store.runs.some((r) => r.key === f));
  if (unknown.length > 0) {
    process.stderr.write(`error: --focus: no run ${unknown.join(', ')}; runs: ${[...labels.keys()].join(', ')}\n`);
    return 2;
  }
  const state = { ...options.state, focus: options.focus.map((f) => labels.get(f) ?? f) };
  const files: FileProvenance[] = [];
  for (const f of engine.files) files.push({ path: f.path, bytes: statSync(f.path).size, sha256: await sha256(f.path), format: f.format });
  const html = await buildReport(store, analysis, {
    state,
    files,
    parsed: engine.files,
    appUrl: options.appUrl ?? './index.html',
    alwaysAttach: options.appUrl === undefined,
    generatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    version: packageVersion(),
    ...(options.title !== undefined ? { title: options.title } : {}),
  });
  writeFileSync(options.out, html);
  if (analysis.runs.length === 0) process.stderr.write('no runs: the report says so\n');
  reportProblems(analysis.errors);
  return analysis.errors.length > 0 ? 1 : 0;
}
