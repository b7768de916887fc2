// Every builder with a valid request for it: shared by the fuzz test and the builders benchmark.
import collateralReturn from '../../../src/builders/cardano/collateral-return.js';
import complexTransaction from '../../../src/builders/cardano/complex-transaction.js';
import delegateStake from '../../../src/builders/cardano/delegate-stake.js';
import lockFund from '../../../src/builders/cardano/lock-fund.js';
import mintTokens from '../../../src/builders/cardano/mint-tokens.js';
import sendLovelace from '../../../src/builders/cardano/send-lovelace.js';
import unlockFund from '../../../src/builders/cardano/unlock-fund.js';
import type { BuilderPlugin } from '../../../src/builders/plugin.js';
import {
  collateralReturnRequest, complexTransactionRequest, delegateStakeRequest, lockFundRequest, mintTokensRequest, sendLovelaceRequest, unlockFundRequest,
} from './fixtures.js';

export const BUILDER_CASES: [name: string, plugin: BuilderPlugin, request: () => object][] = [
  ['send_lovelace', sendLovelace, sendLovelaceRequest],
  ['lock_fund', lockFund, lockFundRequest],
  ['unlock_fund', unlockFund, unlockFundRequest],
  ['mint_tokens', mintTokens, () => mintTokensRequest()],
  ['delegate_stake', delegateStake, () => delegateStakeRequest()],
  ['collateral_return', collateralReturn, collateralReturnRequest],
  ['complex_transaction', complexTransaction, complexTransactionRequest],
];
