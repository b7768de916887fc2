// The exchange catalogue at its newest release against today's material (data/): the exchange's
// docs at a5e0bc3 (every endpoint and websocket-API method with every parameter of its table, the
// enum lists), the method tables of today's official clients (@binance/spot 32.0.4 and the modular
// connectors of 2026-08-21) and their stream list. Nothing of it may be missing, and nothing the
// exchange retired may be served as alive.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import { aliveAt } from '../../src/catalogue/lifecycle.js';
import { findService, resolveService } from '../../src/catalogue/resolve.js';
import { ROOT } from '../support/processes.js';

interface DocParam { name: string; type: string }
interface Docs {
  endpoints: { key: string; params: DocParam[] }[];
  wsMethods: { name: string; params: DocParam[] }[];
  enums: Record<string, string[]>;
}
type Tables = Record<string, { rest: [string, string][]; ws: string[] } | string[] | string>;
interface ModularTable { methods: { key: string; path: string }[] }

const data = (name: string) => JSON.parse(readFileSync(join(ROOT, 'data', name), 'utf8'));
const docs: Docs = data('binance-spot-docs-2026-07-21.json');
const tables: Tables = data('binance-spot-method-tables-2026.json');
const modular: ModularTable = data('binance-modular-connectors-2026-08-21.json');
const service = findService(loadCatalogue(DEFAULT_CATALOGUE_DIR).catalogue, 'exchange');
const newest = resolveService(service);
const served = new Map(newest.served.map((e) => [e.endpoint.key, e]));
const methods = new Map(newest.wsMethods.filter((m) => newest.status(m) !== 'removed').map((m) => [m.name, m]));
/** The signing parameters: the service adds them (REST) or every signed method lists them (websocket). */
const SIGNING = new Set(['apiKey', 'timestamp', 'signature', 'recvWindow']);
const spot = tables['@binance/spot 32.0.4 (npm package dist/index.js)'] as { rest: [string, string][]; ws: string[] };

const test = suite(`exchange catalogue at ${newest.release!.id} against today's material`);

test('every endpoint of the docs at a5e0bc3 is served, with every parameter of its table', () => {
  const missing: string[] = [];
  for (const e of docs.endpoints) {
    const at = served.get(e.key);
    if (!at) { missing.push(e.key); continue; }
    const names = new Set(at.parameters.map((p) => p.name));
    for (const p of e.params) if (!SIGNING.has(p.name) && !names.has(p.name)) missing.push(`param ${e.key} ${p.name}`);
  }
  assert.equal(missing, []);
  assert.ok(docs.endpoints.length >= 48, `${docs.endpoints.length} endpoints read`);
});

test('every websocket-API method of the docs at a5e0bc3 is served, with every parameter of its table', () => {
  const missing: string[] = [];
  for (const m of docs.wsMethods) {
    const method = methods.get(m.name);
    if (!method) { missing.push(`ws-api ${m.name}`); continue; }
    const names = new Set(aliveAt(method.parameters, newest.at).map((p) => p.name));
    for (const p of m.params) if (!SIGNING.has(p.name) && !names.has(p.name)) missing.push(`param ws-api ${m.name} ${p.name}`);
  }
  assert.equal(missing, []);
  assert.ok(docs.wsMethods.length >= 50, `${docs.wsMethods.length} methods read`);
});

test('every REST and websocket-API method of @binance/spot 32.0.4 is served', () => {
  const missing = [
    ...spot.rest.map(([m, p]) => `${m} ${p}`).filter((k) => !served.has(k)),
    ...spot.ws.filter((m) => !methods.has(m)).map((m) => `ws-api ${m}`),
  ];
  assert.equal(missing, []);
  assert.ok(spot.rest.length >= 45 && spot.ws.length >= 50, `${spot.rest.length} REST, ${spot.ws.length} ws`);
});

test('every /api and /sapi method of the official connectors of 2026-08-21 is served', () => {
  const keys = [...new Set(modular.methods.filter((m) => /^\/(api|sapi)\//.test(m.path)).map((m) => m.key))];
  assert.equal(keys.filter((k) => !served.has(k)), []);
  assert.ok(keys.length >= 450, `${keys.length} methods`);
});

test("every stream of today's client is a template alive at the newest release", () => {
  const streams = tables['streams @binance/spot 32.0.x (websocket-streams/modules/api.ts)'] as string[];
  // The client's placeholder names; the catalogue writes them as the exchange's docs do.
  const spelled = (s: string) => s.replace('<windowSize>', '<window_size>').replace('<updateSpeed>', '<speed>');
  const alive = new Set(newest.streams.filter((s) => newest.status(s) !== 'removed').map((s) => s.name));
  assert.equal(streams.map(spelled).filter((s) => !alive.has(s)), []);
  assert.ok(streams.length >= 15);
});

test('the enum values the docs list are alive at the newest release', () => {
  const pairs: [string, string][] = [
    ['STP Modes', 'SelfTradePreventionMode'],
    ['Order side (side)', 'OrderSide'],
    ['Order types (orderTypes, type)', 'OrderType'],
    ['Order Response Type (newOrderRespType)', 'NewOrderRespType'],
  ];
  const missing: string[] = [];
  for (const [docName, name] of pairs) {
    const values = new Set(newest.enumValues(name).map((v) => v.value));
    for (const v of docs.enums[docName] ?? ['(section missing)']) if (!values.has(v)) missing.push(`enum ${name} ${v}`);
  }
  assert.equal(missing, []);
  // The symbolStatus filter takes the three values the docs name, not every status a symbol can have.
  assert.equal(newest.enumValues('SymbolStatus').map((v) => v.value).sort(), ['BREAK', 'HALT', 'TRADING']);
  assert.equal(newest.enumValues('PegPriceType').map((v) => v.value), ['PRIMARY_PEG', 'MARKET_PEG']);
});

test('what the exchange retired is not served as alive at the newest release', () => {
  const alive = [
    ...['POST', 'PUT', 'DELETE'].map((m) => `${m} /api/v3/userDataStream`).filter((k) => served.has(k)),
    ...['userDataStream.start', 'userDataStream.ping', 'userDataStream.stop'].filter((m) => methods.has(m)).map((m) => `ws-api ${m}`),
    ...newest.streams.filter((s) => s.name === '!ticker@arr' && newest.status(s) !== 'removed').map((s) => `stream ${s.name}`),
  ];
  assert.equal(alive, []);
});

test.run();
