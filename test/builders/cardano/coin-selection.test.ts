import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import { AssetMap } from '../../../src/builders/cardano/assets.js';
import { SELECTION_THRESHOLD, selectUtxos } from '../../../src/builders/cardano/coin-selection.js';
import { parseUtxo } from '../../../src/builders/cardano/utxo.js';
import { BuilderInputError } from '../../../src/builders/plugin.js';
import { ALICE, OTHER_TOKEN, TOKEN, ada, utxo } from './fixtures.js';

const test = suite('coin selection');

const candidates = (...list: ReturnType<typeof utxo>[]) => list.map((u, i) => parseUtxo(u, `inputs[${i}]`));
const names = (picked: { txHash: string }[], all: { txHash: string }[]) => picked.map((p) => all.findIndex((a) => a.txHash === p.txHash));
const need = (entries: [string, bigint][]) => {
  const m = new AssetMap();
  for (const [u, q] of entries) m.add(u, q);
  return m;
};

test('lovelace: bucket 1 (lovelace only) first in request order, then 2, 3, 4+; stops once covered', () => {
  const all = candidates(
    utxo('t1', 0, ALICE.address, ada(100), [[TOKEN, 1n]]), // bucket 2
    utxo('l1', 0, ALICE.address, ada(2)), // bucket 1
    utxo('l2', 0, ALICE.address, ada(2)), // bucket 1
    utxo('l3', 0, ALICE.address, ada(2)), // bucket 1
    utxo('l4', 0, ALICE.address, ada(2)), // bucket 1, not needed
  );
  // 1 ADA + 5 ADA threshold = 6 ADA: l1 + l2 + l3.
  assert.equal(names(selectUtxos(all, need([['lovelace', ada(1)]]), SELECTION_THRESHOLD, 'inputs'), all), [1, 2, 3]);
  // 8 ADA + 5: all of bucket 1 (8 ADA) then the token UTxO.
  assert.equal(names(selectUtxos(all, need([['lovelace', ada(8)]]), SELECTION_THRESHOLD, 'inputs'), all), [0, 1, 2, 3, 4]);
});

test('tokens come from buckets 2, 3, 4+ (never bucket 1), and count toward lovelace', () => {
  const all = candidates(
    utxo('l1', 0, ALICE.address, ada(10)),
    utxo('three', 0, ALICE.address, ada(3), [[TOKEN, 5n], [OTHER_TOKEN, 1n]]), // bucket 3
    utxo('two', 0, ALICE.address, ada(4), [[TOKEN, 5n]]), // bucket 2
  );
  // 8 TOKEN: bucket 2 ("two", 5) then bucket 3 ("three", 5); their 7 ADA already cover the
  // 1 + 5 ADA needed, so the lovelace pass takes nothing, not even the lovelace-only l1.
  const picked = selectUtxos(all, need([['lovelace', ada(1)], [TOKEN, 8n]]), SELECTION_THRESHOLD, 'inputs');
  assert.equal(names(picked, all), [1, 2]);
  // 5 TOKEN: "two" alone; 4 ADA of the 6 needed → l1 too; "three" untouched.
  assert.equal(names(selectUtxos(all, need([['lovelace', ada(1)], [TOKEN, 5n]]), SELECTION_THRESHOLD, 'inputs'), all), [0, 2]);
});

test('like the reference, a UTxO taken for a token is counted again when the lovelace pass reaches it', () => {
  // Documented quirk (unreachable from the shipped builders, whose outputs hold no tokens):
  // need 4 + 5 ADA and 1 TOKEN. "two" is taken for TOKEN (5 ADA left to find), "l1" gives 2
  // (3 left), then the lovelace pass over bucket 2 takes "two" again and subtracts its 4 ADA a
  // second time: selection reports success with 6 ADA for 9.
  const all = candidates(utxo('two', 0, ALICE.address, ada(4), [[TOKEN, 1n]]), utxo('l1', 0, ALICE.address, ada(2)));
  const picked = selectUtxos(all, need([['lovelace', ada(4)], [TOKEN, 1n]]), SELECTION_THRESHOLD, 'inputs');
  assert.equal(names(picked, all), [0, 1]);
});

test('insufficient: names every missing unit with its amount', () => {
  const all = candidates(utxo('two', 0, ALICE.address, ada(4), [[TOKEN, 1n]]));
  try {
    selectUtxos(all, need([['lovelace', ada(10)], [TOKEN, 3n], [OTHER_TOKEN, 2n]]), SELECTION_THRESHOLD, 'inputs');
    assert.unreachable();
  } catch (e) {
    assert.instance(e, BuilderInputError);
    // Units in sorted order. "two" is taken for TOKEN and again by the lovelace pass (see above),
    // so 2 of its TOKEN and 8 of its ADA are counted: 3 − 2 TOKEN, 15 − 8 ADA missing.
    assert.match((e as Error).message, `inputs: insufficient funds: still missing 2 ${OTHER_TOKEN}, 1 ${TOKEN}, 7000000 lovelace`);
  }
});

test('AssetMap clamps at zero like the reference Value (no negative requirements)', () => {
  const m = new AssetMap().add('lovelace', 5n).subtract('lovelace', 9n).add('lovelace', 3n).subtract(TOKEN, 1n);
  assert.is(m.get('lovelace'), 3n);
  assert.equal(m.units(), ['lovelace']);
});

test.run();
