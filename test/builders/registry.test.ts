import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { BuilderInputError } from '../../src/builders/plugin.js';
import { builtinPlugins } from '../../src/builders/registry.js';
import {
  collateralReturnRequest, complexTransactionRequest, delegateStakeRequest, lockFundRequest, mintTokensRequest, sendLovelaceRequest, unlockFundRequest,
} from './cardano/fixtures.js';

const test = suite('builder registry');

const requests: Record<string, () => object> = {
  send_lovelace: sendLovelaceRequest,
  lock_fund: lockFundRequest,
  unlock_fund: unlockFundRequest,
  mint_tokens: () => mintTokensRequest(),
  delegate_stake: () => delegateStakeRequest(),
  collateral_return: collateralReturnRequest,
  complex_transaction: complexTransactionRequest,
};

test('every registered Cardano builder loads lazily and answers { txHex }', async () => {
  assert.equal([...builtinPlugins.keys()].sort(), Object.keys(requests).sort());
  for (const [name, request] of Object.entries(requests)) {
    const result = (await builtinPlugins.get(name)!(request())) as { txHex: string };
    assert.equal(Object.keys(result), ['txHex'], name);
    assert.match(result.txHex, /^84[0-9a-f]+$/, name);
  }
});

test('bad input through the registry is still a BuilderInputError', async () => {
  try {
    await builtinPlugins.get('send_lovelace')!({});
    assert.unreachable();
  } catch (e) {
    assert.instance(e, BuilderInputError);
    assert.is((e as Error).message, 'myAddress: missing field');
  }
});

test.run();
