// The exchange catalogue against the python client's endpoint table at 3.12.0
// (data/exchange-endpoints-3.12.0.tsv), plus spot checks of parameter and security
// lifecycles, and the OpenAPI importer run against a copy of the catalogue.
// CATALOGUE_DIR overrides the catalogue folder (default: <repo>/catalogue).
import { cpSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import { cacheDirFrom } from '../../src/config.js';
import { parseYamlData } from '../../src/catalogue/yaml-file.js';
import { findService, resolveService, type EndpointAt } from '../../src/catalogue/resolve.js';
import type { Service } from '../../src/catalogue/model.js';
import { importOpenApi } from '../../tools/catalogue-import/import-openapi.js';
import { dataFile } from '../helpers/seed.js';
import { tempDir } from '../support/temp.js';

const catalogueDir = process.env.CATALOGUE_DIR ?? DEFAULT_CATALOGUE_DIR;
let service: Service;
const load = () => (service ??= findService(loadCatalogue(catalogueDir).catalogue, 'exchange'));

function readTsv(name: string): Record<string, string>[] {
  const [head, ...lines] = readFileSync(dataFile(name), 'utf8').split(/\r?\n/).filter(Boolean);
  const cols = head.split('\t');
  return lines.map((l) => Object.fromEntries(l.split('\t').map((v, i) => [cols[i], v])));
}

const rows = readTsv('exchange-endpoints-3.12.0.tsv');

/** The endpoint served at a release (throws when it is not). */
function at(release: string, key: string): EndpointAt {
  const e = resolveService(load(), release).served.find((x) => x.endpoint.key === key);
  if (!e) throw new Error(`${key} is not served at ${release}`);
  return e;
}
const paramAt = (release: string, key: string, name: string) => at(release, key).parameters.find((p) => p.name === name);

// ------------------------------------------------------------------------------------------ table

const table = suite('client table at 3.12.0');

table('every method+path of the table is alive at 3.12.0', () => {
  const served = new Set(resolveService(load(), '3.12.0').served.map((e) => e.endpoint.key));
  const missing = [...new Set(rows.map((r) => `${r.http_method} ${r.path}`))].filter((k) => !served.has(k));
  assert.ok(rows.length > 250, `${rows.length} rows read`);
  assert.equal(missing, [], `not served at 3.12.0: ${missing.join(', ')}`);
});

/**
 * The table is one client's checks, not the API's rules: where the dated evidence (OpenAPI, docs at the
 * pin, modular connectors) says otherwise, the catalogue follows it permissively and says so in a note
 * naming that evidence (test/catalogue/evidence.test.ts holds every such note to account).
 */
const OVERRULED = /\b(Security|Optional): .*(OpenAPI|connectors|docs)/;

table('security at 3.12.0 is the table\'s, unless the evidence overrules it (noted)', () => {
  const expected = (s: string) => (s === 'SIGNED' ? 'SIGNED' : s === 'NONE' ? 'NONE' : 'API_KEY');
  const wrong = rows
    .map((r) => ({ k: `${r.http_method} ${r.path}`, want: expected(r.security) }))
    .filter(({ k, want }) => at('3.12.0', k).security !== want && !OVERRULED.test(at('3.12.0', k).endpoint.note ?? ''))
    .map(({ k, want }) => `${k}: ${at('3.12.0', k).security} != ${want}`);
  assert.equal(wrong, []);
});

table('required parameters of the table are required at 3.12.0, unless the evidence overrules it (noted)', () => {
  const typos: Record<string, string> = { formId: 'fromId', fromID: 'fromId', quotrAmount: 'quoteAmount' };
  const problems: string[] = [];
  for (const r of rows) {
    const k = `${r.http_method} ${r.path}`;
    for (const name of r.required_params.split(',').filter((n) => n && !['timestamp', 'signature', 'recvWindow'].includes(n))) {
      const p = paramAt('3.12.0', k, typos[name] ?? name);
      if (!p) problems.push(`${k}: ${name} missing`);
      else if (!p.required && !OVERRULED.test(p.note ?? '')) problems.push(`${k}: ${name} not required`);
    }
  }
  assert.equal(problems, []);
});

table('every endpoint of the catalogue names where its facts come from', () => {
  const silent = load().endpoints.filter((e) => !e.source).map((e) => e.key);
  assert.equal(silent, []);
});

table.run();

// ------------------------------------------------------------------------------------ lifecycles

const lifecycle = suite('parameter and security lifecycles');

lifecycle('omitZeroBalances: not at 3.8.0, present (boolean) at 3.8.1', () => {
  assert.not.ok(paramAt('3.8.0', 'GET /api/v3/account', 'omitZeroBalances'));
  const p = paramAt('3.8.1', 'GET /api/v3/account', 'omitZeroBalances');
  assert.ok(p);
  assert.is(p!.schema.type, 'boolean');
  assert.is(p!.required, false);
});

lifecycle('historicalTrades: API key before 3.2.0, none from 3.2.0', () => {
  assert.is(at('1.0.0', 'GET /api/v3/historicalTrades').security, 'API_KEY');
  assert.is(at('3.1.1', 'GET /api/v3/historicalTrades').security, 'API_KEY');
  assert.is(at('3.2.0', 'GET /api/v3/historicalTrades').security, 'NONE');
  assert.is(at('3.12.0', 'GET /api/v3/historicalTrades').security, 'NONE');
});

lifecycle('exchangeInfo: symbols 1.5.0, permissions 1.18.0 (exclusive with symbol and symbols), filters 3.10.0', () => {
  const k = 'GET /api/v3/exchangeInfo';
  assert.not.ok(paramAt('1.4.0', k, 'symbols'));
  assert.ok(paramAt('1.5.0', k, 'symbols'));
  assert.not.ok(paramAt('1.17.0', k, 'permissions'));
  assert.is(paramAt('1.18.0', k, 'permissions')?.enum, 'Permission');
  const exclusive = at('1.18.0', k).endpoint.constraints.map((c) => [...c.exclusive].sort().join('+'));
  for (const pair of ['symbol+symbols', 'permissions+symbol', 'permissions+symbols']) assert.ok(exclusive.includes(pair), pair);
  assert.not.ok(paramAt('3.9.0', k, 'showPermissionSets'));
  assert.ok(paramAt('3.10.0', k, 'showPermissionSets'));
  assert.is(paramAt('3.10.0', k, 'symbolStatus')?.enum, 'SymbolStatus');
});

lifecycle('strategy fields from 1.16.0 with strategy types of at least 1000000', () => {
  for (const k of ['POST /api/v3/order', 'POST /api/v3/order/cancelReplace']) {
    assert.not.ok(paramAt('1.15.0', k, 'strategyType'), `${k} strategyType at 1.15.0`);
    assert.is(paramAt('1.16.0', k, 'strategyType')?.schema.minimum, 1000000);
    assert.ok(paramAt('1.16.0', k, 'strategyId'));
  }
  for (const name of ['limitStrategyType', 'stopStrategyType']) {
    assert.not.ok(paramAt('1.15.0', 'POST /api/v3/order/oco', name));
    assert.is(paramAt('1.16.0', 'POST /api/v3/order/oco', name)?.schema.minimum, 1000000);
  }
  assert.ok(paramAt('1.16.0', 'POST /api/v3/order/oco', 'limitStrategyId'));
  assert.ok(paramAt('1.16.0', 'POST /api/v3/order/oco', 'stopStrategyId'));
});

lifecycle('orderRateLimitExceededMode from 3.8.1; ticker type from 1.17.0', () => {
  assert.not.ok(paramAt('3.8.0', 'POST /api/v3/order/cancelReplace', 'orderRateLimitExceededMode'));
  assert.is(paramAt('3.8.1', 'POST /api/v3/order/cancelReplace', 'orderRateLimitExceededMode')?.enum, 'OrderRateLimitExceededMode');
  for (const k of ['GET /api/v3/ticker', 'GET /api/v3/ticker/24hr']) {
    assert.not.ok(paramAt('1.16.0', k, 'type'), `${k} type at 1.16.0`);
    assert.is(paramAt('1.17.0', k, 'type')?.enum, 'TickerType');
  }
  for (const k of ['GET /api/v3/ticker/24hr', 'GET /api/v3/ticker/price', 'GET /api/v3/ticker/bookTicker']) {
    assert.not.ok(paramAt('1.12.0', k, 'symbols'));
    assert.ok(paramAt('1.13.0', k, 'symbols'));
  }
});

lifecycle('klines and uiKlines: interval enum, timeZone from 3.10.0', () => {
  for (const k of ['GET /api/v3/klines', 'GET /api/v3/uiKlines']) {
    assert.is(paramAt('3.9.0', k, 'interval')?.enum, 'KlineInterval');
    assert.is(paramAt('3.9.0', k, 'interval')?.required, true);
    assert.not.ok(paramAt('3.9.0', k, 'timeZone'));
    assert.ok(paramAt('3.10.0', k, 'timeZone'));
  }
});

lifecycle('wallet: universal transfer type, accountType 3.7.0, deposit and withdraw history filters 3.10.0', () => {
  const type = paramAt('1.0.0', 'POST /sapi/v1/asset/transfer', 'type');
  assert.is(type?.enum, 'TransferType');
  assert.is(type?.required, true);
  for (const k of ['POST /sapi/v1/asset/dust-btc', 'POST /sapi/v1/asset/dust', 'GET /sapi/v1/asset/dribblet']) {
    assert.not.ok(paramAt('3.6.0', k, 'accountType'), `${k} 3.6.0`);
    assert.is(paramAt('3.7.0', k, 'accountType')?.enum, 'DustAccountType');
  }
  for (const name of ['txId', 'includeSource']) {
    assert.not.ok(paramAt('3.9.0', 'GET /sapi/v1/capital/deposit/hisrec', name));
    assert.ok(paramAt('3.10.0', 'GET /sapi/v1/capital/deposit/hisrec', name));
  }
  for (const k of ['GET /sapi/v1/capital/withdraw/history', 'GET /sapi/v1/capital/deposit/subHisrec']) {
    assert.not.ok(paramAt('3.9.0', k, 'idList'));
    assert.ok(paramAt('3.10.0', k, 'idList'));
  }
  assert.not.ok(paramAt('1.12.0', 'POST /sapi/v1/giftcard/redeemCode', 'externalUid'));
  assert.ok(paramAt('1.13.0', 'POST /sapi/v1/giftcard/redeemCode', 'externalUid'));
  assert.not.ok(paramAt('3.9.0', 'POST /sapi/v1/simple-earn/locked/subscribe', 'redeemTo'));
  assert.ok(paramAt('3.10.0', 'POST /sapi/v1/simple-earn/locked/subscribe', 'redeemTo'));
});

lifecycle('margin: sideEffectType enum, 3.6.0 parameters', () => {
  for (const k of ['POST /sapi/v1/margin/order', 'POST /sapi/v1/margin/order/oco']) assert.is(paramAt('3.7.0', k, 'sideEffectType')?.enum, 'SideEffectType');
  const added360: [string, string][] = [
    ['GET /sapi/v1/margin/transfer', 'isolatedSymbol'], ['GET /sapi/v1/margin/allAssets', 'asset'],
    ['GET /sapi/v1/margin/allPairs', 'symbol'], ['GET /sapi/v1/margin/isolated/allPairs', 'symbol'],
  ];
  for (const [k, name] of added360) {
    assert.not.ok(paramAt('3.5.1', k, name), `${k} ${name} at 3.5.1`);
    assert.ok(paramAt('3.6.0', k, name), `${k} ${name} at 3.6.0`);
  }
});

lifecycle('lending: current/size from 1.1.0; asset made optional in 1.14.0 and 1.16.0', () => {
  assert.not.ok(paramAt('1.0.0', 'GET /sapi/v1/lending/daily/product/list', 'current'));
  assert.ok(paramAt('1.1.0', 'GET /sapi/v1/lending/daily/product/list', 'size'));
  assert.is(paramAt('1.13.0', 'GET /sapi/v1/lending/daily/token/position', 'asset')?.required, true);
  assert.is(paramAt('1.14.0', 'GET /sapi/v1/lending/daily/token/position', 'asset')?.required, false);
  assert.is(paramAt('1.15.0', 'GET /sapi/v1/lending/project/position/list', 'asset')?.required, true);
  assert.is(paramAt('1.16.0', 'GET /sapi/v1/lending/project/position/list', 'asset')?.required, false);
});

lifecycle('endpoints the CHANGELOG adds or removes that the seed does not name', () => {
  const served = (r: string) => new Set(resolveService(load(), r).served.map((e) => e.endpoint.key));
  assert.ok(served('2.0.0rc2').has('POST /sapi/v1/futures/loan/borrow'));
  assert.not.ok(served('2.0.0rc3').has('POST /sapi/v1/futures/loan/borrow'));
  assert.not.ok(served('2.0.0rc2').has('GET /sapi/v1/margin/tradeCoeff'));
  assert.ok(served('2.0.0rc3').has('GET /sapi/v1/margin/tradeCoeff'));
  assert.not.ok(served('3.3.1').has('GET /sapi/v1/lending/auto-invest/plan/list'));
  assert.ok(served('3.4.0').has('GET /sapi/v1/lending/auto-invest/plan/list'));
});

lifecycle.run();

// -------------------------------------------------------------------------------- OpenAPI importer

/** A YAML file's data; unchanged texts come from the parse cache (the same files are read before and after each import). */
const readYaml = (file: string): any => parseYamlData(readFileSync(file, 'utf8'), cacheDirFrom()); // eslint-disable-line @typescript-eslint/no-explicit-any

const importer = suite('import-openapi');

importer('adds only what is missing, appends, and never rewrites existing entries', () => {
  const tmp = tempDir('catalogue-import-');
  try {
    cpSync(catalogueDir, tmp, { recursive: true });
    const serviceDir = join(tmp, 'exchange');
    const endpointsDir = join(serviceDir, 'endpoints');
    // The catalogue holds every endpoint of the OpenAPI (issue 13): take out the algo module, imported from it.
    const removedAlgo = readYaml(join(endpointsDir, 'algo.yaml')).endpoints.length;
    rmSync(join(endpointsDir, 'algo.yaml'));
    const before = new Map(readdirSync(endpointsDir).map((f) => [f, readYaml(join(endpointsDir, f)).endpoints]));
    const spec = dataFile('binance-spot-api-openapi-v1.22.0.yaml');
    const dry = importOpenApi(spec, serviceDir, { dryRun: true });
    const tsvKeys = new Set(rows.map((r) => `${r.http_method} ${r.path}`));
    assert.ok(dry.added.length > 0, 'the OpenAPI has endpoints the client lacks');
    assert.equal(dry.added.filter((k) => tsvKeys.has(k)), [], 'client endpoints are already in the catalogue');
    assert.equal(new Map(readdirSync(endpointsDir).map((f) => [f, readYaml(join(endpointsDir, f)).endpoints])), before, 'dry run writes nothing');

    const real = importOpenApi(spec, serviceDir, { module: 'trade' });
    assert.equal(real.added, dry.added);
    const trade = readYaml(join(endpointsDir, 'trade.yaml')).endpoints;
    assert.equal(trade.slice(0, before.get('trade.yaml').length), before.get('trade.yaml'), 'existing entries untouched, in order');
    assert.is(trade.length, before.get('trade.yaml').length + real.added.length);
    assert.ok(trade.slice(before.get('trade.yaml').length).every((e: { source: string }) => e.source === 'openapi binance-spot-api-openapi-v1.22.0.yaml'));
    for (const [f, list] of before) if (f !== 'trade.yaml') assert.equal(readYaml(join(endpointsDir, f)).endpoints, list, f);

    assert.equal(importOpenApi(spec, serviceDir, { dryRun: true }).added, [], 'a second import adds nothing');
    const merged = findService(loadCatalogue(tmp, { modelCache: false }).catalogue, 'exchange');
    assert.is(merged.endpoints.length, load().endpoints.length - removedAlgo + real.added.length);
    assert.ok(real.added.every((k) => k.includes('/algo/')), 'only the removed module comes back');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

importer.run();
