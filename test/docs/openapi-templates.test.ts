// The OpenAPI export of a templated API: path parameters in: path and required, a multi-segment
// one marked as GitHub marks it, body fields as one application/json object, one spelling per
// templated path; swagger-parser and Redocly's recommended ruleset accept the document.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { resolveService } from '../../src/catalogue/resolve.js';
import { toOpenApi } from '../../src/catalogue/to-openapi.js';
import { redoclyLint, swaggerValidate } from '../../tools/export-checks.js';
import { GOOD, withCatalogue } from '../catalogue/hub-fixture.js';
import { tempDir } from '../support/temp.js';

type Json = Record<string, any>;
const test = suite('openapi export of templates and body fields');

const MORE = `module: more
endpoints:
  - method: DELETE
    path: /repos/{o}/{r}/issues/{n}
    parameters: [{ name: o, in: path }, { name: r, in: path }, { name: n, in: path, schema: { type: integer } }]
  - method: PUT
    path: /labels/{name}
    parameters: [{ name: name, in: path }]
    body:
      type: object
      properties: { label: { $ref: '#/$defs/Label' }, color: { $ref: '#/$defs/Color' } }
      $defs:
        Label: { type: string, maxLength: 100 }
        Color: { type: string, pattern: '^[0-9a-f]{6}$' }
`;

const exportAt = (release: string): Json => withCatalogue(GOOD, (dir) => {
  const { catalogue } = loadCatalogue(dir, { cacheDir: false });
  return toOpenApi([resolveService(catalogue.services[0], release)]) as Json;
}, { 'hub/endpoints/more.yaml': MORE });

test('path parameters are in: path and required, in path order; a multi-segment one carries x-multi-segment', () => {
  const doc = exportAt('r3');
  const get = doc.paths['/repos/{owner}/{repo}/issues/{issue_number}'].get;
  assert.equal(get.parameters.map((p: Json) => [p.name, p.in, p.required]), [['owner', 'path', true], ['repo', 'path', true], ['issue_number', 'path', true]]);
  assert.equal(get.parameters[2].schema, { type: 'integer', minimum: 1 });
  const contents = doc.paths['/repos/{owner}/{repo}/contents/{path}'].get;
  assert.is(contents.parameters[2]['x-multi-segment'], true);
  assert.is(get.parameters[2]['x-multi-segment'], undefined);
});

test('operations on one shape share its first spelling: the DELETE names its segments as the GET does', () => {
  const doc = exportAt('r3');
  const item = doc.paths['/repos/{owner}/{repo}/issues/{issue_number}'];
  assert.equal(Object.keys(item).sort(), ['delete', 'get']);
  assert.equal(item.delete.parameters.map((p: Json) => p.name), ['owner', 'repo', 'issue_number']);
  assert.equal(item.delete.parameters[2].schema, { type: 'integer' }, "the DELETE's own schema");
  assert.is(doc.paths['/repos/{o}/{r}/issues/{n}'], undefined);
});

test('body fields alive at the release are one JSON object request body, $refs to components, query parameters apart', () => {
  const at = (r: string) => exportAt(r).paths['/repos/{owner}/{repo}/issues'].post;
  const r1 = at('r1');
  const body = r1.requestBody.content['application/json'].schema;
  assert.is(r1.requestBody.required, true);
  assert.equal(Object.keys(body.properties), ['title', 'labels', 'assignee', 'per_page']);
  assert.equal(body.required, ['title']);
  assert.equal(body.properties.labels.items, { $ref: '#/components/schemas/Label' });
  assert.is(body.$defs, undefined, 'the service schemas are components, not copied into the body');
  assert.equal(r1.parameters.filter((p: Json) => p.in === 'query').map((p: Json) => p.name), ['per_page']);
  assert.equal(Object.keys(at('r3').requestBody.content['application/json'].schema.properties), ['title', 'labels', 'assignees', 'per_page']);
});

test("a body's own $defs become components; a name the service's schemas hold for another schema gets a suffix", () => {
  const doc = exportAt('r3');
  const body = doc.paths['/labels/{name}'].put.requestBody.content['application/json'].schema;
  assert.equal(body.properties, { label: { $ref: '#/components/schemas/Label-2' }, color: { $ref: '#/components/schemas/Color' } });
  assert.is(body.$defs, undefined);
  assert.equal(doc.components.schemas.Label, { type: 'string', maxLength: 5 }, "the service's own Label");
  assert.equal(doc.components.schemas['Label-2'], { type: 'string', maxLength: 100 });
});

test('swagger-parser and redocly (recommended) accept the export at every release', async () => {
  const dir = tempDir('openapi-templates-');
  try {
    const files = ['r1', 'r2', 'r3'].map((r) => {
      const f = join(dir, `${r}.json`);
      writeFileSync(f, JSON.stringify(exportAt(r)));
      return f;
    });
    // The control: the same document with one path parameter left out, which the linter must refuse.
    const broken = exportAt('r3');
    broken.paths['/repos/{owner}/{repo}/issues/{issue_number}'].get.parameters.pop();
    writeFileSync(join(dir, 'broken.json'), JSON.stringify(broken));
    for (const r of ['r1', 'r2', 'r3']) await swaggerValidate(exportAt(r));
    const [control, ...reports] = redoclyLint([join(dir, 'broken.json'), ...files]);
    assert.ok(control.problems.some((p) => p.ruleId === 'path-parameters-defined' && p.severity === 'error'), JSON.stringify(control.totals));
    reports.forEach((report, i) => {
      const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
      assert.equal(errors, [], `redocly errors in ${files[i]}`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
