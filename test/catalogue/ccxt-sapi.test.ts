// A second source for /sapi (issue 48 item 4): every endpoint of ccxt 4.5.84's own binance table
// (node_modules/ccxt) on the exchange's host is served at the catalogue's newest release, catalogued as
// removed (answered 410 naming its release and replacement, with a source), or listed in
// catalogue/exchange/not-served.yaml with the reason it is not served: never silently absent. Read by
// the release import's ccxt reader, the one command a new ccxt release needs. ccxt's table
// corroborates; it is never the source of a catalogue fact.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import { findService } from '../../src/catalogue/resolve.js';
import { accountForCcxt } from '../../tools/catalogue-import/ccxt-report.js';
import { readCcxtTable } from '../../tools/catalogue-import/ccxt-table.js';
import { ROOT } from '../support/processes.js';

const ccxt = createRequire(import.meta.url)('ccxt') as { version: string; binance: new () => Record<string, unknown> };
const CCXT = join(ROOT, 'node_modules/ccxt');
const all = accountForCcxt(CCXT, join(ROOT, 'catalogue/exchange'), { exchange: 'binance' });
// The /sapi part of it, as --paths /sapi/ reports it.
const onSapi = (keys: string[]) => keys.filter((k) => k.includes(' /sapi/'));
const sapi = {
  ...all, served: onSapi(all.served), removed: onSapi(all.removed), notYet: onSapi(all.notYet), notServed: onSapi(all.notServed),
  unaccounted: all.unaccounted.filter((u) => u.key.includes(' /sapi/')), listedNotCalled: onSapi(all.listedNotCalled),
};
const sapiCount = sapi.served.length + sapi.removed.length + sapi.notYet.length + sapi.notServed.length + sapi.unaccounted.length;
const service = findService(loadCatalogue(DEFAULT_CATALOGUE_DIR).catalogue, 'exchange');

const test = suite(`ccxt ${ccxt.version}'s binance table against the catalogue at ${sapi.release} and not-served.yaml`);

test('the table read is ccxt 4.5.84\'s, and it is the whole /sapi table', () => {
  assert.is(ccxt.version, '4.5.84');
  assert.match(sapi.source, /^ccxt 4\.5\.84 binance /);
  assert.is(sapiCount, 436);
  assert.ok(sapi.served.includes('POST /sapi/v1/userListenToken') && sapi.served.includes('GET /sapi/v2/eth-staking/account'), 'v1 and v2 paths read');
});

test('every /sapi endpoint ccxt calls is served, catalogued as removed with a source, or listed with a reason', () => {
  assert.equal(sapi.unaccounted, [], 'silently absent: catalogue them with a source or list them in catalogue/exchange/not-served.yaml');
  assert.equal(sapi.notYet, []);
  const removed = new Map(service.endpoints.filter((e) => e.removed !== undefined).map((e) => [e.key, e]));
  assert.equal(sapi.removed.filter((k) => !removed.get(k)?.source), [], 'each removal has a source');
  console.log(`ccxt ${ccxt.version} /sapi: ${sapiCount} endpoints: ${sapi.served.length} served at ${sapi.release}, ${sapi.removed.length} catalogued as removed (410), ${sapi.notServed.length} listed as not served`);
});

test('and so is the rest of what it calls on the exchange\'s host (/api/v3)', () => {
  assert.equal(all.unaccounted, []);
  assert.ok(all.endpoints > sapiCount, `${all.endpoints} endpoints on ${all.host}`);
});

test('the reviewed list: each entry is one ccxt calls, and its source names a document besides ccxt\'s table', () => {
  assert.equal(sapi.listedNotCalled, [], 'stale entries: no longer in ccxt\'s table');
  assert.is(sapi.notServed.length, service.notServed.length);
  const problems = service.notServed
    .filter((n) => !/ccxt 4\.5\.84/.test(n.source) || n.source.split(';').length < 2)
    .map((n) => `${n.at.file}:${n.at.line} ${n.key}`);
  assert.equal(problems, []);
});

test('the method names the report gives are the implicit methods ccxt itself defines', () => {
  const exchange = new ccxt.binance();
  const table = readCcxtTable(CCXT, 'binance');
  assert.ok(table.endpoints.length > 800, `${table.endpoints.length} endpoints`);
  assert.equal(table.endpoints.filter((e) => typeof exchange[e.name] !== 'function').map((e) => e.name), []);
  assert.ok(table.endpoints.some((e) => e.name === 'sapiGetMarginAllOrders' && e.key === 'GET /sapi/v1/margin/allOrders'));
});

test.run();
