import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FormatModule } from '../../src/formats/format.ts';
import { gatlingFormat } from '../../src/formats/gatling.ts';
import { jmeterFormat } from '../../src/formats/jmeter.ts';
import { k6Format } from '../../src/formats/k6.ts';
import { vegetaFormat } from '../../src/formats/vegeta.ts';
import type { ParsedFile } from '../../src/model/types.ts';
import { parseByBytes, parseByLines } from './line-paths.ts';

/**
 * The HTTP load tools' parsers read plain rows straight from their bytes (lineBytes); every other
 * line — quoted fields, records spanning lines, odd numbers, headers, another mode — goes through
 * the full rules of `line`. Whatever the bytes and however they are chunked, both ways must give
 * the same samples, series, failures and errors.
 */

const shape = (f: ParsedFile) => ({
  ...f,
  series: f.series.map((s) => (s.kind === 'raw' ? { ...s, counts: { secs: [...s.counts.secs], starts: [...s.counts.starts], value: [...s.counts.value], n: [...s.counts.n] } } : s)),
});

function holdsEqual(format: FormatModule, file: string, line: fc.Arbitrary<string>, head: fc.Arbitrary<string>): void {
  fc.assert(
    fc.property(head, fc.array(line, { maxLength: 40 }), fc.constantFrom('\n', '\r\n'), fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), fc.boolean(), (first, lines, eol, cuts, finalEol, bom) => {
      const text = (bom ? '\uFEFF' : '') + [first, ...lines].join(eol) + (finalEol ? eol : '');
      expect(shape(parseByBytes(format, file, text, cuts))).toEqual(shape(parseByLines(format, file, text.replace(/^\uFEFF/, ''))));
    }),
    { numRuns: 300 },
  );
}

const label = fc.constantFrom('01 Home', 'Переход на страницу', 'Requête HTTP', '', ' spaced ', 'a;b');
const time = fc.oneof(fc.integer({ min: 1795000000000, max: 1795000009999 }).map(String), fc.constantFrom('', '0001795000000000', '17950000000001', '2026/11/27 10:00:00.123', ' 1795000000000', 'x'));
const ms = fc.oneof(fc.nat({ max: 5000 }).map(String), fc.constantFrom('', '1.5', '-3', '0012', '1234567890123', ' 7'));

describe('jmeter: CSV rows read from bytes', () => {
  const success = fc.constantFrom('true', 'false', 'TRUE', ' true', 'maybe', '');
  const message = fc.constantFrom('', 'OK', 'It took 1,234 ms, but', 'say "no"', 'two\nlines', 'Non HTTP response message: Read timed out');
  const row = fc
    .tuple(time, ms, label, fc.constantFrom('200', '500', ''), message, success, message, ms)
    .map(([t, e, l, code, rm, s, fm, lt]) => [t, e, l, code, rm, 'Thread Group 1-1', 'text', s, fm, '5120', '187', '1', '1', 'https://shop.example.com/', lt, '0', '0']);
  const quote = (f: string) => (/[",\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f);
  const line = fc.oneof(
    { weight: 8, arbitrary: row.map((f) => f.map(quote).join(',')) },
    { weight: 1, arbitrary: row.map((f) => f.slice(0, 12).join(',')) },
    { weight: 1, arbitrary: fc.constantFrom('', 'garbage', '"open,1,2', 'timeStamp,elapsed,label') },
  );
  const header = fc.constantFrom(
    'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect',
    'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,SampleCount,Hostname',
    'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,Latency,URL,IdleTime,Connect',
    '1795000000000,5,01 Home,200,OK,Thread Group 1-1,text,true,,5120,187,1,1,https://shop.example.com/,3,0,0',
  );
  it('give what the same lines give read one by one, however chunked and whatever the line ends', () => holdsEqual(jmeterFormat, 'results.jtl', line, header));
});

describe('gatling: simulation.log records read from bytes', () => {
  const status = fc.constantFrom('OK', 'KO', 'ok', '');
  const request = fc
    .tuple(fc.constantFrom('', 'Checkout', 'Checkout,Pay'), label, time, time, status, fc.constantFrom(' ', 'status.find.in([200, 209], 304), found 500', ''))
    .map(([groups, name, start, end, s, message]) => `REQUEST\t${groups}\t${name}\t${start}\t${end}\t${s}\t${message}`);
  const line = fc.oneof(
    { weight: 6, arbitrary: request },
    { weight: 1, arbitrary: fc.constantFrom('USER\tCheckout\tSTART\t1795000000000', 'USER', 'GROUP\tA\t1795000000000\t1795000000100\t5\tOK', 'ERROR\tboom\t1795000000000', 'REQUEST\t1\t\tname\t1795000000000\t1795000000005\tOK\t ', 'RUN\tx.Sim\tsim\t1795000000000\t \t3.9.5', 'garbage', '', 'REQUEST\t\tn\t1795000000010\t1795000000005\tOK\t ') },
  );
  const head = fc.constantFrom('RUN\tshop.CheckoutSimulation\tcheckoutsimulation\t1795000000000\t \t3.9.5', 'REQUEST\t\t01 Home\t1795000000000\t1795000000077\tOK\t ', '\0\0\0\0\u00053.13.1');
  it('give what the same lines give read one by one, however chunked and whatever the line ends', () => holdsEqual(gatlingFormat, 'simulation.log', line, head));
});

describe('vegeta: CSV results read from bytes', () => {
  // Unix ns of every magnitude a timestamp may have, and numbers that are not plain.
  const ns = fc.oneof(
    { weight: 4, arbitrary: fc.bigInt({ min: 1_000_000_000_000_000_000n, max: 9_999_999_999_999_999_999n }).map(String) },
    { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 999_999_999_999_999_999n }).map(String) },
    { weight: 1, arbitrary: fc.constantFrom('', '0795000000000000000', ' 1795000000000000000', '1795000000000000000.5', 'x') },
  );
  const code = fc.constantFrom('200', '302', '500', '0', '', '1000', '20x');
  const error = fc.constantFrom('', '500 Internal Server Error', 'Get "http://h/": context deadline exceeded', 'a\nb');
  const quote = (f: string) => (/[",\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f);
  const row = fc
    .tuple(ns, code, ms, error, fc.constantFrom('shop', '', 'other'), fc.constantFrom('GET', 'POST', ''), fc.constantFrom('https://shop.example.com/', 'https://shop.example.com/Über', ''))
    .map(([t, c, l, e, attack, method, url]) => [t, c, l, '0', '21', quote(e), 'eyJ9', attack, '7', method, url, 'SGVhZGVy']);
  const line = fc.oneof({ weight: 8, arbitrary: row.map((f) => f.join(',')) }, { weight: 1, arbitrary: row.map((f) => f.slice(0, 6 + (f[0]!.length % 5)).join(',')) }, { weight: 1, arbitrary: fc.constantFrom('', 'garbage', '\uFEFF1795000000000000000,200,5,0,0,,,a,1,GET,u,') });
  const head = fc.constantFrom('1795000000000000000,200,5,0,0,,eyJ9,shop,0,GET,https://shop.example.com/,SGVhZGVy', '{"latencies":{"total":5},"requests":1}');
  it('give what the same lines give read one by one, however chunked and whatever the line ends', () => holdsEqual(vegetaFormat, 'results.csv', line, head));
});

describe('k6: CSV rows read from bytes', () => {
  const header = 'metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata';
  const metric = fc.constantFrom('http_req_duration', 'http_req_waiting', 'iteration_duration', 'http_reqs', 'vus', 'grpc_req_duration', ' http_req_duration', 'metric_name', 'data_sent');
  const seconds = fc.oneof(fc.integer({ min: 1795000000, max: 1795000099 }).map(String), fc.constantFrom('1795000000123', '0001795000000', '17950000001', '', '1795000000.5', '2026-11-27T10:00:00Z', '123456789012345'));
  const value = fc.oneof(fc.nat({ max: 99_999_999 }).map((n) => (n / 1e6).toFixed(6)), fc.constantFrom('1', '1.5', '', '-1.000000', '1.0000001', '1234567890.000000', ' 2.000000'));
  const name = fc.constantFrom('01 Home', 'https://shop.example.com/', '', 'Über', ' padded', 'Über\u00a0');
  const quote = (f: string) => (/[",\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f);
  const row = fc
    .tuple(metric, seconds, value, fc.constantFrom('', 'request timeout', 'x "y"'), fc.constantFrom('', '1050', '1500'), fc.constantFrom('true', 'false', '', 'TRUE'), fc.constantFrom('GET', 'POST'), name, fc.constantFrom('200', '500', '0', ''), fc.constantFrom('https://shop.example.com/', '', ' https://shop.example.com/'))
    .map(([m, t, v, e, code, exp, method, n, status, url]) => [m, t, v, '', quote(e), code, exp, '', method, n, 'HTTP/1.1', 'default', '', status, '', 'tls1.3', url, '', '']);
  const line = fc.oneof({ weight: 8, arbitrary: row.map((f) => f.join(',')) }, { weight: 1, arbitrary: row.map((f) => f.slice(0, 10).join(',')) }, { weight: 1, arbitrary: fc.constantFrom('', header, 'garbage', ` ${header.slice(0, 30)}`, '"open,1') });
  it('give what the same lines give read one by one, however chunked and whatever the line ends', () => holdsEqual(k6Format, 'k6.csv', line, fc.constantFrom(header, header.replace(/,/g, ';'), 'http_reqs,1795000000,1.000000')));
});
