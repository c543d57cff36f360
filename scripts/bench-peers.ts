/**
 * The tools users would otherwise run on their HTTP load files (`npm run bench -- --peers`), from
 * Maven Central: JMeter 5.6.3's dashboard (`jmeter -g`) on a JTL and Gatling 3.9.5's reports
 * (`gatling -ro`) on a simulation.log. Each is laid out as its own distribution lays it out and
 * timed as a user runs it: one JVM, start-up included, from the command to the report written. The
 * number of requests each report counts is checked against the file's. Absent Java, Maven or an
 * artifact, the bench says so and goes on without that tool.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { HttpTool } from './generate-data.ts';

const JMETER = '5.6.3';
const GATLING = '3.9.5';

export interface PeerRun {
  /** What was run, as a user would name it. */
  name: string;
  /** Wall time of the process, JVM start-up included. */
  seconds: number;
  /** Requests the tool's own report counts. */
  requests: number;
}

export type Peer = { run(file: string): PeerRun } | { missing: string };

/** A Maven project of one dependency in `dir`, for Maven's dependency goals. */
function pomFor(dir: string, group: string, artifact: string, version: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>benchlens</groupId><artifactId>peer</artifactId><version>1</version>
<dependencies><dependency><groupId>${group}</groupId><artifactId>${artifact}</artifactId><version>${version}</version></dependency></dependencies></project>\n`,
  );
}

function mvn(dir: string, args: readonly string[]): string | null {
  const r = spawnSync('mvn', ['-q', ...args], { cwd: dir, encoding: 'utf8' });
  return r.status === 0 ? null : `Maven failed (${args[0]}): ${(r.stdout + r.stderr).slice(-300)}`;
}

function toolsMissing(): string | null {
  for (const [tool, args] of [['java', ['-version']], ['jar', ['--version']], ['mvn', ['-v']]] as const) {
    if (spawnSync(tool, [...args], { stdio: 'ignore' }).status !== 0) return `${tool} is not installed`;
  }
  return null;
}

function timed(command: string, args: readonly string[], cwd: string): number {
  const t0 = performance.now();
  const r = spawnSync(command, [...args], { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${(r.stdout + r.stderr).slice(-500)}`);
  return seconds;
}

/**
 * JMeter as its binary distribution lays it out: bin/ (the launcher, the properties and the report
 * template, from ApacheJMeter_config), lib/ (the dependencies), lib/ext/ (ApacheJMeter_core).
 */
function jmeter(dir: string): Peer {
  const home = path.join(dir, `apache-jmeter-${JMETER}`);
  const launcher = path.join(home, 'bin', `ApacheJMeter-${JMETER}.jar`);
  if (!existsSync(launcher)) {
    const project = path.join(dir, 'jmeter-project');
    pomFor(project, 'org.apache.jmeter', 'ApacheJMeter_core', JMETER);
    const failed =
      mvn(project, ['dependency:copy-dependencies', `-DoutputDirectory=${path.join(home, 'lib')}`]) ??
      mvn(project, ['dependency:copy', `-Dartifact=org.apache.jmeter:ApacheJMeter_config:${JMETER}`, `-DoutputDirectory=${project}`]) ??
      mvn(project, ['dependency:copy', `-Dartifact=org.apache.jmeter:ApacheJMeter:${JMETER}`, `-DoutputDirectory=${path.join(home, 'bin')}`]);
    if (failed) return { missing: failed };
    mkdirSync(path.join(home, 'lib', 'ext'), { recursive: true });
    // The launcher looks for this folder and complains when it is not there.
    mkdirSync(path.join(home, 'lib', 'junit'), { recursive: true });
    renameSync(path.join(home, 'lib', `ApacheJMeter_core-${JMETER}.jar`), path.join(home, 'lib', 'ext', `ApacheJMeter_core-${JMETER}.jar`));
    const unpacked = spawnSync('jar', ['xf', path.join(project, `ApacheJMeter_config-${JMETER}.jar`), 'bin'], { cwd: home, encoding: 'utf8' });
    if (unpacked.status !== 0) return { missing: `could not unpack JMeter's bin/: ${unpacked.stderr.slice(0, 300)}` };
  }
  return {
    run(file) {
      const out = path.join(dir, 'jmeter-report');
      rmSync(out, { recursive: true, force: true });
      const seconds = timed('java', ['-jar', launcher, '-g', file, '-o', out, '-j', path.join(dir, 'jmeter.log')], dir);
      const stats = JSON.parse(readFileSync(path.join(out, 'statistics.json'), 'utf8')) as { Total: { sampleCount: number } };
      return { name: `JMeter ${JMETER} -g`, seconds, requests: stats.Total.sampleCount };
    },
  };
}

/** Gatling's reports on its own: the highcharts bundle's classpath, and `-ro` on a results folder holding the file. */
function gatling(dir: string): Peer {
  const project = path.join(dir, 'gatling-project');
  const classpath = path.join(project, 'classpath.txt');
  if (!existsSync(classpath)) {
    pomFor(project, 'io.gatling.highcharts', 'gatling-charts-highcharts', GATLING);
    const failed = mvn(project, ['dependency:build-classpath', `-Dmdep.outputFile=${classpath}`]);
    if (failed) return { missing: failed };
  }
  return {
    run(file) {
      const results = path.join(dir, 'gatling-results');
      rmSync(results, { recursive: true, force: true });
      mkdirSync(path.join(results, 'run'), { recursive: true });
      symlinkSync(path.resolve(file), path.join(results, 'run', 'simulation.log'));
      const seconds = timed('java', ['-cp', readFileSync(classpath, 'utf8').trim(), 'io.gatling.app.Gatling', '-ro', 'run', '-rf', results], dir);
      const stats = JSON.parse(readFileSync(path.join(results, 'run', 'js', 'stats.json'), 'utf8')) as { stats: { numberOfRequests: { total: number } } };
      return { name: `Gatling ${GATLING} -ro`, seconds, requests: stats.stats.numberOfRequests.total };
    },
  };
}

/** The peer of each tool that has one here (JMeter, Gatling), set up in `dir` (fetched with Maven once). */
export function httpPeers(folder: string): Partial<Record<HttpTool, Peer>> {
  const missing = toolsMissing();
  if (missing) return { jmeter: { missing }, gatling: { missing } };
  // Absolute: Maven runs in each tool's project folder.
  const dir = path.resolve(folder);
  mkdirSync(dir, { recursive: true });
  return { jmeter: jmeter(dir), gatling: gatling(dir) };
}
