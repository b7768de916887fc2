// The release import reads ccxt's endpoint table (describe().api with urls.api) as a second source:
// on a small table and catalogue written here, the report sorts every endpoint on the service's host
// into served, removed, not yet added, listed in not-served.yaml, or unaccounted for (templates
// matched as operations), names the listed entries the table does not call, leaves other hosts out,
// writes nothing and exits 1 while anything is unaccounted for. The shipped catalogue against ccxt
// 4.5.84, and the method names against the implicit methods ccxt defines: ccxt-sapi.test.ts.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { accountForCcxt, type CcxtReport } from '../../tools/catalogue-import/ccxt-report.js';
import { runTool } from '../support/tools.js';
import { catalogueFolder } from './folder.js';

const test = suite('release import: a ccxt table');

const SERVICE = "id: demo\ntitle: Demo\nkind: proxy\nupstreams: { rest: 'https://api.demo.test' }\nerrors: { envelope: error }\n";
const RELEASES = "releases:\n  - { id: r1, date: '2024-01-01' }\n  - { id: r2, date: '2024-02-01' }\n";
const ENDPOINTS = `module: things
endpoints:
  - { method: GET, path: /v1/a }
  - { method: GET, path: /v1/old, removed: r2 }
  - { method: GET, path: /v1/new, added: r2 }
  - { method: DELETE, path: '/v1/items/{item_id}', parameters: [{ name: item_id, in: path }] }
`;
const NOT_SERVED = `endpoints:
  - { method: GET, path: /v1/partner, reason: partners only, source: written for this test }
  - { method: GET, path: /v1/stale, reason: nobody calls it any more, source: written for this test }
`;
const TABLE = {
  id: 'demo',
  version: '9.9.9',
  urls: { api: { public: 'https://api.demo.test/v1', private: 'https://api.demo.test/v1/', other: 'https://other.demo.test/v1' } },
  api: {
    public: { get: { a: 1, old: 1, new: 1, partner: 1, 'missing/thing': 1 } },
    private: { delete: ['items/{id}'], post: { 'orders/batch-place': { cost: 2 } } },
    other: { get: { x: 1 } },
  },
};

let dir: string;
let file: string;
test.before(() => {
  dir = catalogueFolder({ 'demo/service.yaml': SERVICE, 'demo/releases.yaml': RELEASES, 'demo/endpoints/things.yaml': ENDPOINTS, 'demo/not-served.yaml': NOT_SERVED }, 'cat-ccxt-');
  file = join(dir, 'demo-ccxt.json');
  writeFileSync(file, JSON.stringify(TABLE));
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('each endpoint on the service\'s host sorted at the newest release; other hosts left out', () => {
  const r = accountForCcxt(file, join(dir, 'demo'));
  const expected: Partial<CcxtReport> = {
    source: `ccxt 9.9.9 demo (${file})`, service: 'demo', release: 'r2', host: 'api.demo.test', endpoints: 7,
    served: ['GET /v1/a', 'GET /v1/new', 'DELETE /v1/items/{id}'], removed: ['GET /v1/old'], notYet: [], notServed: ['GET /v1/partner'],
    unaccounted: [{ key: 'GET /v1/missing/thing', name: 'publicGetMissingThing' }, { key: 'POST /v1/orders/batch-place', name: 'privatePostOrdersBatchPlace' }],
    listedNotCalled: ['GET /v1/stale'], leftOut: 1, otherHosts: ['other.demo.test'], skipped: [],
  };
  assert.equal({ ...r, paths: undefined }, { ...expected, paths: undefined });
  const atR1 = accountForCcxt(file, join(dir, 'demo'), { release: 'r1', paths: ['/v1/ne', '/v1/ol'] });
  assert.equal([atR1.served, atR1.removed, atR1.notYet, atR1.endpoints, atR1.leftOut], [['GET /v1/old'], [], ['GET /v1/new'], 2, 6]);
});

test('the command: the report, exit 1 while anything is unaccounted for, nothing written; JSON; refusals', () => {
  const before = readdirSync(join(dir, 'demo'), { recursive: true }).map(String).sort().map((f) => [f, f.endsWith('.yaml') ? readFileSync(join(dir, 'demo', f), 'utf8') : '']);
  const r = runTool('catalogue', ['import', file, '--service', join(dir, 'demo')]);
  assert.is(r.status, 1, r.stderr);
  assert.equal(r.stdout.split('\n').filter(Boolean), [
    `ccxt 9.9.9 demo (${file}) against demo at r2: the endpoints it calls on api.demo.test (nothing written)`,
    'unaccounted GET /v1/missing/thing (publicGetMissingThing): neither catalogued nor in not-served.yaml',
    'unaccounted POST /v1/orders/batch-place (privatePostOrdersBatchPlace): neither catalogued nor in not-served.yaml',
    'not called GET /v1/stale: in not-served.yaml, not in this table',
    'left out 1 endpoint(s) (other hosts: other.demo.test)',
    '7 endpoint(s): 3 served, 1 removed (410), 0 not yet added, 1 not served (not-served.yaml), 2 unaccounted for',
  ]);
  const after = readdirSync(join(dir, 'demo'), { recursive: true }).map(String).sort().map((f) => [f, f.endsWith('.yaml') ? readFileSync(join(dir, 'demo', f), 'utf8') : '']);
  assert.equal(after, before, 'nothing written');
  const json = runTool('catalogue', ['import', file, '--from', 'ccxt', '--service', join(dir, 'demo'), '--paths', '/v1/a', '--format', 'json']);
  assert.is(json.status, 0);
  assert.equal((JSON.parse(json.stdout) as CcxtReport).served, ['GET /v1/a']);
  const dated = runTool('catalogue', ['import', file, '--service', join(dir, 'demo'), '--date', '2024-03-01']);
  assert.is(dated.status, 2);
  assert.match(dated.stderr, /--date does not apply to a ccxt table/);
  const other = runTool('catalogue', ['import', file, '--service', join(dir, 'demo'), '--exchange', 'binance']);
  assert.is(other.status, 2);
  assert.match(other.stderr, /is ccxt's table of "demo", not of --exchange binance/);
});

test('what is not a ccxt table, or names a path the catalogue cannot hold, is refused as input (exit 2)', () => {
  const bad = join(dir, 'not-ccxt.json');
  writeFileSync(bad, JSON.stringify({ id: 'demo', api: { public: { get: 'a' } }, urls: { api: { public: 'https://api.demo.test' } } }));
  const r = runTool('catalogue', ['import', bad, '--from', 'ccxt', '--service', join(dir, 'demo')]);
  assert.is(r.status, 2);
  assert.match(r.stderr, /api\.public\.get is neither a list of paths nor an object of paths/);
  writeFileSync(bad, JSON.stringify({ ...TABLE, api: { public: { get: ['a b'] } } }));
  const space = runTool('catalogue', ['import', bad, '--from', 'ccxt', '--service', join(dir, 'demo')]);
  assert.is(space.status, 2);
  assert.match(space.stderr, /GET "\/v1\/a b": path "\/v1\/a b" holds " "/);
  writeFileSync(bad, JSON.stringify({ methods: [] }));
  assert.match(runTool('catalogue', ['import', bad, '--from', 'ccxt', '--service', join(dir, 'demo')]).stderr, /not a ccxt table/);
});

test.run();
