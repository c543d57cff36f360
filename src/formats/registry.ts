import { baseName } from '../model/naming.ts';
import type { FormatModule } from './format.ts';
import { cassandraStressFormat } from './cassandra-stress.ts';
import { mappingFor, type CsvMapping, type CsvMappings } from './csv-mapping.ts';
import { gatlingFormat } from './gatling.ts';
import { genericCsvFormat } from './generic-csv.ts';
import { goYcsbFormat } from './go-ycsb.ts';
import { hdrLogFormat } from './hdr-log.ts';
import { hgrmFormat } from './hgrm.ts';
import { jmeterFormat } from './jmeter.ts';
import { k6Format } from './k6.ts';
import { locustFormat } from './locust.ts';
import { memtierFormat } from './memtier.ts';
import { nosqlbenchFormat } from './nosqlbench.ts';
import { pgbenchFormat } from './pgbench.ts';
import { redisBenchmarkFormat } from './redis-benchmark.ts';
import { sysbenchFormat } from './sysbench.ts';
import { scyllaBenchFormat } from './scylla-bench.ts';
import { findLinePrefix, stripPrefixes, type LinePrefixShape } from './line-prefix.ts';
import { vegetaFormat } from './vegeta.ts';
import { wrkFormat } from './wrk.ts';
import { ycsbRawFormat } from './ycsb-raw.ts';
import { ycsbTextFormat } from './ycsb-text.ts';

/**
 * The formats, and which one reads a file. Reading it (decompressing, decoding, feeding its
 * lines) is read-file.ts; reading it in parts on several cores, part-plan.ts.
 */

/**
 * A producer's own formats (one module per producer, `src/formats/<producer>.ts`). They come
 * before the generic readers: where a producer's file also fits a generic one (its HdrHistogram
 * logs, its CSV), the producer's module claims it with the same score and, being first, wins.
 */
const PRODUCER_FORMATS: readonly FormatModule[] = [cassandraStressFormat, scyllaBenchFormat, jmeterFormat, gatlingFormat, locustFormat, k6Format, vegetaFormat, wrkFormat, nosqlbenchFormat, memtierFormat, goYcsbFormat, pgbenchFormat, sysbenchFormat, redisBenchmarkFormat];

/** Every input format. Adding a format = one module here + its fixtures and tests. */
export const FORMATS: readonly FormatModule[] = [...PRODUCER_FORMATS, hdrLogFormat, hgrmFormat, ycsbRawFormat, ycsbTextFormat, genericCsvFormat];

/** Text examined for detection. */
export const HEAD_CHARS = 64 * 1024;
const MIN_SCORE = 0.25;

/** Documents that sit beside results (a run's README, a report) and may quote result lines. */
const DOCUMENT_NAME = /\.(md|markdown|rst|adoc|html?|pdf|png|jpe?g|gif|svg|docx?|xlsx?|pptx?)$/i;

/** Markdown headings or code fences: a document that may quote result lines, not a result. */
const DOCUMENT_CONTENT = /^(#{1,6} \S|```)/m;

export function detectFormat(rawHead: string, fileName: string): FormatModule | null {
  return scoredFormat(normalisedHead(rawHead), fileName)?.module ?? null;
}

/** Modules are promised normalised line ends and no BOM. */
function normalisedHead(rawHead: string): string {
  // Their detectors split on \n, so a file with CR-only line ends (classic Mac, some Windows
  // tools) was one long line and went to the wrong module.
  return rawHead.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

function scoredFormat(head: string, fileName: string): { module: FormatModule; score: number } | null {
  if (DOCUMENT_NAME.test(fileName) || DOCUMENT_CONTENT.test(head)) return null;
  let best: FormatModule | null = null;
  let bestScore = MIN_SCORE;
  for (const f of FORMATS) {
    const score = f.detect(head, baseName(fileName));
    if (score > bestScore) {
      best = f;
      bestScore = score;
    }
  }
  return best ? { module: best, score: bestScore } : null;
}

/**
 * The format of a file starting with `rawHead`, and the line prefix to remove from its lines
 * first (see line-prefix.ts) when one is on most of them and the file reads at least as well
 * without it: a harness's timestamps never take a file from another format that reads it as it is.
 */
export function detectInput(rawHead: string, fileName: string): { module: FormatModule; prefix: LinePrefixShape | null } | null {
  const head = normalisedHead(rawHead);
  const plain = scoredFormat(head, fileName);
  const prefix = findLinePrefix(head);
  if (prefix) {
    const stripped = scoredFormat(stripPrefixes(head, prefix), fileName);
    // The same module on both: its detector looks past the line starts, its parser would not.
    if (stripped && (stripped.score > (plain?.score ?? 0) || stripped.module === plain?.module)) return { module: stripped.module, prefix };
  }
  return plain ? { module: plain.module, prefix: null } : null;
}

/** The format module of id `id`, if there is one. */
export function formatById(id: FormatModule['id']): FormatModule | null {
  return FORMATS.find((f) => f.id === id) ?? null;
}

/** The format a file is read with, the user's column mapping for it, and the line prefix to remove first. */
export interface FormatChoice {
  module: FormatModule;
  mapping: CsvMapping | null;
  prefix: LinePrefixShape | null;
}

/**
 * Which format reads a file whose head is `shown` (from its first line with content, BOM removed,
 * line ends normalised): the one forced by `formatId`; the generic CSV, for a table the user has
 * mapped the columns of; or the one detected, with the line prefix to remove. Null when none does.
 * A mapping that cannot be read throws MappingError.
 */
export function chooseFormat(shown: string, path: string, options: { formatId?: FormatModule['id']; csvMappings?: CsvMappings }): FormatChoice | null {
  if (options.formatId) {
    const module = formatById(options.formatId);
    return module ? { module, mapping: null, prefix: null } : null;
  }
  const mapping = mappingFor(shown, options.csvMappings);
  if (mapping) return { module: genericCsvFormat, mapping, prefix: null };
  const detected = detectInput(shown, path);
  return detected ? { module: detected.module, mapping: null, prefix: detected.prefix } : null;
}
