import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anchorHrefs, ListingError, MAX_LISTED_FILES, parseListingHtml, parseManifest, parseS3Listing } from '../../src/state/folder-listing.ts';
import { isFailed, isUnrecognised, readText } from '../../src/formats/read-file.ts';
import { filesFromFolders, isFolderReference } from '../../src/views/file-sources.ts';

/**
 * Links to folders: the directory listings real servers write (tests/fixtures/listings/, captured
 * from python -m http.server, nginx and Apache; S3's from the AWS documentation), a manifest, and
 * what is refused.
 */

const DIR = 'tests/fixtures/listings';
const fixture = (name: string): string => readFileSync(path.join(DIR, name), 'utf8');
const SERVERS = [
  { kind: 'python', prefix: 'python-3.11.7' },
  { kind: 'nginx', prefix: 'nginx-1.22.1' },
  { kind: 'apache', prefix: 'apache-2.4.71' },
] as const;
const HOST = 'https://results.example';
const folder = (p: string) => new URL(`${HOST}/${p}`);

describe('directory listings of real servers', () => {
  for (const { kind, prefix } of SERVERS) {
    it(`${kind}: the folder's files and subfolders below it, hidden names and the parent link left out`, () => {
      const top = parseListingHtml(fixture(`${prefix}-results.html`), folder('results/'));
      expect(top).toEqual({ kind, files: [], folders: [`${HOST}/results/run-a/`, `${HOST}/results/run-b/`] });
      const a = parseListingHtml(fixture(`${prefix}-run-a.html`), folder('results/run-a/'));
      expect(a.kind).toBe(kind);
      expect(a.folders).toEqual([]);
      expect(a.files.map((f) => decodeURIComponent(new URL(f).pathname)).sort()).toEqual(['/results/run-a/client1 & co.log', '/results/run-a/write-threads4.hdr']);
      const b = parseListingHtml(fixture(`${prefix}-run-b.html`), folder('results/run-b/'));
      expect(b.files.map((f) => decodeURIComponent(new URL(f).pathname))).toEqual(['/results/run-b/sysbench été.txt']);
      expect(b.folders).toEqual([`${HOST}/results/run-b/wrk/`]);
    });
  }

  it("Apache's fancy table: its sort links and absolute parent link are not files, its &amp; is decoded", () => {
    const listing = parseListingHtml(fixture('apache-2.4.71-fancy-run-a.html'), folder('results/run-a/'));
    expect(listing.kind).toBe('apache');
    expect(listing.files.map((f) => decodeURIComponent(new URL(f).pathname)).sort()).toEqual(['/results/run-a/client1 & co.log', '/results/run-a/write-threads4.hdr']);
  });

  it('any other HTML page is refused with the reason', () => {
    const page = readFileSync('index.html', 'utf8');
    expect(() => parseListingHtml(page, folder('results/'))).toThrow(ListingError);
    expect(() => parseListingHtml(page, folder('results/'))).toThrow(/is not a directory listing \(nginx, Apache or python -m http\.server\); list its files in benchlens\.json/);
  });
});

describe('links in a listing are data', () => {
  // A mutated copy of nginx's listing: hostile hrefs among its real lines.
  const hostile = fixture('nginx-1.22.1-run-a.html').replace(
    '<a href="../">../</a>',
    [
      '<a href="../">../</a>',
      '<a href="http://evil.example/x.log">x</a>',
      '<a href="//evil.example/y.log">y</a>',
      '<a href="/etc/passwd">p</a>',
      '<a href="../secret.log">s</a>',
      '<a href="%2e%2e/secret2.log">s2</a>',
      '<a href="sub/../../secret3.log">s3</a>',
      '<a href="javascript:alert(1)">j</a>',
      '<a href="data:text/plain,hi">d</a>',
      '<a href="a.log?x=1">q</a>',
      "<a title='>' href='quoted.log'>q</a>",
      '<a href=bare.log>b</a>',
      '<A HREF="UPPER.log">u</A>',
      '<abbr href="not-a-link.log">n</abbr>',
    ].join('\n'),
  );

  it('only relative links below the folder are kept; other hosts, the root, .., schemes and queries are not', () => {
    const listing = parseListingHtml(hostile, folder('results/run-a/'));
    const names = listing.files.map((f) => new URL(f).pathname.replace('/results/run-a/', '')).sort();
    expect(names).toEqual(['UPPER.log', 'bare.log', 'client1%20%26%20co.log', 'write-threads4.hdr']);
    expect(listing.files.every((f) => f.startsWith(`${HOST}/results/run-a/`))).toBe(true);
  });

  it('the scanner reads quoted, bare and upper-case href attributes of <a> only', () => {
    expect(anchorHrefs('<a href="x">1</a><abbr href="no">2</abbr><a\thref=y>3</a><A HREF=\'z&amp;w\'>4</A><a name="n">5</a>')).toEqual(['x', 'y', 'z&w']);
  });
});

describe('S3 bucket listings (the AWS documentation examples)', () => {
  it('keys become URLs on the bucket host, below the folder', () => {
    const root = new URL('https://quotes.s3.amazonaws.com/');
    expect(parseS3Listing(fixture('s3-aws-docs-listobjectsv2-quotes.xml'), root, root)).toEqual({ kind: 's3', files: ['https://quotes.s3.amazonaws.com/ExampleObject.txt'], folders: [] });
    const bucket = new URL('https://example-bucket.s3.amazonaws.com/');
    expect(parseS3Listing(fixture('s3-aws-docs-listobjectsv2-delimiter.xml'), bucket, bucket).files).toEqual(['https://example-bucket.s3.amazonaws.com/sample.jpg']);
    // Keys outside the folder asked for are not taken.
    expect(parseS3Listing(fixture('s3-aws-docs-listobjectsv2-quotes.xml'), new URL('https://quotes.s3.amazonaws.com/runs/'), root).files).toEqual([]);
  });

  it('a cut listing carries the token for its next page', () => {
    const root = new URL('https://bucket.s3.amazonaws.com/');
    expect(parseS3Listing(fixture('s3-aws-docs-listobjectsv2-continuation.xml'), root, root).continuation).toBe('1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=');
  });
});

describe('benchlens.json manifests', () => {
  it('an object whose "files" are paths below the folder; other keys are left alone', () => {
    const listing = parseManifest(JSON.stringify({ files: ['a.log', 'sub/b c.csv', 'odd%20name#1.txt'], labels: { x: 1 } }), folder('runs/'));
    expect(listing).toEqual({ kind: 'manifest', files: [`${HOST}/runs/a.log`, `${HOST}/runs/sub/b%20c.csv`, `${HOST}/runs/odd%2520name%231.txt`], folders: [] });
  });

  it('refuses a manifest naming anything outside its folder, and says which', () => {
    for (const bad of ['../x.log', '/etc/passwd', 'https://evil.example/a.log', 'a/../../b.log', '']) {
      expect(() => parseManifest(JSON.stringify({ files: ['ok.log', bad] }), folder('runs/')), bad).toThrow(/not file paths below its folder/);
    }
    expect(() => parseManifest('["a.log"]', folder('runs/'))).toThrow(/has no "files" list/);
    expect(() => parseManifest('{"files": ', folder('runs/'))).toThrow(/is not JSON/);
  });
});

/** A host serving the captured responses: `routes` by URL, anything else 404. */
function host(routes: Record<string, string>): (url: string) => Promise<Response> {
  const seen: string[] = [];
  const fetcher = async (url: string) => {
    seen.push(url);
    const body = routes[url];
    return body === undefined ? new Response('not found', { status: 404 }) : new Response(body, { status: 200 });
  };
  return Object.assign(fetcher, { seen });
}

describe('reading a linked folder', () => {
  for (const { kind, prefix } of SERVERS) {
    it(`${kind}: every file under the folder, subfolders followed, paths as the folder structure`, async () => {
      const fetcher = host({
        [`${HOST}/results/`]: fixture(`${prefix}-results.html`),
        [`${HOST}/results/run-a/`]: fixture(`${prefix}-run-a.html`),
        [`${HOST}/results/run-b/`]: fixture(`${prefix}-run-b.html`),
        [`${HOST}/results/run-b/wrk/`]: fixture(`${prefix}-run-b-wrk.html`),
      });
      const got = await filesFromFolders(['results/'], `${HOST}/app/../`, fetcher);
      expect(got.problems).toEqual([]);
      expect(got.files.map((f) => f.path).sort()).toEqual(['results/run-a/client1 & co.log', 'results/run-a/write-threads4.hdr', 'results/run-b/sysbench été.txt', 'results/run-b/wrk/wrk-latency.txt']);
      expect(got.notes).toEqual([`results/: 4 file(s) from ${kind === 'python' ? "python -m http.server's" : kind === 'nginx' ? "nginx's" : "Apache's"} directory listing`]);
    });
  }

  it('a manifest wins over the listing', async () => {
    const fetcher = host({ [`${HOST}/results/benchlens.json`]: '{"files": ["run-a/write-threads4.hdr"]}', [`${HOST}/results/`]: fixture('nginx-1.22.1-results.html') });
    const got = await filesFromFolders(['results/'], `${HOST}/`, fetcher);
    expect(got.files.map((f) => f.path)).toEqual(['results/run-a/write-threads4.hdr']);
    expect(got.notes).toEqual(['results/: 1 file(s) from its benchlens.json manifest']);
  });

  it('an S3 REST endpoint: the folder answers NoSuchKey, the bucket lists the keys under it', async () => {
    const bucket = 'https://quotes.s3.amazonaws.com';
    const fetcher = host({
      [`${bucket}/E/`]: '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>',
      [`${bucket}/?list-type=2&prefix=E%2F`]: fixture('s3-aws-docs-listobjectsv2-quotes.xml').replace('<Key>ExampleObject.txt</Key>', '<Key>E/ExampleObject.txt</Key>'),
    });
    const got = await filesFromFolders([`${bucket}/E/`], `${HOST}/`, fetcher);
    expect(got.problems).toEqual([]);
    expect(got.files).toEqual([{ path: 'quotes.s3.amazonaws.com/E/ExampleObject.txt', url: `${bucket}/E/ExampleObject.txt` }]);
    expect(got.notes).toEqual([`${bucket}/E/: 1 file(s) from the S3 bucket listing`]);
  });

  it("a host answering with its own page (the app's fallback) is refused with the reason; other folders still load", async () => {
    const fetcher = host({ [`${HOST}/elsewhere/`]: readFileSync('index.html', 'utf8'), [`${HOST}/results/run-a/`]: fixture('python-3.11.7-run-a.html') });
    const got = await filesFromFolders(['elsewhere/', 'results/run-a/'], `${HOST}/`, fetcher);
    expect(got.problems).toHaveLength(1);
    expect(got.problems[0]).toMatch(/^https:\/\/results\.example\/elsewhere\/ answered with an HTML page that is not a directory listing/);
    expect(got.files).toHaveLength(2);
  });

  it(`stops at ${MAX_LISTED_FILES} files and says so`, async () => {
    // A mutated copy of nginx's listing with 1,500 file lines.
    const real = fixture('nginx-1.22.1-run-a.html');
    const line = real.split('\n').find((l) => l.includes('write-threads4.hdr'))!;
    const many = real.replace(line, Array.from({ length: 1500 }, (_, i) => line.replaceAll('write-threads4.hdr', `f${i}.hdr`)).join('\n'));
    const got = await filesFromFolders(['big/'], `${HOST}/`, host({ [`${HOST}/big/`]: many }));
    expect(got.files).toHaveLength(MAX_LISTED_FILES);
    expect(got.notes[0]).toMatch(/only the first 1000 files are read$/);
  });

  it('is a folder when its path ends in /', () => {
    expect(isFolderReference('results/', `${HOST}/app/`)).toBe(true);
    expect(isFolderReference('results/a.log', `${HOST}/app/`)).toBe(false);
    expect(isFolderReference('https://other.example/x/', `${HOST}/app/`)).toBe(true);
  });
});

describe('a folder linked without its trailing /', () => {
  for (const { prefix } of SERVERS) {
    it(`${prefix}: its listing, read as a file, says to add the /, instead of being passed over`, async () => {
      const outcome = await readText('results/run-a', fixture(`${prefix}-run-a.html`));
      if (!isFailed(outcome)) throw new Error('read as results');
      expect(isUnrecognised(outcome)).toBe(false);
      expect(outcome.errors[0]?.message).toBe("results/run-a is a web server's listing of a folder: link it with a trailing / (results/run-a/) to read the files it lists");
    });
  }

  it('a listing saved as a page in a folder is a document beside the results, passed over', async () => {
    const outcome = await readText('results/index.html', fixture('nginx-1.22.1-run-a.html'));
    expect(isFailed(outcome) && isUnrecognised(outcome)).toBe(true);
  });
});

describe('listing scanner under hostile input', () => {
  const pieces = fc.constantFrom('<a href="', '<a href=', "<a href='", '"', "'", '>', '</a>', '../', '..', '%2e%2e/', '//', '/', 'http://evil.example/', 'x.log', 'sub/', '?q', '#f', '&amp;', '&#47;', '&#x2e;&#x2e;/', ' ', '\n', '<', 'href=', 'javascript:', '\\');
  it('whatever the links, only URLs below the folder on its host come out', () => {
    const top = folder('results/run-a/');
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string({ maxLength: 8 })), { maxLength: 80 }), (parts) => {
        const page = fixture('nginx-1.22.1-run-a.html').replace('</pre>', `${parts.join('')}</pre>`);
        const listing = parseListingHtml(page, top);
        for (const u of [...listing.files, ...listing.folders]) {
          const url = new URL(u);
          expect(url.origin).toBe(top.origin);
          expect(url.pathname.startsWith(top.pathname) && url.pathname.length > top.pathname.length).toBe(true);
          expect(url.search + url.hash).toBe('');
          expect(decodeURIComponent(url.pathname).split('/')).not.toContain('..');
        }
      }),
      { numRuns: 300, seed: 20261127 },
    );
  });

  it('stays linear on a page of unclosed tags', () => {
    const page = `<title>Index of /x/</title>${'<a href="'.repeat(200_000)}`;
    const t0 = performance.now();
    parseListingHtml(page, folder('x/'));
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});
