// not-served.yaml is catalogue data, checked as the rest is: lint refuses an endpoint both listed and
// catalogued, a malformed entry, one without a reason or a source, one listed twice, and a
// replacement that is no endpoint served at the newest release, each as file:line; the shipped
// exchange list loads.
import { rmSync } from 'node:fs';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import { findService } from '../../src/catalogue/resolve.js';
import { runTool } from '../support/tools.js';
import { catalogueFolder, problemsOf } from './folder.js';

const test = suite('not-served.yaml at load and lint');

const SERVICE = "id: demo\ntitle: Demo\nkind: proxy\nupstreams: { rest: 'http://127.0.0.1:1' }\nerrors: { envelope: error }\n";
const RELEASES = "releases:\n  - { id: r1, date: '2024-01-01' }\n  - { id: r2, date: '2024-02-01' }\n";
const ENDPOINTS = [
  'module: things',
  'endpoints:',
  '  - { method: GET, path: /v1/a }',
  '  - { method: GET, path: /v1/old, removed: r2 }',
  "  - { method: GET, path: '/v1/items/{id}', parameters: [{ name: id, in: path }] }",
  '',
].join('\n');

// Line numbers matter: each expected problem names the line it is on.
const NOT_SERVED = [
  'endpoints:', //                                                                                   1
  '  - { method: GET, path: /v1/a, reason: listed too, source: test }', //                          2  also an endpoint
  "  - { method: GET, path: '/v1/items/{name}', reason: one operation, source: test }", //          3  same operation as /v1/items/{id}
  '  - { method: FETCH, path: /v1/b, reason: a method, source: test }', //                          4  not a method
  '  - { method: GET, path: v1/c, reason: no slash, source: test }', //                             5  not a path
  '  - { method: GET, path: /v1/d, reason: an extra field, source: test, because: x }', //          6  unknown field
  '  - { method: GET, path: /v1/e, source: test }', //                                              7  no reason
  "  - { method: GET, path: /v1/f, reason: '  ', source: test }", //                                8  blank reason
  '  - { method: GET, path: /v1/g, reason: no source }', //                                          9  no source
  '  - { method: GET, path: /v1/h, reason: first, source: test }', //                               10
  '  - { method: GET, path: /v1/h, reason: again, source: test }', //                               11 listed twice
  '  - { method: GET, path: /v1/i, replacement: GET /v1/nothing, reason: r, source: test }', //     12 replacement is no endpoint
  '  - { method: GET, path: /v1/j, replacement: GET /v1/old, reason: r, source: test }', //         13 replacement not served at r2
  "  - { method: GET, path: '/v1/k l', reason: a space, source: test }", //                         14 path lint refuses
  '  - { method: POST, path: /v1/a, replacement: GET /v1/a, reason: fine, source: test }', //       15 fine: another method
  '',
].join('\n');

const EXPECTED: [number, RegExp][] = [
  [2, /not served GET \/v1\/a: also an endpoint of the catalogue \(.*things\.yaml:3\); an endpoint is catalogued or listed as not served, never both/],
  [3, /not served GET \/v1\/items\/\{name\}: also an endpoint of the catalogue \(.*things\.yaml:5\)/],
  [4, /method/],
  [5, /path/],
  [6, /because/],
  [7, /reason/],
  [8, /not served GET \/v1\/f: the reason is blank/],
  [9, /source/],
  [11, /not served GET \/v1\/h: listed twice \(also at .*not-served\.yaml:10\)/],
  [12, /not served GET \/v1\/i: replacement "GET \/v1\/nothing" is not an endpoint of the catalogue/],
  [13, /not served GET \/v1\/j: replacement "GET \/v1\/old" is not served at the newest release \(r2\)/],
  [14, /not served GET "\/v1\/k l": path "\/v1\/k l" holds " ", a control character or space/],
];

const folder = () => catalogueFolder({
  'demo/service.yaml': SERVICE, 'demo/releases.yaml': RELEASES, 'demo/endpoints/things.yaml': ENDPOINTS, 'demo/not-served.yaml': NOT_SERVED,
}, 'cat-not-served-');

function assertAll(problems: string[]): void {
  for (const [line, re] of EXPECTED) {
    assert.ok(problems.some((p) => p.includes(`not-served.yaml:${line}: `) && re.test(p)), `no problem at line ${line} matching ${re}:\n${problems.join('\n')}`);
  }
  const lines = new Set(EXPECTED.map(([l]) => l));
  const others = problems.filter((p) => !/not-served\.yaml:(\d+): /.test(p) || !lines.has(Number(/not-served\.yaml:(\d+): /.exec(p)![1])));
  assert.equal(others, [], 'no problem elsewhere (line 15 is fine)');
}

test('every problem of the file, each at its line, in one pass', () => {
  const dir = folder();
  try {
    assertAll(problemsOf(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('`catalogue lint` refuses the same, exit 1', () => {
  const dir = folder();
  try {
    const r = runTool('catalogue', ['lint', '--catalogue', dir]);
    assert.is(r.status, 1, r.stdout + r.stderr);
    assertAll(r.stdout.split('\n').filter((l) => l.startsWith('error: ')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the shipped exchange list loads: every entry with its reason and source, none catalogued', () => {
  const exchange = findService(loadCatalogue(DEFAULT_CATALOGUE_DIR).catalogue, 'exchange');
  assert.ok(exchange.notServed.length >= 60, `${exchange.notServed.length} entries`);
  const keys = new Set(exchange.endpoints.map((e) => e.key));
  for (const n of exchange.notServed) {
    assert.ok(n.reason.length >= 20 && n.source.length >= 20, n.key);
    assert.not.ok(keys.has(n.key), n.key);
  }
});

test.run();
