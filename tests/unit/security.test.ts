import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadFiles } from './helpers/engine-load.ts';
import type { Db } from '../../src/engine/db.ts';
import { isFailed, readText } from '../../src/formats/read-file.ts';
import { encodeHistogramV2Compressed } from '../../src/model/hdr-codec.ts';
import type { ParsedFile } from '../../src/model/types.ts';
import { decodeState, DEFAULT_STATE, encodeState, isLoadableReference } from '../../src/state/view-state.ts';

/**
 * Hostile names and links, for the parts that run outside the browser: file, folder, client, op
 * and tag names made of SQL reach DuckDB as data (Arrow columns and `?` parameters), names made
 * of JavaScript property names stay names, and a shared link cannot make the app load from
 * `javascript:`, `data:` or `file:` nor smuggle markup anywhere but into plain strings.
 */

const CORPUS = 'tests/fixtures/corpus';
const RUN = `${CORPUS}/sweep-uniform-a/target-1000`;
const expected = JSON.parse(readFileSync(`${CORPUS}/expected.json`, 'utf8'));
const oracle = expected['sweep-uniform-a'].runs.find((r: { run: string }) => r.run === 'target-1000');
const taggedOracle = expected['tagged-from-sweep'].taggedLog.perTag;

const FIGURES = ['count', 'min', 'max', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'p99.99'] as const;
const figuresOf = (o: object) => Object.fromEntries(FIGURES.map((k) => [k, (o as Record<string, unknown>)[k]]));

/** Row counts of every engine table: a DROP or DELETE that ran would show here. */
function tableCounts(db: Db): Record<string, number> {
  return Object.fromEntries(['series', 'intervals', 'series_buckets', 'raw_seconds', 'raw_extents'].map((t) => [t, Number(db.query(`SELECT count(*)::INTEGER AS n FROM ${t}`)[0]?.n)]));
}

describe('SQL in file, folder, client, op and tag names is data', () => {
  const RUN_DIR = "run'); DROP TABLE series; --";
  const CLIENTS = {
    "x'); DROP TABLE runs; --": 'client1',
    "o'brien; DROP TABLE buckets; --2": 'client2',
    'c3"; DELETE FROM intervals WHERE 1=1; --x': 'client3',
  } as const;

  it('a run folder and files named with quotes, semicolons and -- load, group and merge exactly like the originals', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'benchlens-sec-')), RUN_DIR);
    mkdirSync(dir);
    // `x'); DROP TABLE runs; --.hdr` carries its op in `#[Logging for: READ]`; the others in the name.
    copyFileSync(`${RUN}/client1-READ.hdr`, path.join(dir, "x'); DROP TABLE runs; --.hdr"));
    copyFileSync(`${RUN}/client2-READ.hdr`, path.join(dir, "o'brien; DROP TABLE buckets; --2-READ.hdr"));
    copyFileSync(`${RUN}/client3-READ.hdr`, path.join(dir, 'c3"; DELETE FROM intervals WHERE 1=1; --x-READ.hdr'));
    const loaded = await loadFiles([dir]);
    expect(loaded.errors).toEqual([]);
    expect(loaded.files).toHaveLength(3);
    const analysis = loaded.analysis;
    expect(analysis.runs).toHaveLength(1);
    const run = analysis.runs[0];
    expect(run?.dir.endsWith(RUN_DIR)).toBe(true);
    const read = run?.ops.READ;
    if (!read) throw new Error('no READ');
    expect(figuresOf(read)).toEqual(figuresOf(oracle.ops.READ.merged));
    expect(Math.abs((read.mean ?? 0) - oracle.ops.READ.merged.mean)).toBeLessThan(1e-6 * oracle.ops.READ.merged.mean);
    const byName = Object.fromEntries(read.perClient.map((c) => [c.client, c]));
    expect(Object.keys(byName).sort()).toEqual(Object.keys(CLIENTS).map((c) => c.replace(/[-_.\s]+$/, '')).sort());
    for (const [name, original] of Object.entries(CLIENTS)) {
      const mine = byName[name.replace(/[-_.\s]+$/, '')];
      const theirs = oracle.ops.READ.perClient.find((c: { client: string }) => c.client === original);
      expect(mine && figuresOf(mine), name).toEqual(figuresOf(theirs));
    }
    // Every table is still there and holds every interval and bucket.
    const counts = tableCounts(loaded.db);
    expect(counts.series).toBe(3);
    expect(counts.intervals).toBe(loaded.files.reduce((a, f) => a + f.series.reduce((b, s) => b + (s.kind === 'histogram' ? s.intervals.length : 0), 0), 0));
    expect(counts.series_buckets).toBeGreaterThan(0);
  });

  it("a tag `READ'); DROP TABLE buckets; --` is an op name with the figures of READ", async () => {
    const tag = "READ'); DROP TABLE buckets; --";
    const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-sec-'));
    const text = readFileSync(`${CORPUS}/tagged-from-sweep/client1-tagged.hlog`, 'utf8').replace(/^Tag=READ,/gm, `Tag=${tag},`);
    writeFileSync(path.join(dir, 'client1-tagged.hlog'), text);
    const loaded = await loadFiles([dir]);
    expect(loaded.errors).toEqual([]);
    const analysis = loaded.analysis;
    const ops = analysis.runs[0]?.ops ?? {};
    expect(Object.keys(ops).sort()).toEqual([tag, 'UPDATE'].sort());
    expect(figuresOf(ops[tag] ?? {})).toEqual(figuresOf(taggedOracle.READ));
    expect(figuresOf(ops.UPDATE ?? {})).toEqual(figuresOf(taggedOracle.UPDATE));
    expect(tableCounts(loaded.db).series_buckets).toBeGreaterThan(0);
  });

  it('op and client names of raw and CSV rows, made of SQL, reach the engine verbatim', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-sec-'));
    const ops = ["q'); DROP TABLE samples; --", 'a";DELETE FROM series;--', "1' OR '1'='1", '<img src=x onerror=alert(1)>'];
    const rows = ops.flatMap((op, i) => [10, 20, 30].map((l, j) => `"${op.replace(/"/g, '""')}",${1795255808000 + 10 * j},${l + i},"c'; --"`));
    writeFileSync(path.join(dir, 'results.csv'), `op,timestamp,latency_us,client\n${rows.join('\n')}\n`);
    const loaded = await loadFiles([dir]);
    expect(loaded.errors).toEqual([]);
    const analysis = loaded.analysis;
    const got = analysis.runs[0]?.ops ?? {};
    expect(Object.keys(got).sort()).toEqual([...ops].sort());
    ops.forEach((op, i) => {
      expect(got[op]?.count).toBe(3);
      expect(got[op]?.min).toBe(10 + i);
      expect(got[op]?.max).toBe(30 + i);
      expect(got[op]?.perClient.map((c) => c.client)).toEqual(["c'; --"]);
    });
    // 12 samples in one second, each its own (series, latency) bucket; 4 series' seconds.
    expect(tableCounts(loaded.db)).toMatchObject({ series_buckets: 12, raw_seconds: 4 });
  });
});

describe('JavaScript property names as op, tag and figure names', () => {
  const NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

  it('parsers keep them as names and never touch Object.prototype', async () => {
    const stdout = NAMES.flatMap((n) => [`[${n}], Operations, 5`, `[${n}], AverageLatency(us), 1.5`, `[${n}], Return=${n}, 5`]).join('\n');
    const stderr = `2026-11-21 10:10:09:337 1 sec: 5 operations; ${NAMES.map((n) => `[${n}: Count=1, Max=2, Min=1, Avg=1.5, 90=2]`).join(' ')}`;
    const blob = encodeHistogramV2Compressed({
      precision: { significantDigits: 3, lowestDiscernibleValue: 1 },
      highestTrackableValue: 3_600_000_000,
      integerToDoubleConversionRatio: 1,
      histogram: { lo: Float64Array.of(7), width: Float64Array.of(1), count: Float64Array.of(2), totalCount: 2 },
    });
    const tagged = NAMES.map((n, i) => `Tag=${n},${i}.000,1.000,0.001,${blob}`).join('\n');
    const files = await Promise.all([
      readText('c1.stdout.txt', `${stdout}\n`),
      readText('c1.stderr.txt', `${stderr}\n`),
      readText('c1-tagged.hlog', `#[StartTime: 1795255808.760]\n${tagged}\n`),
    ]);
    const [summary, status, log] = files.map((f) => {
      if (isFailed(f)) throw new Error(f.errors[0]?.message);
      return f;
    }) as ParsedFile[];
    expect(summary?.series.map((s) => s.op)).toEqual(NAMES);
    for (const s of summary?.series ?? []) if (s.kind === 'printed') expect(Object.keys(s.returns)).toEqual([s.op]);
    expect(Object.keys(status?.status?.[0]?.ops ?? {})).toEqual(NAMES);
    expect(log?.series.map((s) => s.op)).toEqual(NAMES);
    expect(({} as Record<string, unknown>).count).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'count')).toBe(false);
  });

  // Plain assignment `ops[name] = …` would make an op named __proto__ the object's prototype.
  it('an op named __proto__ survives the engine', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'benchlens-sec-'));
    writeFileSync(path.join(dir, 'results.csv'), 'op,latency_us\n__proto__,5\nREAD,7\n');
    const analysis = (await loadFiles([dir])).analysis;
    expect(Object.keys(analysis.runs[0]?.ops ?? {}).sort()).toEqual(['READ', '__proto__']);
  });
});

describe('links: file references and labels from a URL fragment stay data', () => {
  const BASE = 'https://app.example/benchlens/';
  const hostile = [
    'javascript:alert(1)',
    'JavaScript:alert(document.cookie)',
    ' javascript:alert(1)',
    'data:text/plain,READ,1795255946488,4181',
    'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    'file:///etc/passwd',
    'vbscript:msgbox(1)',
    'blob:https://app.example/1234',
    '//evil.example/x.hdr',
  ];

  it('javascript:, data:, file:, blob: and protocol-relative references are dropped with a notice', () => {
    for (const ref of hostile) {
      const { state, notices } = decodeState(`#files=${encodeURIComponent(`sample-results/a.hdr,${ref}`)}&v=1`);
      // The list is comma-separated, so a data: URL's payload after its comma arrives as relative paths.
      expect(state.files[0], ref).toBe('sample-results/a.hdr');
      for (const f of state.files) expect(new URL(f, BASE).protocol, ref).toMatch(/^https?:$/);
      expect(state.files.some((f) => f.includes(':') || f.startsWith('//')), ref).toBe(false);
      expect(notices, ref).toEqual(['ignored 1 file reference(s) that are not relative paths or http(s) URLs']);
    }
  });

  it('every reference a link can smuggle through resolves to http(s) (random fragments)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...hostile, 'a/b.hdr', 'https://x.example/c.hdr'), fc.string()), { maxLength: 5 }), (refs) => {
        const { state } = decodeState(`#files=${encodeURIComponent(refs.join(','))}`);
        for (const f of state.files) {
          expect(isLoadableReference(f)).toBe(true);
          const url = new URL(f, BASE);
          expect(url.protocol, f).toMatch(/^https?:$/);
          if (!/^https?:\/\//i.test(f)) expect(url.origin, f).toBe(new URL(BASE).origin);
        }
      }),
      { numRuns: 300 },
    );
  });

  // The WHATWG URL parser drops tabs and line ends anywhere and leading control characters, so
  // `java%09script:` would pass a textual check as a "relative path" and resolve to javascript:.
  it('references with tabs, line ends or control characters cannot resolve to another scheme', () => {
    for (const ref of ['java\tscript:alert(1)', 'da\nta:text/plain,x', '\u0000javascript:alert(1)', 'fi\rle:///etc/passwd']) {
      const { state } = decodeState(`#files=${encodeURIComponent(ref)}`);
      for (const f of state.files) expect(new URL(f, BASE).protocol, JSON.stringify(f)).toMatch(/^https?:$/);
    }
  });

  // URL parsing reads a backslash as a slash in http(s) URLs, so `/\evil.example/x.hdr` would load
  // from another host, and `/\` would make `new URL` throw.
  it('references with backslashes stay on the app\'s origin and resolve at all', () => {
    for (const ref of ['/\\evil.example/x.hdr', '\\\\evil.example/x.hdr', '/\\']) {
      const { state } = decodeState(`#files=${encodeURIComponent(ref)}`);
      for (const f of state.files) expect(new URL(f, BASE).origin, JSON.stringify(f)).toBe(new URL(BASE).origin);
    }
  });

  it('markup and script in labels, ops, events and SLA text come back as the same plain strings', () => {
    const html = '<img src=x onerror=alert(1)><script>alert(1)</script>';
    const state = {
      ...DEFAULT_STATE,
      op: html,
      sla: `p99 of READ <= 10 ms ${html}`,
      events: `30,${html}`,
      runs: { [`run/${html}`]: { system: html, workload: '"><svg onload=alert(1)>', loadLevel: "'; DROP TABLE runs; --" } },
      regroup: { [`a/${html}.hdr`]: `run/${html}` },
      focus: [`run/${html}`],
    };
    const decoded = decodeState(`#${encodeState(state)}`);
    expect(decoded.notices).toEqual([]);
    expect(decoded.state).toEqual(state);
    expect(typeof decoded.state.runs[`run/${html}`]?.system).toBe('string');
  });

  it('JSON in a link cannot pollute prototypes or smuggle non-string values', () => {
    const runs = encodeURIComponent('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
    const regroup = encodeURIComponent('{"__proto__":{"polluted":"yes"}}');
    const { state } = decodeState(`#runs=${runs}&regroup=${regroup}&capacity=${encodeURIComponent('{"__proto__":{"x":1}}')}`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    expect(Object.getPrototypeOf(state.runs)).toBe(Object.prototype);
    const labels = decodeState(`#runs=${encodeURIComponent('{"r":{"system":{"toString":"x"},"nodes":"3"}}')}`);
    expect(labels.state.runs).toEqual({});
    expect(labels.notices).toEqual(['run labels in the link are malformed and were ignored']);
  });
});
