import { MappingError, type CsvMappings } from './csv-mapping.ts';
import { isGzip } from './decompress.ts';
import type { FormatModule, FormatOptions } from './format.ts';
import { chooseFormat, formatById } from './registry.ts';

/**
 * Splitting a file to read it in parts on several cores (src/engine/file-parts.ts cuts and reads
 * them): whether a file can be, and what each part is read with.
 */

/** How a file can be read in parts on several cores: see `FormatModule.partPreamble`. */
export interface PartPlan {
  formatId: FormatModule['id'];
  /** The format options every part is read with (a mapped CSV's columns). */
  format?: FormatOptions;
  /** Text each part is read after (a CSV's header line, '' for none): line 1 of every part but the first. */
  preamble: string;
}

/** The series a line of a file of format `formatId` belongs to, where its files come in blocks of one series (`FormatModule.partSeries`). */
export function partSeriesOf(formatId: FormatModule['id']): ((line: string) => string | null) | null {
  return formatById(formatId)?.partSeries ?? null;
}

/**
 * Whether a file whose first bytes are `headBytes` can be read in parts, and how: plain UTF-8 text
 * (not gzip, not UTF-16) with `\n` line ends, of a format that splits (see
 * `FormatModule.partPreamble`). Null when it must be read whole.
 */
export function partPlan(path: string, headBytes: Uint8Array, options: { csvMappings?: CsvMappings; formatId?: FormatModule['id'] } = {}): PartPlan | null {
  const utf16 = (headBytes[0] === 0xff && headBytes[1] === 0xfe) || (headBytes[0] === 0xfe && headBytes[1] === 0xff) || headBytes.subarray(0, 64).includes(0);
  if (isGzip(headBytes) || utf16) return null;
  const text = new TextDecoder().decode(headBytes).replace(/^\uFEFF/, '');
  // Parts start after a \n: files whose lines end otherwise (a CR alone) are read whole.
  const whole = text.slice(0, text.lastIndexOf('\n') + 1);
  const first = whole.search(/\S/);
  if (first < 0 || /\r(?!\n)/.test(whole)) return null;
  // As readFile shows it to the detectors: from the first line with content, line ends normalised.
  const shown = whole.slice(whole.lastIndexOf('\n', first) + 1).replace(/\r\n/g, '\n');
  let choice;
  try {
    choice = chooseFormat(shown, path, options);
  } catch (e) {
    if (e instanceof MappingError) return null;
    throw e;
  }
  // A file read with its lines' prefix removed is read whole: parts hand lines to the parser directly.
  if (!choice || choice.prefix) return null;
  const preamble = choice.module.partPreamble?.(shown);
  if (preamble === null || preamble === undefined) return null;
  return { formatId: choice.module.id, ...(choice.mapping ? { format: { mapping: choice.mapping } } : {}), preamble };
}
