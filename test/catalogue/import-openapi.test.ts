// import-openapi into an empty service folder writes service.yaml and endpoints that pass the
// loader's checks as they are: the real exchange OpenAPI, and a small spec with request bodies and
// a path template.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { parse } from 'yaml';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { CatalogueError, formatProblem } from '../../src/catalogue/problems.js';
import { bodySchema, createBodyAjv } from '../../src/catalogue/validators.js';
import { importOpenApi } from '../../tools/catalogue-import/import-openapi.js';
import { ROOT } from '../support/processes.js';
import { dataFile } from '../helpers/seed.js';
import { tempDir } from '../support/temp.js';
import { copySchema } from '../helpers/import-folder.js';

const test = suite('import-openapi into an empty folder');

/** An empty catalogue (schema only) with an empty service folder named `id`. */
function emptyCatalogue(id: string): { dir: string; serviceDir: string } {
  const dir = tempDir('cat-import-');
  copySchema(dir);
  mkdirSync(join(dir, id));
  return { dir, serviceDir: join(dir, id) };
}

function load(dir: string) {
  try {
    return loadCatalogue(dir, { modelCache: false });
  } catch (e) {
    if (e instanceof CatalogueError) assert.unreachable(`the imported catalogue does not load:\n${e.problems.map(formatProblem).join('\n')}`);
    throw e;
  }
}

test('the exchange OpenAPI description becomes a catalogue that passes the checks', () => {
  const { dir, serviceDir } = emptyCatalogue('spot');
  try {
    const r = importOpenApi(dataFile('binance-spot-api-openapi-v1.22.0.yaml'), serviceDir);
    assert.ok(r.createdService);
    assert.ok(r.added.length > 300, `${r.added.length} endpoints`);
    const { catalogue, warnings } = load(dir);
    assert.equal(warnings, []);
    const svc = catalogue.services[0];
    assert.is(svc.id, 'spot');
    assert.is(svc.kind, 'proxy');
    assert.is(svc.upstreams.rest, 'https://api.binance.com');
    assert.is(svc.apiKeyHeader, 'X-MBX-APIKEY');
    assert.equal(svc.signedParameters.map((p) => p.name), ['timestamp', 'signature']);
    assert.is(svc.endpoints.length, r.added.length);
    const order = svc.endpoints.find((e) => e.key === 'POST /api/v3/order')!;
    assert.is(order.security[0].scheme, 'SIGNED');
    assert.not.ok(order.parameters.some((p) => p.name === 'signature'), 'signed parameters are the service\'s');
    assert.ok(order.parameters.some((p) => p.name === 'symbol' && p.required));
    for (const f of ['service.yaml', ...readdirSync(join(serviceDir, 'endpoints')).map((n) => `endpoints/${n}`)]) {
      const first = readFileSync(join(serviceDir, f), 'utf8').split('\n')[0];
      assert.is(first, `# yaml-language-server: $schema=${f.startsWith('endpoints/') ? '../../schema/endpoints' : '../schema/service'}.schema.json`, f);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const PETS = {
  openapi: '3.0.3',
  info: { title: 'Pet store' },
  servers: [{ url: 'https://pets.example/v2/' }],
  components: {
    securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } },
    parameters: { id: { name: 'id', in: 'path', required: true, schema: { type: 'string' } } },
    schemas: {
      Pet: {
        type: 'object', required: ['name'],
        properties: {
          name: { type: 'string', example: 'Rex', minLength: 1 },
          tag: { type: 'string', nullable: true },
          born: { type: 'string', format: 'date', 'x-internal': true },
          weight: { type: 'number', minimum: 0, exclusiveMinimum: true },
          parent: { $ref: '#/components/schemas/Pet' },
        },
      },
    },
  },
  paths: {
    '/pets': {
      get: { tags: ['Pets'], parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', maximum: 100 } }, { name: 'sid', in: 'cookie' }] },
      post: {
        tags: ['Pets'], summary: 'Add a pet', security: [{ key: [] }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, description: ' Its name. ' }, tag: { type: 'string', nullable: true } } } } },
        },
      },
    },
    '/pets/batch': {
      post: { tags: ['Pets'], requestBody: { content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } } } },
    },
    '/pets/search': {
      post: {
        tags: ['Pets'],
        requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required: ['q'], properties: { q: { type: 'string' }, page: { type: 'integer', minimum: 1 } } } } } },
      },
    },
    '/pets/photo': { put: { tags: ['Pets'], requestBody: { content: { 'image/png': {} } } } },
    '/pets/{id}': { get: { tags: ['Pets'], parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } }] } },
    '/pets/{id}/files/{file}': { get: { tags: ['Pets'], parameters: [{ $ref: '#/components/parameters/id' }, { name: 'file', in: 'path', required: true, 'x-multi-segment': true, schema: { type: 'string' } }] } },
  },
};

test('request bodies: an object\'s fields as in: body parameters, another JSON body as body: (with $defs), form fields as parameters; path parameters', () => {
  const { dir, serviceDir } = emptyCatalogue('pets');
  try {
    const spec = join(dir, 'pets.json');
    writeFileSync(spec, JSON.stringify(PETS));
    const r = importOpenApi(spec, serviceDir);
    assert.equal(r.added.sort(), ['GET /v2/pets', 'GET /v2/pets/{id}', 'GET /v2/pets/{id}/files/{file}', 'POST /v2/pets', 'POST /v2/pets/batch', 'POST /v2/pets/search', 'PUT /v2/pets/photo']);
    assert.equal(r.skipped, []);
    assert.ok(r.warnings.some((w) => /^PUT \/v2\/pets\/photo: request body of type image\/png not imported/.test(w)), r.warnings.join('\n'));
    assert.ok(r.warnings.some((w) => /^GET \/v2\/pets: cookie parameter sid not imported/.test(w)), r.warnings.join('\n'));

    const svc = load(dir).catalogue.services[0];
    assert.is(svc.upstreams.rest, 'https://pets.example');
    assert.is(svc.apiKeyHeader, 'X-Key');
    const add = svc.endpoints.find((e) => e.key === 'POST /v2/pets')!;
    assert.is(add.security[0].scheme, 'API_KEY');
    assert.is(add.body, undefined);
    assert.equal(add.parameters.map((p) => [p.name, p.in, p.required, p.description ?? null, p.schema]), [
      ['name', 'body', true, 'Its name.', { type: 'string', minLength: 1 }], ['tag', 'body', false, null, { type: ['string', 'null'] }],
    ]);
    const batch = svc.endpoints.find((e) => e.key === 'POST /v2/pets/batch')!;
    const pet = (batch.body!.$defs as Record<string, any>).Pet;
    assert.equal(pet.properties.tag.type, ['string', 'null']);
    assert.equal(pet.properties.born, { type: 'string' }, 'format and x- keywords left out');
    assert.equal(pet.properties.weight, { type: 'number', exclusiveMinimum: 0 });
    const validate = createBodyAjv().compile(bodySchema(svc, batch)!);
    assert.ok(validate([{ name: 'Rex', tag: null, parent: { name: 'Max' } }]), JSON.stringify(validate.errors));
    assert.not.ok(validate([{ tag: 'x' }]), 'name is required');
    assert.not.ok(validate([{ name: 'Rex', parent: { name: '' } }]), 'the recursive reference is checked');

    const one = svc.endpoints.find((e) => e.key === 'GET /v2/pets/{id}')!;
    assert.equal(one.parameters.map((p) => [p.name, p.in, p.required, p.schema]), [['id', 'path', true, { type: 'string', pattern: '^[0-9]+$' }]]);
    const files = parse(readFileSync(join(serviceDir, 'endpoints/pets.yaml'), 'utf8')).endpoints.find((e: { path: string }) => e.path === '/v2/pets/{id}/files/{file}');
    assert.equal(files.parameters.map((p: Record<string, unknown>) => [p.name, p.in, p.multiSegment ?? false]), [['id', 'path', false], ['file', 'path', true]]);

    const search = svc.endpoints.find((e) => e.key === 'POST /v2/pets/search')!;
    assert.equal(search.parameters.map((p) => [p.name, p.in, p.required, p.schema]), [['q', 'query', true, { type: 'string' }], ['page', 'query', false, { type: 'integer', minimum: 1 }]]);
    assert.is(search.body, undefined);
    const written = parse(readFileSync(join(serviceDir, 'endpoints/pets.yaml'), 'utf8'));
    assert.match(written.endpoints.find((e: { path: string }) => e.path === '/v2/pets/photo').note, /image\/png not imported/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a body field that refers to a named schema: the schema goes to service.yaml schemas:, the field refers to #/$defs/<Name>', () => {
  const { dir, serviceDir } = emptyCatalogue('pets');
  const spec = join(dir, 'owners.json');
  const owners = {
    ...PETS, paths: { '/owners': { post: { tags: ['Owners'], requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { pet: { $ref: '#/components/schemas/Pet' } } } } } } } } },
  };
  writeFileSync(spec, JSON.stringify(owners));
  importOpenApi(spec, serviceDir);
  const service = parse(readFileSync(join(serviceDir, 'service.yaml'), 'utf8'));
  assert.equal(Object.keys(service.schemas), ['Pet']);
  assert.equal(service.schemas.Pet.properties.parent, { $ref: '#/$defs/Pet' });
  const entry = parse(readFileSync(join(serviceDir, 'endpoints/owners.yaml'), 'utf8')).endpoints[0];
  assert.equal(entry.parameters, [{ name: 'pet', in: 'body', schema: { $ref: '#/$defs/Pet' } }]);
  assert.is(entry.body, undefined);
});

test.run();
