// The exchange diff against the seed document (data/seeds/exchange-api-catalogue.md, parsed
// by test/helpers/seed.ts): for every consecutive pair of releases of the seed's Versioning table,
// the endpoint-added / endpoint-removed / endpoint-deprecated sets of the JSON diff are what the
// seed's tags say, each dated by the tagged release.
//
// Comparisons are on the endpoints the seed lists: the catalogue also has endpoints the seed does
// not list (from the client's tables), and releases the seed's table omits (2.0.0rc3, 2.0.0rc4,
// 3.0.0, 3.1.0; a seed pair then spans several catalogue releases, which the diff walks). Seed
// endpoints with no added tag ("introduction not shown") are left out of the added comparison only:
// the seed says nothing of when they came, but an untagged removal means "not removed".
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { findService } from '../../src/catalogue/resolve.js';
import { diffReleases, formatJson, POLICY_RULE_IDS, type DiffResult } from '../../src/diff/index.js';
import { loadExchangeSeed, seedKey, type SeedEndpoint } from '../helpers/seed.js';

const seed = loadExchangeSeed();
const { catalogue } = loadCatalogue();
const exchange = findService(catalogue, 'exchange');
const seedKeys = new Set(seed.endpoints.map(seedKey));
const datedKeys = new Set(seed.endpoints.filter((e) => e.added !== undefined).map(seedKey));

/** The JSON contract, as a client of `npm run diff -- --format json` reads it. */
const jsonDiff = (from: string, to: string): DiffResult => JSON.parse(formatJson(diffReleases(catalogue, exchange, from, to)));

const pairs = seed.releases.slice(1).map((r, i) => [seed.releases[i].id, r.id] as const);

test('the seed and the catalogue agree on the release list (the seed omits a few)', () => {
  const ids = exchange.releases.map((r) => r.id);
  assert.ok(pairs.length > 30);
  // every seed release exists in the catalogue, in the same order
  const positions = seed.releases.map((r) => ids.indexOf(r.id));
  assert.not.ok(positions.includes(-1), `seed releases missing from the catalogue: ${seed.releases.filter((r, i) => positions[i] < 0).map((r) => r.id)}`);
  assert.equal(positions, [...positions].sort((a, b) => a - b));
  for (const r of seed.releases) assert.is(exchange.releases[ids.indexOf(r.id)].date, r.date, r.id);
});

/** Seed endpoints whose `field` names release `to`, as "METHOD /path" keys. */
const tagged = (field: 'added' | 'removed' | 'deprecated', to: string) =>
  seed.endpoints.filter((e: SeedEndpoint) => e[field] === to).map(seedKey).sort();

for (const [field, id, scope] of [
  ['added', 'endpoint-added', datedKeys],
  ['removed', 'endpoint-removed', seedKeys],
  ['deprecated', 'endpoint-deprecated', seedKeys],
] as const) {
  test(`${id}: every consecutive pair of the seed's releases matches the seed's "${field}" tags`, () => {
    let compared = 0;
    for (const [from, to] of pairs) {
      const changes = jsonDiff(from, to).changes.filter((c) => c.id === id && scope.has(c.endpoint!));
      assert.equal(changes.map((c) => c.endpoint!).sort(), tagged(field, to), `${id} ${from} → ${to}`);
      for (const c of changes) assert.is(c.release, to, `${c.endpoint} ${field} in`);
      compared += changes.length;
    }
    if (field !== 'deprecated') assert.ok(compared > 20, `only ${compared} ${id} changes compared`);
  });
}

test('downgrades: the seed pairs read backwards swap additions and removals, dated by the same release', () => {
  for (const [from, to] of pairs) {
    const up = jsonDiff(from, to).changes.filter((c) => c.kind === 'endpoint' && !POLICY_RULE_IDS.has(c.id) && seedKeys.has(c.endpoint!));
    const down = jsonDiff(to, from).changes.filter((c) => c.kind === 'endpoint' && seedKeys.has(c.endpoint!));
    const swap: Record<string, string> = { 'endpoint-added': 'endpoint-removed', 'endpoint-removed': 'endpoint-added', 'endpoint-deprecated': 'endpoint-undeprecated' };
    assert.equal(
      down.map((c) => `${c.id} ${c.endpoint} ${c.release}`).sort(),
      up.map((c) => `${swap[c.id]} ${c.endpoint} ${c.release}`).sort(),
      `${to} → ${from}`,
    );
  }
});

test.run();
