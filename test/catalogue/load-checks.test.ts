// What would fail at request time fails at load instead: a parameter or body schema ajv rejects (or
// would silently ignore part of), an errors.codes key that is not a reason, security the gateway
// cannot enforce, fields it would ignore. Every problem is a file:line line, all in one pass, both
// from loadCatalogue (start-up) and from `catalogue lint` (the compiled tool, as a child process).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { REASON_NAMES } from '../../src/catalogue/reasons.js';
import { bodySchema, createBodyAjv, createParamAjv, parameterSchema } from '../../src/catalogue/validators.js';
import { ROOT } from '../support/processes.js';
import { runTool } from '../support/tools.js';
import { catalogueFolder, problemsOf } from './folder.js';

const test = suite('catalogue checks at load');

const catalogue = (files: Record<string, string>) => catalogueFolder(files, 'cat-checks-');

// Line numbers matter: each expected problem below names the line it is on.
const SERVICE = [
  'id: demo', //                                         1
  'title: Demo', //                                      2
  'kind: proxy', //                                      3
  "upstreams: { rest: 'http://127.0.0.1:1' }", //       4
  'errors:', //                                          5
  '  envelope: code-msg', //                             6
  '  codes:', //                                         7
  '    unknown: -1', //                                  8
  '    notFund: -2', //                                  9  not a reason
  'builders:', //                                        10
  '  - { name: build }', //                              11
  'schemas:', //                                         12
  '  Amount: { type: string, pattern: "^[0-9]+$" }', //  13
  '',
].join('\n');

const ENUMS = 'enums:\n  Color:\n    values:\n      - { value: RED }\n';

const ENDPOINTS = [
  'module: things', //                                   1
  'endpoints:', //                                       2
  '  - method: GET', //                                  3
  '    path: /v1/a', //                                  4
  '    parameters:', //                                  5
  '      - name: limit', //                              6
  '        schema: { type: integr }', //                 7  ajv rejects the type
  '      - name: offset', //                             8
  '        schema: { type: integer, minimun: 0 }', //    9  typo: ajv would ignore it
  '  - method: POST', //                                 10
  '    path: /v1/b', //                                  11
  '    builder: build', //                               12
  '    body:', //                                        13
  '      type: object', //                               14 bad body schema (the problem points at its first line)
  '      properties: { amount: { $ref: "#/$defs/Amount" }, note: { type: strng } }', // 15
  '  - method: GET', //                                  16
  '    path: /v1/c', //                                  17
  '    security: API_KEY', //                            18 no apiKeyHeader in service.yaml
  '  - method: POST', //                                 19
  '    path: /v1/d', //                                  20
  '    builder: build', //                               21
  '    security: SIGNED', //                             22 a builder cannot honour SIGNED
  '  - method: GET', //                                  23
  '    path: /v1/e', //                                  24
  '    sumary: typo', //                                 25 a JSON-Schema error in the same file…
  '  - method: GET', //                                  26
  '    path: /v1/f', //                                  27
  '    parameters: [{ name: color, enum: Colour }]', //  28 …does not hide this bad enum name
  '',
].join('\n');

const EXPECTED: [number | string, RegExp][] = [
  ['service.yaml:9', /errors\.codes: unknown key "notFund"; valid: notFound, gone, methodNotAllowed/],
  ['things.yaml:7', /GET \/v1\/a: parameter limit: schema does not compile: type: "integr" must be one of array, boolean, integer, null, number, object, string/],
  ['things.yaml:9', /GET \/v1\/a: parameter offset: schema has a part the gateway would ignore: unknown keyword: "minimun"/],
  ['things.yaml:14', /POST \/v1\/b: body schema does not compile: properties\.note\.type: "strng" must be one of/],
  ['things.yaml:18', /GET \/v1\/c: security API_KEY needs the API-key header the gateway checks, but service demo declares no security\.apiKeyHeader/],
  ['things.yaml:22', /POST \/v1\/d: security SIGNED on builder endpoint \(builder build\)/],
  ['things.yaml:22', /POST \/v1\/d: security SIGNED needs the API-key header/],
  ['things.yaml:25', /endpoints\.4: unknown field "sumary"/],
  ['things.yaml:28', /GET \/v1\/f: parameter color refers to enum "Colour", which does not exist/],
];

const broken = () => catalogue({ 'demo/service.yaml': SERVICE, 'demo/enums.yaml': ENUMS, 'demo/endpoints/things.yaml': ENDPOINTS });

function assertAll(lines: string[], prefix: (at: string) => string) {
  for (const [at, message] of EXPECTED) {
    const hit = lines.find((l) => l.startsWith(prefix(at as string)) && message.test(l));
    assert.ok(hit, `no problem at ${at} matching ${message}; got:\n${lines.join('\n')}`);
  }
}

test('loadCatalogue reports every problem at once, each as file:line: problem', () => {
  const dir = broken();
  try {
    const problems = problemsOf(dir);
    assertAll(problems.map((p) => p.slice(p.indexOf('demo/') + 5).replace(/^endpoints\//, '')), (at) => `${at}: `);
    // GET /v1/e alone has the schema error; nothing else is reported twice or spuriously.
    assert.is(problems.length, EXPECTED.length, problems.join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('catalogue lint prints the same problems and exits 1', () => {
  const dir = broken();
  try {
    const r = runTool('catalogue', ['lint', '--catalogue', dir]);
    assert.is(r.status, 1, r.stdout + r.stderr);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('error: ')).map((l) => l.slice(l.indexOf('demo/') + 5).replace(/^endpoints\//, ''));
    assertAll(lines, (at) => `${at}: `);
    assert.match(r.stdout, new RegExp(`${EXPECTED.length} error\\(s\\)`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('fields the gateway would ignore are refused', () => {
  const dir = catalogue({
    'demo/service.yaml': 'id: demo\ntitle: Demo\nkind: proxy\nsecurity: { apiKeyHeader: X-Key }\nerrors: { envelope: error }\n',
    'demo/enums.yaml': ENUMS,
    'demo/endpoints/e.yaml': [
      'module: e', 'endpoints:',
      '  - method: GET', '    path: /v1/a', '    body: { type: object }', //                                  5
      '    parameters:', '      - { name: c, enum: Color, schema: { type: string, enum: [X] } }', //            7
      '      - { name: p, pathPrefix: /v1 }', //                                                           8
      '  - method: POST', '    path: /v1/b', '    body: { type: object }', '    parameters: [{ name: q, in: body }]', // 12
      '  - method: POST', '    path: /v1/c', '    security: API_KEY', //  fine: the service declares apiKeyHeader
      '',
    ].join('\n'),
  });
  try {
    const problems = problemsOf(dir).map((p) => p.slice(p.indexOf('e.yaml:')));
    assert.is(problems.length, 4, problems.join('\n'));
    assert.match(problems[0], /^e\.yaml:7: GET \/v1\/a: parameter c: schema\.enum would be replaced by the values of enum "Color"/);
    assert.match(problems[1], /^e\.yaml:8: GET \/v1\/a: parameter p: pathPrefix only applies to service\.yaml commonParameters/);
    assert.match(problems[2], /^e\.yaml:5: GET \/v1\/a: a GET request has no body/);
    assert.match(problems[3], /^e\.yaml:12: POST \/v1\/b: parameter q is in: body, but the endpoint's JSON body is described by body:/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a websocket method that ends a user-data subscription names one of its own parameters', () => {
  const dir = catalogue({
    'demo/service.yaml': 'id: demo\ntitle: Demo\nkind: proxy\nerrors: { envelope: error }\n',
    'demo/ws-api.yaml': [
      'path: /ws-api', 'methods:',
      '  - { name: sub, subscription: { opens: subId } }', //                                      3
      '  - { name: unsub, subscription: { ends: subscriptionId }, parameters: [{ name: subId }] }', // 4
      '  - { name: both, subscription: { opens: a, ends: b } }', //                                   5
      '',
    ].join('\n'),
  });
  try {
    const problems = problemsOf(dir).map((p) => p.slice(p.indexOf('ws-api.yaml:')));
    assert.is(problems.length, 2, problems.join('\n'));
    assert.ok(problems.some((p) => /^ws-api\.yaml:5: methods\.2\.subscription: must NOT have more than 1 properties/.test(p)), problems.join('\n'));
    assert.ok(problems.some((p) => /^ws-api\.yaml:4: websocket method unsub: subscription ends names parameter subscriptionId, which the method does not have/.test(p)), problems.join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ajv rejects an unknown type even with the runtime options (strict: false)', () => {
  assert.throws(() => createParamAjv().compile({ type: 'integr' }), /type must be equal to one of the allowed values/);
  assert.throws(() => createBodyAjv().compile({ type: 'object', properties: { a: { type: 'strng' } } }), /allowed values/);
  // …while an unknown keyword is silently ignored at run time: the load-time strict compile catches it.
  assert.ok(createParamAjv().compile({ type: 'integer', minimun: 0 })(-1));
});

test('the runtime schemas: enum values merged in, list items checked, service schemas as $defs', () => {
  const base = { in: 'query' as const, required: false, span: { added: 0, deprecated: null, removed: null }, at: { file: 'x', line: 1 } };
  assert.equal(parameterSchema({ ...base, name: 'c', enum: 'Color', schema: { type: 'string' } }, ['RED']), { type: 'string', enum: ['RED'] });
  assert.equal(parameterSchema({ ...base, name: 'c', enum: 'Color', schema: { type: 'array' } }, ['RED']), { type: 'array', items: { enum: ['RED'] } });
  assert.equal(bodySchema({ schemas: { A: { type: 'string' } } }, { body: { $ref: '#/$defs/A' } }), { $ref: '#/$defs/A', $defs: { A: { type: 'string' } } });
  assert.is(bodySchema({ schemas: {} }, {}), null);
  const v = createParamAjv().compile({ type: 'object', properties: { n: { type: 'integer' } } });
  const data = { n: '5' };
  assert.ok(v(data));
  assert.is(data.n, 5, 'parameters are coerced from text');
});

test('the error-code check and the reasons table agree', () => {
  assert.ok(REASON_NAMES.includes('notFound'));
  assert.not.ok(REASON_NAMES.includes('notFund' as never));
});

test.run();
