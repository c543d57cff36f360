import { expect } from 'vitest';
import type { FormatModule, LineParser } from '../../src/formats/format.ts';
import { ByteLineSplitter, type ByteLineReader } from '../../src/formats/text-input.ts';
import type { ParsedFile } from '../../src/model/types.ts';

/**
 * The two ways a parser is fed: line strings one by one, or UTF-8 bytes cut anywhere (its byte
 * path, `lineBytes`/`lineRun`). Tests of a byte path hold them equal.
 */

export function parseByLines(format: FormatModule, path: string, text: string): ParsedFile {
  const parser = format.createParser(path);
  text.split(/\r\n|\r|\n/).forEach((line, i, all) => {
    if (i < all.length - 1 || line.length > 0) parser.line(line, i + 1);
  });
  return parser.finish() as ParsedFile;
}

/** `text` as UTF-8 bytes pushed in pieces cut at `cuts` (taken modulo the length). */
export function parseByBytes(format: FormatModule, path: string, text: string, cuts: number[]): ParsedFile {
  const parser = format.createParser(path);
  expect(parser.lineBytes).toBeTypeOf('function');
  const splitter = new ByteLineSplitter(parser as LineParser & ByteLineReader, path);
  const bytes = new TextEncoder().encode(text);
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    splitter.push(bytes.subarray(from, cut));
    from = cut;
  }
  splitter.push(bytes.subarray(from));
  splitter.end();
  return parser.finish() as ParsedFile;
}
