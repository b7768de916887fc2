// One small catalogue per rule family: endpoint /t/<case> changes at release 2 (one entry removed
// at 2, the next added at 2), so each case shows exactly the rules that fire for that edit. Each
// rule has a case that must report it and a case (the near miss) that must not.
import { mkdirSync, writeFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import type { Catalogue, Endpoint, Service } from '../../src/catalogue/model.js';
import { diffReleases, parseSeverity, RULES, type Change } from '../../src/diff/index.js';
import { UsageError } from '../../src/usage-error.js';
import { ROOT, tempDir } from './support.js';

/** [case name, the entry's fields before release 2, after it]; YAML flow mappings. */
const CASES: [string, string, string][] = [
  ['type', '{ name: n, schema: { type: integer } }', '{ name: n, schema: { type: string } }'],
  ['same-schema', '{ name: n, schema: { type: integer, minimum: 1 } }', '{ name: n, schema: { type: integer, minimum: 1 } }'],
  ['min-raised', '{ name: n, schema: { type: integer, minimum: 1 } }', '{ name: n, schema: { type: integer, minimum: 5 } }'],
  ['min-lowered', '{ name: n, schema: { type: integer, minimum: 5 } }', '{ name: n, schema: { type: integer, minimum: 1 } }'],
  ['max-lowered', '{ name: n, schema: { type: integer, maximum: 100 } }', '{ name: n, schema: { type: integer, maximum: 10 } }'],
  ['max-removed', '{ name: n, schema: { type: integer, maximum: 100 } }', '{ name: n, schema: { type: integer } }'],
  ['maxlength-added', '{ name: n, schema: { type: string } }', '{ name: n, schema: { type: string, maxLength: 8 } }'],
  ['maxlength-raised', '{ name: n, schema: { type: string, maxLength: 8 } }', '{ name: n, schema: { type: string, maxLength: 80 } }'],
  ['pattern-added', '{ name: n, schema: { type: string } }', "{ name: n, schema: { type: string, pattern: '^[A-Z]+$' } }"],
  ['pattern-changed', "{ name: n, schema: { type: string, pattern: '^[A-Z]+$' } }", "{ name: n, schema: { type: string, pattern: '^[a-z]+$' } }"],
  ['pattern-removed', "{ name: n, schema: { type: string, pattern: '^[A-Z]+$' } }", '{ name: n, schema: { type: string } }'],
  ['became-required', '{ name: n }', '{ name: n, required: true }'],
  ['became-optional', '{ name: n, required: true }', '{ name: n }'],
  ['type-widened', '{ name: n, schema: { type: integer } }', '{ name: n, schema: { type: number } }'],
  ['union-narrowed', '{ name: n, schema: { type: [string, integer] } }', '{ name: n, schema: { type: integer } }'],
];

/** JSON body fields (in: body) of POST /f/<case>, each with its own lifecycle. */
const FIELD_CASES: [string, string][] = [
  ['field-added', "{ name: f, in: body, added: '2' }"],
  ['field-added-required', "{ name: f, in: body, required: true, added: '2' }"],
  ['field-replaced', "{ name: f, in: body, removed: '2', replacement: g }, { name: g, in: body, added: '2' }"],
  ['field-required', "{ name: f, in: body, removed: '2' }, { name: f, in: body, required: true, added: '2' }"],
  ['field-deprecated', "{ name: f, in: body, deprecated: '2' }"],
  ['field-narrowed', "{ name: f, in: body, removed: '2', schema: { type: [string, 'null'] } }, { name: f, in: body, added: '2', schema: { type: string } }"],
  ['field-widened', "{ name: f, in: body, removed: '2', schema: { type: string } }, { name: f, in: body, added: '2', schema: { type: [string, 'null'] } }"],
];

/** Templated paths: an endpoint entry before release 2 and the one after it (path and parameters). */
const PATH_CASES: [string, string, string][] = [
  ['path-renamed', "path: '/t/path-renamed/{id}', parameters: [{ name: id, in: path }]", "path: '/t/path-renamed/{issue_id}', parameters: [{ name: issue_id, in: path }]"],
  ['path-narrowed', "path: '/t/path-narrowed/{id}', parameters: [{ name: id, in: path }]", "path: '/t/path-narrowed/{id}', parameters: [{ name: id, in: path, schema: { type: integer } }]"],
];

const AB = 'parameters: [ { name: a }, { name: b } ]';
/** Whole-endpoint edits: extra fields of the entry before and after release 2. */
const ENTRY_CASES: [string, string, string][] = [
  ['body-added', '', 'body: { type: object, properties: { a: { type: string } } }'],
  ['body-removed', 'body: { type: object, properties: { a: { type: string } } }', ''],
  ['prop-added-optional', 'body: { type: object, properties: { a: { type: string } } }', 'body: { type: object, properties: { a: { type: string }, b: { type: string } } }'],
  ['prop-added-required', 'body: { type: object, properties: { a: { type: string } } }', 'body: { type: object, required: [b], properties: { a: { type: string }, b: { type: string } } }'],
  ['prop-removed', 'body: { type: object, properties: { a: { type: string }, b: { type: string } } }', 'body: { type: object, properties: { a: { type: string } } }'],
  ['prop-required', 'body: { type: object, properties: { a: { type: string } } }', 'body: { type: object, required: [a], properties: { a: { type: string } } }'],
  ['prop-optional', 'body: { type: object, required: [a], properties: { a: { type: string } } }', 'body: { type: object, properties: { a: { type: string } } }'],
  ['prop-ref-tightened', "body: { type: object, properties: { a: { $ref: '#/$defs/Code' } } }", 'body: { type: object, properties: { a: { type: string, maxLength: 2 } } }'],
  ['prop-nested', 'body: { type: object, properties: { o: { type: object, properties: { x: { type: integer } } } } }', 'body: { type: object, properties: { o: { type: object, properties: { x: { type: string } } } } }'],
  ['same-body', 'body: { type: object, properties: { a: { type: string } } }', 'body: { type: object, properties: { a: { type: string } } }'],
  ['exclusive-added', AB, `${AB}, constraints: [ { exclusive: [a, b] } ]`],
  ['exclusive-removed', `${AB}, constraints: [ { exclusive: [a, b] } ]`, AB],
  ['exclusive-reordered', `${AB}, constraints: [ { exclusive: [a, b] } ]`, `${AB}, constraints: [ { exclusive: [b, a] } ]`],
];

function writeFixture(): string {
  const dir = tempDir('diff-rules-');
  cpSync(join(ROOT, 'catalogue', 'schema'), join(dir, 'schema'), { recursive: true });
  const svc = join(dir, 'rules');
  mkdirSync(join(svc, 'endpoints'), { recursive: true });
  writeFileSync(join(svc, 'releases.yaml'), "releases:\n  - { id: '1', date: '2020-01-01' }\n  - { id: '2', date: '2020-02-01' }\n  - { id: '3', date: '2020-03-01' }\n");
  writeFileSync(join(svc, 'service.yaml'), [
    'id: rules', 'title: Rule fixtures', 'kind: proxy', 'upstreams: { rest: http://127.0.0.1:1 }',
    'errors: { envelope: code-msg, codes: { unknown: -1 } }', 'schemas:', '  Code: { type: string, maxLength: 3 }',
    // Under /s/ an unsigned endpoint accepts the signing parameters too, optional.
    'security:', '  apiKeyHeader: X-Key', '  signedParameters: [ { name: timestamp, required: true }, { name: signature, required: true } ]', '  signedParametersAccepted: [ { pathPrefix: /s/ } ]', '',
  ].join('\n'));
  const lines = ['module: rules', 'endpoints:'];
  for (const [name, before, after] of CASES) {
    lines.push(`  - method: GET`, `    path: /p/${name}`, `    parameters:`, `      - ${before.replace(/ }$/, ", removed: '2' }")}`, `      - ${after.replace(/ }$/, ", added: '2' }")}`);
  }
  for (const [name, before, after] of ENTRY_CASES) {
    lines.push(`  - { method: POST, path: /e/${name}, removed: '2' ${before ? `, ${before}` : ''} }`, `  - { method: POST, path: /e/${name}, added: '2' ${after ? `, ${after}` : ''} }`);
  }
  for (const [name, fields] of FIELD_CASES) lines.push(`  - { method: POST, path: /f/${name}, parameters: [ ${fields} ] }`);
  for (const [, before, after] of PATH_CASES) lines.push(`  - { method: DELETE, removed: '2', ${before} }`, `  - { method: DELETE, added: '2', ${after} }`);
  // security changed at 2 where the signing parameters stay, optional, on the laxer side
  lines.push("  - { method: GET, path: /s/relaxed, security: [ { scheme: SIGNED, removed: '2' }, { scheme: API_KEY, added: '2' } ] }");
  lines.push("  - { method: GET, path: /s/tightened, security: [ { scheme: API_KEY, removed: '2' }, { scheme: SIGNED, added: '2' } ] }");
  // policy: removed at 2 without deprecation; removed at 3 one release after its deprecation at 2
  lines.push("  - { method: GET, path: /gone/abrupt, removed: '2' }", "  - { method: GET, path: /gone/early, deprecated: '2', removed: '3' }", "  - { method: GET, path: /gone/after-notice, deprecated: '1', removed: '3' }");
  writeFileSync(join(svc, 'endpoints', 'rules.yaml'), `${lines.join('\n')}\n`);
  return dir;
}

const { catalogue } = loadCatalogue(writeFixture(), { modelCache: false });
const changes = diffReleases(catalogue, 'rules', '1', '2').changes;
/** Rule ids reported for one case, sorted. */
const ids = (cs: Change[], endpoint: string) => cs.filter((c) => c.endpoint === endpoint).map((c) => c.id).sort();

const EXPECT: Record<string, string[]> = {
  'GET /p/type': ['schema-type-changed'],
  'GET /p/same-schema': [],
  'GET /p/min-raised': ['schema-bound-tightened'],
  'GET /p/min-lowered': ['schema-bound-relaxed'],
  'GET /p/max-lowered': ['schema-bound-tightened'],
  'GET /p/max-removed': ['schema-bound-relaxed'],
  'GET /p/maxlength-added': ['schema-bound-tightened'],
  'GET /p/maxlength-raised': ['schema-bound-relaxed'],
  'GET /p/pattern-added': ['schema-bound-tightened'],
  'GET /p/pattern-changed': ['schema-pattern-changed'],
  'GET /p/pattern-removed': ['schema-bound-relaxed'],
  'GET /p/became-required': ['parameter-became-required'],
  'GET /p/became-optional': ['parameter-became-optional'],
  'POST /e/body-added': ['request-body-added'],
  'POST /e/body-removed': ['request-body-removed'],
  'POST /e/prop-added-optional': ['body-property-added'],
  'POST /e/prop-added-required': ['body-required-property-added'],
  'POST /e/prop-removed': ['body-property-removed'],
  'POST /e/prop-required': ['body-property-became-required'],
  'POST /e/prop-optional': ['body-property-became-optional'],
  'POST /e/prop-ref-tightened': ['schema-bound-tightened'],
  'POST /e/prop-nested': ['schema-type-changed'],
  'POST /e/same-body': [],
  'POST /e/exclusive-added': ['constraint-added'],
  'POST /e/exclusive-removed': ['constraint-removed'],
  'POST /e/exclusive-reordered': [],
  'GET /p/type-widened': ['schema-type-widened'],
  'GET /p/union-narrowed': ['schema-type-changed'],
  'POST /f/field-added': ['body-property-added'],
  'POST /f/field-added-required': ['body-required-property-added'],
  'POST /f/field-replaced': ['body-property-added', 'body-property-removed'],
  'POST /f/field-required': ['body-property-became-required'],
  'POST /f/field-deprecated': ['body-property-deprecated'],
  'POST /f/field-narrowed': ['schema-type-changed'],
  'POST /f/field-widened': ['schema-type-widened'],
  'DELETE /t/path-renamed/{issue_id}': ['path-parameter-renamed'],
  'DELETE /t/path-narrowed/{id}': ['schema-type-changed'],
  'GET /gone/abrupt': ['endpoint-removed', 'endpoint-removed-without-deprecation'],
  // The signing parameters, required on the SIGNED side and accepted on the other, come with the security change.
  'GET /s/relaxed': ['security-relaxed'],
  'GET /s/tightened': ['security-tightened'],
};

for (const [endpoint, want] of Object.entries(EXPECT)) {
  test(`${endpoint}: ${want.length ? want.join(', ') : 'no change'}`, () => {
    assert.equal(ids(changes, endpoint), want);
    for (const c of changes.filter((x) => x.endpoint === endpoint)) {
      assert.is(c.release, '2');
      assert.is(c.severity, RULES.find((r) => r.id === c.id)!.severity);
      assert.equal(c.at?.file, 'rules/endpoints/rules.yaml', 'file relative to the catalogue folder');
      assert.ok(c.at!.line > 2);
    }
  });
}

test('messages and attributes name the keyword and both values', () => {
  const c = changes.find((x) => x.endpoint === 'GET /p/min-raised')!;
  assert.equal([c.attribute, c.before, c.after, c.name, c.message], ['minimum', '1', '5', 'n', 'query parameter n: minimum tightened from 1 to 5']);
  const ref = changes.find((x) => x.endpoint === 'POST /e/prop-ref-tightened')!;
  assert.equal([ref.name, ref.attribute, ref.before, ref.after], ['a', 'maxLength', '3', '2'], '$ref resolved through the service schemas');
  assert.is(changes.find((x) => x.endpoint === 'POST /e/prop-nested')!.name, 'o.x');
  assert.is(changes.find((x) => x.endpoint === 'POST /e/exclusive-added')!.value, 'a, b');
});

test('body fields, path parameters and type changes: what the messages say', () => {
  const message = (endpoint: string, id: string) => changes.find((x) => x.endpoint === endpoint && x.id === id)?.message;
  assert.is(message('POST /f/field-replaced', 'body-property-removed'), 'body property f removed; use g');
  assert.is(message('POST /f/field-required', 'body-property-became-required'), 'body property f became required');
  assert.is(message('POST /f/field-narrowed', 'schema-type-changed'), 'body property f: type changed from ["string","null"] to "string"');
  assert.is(message('GET /p/type-widened', 'schema-type-widened'), 'query parameter n: type widened from "integer" to "number"');
  assert.is(message('DELETE /t/path-narrowed/{id}', 'schema-type-changed'), 'path parameter id: type changed from "string" to "integer"');
  const renamed = changes.find((x) => x.id === 'path-parameter-renamed')!;
  assert.equal([renamed.endpoint, renamed.name, renamed.before, renamed.after, renamed.message], ['DELETE /t/path-renamed/{issue_id}', 'issue_id', 'id', 'issue_id', 'path parameter {id} renamed {issue_id} (the same operation)']);
  assert.not.ok(changes.some((x) => x.endpoint?.startsWith('DELETE /t/path-renamed/') && /endpoint-/.test(x.id)), 'a renamed path parameter is not a removal plus an addition');
  const down = diffReleases(catalogue, 'rules', '2', '1').changes;
  assert.equal(ids(down, 'DELETE /t/path-renamed/{id}'), ['path-parameter-renamed'], 'a downgrade names the operation as <to> has it');
  assert.equal(ids(down, 'POST /f/field-deprecated'), ['body-property-undeprecated']);
});

test('downgrade mirrors: tightened ↔ relaxed, added ↔ removed', () => {
  const down = diffReleases(catalogue, 'rules', '2', '1').changes;
  assert.equal(ids(down, 'GET /p/min-raised'), ['schema-bound-relaxed']);
  assert.equal(ids(down, 'POST /e/exclusive-added'), ['constraint-removed']);
  assert.equal(ids(down, 'POST /e/prop-added-required'), ['body-property-removed']);
  assert.equal(ids(down, 'GET /gone/abrupt'), ['endpoint-added'], 'no policy check on a downgrade');
});

test('deprecation policy: --deprecation-releases N flags a removal fewer than N releases after deprecation', () => {
  const d = (n?: number) => diffReleases(catalogue, 'rules', '1', '3', { deprecationReleases: n }).changes;
  assert.equal(ids(d(), 'GET /gone/early'), ['endpoint-removed'], 'default 1: one release of notice is enough');
  assert.equal(ids(d(2), 'GET /gone/early'), ['endpoint-removed', 'endpoint-removed-before-deprecation-period']);
  assert.equal(ids(d(2), 'GET /gone/after-notice'), ['endpoint-removed'], 'deprecated two releases before: enough for N=2');
  assert.ok(d(3).some((c) => c.endpoint === 'GET /gone/after-notice' && c.id === 'endpoint-removed-before-deprecation-period' && c.message === 'endpoint removed 2 release(s) after its deprecation'));
});

test('endpoint-weight-changed: weights compared as JSON, info; an equal weight is no change', () => {
  const svc = catalogue.services[0];
  const withWeights = (before: unknown, after: unknown): Catalogue => {
    const endpoints = svc.endpoints.map((e): Endpoint => (e.path !== '/e/same-body' ? e : { ...e, weight: e.span.removed !== null ? before : after } as Endpoint));
    return { ...catalogue, services: [{ ...svc, endpoints } as Service] };
  };
  const w = (b: unknown, a: unknown) => diffReleases(withWeights(b, a), 'rules', '1', '2').changes.filter((c) => c.id === 'endpoint-weight-changed');
  const [c] = w(1, { default: 2, when: { symbol: 'absent', weight: 40 } });
  assert.equal([c.severity, c.before, c.after, c.endpoint], ['info', '1', '{"default":2,"when":{"symbol":"absent","weight":40}}', 'POST /e/same-body']);
  assert.equal(w(5, 5), []);
  assert.is(w(undefined, 3).length, 1, 'a weight appearing is a change');
});

test('--severity overrides: parse, re-level, switch off; unknown ids and levels are usage errors', () => {
  const severity = parseSeverity('schema-bound-relaxed: breaking\nendpoint-removed-without-deprecation: off\n', 'levels.yaml');
  const cs = diffReleases(catalogue, 'rules', '1', '2', { severity }).changes;
  assert.ok(cs.filter((c) => c.id === 'schema-bound-relaxed').every((c) => c.severity === 'breaking'));
  assert.ok(cs.some((c) => c.id === 'schema-bound-relaxed'));
  assert.not.ok(cs.some((c) => c.id === 'endpoint-removed-without-deprecation'));
  assert.ok(cs.some((c) => c.id === 'endpoint-removed'), 'switching off a policy check keeps the change itself');
  assert.throws(() => parseSeverity('endpoint-gone: info', 'levels.yaml'), (e: Error) => e instanceof UsageError && /levels\.yaml: unknown rule id "endpoint-gone"; valid rule ids: .*endpoint-removed/.test(e.message));
  assert.throws(() => parseSeverity('endpoint-removed: fatal', 'levels.yaml'), (e: Error) => e instanceof UsageError && /rule endpoint-removed: invalid level "fatal"; valid: breaking, warning, info, off/.test(e.message));
  assert.throws(() => parseSeverity('- a', 'levels.yaml'), (e: Error) => e instanceof UsageError && /expected a mapping/.test(e.message));
});

test('every schema, body, constraint, policy and path-template rule is covered by a case above', () => {
  const seen = new Set([...changes, ...diffReleases(catalogue, 'rules', '1', '3', { deprecationReleases: 2 }).changes, ...diffReleases(catalogue, 'rules', '2', '1').changes].map((c) => c.id));
  const want = RULES.filter((r) => (['schema', 'body', 'constraint'].includes(r.kind) || r.policy || r.type === 'renamed')).map((r) => r.id);
  assert.equal(want.filter((id) => !seen.has(id)), []);
});

test.run();
