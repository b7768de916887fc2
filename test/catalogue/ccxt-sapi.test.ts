// A second source for /sapi (issue 48 item 4): every /sapi endpoint of ccxt 4.5.84's own endpoint table
// (node_modules/ccxt, binance's api.sapi … api.sapiV4) is served at the catalogue's newest release, or
// catalogued as removed (answered 410 naming its release and replacement, with a source), or listed in
// catalogue/exchange/not-served.yaml with the reason it is not served: never silently absent. ccxt's
// table corroborates; it is never the source of a catalogue fact.
import { createRequire } from 'node:module';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import { findService, resolveService } from '../../src/catalogue/resolve.js';

const require = createRequire(import.meta.url);
const ccxt = require('ccxt') as { version: string; binance: new () => { api: Record<string, Record<string, Record<string, unknown>>> } };

/** ccxt's binance table: api.sapi is /sapi/v1, api.sapiV2 … sapiV4 the later versions; each method maps path → cost. */
function ccxtSapi(): string[] {
  const { api } = new ccxt.binance();
  const out: string[] = [];
  for (const [name, version] of [['sapi', 'v1'], ['sapiV2', 'v2'], ['sapiV3', 'v3'], ['sapiV4', 'v4']]) {
    for (const [method, paths] of Object.entries(api[name] ?? {})) for (const path of Object.keys(paths)) out.push(`${method.toUpperCase()} /sapi/${version}/${path}`);
  }
  return out;
}

const service = findService(loadCatalogue(DEFAULT_CATALOGUE_DIR).catalogue, 'exchange');
const newest = resolveService(service);
const served = new Set(newest.served.map((e) => e.endpoint.key));
const catalogued = new Map(service.endpoints.map((e) => [e.key, e]));
const table = ccxtSapi();
const rows = service.notServed;
const listed = new Map(rows.map((r) => [r.key, r]));

const test = suite(`ccxt ${ccxt.version}'s /sapi table against the catalogue at ${newest.release!.id} and catalogue/exchange/not-served.yaml`);

test('the table read is ccxt 4.5.84\'s, and it is the whole /sapi table', () => {
  assert.is(ccxt.version, '4.5.84');
  assert.ok(table.length >= 400, `${table.length} /sapi endpoints read`);
  assert.ok(table.includes('POST /sapi/v1/userListenToken') && table.includes('GET /sapi/v2/eth-staking/account'), 'v1 and v2 paths read');
});

test('every /sapi endpoint ccxt calls is served, catalogued as removed with a source, or listed with a reason', () => {
  const absent: string[] = [];
  let removed = 0;
  for (const key of new Set(table)) {
    if (served.has(key)) continue;
    const e = catalogued.get(key);
    if (e && e.removed !== undefined && e.source) { removed++; continue; }
    if (!listed.has(key)) absent.push(key);
  }
  assert.equal(absent, [], 'silently absent: catalogue them with a source or list them in catalogue/exchange/not-served.yaml');
  const live = new Set(table.filter((k) => served.has(k))).size;
  console.log(`ccxt ${ccxt.version} /sapi: ${new Set(table).size} endpoints: ${live} served at ${newest.release!.id}, ${removed} catalogued as removed (410), ${rows.length} listed as not served`);
});

test('the reviewed file: each row is ccxt\'s, uncatalogued, once, with a reason, a source and a served replacement if it names one', () => {
  const problems: string[] = [];
  const ccxtKeys = new Set(table);
  const seen = new Set<string>();
  for (const r of rows) {
    const at = `${r.at.file}:${r.at.line} ${r.key}`;
    if (seen.has(r.key)) problems.push(`${at}: listed twice`);
    seen.add(r.key);
    if (!ccxtKeys.has(r.key)) problems.push(`${at}: not in ccxt ${ccxt.version}'s table (stale)`);
    if (catalogued.has(r.key)) problems.push(`${at}: catalogued too (one or the other)`);
    if (r.reason.length < 20) problems.push(`${at}: no reason`);
    if (!/ccxt 4\.5\.84/.test(r.source) || r.source.split(';').length < 2) problems.push(`${at}: the source must name a document besides ccxt's table`);
    if (r.replacement && !served.has(r.replacement)) problems.push(`${at}: replacement ${r.replacement} is not served at ${newest.release!.id}`);
  }
  assert.equal(problems, []);
});

test.run();
