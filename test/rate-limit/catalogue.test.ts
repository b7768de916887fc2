// rateLimits in service.yaml: loaded with their lifecycle; mistakes stop the load naming file, line and field.
// Request weights evaluated from the catalogue's rules as the exchange documents them.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import { CatalogueError, formatProblem } from '../../src/catalogue/problems.js';
import { findService, resolveService } from '../../src/catalogue/resolve.js';
import { requestWeight } from '../../src/gateway/rate-limit/weight.js';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

const test = suite('rate limits in the catalogue');
const exchange = findService(loadCatalogue(DEFAULT_CATALOGUE_DIR).catalogue, 'exchange');

function load(limits: string, apiKeyHeader = true): { problems: string[]; limits?: unknown } {
  const dir = tempDir('cat-limits-');
  cpSync(join(ROOT, 'catalogue/schema'), join(dir, 'schema'), { recursive: true });
  const files = {
    'demo/service.yaml': `id: demo\ntitle: Demo\nkind: proxy\nupstreams: { rest: 'http://127.0.0.1:1' }\nerrors: { envelope: code-msg, codes: { unknown: -1, tooManyRequests: -1003 } }\n${apiKeyHeader ? 'security: { apiKeyHeader: X-Key }\n' : ''}rateLimits:\n${limits}`,
    'demo/endpoints/things.yaml': 'module: things\nendpoints:\n  - { method: GET, path: /v1/things, weight: 2 }\n  - { method: POST, path: /v1/order }\n',
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  try {
    return { problems: [], limits: loadCatalogue(dir, { modelCache: false }).catalogue.services[0].rateLimits };
  } catch (e) {
    if (e instanceof CatalogueError) return { problems: e.problems.map(formatProblem) };
    throw e;
  }
}

test('the exchange declares its limits at the pin: 6000 weight per minute per IP, orders per account', () => {
  const at = resolveService(exchange, '3.12.0');
  const limits = exchange.rateLimits.filter((l) => at.status(l) === 'alive').map((l) => `${l.kind} ${l.limit}/${l.interval} per ${l.countedBy}`);
  assert.equal(limits, ['REQUEST_WEIGHT 6000/1m per ip', 'RAW_REQUESTS 61000/5m per ip', 'ORDERS 100/10s per apiKey', 'ORDERS 200000/1d per apiKey']);
  assert.is(exchange.errors.codes.tooManyRequests, -1003);
});

test('a well-formed limit loads with its window in seconds', () => {
  const r = load('  - { kind: ORDERS, interval: 10s, limit: 5, countedBy: apiKey, counts: [POST /v1/order], header: X-Count-10S }\n');
  assert.equal(r.problems, []);
  const [l] = r.limits as { seconds: number; counts: string[] }[];
  assert.is(l.seconds, 10);
  assert.equal(l.counts, ['POST /v1/order']);
});

test('mistakes stop the load, naming file, line and field', () => {
  assert.match(load('  - { kind: ORDERS, interval: 10s, limit: 5, countedBy: apiKey, counts: [POST /v1/nothing] }\n').problems.join('\n'),
    /service\.yaml:\d+: rate limit ORDERS per 10s: counts names endpoint "POST \/v1\/nothing", which the catalogue does not have/);
  assert.match(load('  - { kind: REQUEST_WEIGHT, interval: 1m, limit: 5, countedBy: apiKey }\n', false).problems.join('\n'),
    /countedBy apiKey needs the API-key header/);
  assert.ok(load('  - { kind: ORDERS, interval: 10s, limit: 5, countedBy: apiKey }\n').problems.length > 0, 'ORDERS without counts');
  assert.match(load('  - { kind: REQUEST_WEIGHT, interval: 1 minute, limit: 5, countedBy: ip }\n').problems.join('\n'), /interval: must match pattern/);
  assert.match(load('  - { kind: REQUEST_WEIGHT, interval: 1m, limit: 5, countedBy: ip }\n  - { kind: REQUEST_WEIGHT, interval: 1m, limit: 9, countedBy: ip }\n').problems.join('\n'),
    /duplicate rate limit/);
});

test('request weights from the rules: depth by limit, tickers by the number of symbols in either list style', () => {
  const w = (key: string) => exchange.endpoints.find((e) => e.key === key && !e.removed)!.weight!;
  const depth = w('GET /api/v3/depth');
  assert.equal(([{}, { limit: '100' }, { limit: '101' }, { limit: '1000' }, { limit: '5000' }] as Record<string, string>[]).map((p) => requestWeight(depth, p)), [5, 5, 25, 50, 250]);
  const price = w('GET /api/v3/ticker/24hr');
  assert.is(requestWeight(price, {}), 80);
  assert.is(requestWeight(price, { symbol: 'BTCUSDT' }), 2);
  assert.is(requestWeight(price, { symbols: '["A","B","C"]' }), 2);
  assert.is(requestWeight(price, { symbols: Array.from({ length: 21 }, (_, i) => `S${i}`) }), 40);
  assert.is(requestWeight({ value: 2.5, per: 'IP' }, {}), 3, 'whole points, rounded up');
});

test.run();
