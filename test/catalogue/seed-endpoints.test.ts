// The exchange catalogue against the seed document: at every release of the seed's Versioning table,
// every endpoint the seed says is alive is served, and none the seed says is not yet added or already
// removed is. Expectations are derived from the seed document itself (test/helpers/seed.ts), never
// from hand-copied lists. CATALOGUE_DIR overrides the catalogue folder (default: <repo>/catalogue).
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import { findService, resolveService } from '../../src/catalogue/resolve.js';
import type { Service } from '../../src/catalogue/model.js';
import { loadExchangeSeed, parseTags, sectionDefaults, seedKey, seedStatusAt, type ExchangeSeed } from '../helpers/seed.js';

const seed: ExchangeSeed = loadExchangeSeed();
const SEED_RELEASES = new Set(seed.releases.map((r) => r.id));
let service: Service;
const load = () => {
  service ??= findService(loadCatalogue(process.env.CATALOGUE_DIR ?? DEFAULT_CATALOGUE_DIR).catalogue, 'exchange');
  return service;
};

// ------------------------------------------------------------------------------------ the parser

const parser = suite('seed parser');

parser('reads the Versioning table oldest first', () => {
  const ids = seed.releases.map((r) => r.id);
  assert.is(ids[0], '1.0.0');
  assert.is(ids.at(-1), '3.12.0');
  for (const id of ['1.6.0', '1.7.0', '2.0.0-rc1', '2.0.0rc2', '2.0.0', '3.0.0rc1', '3.4.0', '3.6.0', '3.7.0', '3.10.0']) {
    assert.ok(ids.includes(id), `seed release ${id}`);
  }
  assert.is(seed.releases.find((r) => r.id === '3.2.0')?.date, '2023-08-01');
});

parser('reads every endpoint line with its tags verbatim', () => {
  assert.ok(seed.endpoints.length > 250, `${seed.endpoints.length} endpoint lines`);
  const oco = seed.endpoints.find((e) => seedKey(e) === 'POST /api/v3/order/oco')!;
  assert.is(oco.tags, '(deprecated in 3.8.0 in favour of POST /api/v3/orderList/oco)');
  assert.is(oco.deprecated, '3.8.0');
  assert.is(oco.replacement, 'POST /api/v3/orderList/oco');
  assert.is(oco.section, 'Spot market and trade (`/api/v3`)');
  const ongoing = seed.endpoints.find((e) => seedKey(e) === 'GET /sapi/v1/loan/ongoing/orders')!;
  assert.equal([ongoing.added, ongoing.removed], ['1.18.0', '3.10.0']);
  const flexible = seed.endpoints.find((e) => seedKey(e) === 'GET /sapi/v1/loan/flexible/ongoing/order')!;
  assert.equal([flexible.added, flexible.removed], ['3.4.0', '3.7.0']);
  assert.not.ok(seed.endpoints.some((e) => e.path.startsWith('orderList.')), 'websocket methods are not endpoints');
});

parser('applies section defaults', () => {
  const earn = seed.endpoints.filter((e) => e.section.startsWith('Simple earn'));
  assert.ok(earn.length > 20);
  assert.ok(earn.filter((e) => !/^\[/.test(e.tags)).every((e) => e.added === '3.4.0'));
  assert.is(earn.find((e) => e.path === '/sapi/v1/simple-earn/locked/setRedeemOption')?.added, '3.10.0');
  const lending = seed.endpoints.filter((e) => e.section.startsWith('Lending and futures loan'));
  assert.ok(lending.length >= 20);
  assert.ok(lending.every((e) => e.removed === '3.4.0' && e.added === undefined));
  assert.equal(sectionDefaults('Removed in 3.9.0 and 3.7.0 (other modules)'), {});
});

parser('parses tag forms', () => {
  assert.equal(parseTags('[1.8.0] (removed 3.0.0rc2)'), { added: '1.8.0', removed: '3.0.0rc2' });
  assert.equal(parseTags('[3.4.0, singular as listed] (removed 3.7.0 as .../ongoing/orders)'), { added: '3.4.0', removed: '3.7.0' });
  assert.equal(parseTags('(client method added 3.5.0)'), {});
  assert.equal(parseTags('(API key not required since 3.2.0)'), {});
  assert.equal(parseTags('[2.0.0] (ongoing orders only; removed 3.10.0)'), { added: '2.0.0', removed: '3.10.0' });
});

parser('reads the Parameter changes table', () => {
  const row = seed.parameterChanges.find((r) => r.parameters.includes('symbols') && r.release === '1.13.0')!;
  assert.equal(row.endpoints, ['GET /api/v3/ticker/24hr', 'GET /api/v3/ticker/price', 'GET /api/v3/ticker/bookTicker']);
});

parser.run();

// ------------------------------------------------------------------------------- the catalogue

const catalogue = suite('catalogue against the seed');

catalogue('the seed releases exist in releases.yaml in the same order', () => {
  const ids = load().releases.map((r) => r.id);
  const positions = seed.releases.map((r) => ids.indexOf(r.id));
  assert.ok(positions.every((p) => p >= 0), `missing: ${seed.releases.filter((_, i) => positions[i] < 0).map((r) => r.id).join(', ')}`);
  assert.equal(positions, [...positions].sort((a, b) => a - b));
});

/** Checks one release; returns the problems found. */
function checkRelease(releaseId: string): string[] {
  const view = resolveService(load(), releaseId);
  const served = new Set(view.served.map((e) => e.endpoint.key));
  const problems: string[] = [];
  for (const e of seed.endpoints) {
    const status = seedStatusAt(e, releaseId, seed.releases);
    const k = seedKey(e);
    if (status === 'alive' && !served.has(k)) problems.push(`${releaseId}: ${k} is alive per the seed (line ${e.line}) but not served`);
    if (status !== 'alive' && served.has(k)) problems.push(`${releaseId}: ${k} is ${status} per the seed (line ${e.line}) but served`);
  }
  return problems;
}

for (const r of ['1.0.0', '1.6.0', '1.7.0', '2.0.0', '3.0.0rc1', '3.4.0', '3.6.0', '3.7.0', '3.10.0', '3.12.0']) {
  catalogue(`alive set at ${r} matches the seed`, () => {
    assert.ok(seed.releases.some((x) => x.id === r), `${r} is a seed release`);
    const problems = checkRelease(r);
    assert.equal(problems, [], problems.join('\n'));
  });
}

catalogue('alive set matches the seed at every seed release', () => {
  const problems = seed.releases.flatMap((r) => checkRelease(r.id));
  assert.equal(problems, [], problems.join('\n'));
});

catalogue('each seed endpoint is one catalogue entry with the seed\'s tags and lifecycle', () => {
  const problems: string[] = [];
  for (const e of seed.endpoints) {
    const k = seedKey(e);
    const found = load().endpoints.filter((x) => x.key === k);
    if (found.length !== 1) {
      problems.push(`${k}: ${found.length} catalogue entries`);
      continue;
    }
    const c = found[0];
    if ((c.tags ?? '') !== e.tags) problems.push(`${k}: tags ${JSON.stringify(c.tags)} != seed ${JSON.stringify(e.tags)}`);
    // The seed knows the releases up to 3.12.0; a fact stamped later (today's exchange) is not its to judge.
    const seedKnows = (id: string | undefined) => id === undefined || SEED_RELEASES.has(id);
    for (const f of ['added', 'removed', 'deprecated'] as const) {
      if (c[f] !== e[f] && !(e[f] === undefined && !seedKnows(c[f]))) problems.push(`${k}: ${f} ${c[f]} != seed ${e[f]}`);
    }
    if (e.replacement && c.replacement !== e.replacement) problems.push(`${k}: replacement ${c.replacement} != seed ${e.replacement}`);
  }
  assert.equal(problems, [], problems.join('\n'));
});

catalogue('entries the seed does not list carry no seed tags', () => {
  const seedKeys = new Set(seed.endpoints.map(seedKey));
  const tagged = load().endpoints.filter((e) => !seedKeys.has(e.key) && e.tags !== undefined).map((e) => e.key);
  assert.equal(tagged, []);
});

catalogue('seed entries that contradict the client are kept next to the real endpoint, both with notes', () => {
  const pairs = [
    ['POST /sapi/v1/portfolio/interest-history', 'GET /sapi/v1/portfolio/interest-history'],
    ['POST /sapi/v1/portfolio/asset-index-price', 'GET /sapi/v1/portfolio/asset-index-price'],
    ['POST /sapi/v4/sub-account/assets', 'GET /sapi/v4/sub-account/assets'],
    ['GET /sapi/v1/margin/max-leverage', 'POST /sapi/v1/margin/max-leverage'],
    ['GET /v1/managed-subaccount/queryTransLogForInvestor', 'GET /sapi/v1/managed-subaccount/queryTransLogForInvestor'],
    ['GET /v1/managed-subaccount/queryTransLogForTradeParent', 'GET /sapi/v1/managed-subaccount/queryTransLogForTradeParent'],
  ];
  const view = resolveService(load(), '3.12.0');
  for (const [listed, real] of pairs) {
    for (const k of [listed, real]) {
      const e = view.served.find((x) => x.endpoint.key === k);
      assert.ok(e, `${k} served at 3.12.0`);
      assert.ok(e!.endpoint.note, `${k} has a note`);
    }
  }
  const flexible = load().endpoints.find((e) => e.key === 'GET /sapi/v1/loan/flexible/ongoing/order')!;
  assert.match(flexible.note ?? '', /plural/);
  assert.not.ok(load().endpoints.some((e) => e.key === 'GET /sapi/v1/loan/flexible/ongoing/orders'));
});

catalogue.run();
