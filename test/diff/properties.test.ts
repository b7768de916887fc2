// Properties of the exchange diff that hold whatever the catalogue says: each change of a long range
// is the change the single step into its release shows; a downgrade mirrors the upgrade.
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { findService } from '../../src/catalogue/resolve.js';
import { Walk } from '../../src/diff/sides.js';
import { diffReleases, POLICY_RULE_IDS, type Change } from '../../src/diff/index.js';
import { tuple } from './support.js';

const { catalogue } = loadCatalogue();
const exchange = findService(catalogue, 'exchange');
const ids = exchange.releases.map((r) => r.id);
/** Each pair's changes, computed once: the tests read the same pairs (every step both ways, the whole range both ways) and change nothing. */
const diffs = new Map<string, readonly Change[]>();
const diff = (from: string, to: string): readonly Change[] => {
  const k = `${from} ${to}`;
  if (!diffs.has(k)) diffs.set(k, diffReleases(catalogue, exchange, from, to).changes);
  return diffs.get(k)!;
};
const first = ids[0];
const last = ids.at(-1)!;

/** Single steps, computed once: "from to" → tuples. */
const steps = new Map<string, Set<string>>();
const step = (from: string, to: string) => {
  const k = `${from} ${to}`;
  if (!steps.has(k)) steps.set(k, new Set(diff(from, to).map(tuple)));
  return steps.get(k)!;
};

test('consecutive releases: every change is dated by the newer release', () => {
  let n = 0;
  for (let i = 1; i < ids.length; i++) {
    for (const c of diff(ids[i - 1], ids[i])) {
      assert.is(c.release, ids[i], tuple(c));
      n++;
    }
    for (const c of diff(ids[i], ids[i - 1])) assert.is(c.release, ids[i], `downgrade ${tuple(c)}`);
  }
  assert.ok(n > 300, `${n} changes over all steps`);
});

test(`${first} → ${last}: each change is the one the step into its release shows`, () => {
  const whole = diff(first, last);
  assert.ok(whole.length > 200);
  for (const c of whole) {
    const at = ids.indexOf(c.release);
    assert.ok(at > 0, `${tuple(c)}: release inside the range`);
    assert.ok(step(ids[at - 1], c.release).has(tuple(c)), `${tuple(c)} not in ${ids[at - 1]} → ${c.release}`);
  }
});

test(`${last} → ${first}: each change is the one the step down from its release shows`, () => {
  for (const c of diff(last, first)) {
    const at = ids.indexOf(c.release);
    assert.ok(step(c.release, ids[at - 1]).has(tuple(c)), `${tuple(c)} not in ${c.release} → ${ids[at - 1]}`);
  }
});

const SWAP: Record<string, string> = { added: 'removed', removed: 'added', deprecated: 'undeprecated', undeprecated: 'deprecated', tightened: 'relaxed', relaxed: 'tightened', 'became-required': 'became-optional', 'became-optional': 'became-required' };
const PLAIN: Record<string, string> = { 'required-parameter-added': 'parameter-added', 'body-required-property-added': 'body-property-added' };
const plainId = (id: string) => PLAIN[id] ?? id;
const own = (c: Change) => !POLICY_RULE_IDS.has(c.id);
const mirror = (c: Change) => tuple({ ...c, id: plainId(c.id).replace(/(undeprecated|deprecated|added|removed|tightened|relaxed|became-required|became-optional)$/, (m) => SWAP[m]) });

test('every consecutive pair read backwards is the mirror image', () => {
  for (let i = 1; i < ids.length; i++) {
    const up = diff(ids[i - 1], ids[i]).filter(own).map(mirror).sort();
    const down = diff(ids[i], ids[i - 1]).map((c) => tuple({ ...c, id: plainId(c.id) })).sort();
    assert.equal(down, up, `${ids[i]} → ${ids[i - 1]}`);
  }
});

test('every change names a release, a message and exactly one place', () => {
  for (const c of [...diff(first, last), ...diff(last, first)]) {
    assert.ok(c.message.length > 0 && ids.includes(c.release));
    const places = [c.endpoint, c.wsMethod, c.enum, c.kind === 'stream' || c.kind === 'ws-method' ? c.name : undefined].filter((x) => x !== undefined);
    assert.is(places.length, 1, tuple(c));
  }
});

test('an item that comes or goes is dated by its entries alone as by resolving the releases in between', () => {
  // whenServed is when(subject, "is it served") read off the entries' spans; both must agree.
  let n = 0;
  for (let j = 1; j < ids.length; j++) {
    for (const [from, to] of [[0, j], [j, 0], [j - 1, j]]) {
      const walk = new Walk(exchange, from, to);
      const a = walk.from.items;
      const b = walk.to.items;
      for (const [key, item] of [...a, ...b]) {
        if (a.has(key) && b.has(key)) continue;
        assert.is(walk.whenServed(item.subject), walk.when(item.subject, (s) => s.items.has(key)), `${ids[from]} → ${ids[to]}: ${key}`);
        n++;
      }
    }
  }
  assert.ok(n > 1000, `${n} items compared`);
});

test.run();
