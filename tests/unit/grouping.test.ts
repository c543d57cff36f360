import { describe, expect, it } from 'vitest';
import { groupIntoRuns, runLabels } from '../../src/model/grouping.ts';
import { opKind } from '../../src/model/naming.ts';
import { rawSeries } from '../helpers/raw-samples.ts';
import type { FormatId, LatencySeries, ParsedFile } from '../../src/model/types.ts';

function file(path: string, format: FormatId, ops: string[], extra: Partial<ParsedFile> = {}): ParsedFile {
  const series: LatencySeries[] = ops.map((op) => ({ kind: 'printed', op, unit: 'us', count: 1, mean: 1, min: 1, max: 1, percentiles: {}, returns: {} }));
  return { path, format, series, errors: [], skippedLines: 0, lines: 1, ...extra };
}

describe('grouping files into runs and clients', () => {
  const files = [
    file('res/a/client1-READ.hdr', 'hdr-log', ['READ']),
    file('res/a/client1-Intended-READ.hdr', 'hdr-log', ['Intended-READ']),
    file('res/a/client2-READ-MODIFY-WRITE.hdr', 'hdr-log', ['READ-MODIFY-WRITE']),
    file('res/a/client1.stdout.txt', 'ycsb-text', ['READ']),
    file('res/a/out-of-jvm-2.stderr.txt', 'ycsb-text', [], { clientHint: 'client2' }),
    file('res/b/client1-raw.csv', 'ycsb-raw', ['READ']),
    file('res/b/loader.csv', 'generic-csv', [], {
      series: ['hostA', 'hostB'].map((client) => rawSeries('GET', 'us', [], [], client)),
    }),
  ];

  it('makes one run per folder, labelled without the shared prefix', () => {
    const runs = groupIntoRuns(files);
    expect(runs.map((r) => [r.key, r.label])).toEqual([
      ['res/a', 'a'],
      ['res/b', 'b'],
    ]);
    expect(runs[0]?.paths).toHaveLength(5);
  });

  it('attributes files to clients by name, by command-line hint and by a client column', () => {
    const [a, b] = groupIntoRuns(files);
    expect(a?.clients.map((c) => [c.name, c.files.sort()])).toEqual([
      ['client1', ['client1-Intended-READ.hdr', 'client1-READ.hdr', 'client1.stdout.txt']],
      ['client2', ['client2-READ-MODIFY-WRITE.hdr', 'out-of-jvm-2.stderr.txt']],
    ]);
    expect(a?.clients[1]?.series.map((s) => s.data.op)).toEqual(['READ-MODIFY-WRITE']);
    expect(b?.clients.map((c) => c.name)).toEqual(['client1', 'hostA', 'hostB']);
  });

  it('moves files to the run the user chose', () => {
    const runs = groupIntoRuns(files, { 'res/b/client1-raw.csv': 'res/a', 'res/a/client2-READ-MODIFY-WRITE.hdr': 'res/c' });
    expect(runs.map((r) => [r.key, r.paths.length])).toEqual([
      ['res/a', 5],
      ['res/b', 1],
      ['res/c', 1],
    ]);
  });

  it("a tool's whole-run report beside other data of its operation is its report, not more data", () => {
    const report = (path: string, op: string): ParsedFile => {
      const f = file(path, 'pgbench', [op]);
      return { ...f, series: f.series.map((s) => ({ ...s, scope: 'run' as const })) };
    };
    const [withLogs, alone] = groupIntoRuns([
      file('a/pgbench_log.1', 'pgbench', ['script0']),
      file('a/pgbench_log.1.1', 'pgbench', ['script0']),
      report('a/stdout.txt', 'script0'),
      report('a/stdout.txt', 'script1'),
      report('b/stdout.txt', 'script0'),
    ]);
    const ops = (r: typeof withLogs) => r?.clients.flatMap((c) => c.series.map((s) => `${c.name}:${s.data.op}`)).sort();
    // Beside the tool's own logs every figure of its report is the report's, script1's too.
    expect(ops(withLogs)).toEqual(['pgbench_log.1.1:script0', 'pgbench_log.1:script0', 'stdout:script0 (report)', 'stdout:script1 (report)']);
    expect(ops(alone)).toEqual(['stdout:script0']);
    // A report named otherwise (vegeta's 'requests' beside 'GET /') is still the same tool's report.
    const [vegeta] = groupIntoRuns([file('v/results.csv', 'vegeta', ['GET /']), { ...report('v/report.json', 'requests'), format: 'vegeta' }]);
    expect(ops(vegeta)).toEqual(['report.json:requests (report)', 'results:GET /']);
    expect(opKind('script0 (report)')).toBe('derived');
  });

  it('names a run of files with no folder after its file, not "."', () => {
    expect(groupIntoRuns([file('write-3min.log.gz', 'ycsb-text', ['WRITE'])]).map((r) => r.label)).toEqual(['write-3min']);
    expect(groupIntoRuns([file('a.csv', 'ycsb-text', ['READ']), file('b.csv', 'ycsb-text', ['READ']), file('sub/c.csv', 'ycsb-text', ['READ'])]).map((r) => r.label)).toEqual(['files without a folder', 'sub']);
  });

  it('lists runs and clients in natural order: numbers as numbers', () => {
    const names = ['sweep/target-1600', 'sweep/target-400', 'sweep/target-unthrottled', 'sweep/target-50', 'sweep/target-800'];
    const runs = groupIntoRuns(names.flatMap((dir) => [file(`${dir}/client10-READ.hdr`, 'hdr-log', ['READ']), file(`${dir}/client2-READ.hdr`, 'hdr-log', ['READ'])]));
    expect(runs.map((r) => r.label)).toEqual(['target-50', 'target-400', 'target-800', 'target-1600', 'target-unthrottled']);
    expect(runs[0]?.clients.map((c) => c.name)).toEqual(['client2', 'client10']);
  });

  it('labels a single run by its folder and strips only whole shared segments', () => {
    expect(runLabels(['x/y/run1'])).toEqual(['run1']);
    expect(runLabels(['r/target-1', 'r/target-10'])).toEqual(['target-1', 'target-10']);
    expect(runLabels(['', 'sub'])).toEqual(['.', 'sub']);
  });
});
