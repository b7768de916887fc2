// Templated paths, path parameters and JSON body fields in the catalogue: what the loader refuses
// (each planted mistake with its file:line message), what it warns about (the router's rule), and
// what resolve and the validators give the gateway at a release.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { resolveService, type EndpointAt } from '../../src/catalogue/resolve.js';
import { bodySchemaAt, createBodyAjv, createParamAjv, pathSchemaAt } from '../../src/catalogue/validators.js';
import { problemsOf } from './folder.js';
import { GOOD, withCatalogue } from './hub-fixture.js';

const test = suite('path templates and body fields in the catalogue');

const endpointAt = (dir: string, release: string, key: string): EndpointAt => {
  const { catalogue } = loadCatalogue(dir, { cacheDir: false });
  const view = resolveService(catalogue.services[0], release);
  return view.endpoints.find((e) => e.endpoint.key === key)!;
};

test('a catalogue of templates loads without a warning; the more specific template is no ambiguity', () => {
  withCatalogue(GOOD, (dir) => {
    const { warnings } = loadCatalogue(dir, { cacheDir: false });
    assert.equal(warnings.map((w) => w.message), []);
  });
});

test('an endpoint at a release: every parameter, and apart the path parameters in path order and the body fields alive there', () => {
  withCatalogue(GOOD, (dir) => {
    const comments = endpointAt(dir, 'r1', 'GET /repos/{owner}/{repo}/issues/comments');
    assert.equal(comments.pathParameters.map((p) => p.name), ['owner', 'repo'], 'in the order of the path, not of the YAML');
    assert.ok(comments.pathParameters.every((p) => p.required && p.in === 'path'));
    const at = (r: string) => endpointAt(dir, r, 'POST /repos/{owner}/{repo}/issues');
    assert.equal(at('r1').parameters.map((p) => `${p.in} ${p.name}`), ['path owner', 'path repo', 'body title', 'body labels', 'body assignee', 'query per_page', 'body per_page'], 'every kind, as written');
    assert.equal(at('r1').bodyParameters.map((p) => p.name), ['title', 'labels', 'assignee', 'per_page']);
    assert.equal(at('r3').bodyParameters.map((p) => p.name), ['title', 'labels', 'assignees', 'per_page']);
    assert.is(at('r3').knownBodyParameters.length, 5);
  });
});

test('bodySchemaAt: the object of the fields alive at the release, $defs resolved, unknown fields passed, the others named with their release', () => {
  withCatalogue(GOOD, (dir) => {
    const { catalogue } = loadCatalogue(dir, { cacheDir: false });
    const svc = catalogue.services[0];
    const bodyAt = (r: string) => {
      const view = resolveService(svc, r);
      return bodySchemaAt(view, view.endpoints.find((e) => e.endpoint.key === 'POST /repos/{owner}/{repo}/issues')!)!;
    };
    const r3 = bodyAt('r3');
    const check = createBodyAjv().compile(r3.schema);
    assert.ok(check({ title: 't', labels: ['bug'], anything: 1 }), 'a field the catalogue does not know passes, as at GitHub');
    assert.not.ok(check({ labels: ['bug'] }), 'title is required');
    assert.not.ok(check({ title: 't', labels: ['too long'] }), 'the $defs schema (maxLength 5) applies');
    assert.not.ok(check({ title: 't', per_page: '3' }), 'a JSON body keeps its types');
    assert.equal([...r3.elsewhere.keys()], ['assignee']);
    assert.is(r3.elsewhere.get('assignee')!.removed, 'r3');
    assert.equal([...bodyAt('r1').elsewhere.keys()], ['assignees']);
    assert.equal([...bodyAt('r2').elsewhere.keys()], []);
    const get = resolveService(svc, 'r3').endpoints.find((e) => e.endpoint.key === 'GET /')!;
    assert.is(bodySchemaAt(resolveService(svc, 'r3'), get), null, 'no body fields and no body: no JSON body');
  });
});

test('pathSchemaAt: path values are text coerced and checked as query text is', () => {
  withCatalogue(GOOD, (dir) => {
    const { catalogue } = loadCatalogue(dir, { cacheDir: false });
    const view = resolveService(catalogue.services[0], 'r3');
    const issue = view.endpoints.find((e) => e.endpoint.key === 'GET /repos/{owner}/{repo}/issues/{issue_number}')!;
    const check = createParamAjv().compile(pathSchemaAt(view, issue)!);
    const values: Record<string, unknown> = { owner: 'o', repo: 'r', issue_number: '7' };
    assert.ok(check(values));
    assert.is(values.issue_number, 7);
    assert.not.ok(check({ owner: 'o', repo: 'r', issue_number: 'abc' }));
    assert.is(check.errors?.[0].instancePath, '/issue_number');
    assert.is(pathSchemaAt(view, view.endpoints.find((e) => e.endpoint.key === 'GET /')!), null);
  });
});

/** Problems and warnings name the test's temporary folder: keep the file name. */
const shortFiles = (line: string) => line.replace(/[^\s(]*\/e\.yaml/g, 'e.yaml');

// Line numbers matter: each expected problem names the line it is on.
const BAD = [
  'module: bad', //                                                            1
  'endpoints:', //                                                             2
  '  - method: GET', //                                                        3
  '    path: /a/{id}/b', //                                                    4
  '  - method: GET', //                                                        5
  '    path: /c', //                                                           6
  '    parameters:', //                                                        7
  '      - { name: x, in: path }', //                                          8
  '      - { name: constructor }', //                                          9
  '      - { name: y, multiSegment: true }', //                                10
  '  - method: GET', //                                                        11
  '    path: /d/{k}', //                                                       12
  '    parameters:', //                                                        13
  '      - { name: k, in: path, added: r2, required: false }', //              14
  '  - method: GET', //                                                        15
  '    path: /e/../f', //                                                      16
  '  - method: GET', //                                                        17
  '    path: /_gateway/x', //                                                  18
  '  - method: GET', //                                                        19
  '    path: "/g h"', //                                                       20
  '  - method: GET', //                                                        21
  '    path: "/x\\ny"', //                                                     22
  '  - method: GET', //                                                        23
  '    path: /d/{name}', //                                                    24
  '    parameters: [{ name: name, in: path }]', //                             25
  '  - method: POST', //                                                       26
  '    path: /d/{k}/{k}', //                                                   27
  '  - method: GET', //                                                        28
  '    path: /h', //                                                           29
  '    parameters: [{ name: q, in: body }, { name: __proto__, in: body }]', // 30
  '  - method: GET', //                                                        31
  '    path: /i/{n}', //                                                       32
  '    parameters: [{ name: n, in: path, schema: { type: array } }]', //       33
  '  - method: GET', //                                                        34
  '    path: /j/p{n}', //                                                      35
  '  - method: GET', //                                                        36
  '    path: /@r1/k', //                                                       37
  '',
].join('\n');

const EXPECTED = [
  'e.yaml:4: GET /a/{id}/b: {id} has no parameter with in: path (add { name: id, in: path } to parameters)',
  'e.yaml:8: GET /c: parameter x is in: path, but the path has no {x} segment',
  'e.yaml:9: GET /c: parameter constructor: the name is not allowed: every JavaScript object has a property "constructor", so the gateway could not hold the value as a field',
  'e.yaml:10: GET /c: parameter y: multiSegment applies to path parameters (in: path); here the gateway would ignore it',
  'e.yaml:14: GET /d/{k}: parameter k: a path parameter is always sent, so it cannot be required: false',
  'e.yaml:14: GET /d/{k}: parameter k: a path parameter lives as long as its endpoint, so it has no added of its own (a path that changes is another endpoint)',
  'e.yaml:16: GET "/e/../f": path "/e/../f" has a "." or ".." segment, which clients and proxies remove before sending: no request would reach it',
  'e.yaml:18: GET "/_gateway/x": path "/_gateway/x" is under /_gateway/, the gateway\'s own pages and admin routes',
  'e.yaml:20: GET "/g h": path "/g h" holds " ", a control character or space: a catalogue path has letters, digits, - . _ ~ ! $ & \' ( ) * + , ; = : @ and {name} segments',
  'e.yaml:22: GET "/x\\ny": path "/x\\ny" holds "\\n", a control character or space: a catalogue path has letters, digits, - . _ ~ ! $ & \' ( ) * + , ; = : @ and {name} segments',
  'e.yaml:23: duplicate endpoint: GET /d/{name} and GET /d/{k} (e.yaml:11) differ only in parameter names, so they are one operation',
  'e.yaml:27: POST "/d/{k}/{k}": path "/d/{k}/{k}": {k} appears twice',
  'e.yaml:30: GET /h: parameter __proto__: the name is not allowed: every JavaScript object has a property "__proto__", so the gateway could not hold the value as a field',
  'e.yaml:30: GET /h: parameter q is in: body, but a GET request has no body; the gateway would never check it',
  'e.yaml:30: GET /h: parameter __proto__ is in: body, but a GET request has no body; the gateway would never check it',
  'e.yaml:33: GET /i/{n}: parameter n: schema type array: a path segment holds one value (string, integer, number or boolean)',
  'e.yaml:35: GET "/j/p{n}": path "/j/p{n}": segment "p{n}" must be static or one whole {name}',
  'e.yaml:37: GET "/@r1/k": path "/@r1/k" starts with /@, the prefix that pins a request to a release (/@<release>/…)',
];

test('planted mistakes in paths and path or body parameters are refused, each with its file:line and reason', () => {
  withCatalogue(BAD, (dir) => {
    const problems = problemsOf(dir).map(shortFiles);
    assert.equal([...problems].sort(), [...EXPECTED].sort());
  });
});

test('lint warns, stating the router rule, where a path matches two templates with no more specific one (as their schemas allow), and where a multi-segment parameter is not last', () => {
  const endpoints = [
    'module: w', 'endpoints:',
    '  - method: GET', '    path: /w/{a}/c', '    parameters: [{ name: a, in: path }]', //                           3
    '  - method: GET', '    path: /w/b/{d}', '    parameters: [{ name: d, in: path }]', //                           6
    '  - method: GET', '    path: /m/{rest}/raw', '    parameters: [{ name: rest, in: path, multiSegment: true }]', // 9
    '  - method: GET', '    path: /v/{a}/c', '    removed: r2', '    parameters: [{ name: a, in: path }]', //         12: not alive with /v/b/{d}
    '  - method: GET', '    path: /v/b/{d}', '    added: r2', '    parameters: [{ name: d, in: path }]', //          16
    '  - method: GET', '    path: /z/{n}/c', '    parameters: [{ name: n, in: path, schema: { type: integer } }]', // 20: n never takes "b"
    '  - method: GET', '    path: /z/b/{d}', '    parameters: [{ name: d, in: path }]', //                          23
    '',
  ].join('\n');
  withCatalogue(endpoints, (dir) => {
    const { warnings } = loadCatalogue(dir, { cacheDir: false });
    const rule = 'at each segment, left to right, a static segment wins over a single-segment parameter, which wins over a multi-segment one; a multi-segment parameter takes as few segments as let the rest match';
    assert.equal(warnings.map((w) => shortFiles(`${w.file}:${w.line}: ${w.message}`)).sort(), [
      `e.yaml:10: GET /m/{rest}/raw: multi-segment parameter {rest} is followed by more segments; the router's rule: ${rule}`,
      `e.yaml:6: GET /w/b/{d}: a path such as /w/b/c matches both this and GET /w/{a}/c (e.yaml:3), and neither is the more specific at every segment; it goes to GET /w/b/{d} by the router's rule: ${rule}`,
    ].sort());
  });
});

test.run();
