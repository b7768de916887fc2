// Request weights in the catalogue: every endpoint alive at 3.12.0 whose OpenAPI description states a
// weight carries it (fixed: the same value and limit; conditional: rules over the parameters), and a
// weight that names a parameter the endpoint lacks, or steps that do not ascend, stops the load.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import { CatalogueError, formatProblem } from '../../src/catalogue/problems.js';
import { findService, resolveService } from '../../src/catalogue/resolve.js';
import { weightAt } from '../../src/catalogue/weight-at.js';
import { ROOT } from '../support/processes.js';
import { loadEvidence } from './evidence-sources.js';
import { tempDir } from '../support/temp.js';

const test = suite('request weights');
const service = findService(loadCatalogue(DEFAULT_CATALOGUE_DIR).catalogue, 'exchange');
const view = resolveService(service, '3.12.0');

test('every endpoint alive at 3.12.0 with a weight in the OpenAPI carries it', () => {
  const openapi = loadEvidence().openapi;
  const wrong: string[] = [];
  let fixed = 0;
  let conditional = 0;
  for (const e of view.served) {
    const want = openapi.get(e.endpoint.key)?.weight;
    const got = weightAt(e.endpoint, view.at);
    if (!want) continue;
    if (want === 'conditional') {
      conditional++;
      if (!got?.rules && got?.value === undefined) wrong.push(`${e.endpoint.key}: no weight (conditional in the OpenAPI)`);
      continue;
    }
    fixed++;
    if (got?.value !== want.value || got.per !== want.per) wrong.push(`${e.endpoint.key}: ${JSON.stringify(got)} != ${want.value} per ${want.per}`);
  }
  assert.equal(wrong, []);
  assert.ok(fixed >= 257 && conditional >= 13, `${fixed} fixed, ${conditional} conditional`);
});

test('conditional weights read as the docs say: depth by limit, tickers by symbol count', () => {
  const w = (key: string) => weightAt(view.served.find((e) => e.endpoint.key === key)!.endpoint, view.at)!;
  const depth = w('GET /api/v3/depth');
  assert.equal(depth.rules![0], { parameter: 'limit', measure: 'value', steps: [{ upTo: 100, weight: 5 }, { upTo: 500, weight: 25 }, { upTo: 1000, weight: 50 }, { weight: 250 }] });
  assert.is(depth.otherwise, 5);
  const t24 = w('GET /api/v3/ticker/24hr');
  assert.equal(t24.rules!.map((r) => [r.parameter, r.measure]), [['symbol', 'present'], ['symbols', 'items']]);
  assert.is(t24.otherwise, 80);
  assert.equal(w('GET /sapi/v1/capital/withdraw/history'), { value: 18000, per: 'UID', source: 'openapi description (Weight(UID): 18000)' });
  assert.equal(w('GET /api/v3/exchangeInfo'), { value: 10, per: 'IP', source: 'openapi description (Weight(IP): 10)' });
});

const SERVICE = `id: demo\ntitle: Demo\nkind: proxy\nupstreams: { rest: 'http://127.0.0.1:1' }\nerrors: { envelope: code-msg, codes: { unknown: -1 } }\n`;

function problems(weight: string): string[] {
  const dir = tempDir('cat-weight-');
  cpSync(join(ROOT, 'catalogue/schema'), join(dir, 'schema'), { recursive: true });
  const files = {
    'demo/service.yaml': SERVICE,
    'demo/endpoints/things.yaml': `module: things\nendpoints:\n  - method: GET\n    path: /things\n    parameters: [ { name: limit, schema: { type: integer } } ]\n    weight: ${weight}\n`,
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  try {
    loadCatalogue(dir, { modelCache: false });
    return [];
  } catch (e) {
    if (e instanceof CatalogueError) return e.problems.map(formatProblem);
    throw e;
  }
}

test('a fixed number and a well-formed rule load', () => {
  assert.equal(problems('3'), []);
  assert.equal(problems('{ rules: [ { parameter: limit, measure: value, steps: [ { upTo: 10, weight: 1 }, { weight: 5 } ] } ], otherwise: 1 }'), []);
});

test('a rule on a parameter the endpoint lacks, unordered steps, or a missing otherwise stop the load', () => {
  assert.match(problems('{ rules: [ { parameter: size, weight: 2 } ], otherwise: 1 }').join('\n'), /things\.yaml:\d+: GET \/things: weight rule names parameter "size"/);
  assert.match(problems('{ rules: [ { parameter: limit, measure: value, steps: [ { upTo: 10, weight: 1 }, { upTo: 5, weight: 5 } ] } ], otherwise: 1 }').join('\n'), /steps of limit must ascend/);
  assert.ok(problems('{ rules: [ { parameter: limit, weight: 2 } ] }').length > 0, 'otherwise is required with rules');
  assert.ok(problems('-1').length > 0, 'a negative weight');
});

test.run();
