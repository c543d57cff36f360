/**
 * A CI gate's verdicts, as plain data for the `check` command's console, JSON, JUnit XML and
 * Markdown: suites (a run's SLA rules, a comparison, a history's newest run) of cases (a rule, an
 * operation × statistic), each passed or failed with the figures that decided it.
 */

export interface CheckCase {
  /** What was checked: a rule, or `READ p99`. */
  name: string;
  passed: boolean;
  /** The figures, said either way. */
  message: string;
}

export interface CheckSuite {
  name: string;
  cases: CheckCase[];
}

/** Text for XML character data and attribute values: markup characters escaped, characters XML 1.0 cannot hold dropped. */
export function xmlText(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- removing the control characters XML 1.0 forbids is the point
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

/**
 * JUnit XML as GitLab, Jenkins and GitHub's test reporters read it: `<testsuites>` of one
 * `<testsuite>` per suite with its tests and failures counted, a `<testcase>` per case (classname
 * = the suite) and a `<failure message=…>` holding the figures when it failed.
 */
export function junitXml(suites: readonly CheckSuite[]): string {
  const tests = suites.reduce((a, s) => a + s.cases.length, 0);
  const failures = suites.reduce((a, s) => a + s.cases.filter((c) => !c.passed).length, 0);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="benchlens check" tests="${tests}" failures="${failures}" errors="0">`];
  for (const s of suites) {
    const failed = s.cases.filter((c) => !c.passed).length;
    lines.push(`  <testsuite name="${xmlText(s.name)}" tests="${s.cases.length}" failures="${failed}" errors="0" skipped="0">`);
    for (const c of s.cases) {
      const open = `    <testcase classname="${xmlText(s.name)}" name="${xmlText(c.name)}"`;
      if (c.passed) lines.push(`${open}><system-out>${xmlText(c.message)}</system-out></testcase>`);
      else lines.push(`${open}><failure message="${xmlText(c.message)}" type="benchlens">${xmlText(c.message)}</failure></testcase>`);
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}

/** A Markdown cell: pipes escaped, line breaks flattened, markup characters as entities. */
const cell = (text: string) => text.replace(/\r?\n/g, ' ').replace(/[<>&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c] as string).replace(/\|/g, '\\|');

/** A short table for a CI job's summary: the verdict, then one row per case (failed ones first). */
export function checkMarkdown(suites: readonly CheckSuite[]): string {
  const all = suites.flatMap((s) => s.cases.map((c) => ({ suite: s.name, ...c })));
  const failed = all.filter((c) => !c.passed);
  const head = failed.length ? `**benchlens check: ${failed.length} of ${all.length} checks failed**` : `**benchlens check: all ${all.length} checks passed**`;
  const rows = [...failed, ...all.filter((c) => c.passed)].map((c) => `| ${c.passed ? '✅' : '❌'} | ${cell(c.suite)} | ${cell(c.name)} | ${cell(c.message)} |`);
  return `${head}\n\n| | check | case | figures |\n|---|---|---|---|\n${rows.join('\n')}\n`;
}
