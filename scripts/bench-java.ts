/**
 * The HdrHistogram Java reference (HdrHistogram 2.2.2 from Maven Central, scripts/java/HdrSum.java):
 * the same interval logs read with HistogramLogReader and summed per operation with Histogram.add,
 * timed as a user runs it (one JVM, start-up included) beside the app. Absent Java, Maven or the
 * artifact, the bench says so and goes on without it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const ARTIFACT = 'org.hdrhistogram:HdrHistogram:2.2.2';
const JAR = 'HdrHistogram-2.2.2.jar';

export interface JavaRun {
  /** The process's wall time, JVM start-up included. */
  seconds: number;
  /** Inside the JVM: from the first log opened to the last histogram added. */
  jvmSeconds: number;
  ops: Record<string, { count: number; p50: number; p99: number; 'p99.9': number }>;
}

/** Compiles the reference into `dir` (the jar fetched with Maven once); null with the reason when it cannot. */
export function javaReference(dir: string): { run(files: readonly string[]): JavaRun } | { missing: string } {
  for (const [tool, args] of [['java', ['-version']], ['javac', ['-version']], ['mvn', ['-v']]] as const) {
    if (spawnSync(tool, [...args], { stdio: 'ignore' }).status !== 0) return { missing: `${tool} is not installed` };
  }
  mkdirSync(dir, { recursive: true });
  const jar = path.join(dir, JAR);
  if (!existsSync(jar)) {
    const got = spawnSync('mvn', ['-q', 'dependency:copy', `-Dartifact=${ARTIFACT}`, `-DoutputDirectory=${dir}`], { encoding: 'utf8' });
    if (got.status !== 0 || !existsSync(jar)) return { missing: `Maven could not fetch ${ARTIFACT}: ${got.stdout.slice(-300)}` };
  }
  const source = path.join(import.meta.dirname, 'java', 'HdrSum.java');
  const compiled = spawnSync('javac', ['-cp', jar, '-d', dir, source], { encoding: 'utf8' });
  if (compiled.status !== 0) return { missing: `javac failed: ${compiled.stderr.slice(0, 300)}` };
  return {
    run(files) {
      const t0 = performance.now();
      const r = spawnSync('java', ['-cp', `${dir}${path.delimiter}${jar}`, 'HdrSum', ...files], { encoding: 'utf8', maxBuffer: 1 << 24 });
      const seconds = (performance.now() - t0) / 1000;
      if (r.status !== 0) throw new Error(`the Java reference failed: ${r.stderr.slice(0, 500)}`);
      const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as { seconds: number; ops: JavaRun['ops'] };
      return { seconds, jvmSeconds: out.seconds, ops: out.ops };
    },
  };
}
