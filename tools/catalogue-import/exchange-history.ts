// Facts about exchange endpoints that no file under shared/data describes: endpoints removed before
// the client table at 3.12.0 (exchange-endpoints-3.12.0.tsv), missing from the JS client table at 3.6.1
// and from the OpenAPI v1.22.0 description. They were read from older releases of the python client
// (public source of binance/binance-connector-python: spot/margin.py, bswap.py, _savings.py,
// _staking.py, _crypto_loan.py, futures.py, _trade.py, sub_account.py) and, for the few the python
// source does not show, from other public clients. Used only by bootstrap-exchange.ts.
//
// Parameter shorthand: "name:type" required, "name:type?" optional; types as in the TSV (str, int,
// float, bool).

export interface HistoricalEndpoint {
  security: 'NONE' | 'API_KEY' | 'SIGNED';
  summary: string;
  params: string;
  source: string;
  note?: string;
}

const PY = 'python client before the removal (binance-connector-python';
const src = (file: string) => `${PY} ${file})`;

export const HISTORY: Record<string, HistoricalEndpoint> = {
  // ---- margin, removed 3.6.0 (spot/margin.py)
  'POST /sapi/v1/margin/transfer': { security: 'SIGNED', summary: 'Margin Account Transfer (MARGIN)', params: 'asset:str,amount:float,type:int', source: src('spot/margin.py') },
  'POST /sapi/v1/margin/isolated/transfer': { security: 'SIGNED', summary: 'Isolated Margin Account Transfer (MARGIN)', params: 'asset:str,symbol:str,transFrom:str,transTo:str,amount:float', source: src('spot/margin.py') },
  'GET /sapi/v1/margin/isolated/transfer': { security: 'SIGNED', summary: 'Get Isolated Margin Transfer History (USER_DATA)', params: 'symbol:str,asset:str?,transFrom:str?,transTo:str?,startTime:int?,endTime:int?,current:int?,size:int?', source: src('spot/margin.py') },
  'POST /sapi/v1/margin/loan': { security: 'SIGNED', summary: 'Margin Account Borrow (MARGIN)', params: 'asset:str,amount:float,isIsolated:str?,symbol:str?', source: src('spot/margin.py') },
  'GET /sapi/v1/margin/loan': { security: 'SIGNED', summary: 'Query Loan Record (USER_DATA)', params: 'asset:str,isolatedSymbol:str?,txId:int?,startTime:int?,endTime:int?,current:int?,size:int?,archived:str?', source: src('spot/margin.py') },
  'POST /sapi/v1/margin/repay': { security: 'SIGNED', summary: 'Margin Account Repay (MARGIN)', params: 'asset:str,amount:float,isIsolated:str?,symbol:str?', source: src('spot/margin.py') },
  'GET /sapi/v1/margin/repay': { security: 'SIGNED', summary: 'Query Repay Record (USER_DATA)', params: 'asset:str,isolatedSymbol:str?,txId:int?,startTime:int?,endTime:int?,current:int?,size:int?,archived:str?', source: src('spot/margin.py') },
  'GET /sapi/v1/margin/asset': { security: 'API_KEY', summary: 'Query Margin Asset (MARKET_DATA)', params: 'asset:str', source: src('spot/margin.py, limit_request') },
  'GET /sapi/v1/margin/pair': { security: 'API_KEY', summary: 'Query Margin Pair (MARKET_DATA)', params: 'symbol:str', source: src('spot/margin.py, limit_request') },
  'GET /sapi/v1/margin/isolated/pair': { security: 'SIGNED', summary: 'Query Isolated Margin Symbol (USER_DATA)', params: 'symbol:str', source: src('spot/margin.py') },
  'GET /sapi/v1/margin/dribblet': {
    security: 'SIGNED', summary: 'Margin Dustlog (USER_DATA)', params: '', source: 'public PHP client (binance-connector-php Margin::marginDustLog, signRequest)',
    note: 'parameters of this endpoint are not shown in the data; only the signed parameters are accepted',
  },
  'GET /sapi/v1/margin/dust': {
    security: 'SIGNED', summary: 'Get assets that can be converted into BNB (margin) (USER_DATA)', params: '', source: 'public third-party clients (signed GET without parameters)',
  },
  'POST /sapi/v1/margin/dust': {
    security: 'SIGNED', summary: 'Convert margin dust assets to BNB (MARGIN)', params: 'asset:str', source: 'public third-party clients (signed POST with asset)',
  },
  // ---- staking, removed 3.7.0 (_staking.py)
  'GET /sapi/v1/staking/productList': { security: 'SIGNED', summary: 'Get Staking Product List (USER_DATA)', params: 'product:str,asset:str?,current:int?,size:int?', source: src('_staking.py') },
  'POST /sapi/v1/staking/purchase': { security: 'SIGNED', summary: 'Purchase Staking Product (USER_DATA)', params: 'product:str,productId:str,amount:float,renewable:str?', source: src('_staking.py') },
  'POST /sapi/v1/staking/redeem': { security: 'SIGNED', summary: 'Redeem Staking Product (USER_DATA)', params: 'product:str,productId:str,positionId:str?,amount:float?', source: src('_staking.py') },
  'GET /sapi/v1/staking/position': { security: 'SIGNED', summary: 'Get Staking Product Position (USER_DATA)', params: 'product:str,productId:str?,asset:str?,current:int?,size:int?', source: src('_staking.py') },
  'GET /sapi/v1/staking/stakingRecord': { security: 'SIGNED', summary: 'Get Staking History (USER_DATA)', params: 'product:str,txnType:str,asset:str?,startTime:int?,endTime:int?,current:int?,size:int?', source: src('_staking.py') },
  'POST /sapi/v1/staking/setAutoStaking': { security: 'SIGNED', summary: 'Set Auto Staking (USER_DATA)', params: 'product:str,positionId:str,renewable:str', source: src('_staking.py') },
  'GET /sapi/v1/staking/personalLeftQuota': { security: 'SIGNED', summary: 'Get Personal Left Quota of Staking Product (USER_DATA)', params: 'product:str,productId:str', source: src('_staking.py') },
  // ---- crypto loan (_crypto_loan.py before 3.7.0 / 3.10.0 / 3.12.0)
  'POST /sapi/v1/loan/flexible/borrow': { security: 'SIGNED', summary: 'Flexible Loan Borrow (TRADE)', params: 'loanCoin:str,collateralCoin:str,loanAmount:float?,collateralAmount:float?', source: src('_crypto_loan.py') },
  'GET /sapi/v1/loan/flexible/ongoing/order': { security: 'SIGNED', summary: 'Get Flexible Loan Ongoing Orders (USER_DATA)', params: 'loanCoin:str?,collateralCoin:str?,current:int?,limit:int?', source: src('_crypto_loan.py, which calls .../ongoing/orders') },
  'GET /sapi/v1/loan/flexible/borrow/history': { security: 'SIGNED', summary: 'Get Flexible Loan Borrow History (USER_DATA)', params: 'loanCoin:str?,collateralCoin:str?,startTime:int?,endTime:int?,current:int?,limit:int?', source: src('_crypto_loan.py') },
  'POST /sapi/v1/loan/flexible/repay': { security: 'SIGNED', summary: 'Flexible Loan Repay (TRADE)', params: 'loanCoin:str,collateralCoin:str,repayAmount:float,collateralReturn:bool?,fullRepayment:bool?', source: src('_crypto_loan.py') },
  'GET /sapi/v1/loan/flexible/repay/history': { security: 'SIGNED', summary: 'Get Flexible Loan Repayment History (USER_DATA)', params: 'loanCoin:str?,collateralCoin:str?,startTime:int?,endTime:int?,current:int?,limit:int?', source: src('_crypto_loan.py') },
  'POST /sapi/v1/loan/flexible/adjust/ltv': { security: 'SIGNED', summary: 'Flexible Loan Adjust LTV (TRADE)', params: 'loanCoin:str,collateralCoin:str,adjustmentAmount:float,direction:str', source: src('_crypto_loan.py') },
  'GET /sapi/v1/loan/flexible/ltv/adjustment/history': { security: 'SIGNED', summary: 'Get Flexible Loan LTV Adjustment History (USER_DATA)', params: 'loanCoin:str?,collateralCoin:str?,startTime:int?,endTime:int?,current:int?,limit:int?', source: src('_crypto_loan.py') },
  'GET /sapi/v1/loan/flexible/loanable/data': { security: 'SIGNED', summary: 'Get Flexible Loan Assets Data (USER_DATA)', params: 'loanCoin:str?', source: src('_crypto_loan.py') },
  'GET /sapi/v1/loan/flexible/collateral/data': { security: 'SIGNED', summary: 'Get Flexible Loan Collateral Assets Data (USER_DATA)', params: 'collateralCoin:str?', source: src('_crypto_loan.py') },
  'POST /sapi/v1/loan/borrow': { security: 'SIGNED', summary: 'Crypto Loan Borrow (TRADE)', params: 'loanCoin:str,collateralCoin:str,loanTerm:int,loanAmount:float?,collateralAmount:float?', source: src('_crypto_loan.py') },
  'GET /sapi/v1/loan/ongoing/orders': { security: 'SIGNED', summary: 'Get Loan Ongoing Orders (USER_DATA)', params: 'orderId:int?,loanCoin:str?,collateralCoin:str?,current:int?,limit:int?', source: src('_crypto_loan.py') },
  'POST /sapi/v1/loan/repay': { security: 'SIGNED', summary: 'Crypto Loan Repay (TRADE)', params: 'orderId:int,amount:float,type:int?,collateralReturn:bool?', source: src('_crypto_loan.py') },
  'POST /sapi/v1/loan/adjust/ltv': { security: 'SIGNED', summary: 'Crypto Loan Adjust LTV (TRADE)', params: 'orderId:int,amount:float,direction:str', source: src('_crypto_loan.py') },
  'GET /sapi/v1/loan/collateral/data': { security: 'SIGNED', summary: 'Get Collateral Assets Data (USER_DATA)', params: 'collateralCoin:str?,vipLevel:int?', source: src('_crypto_loan.py') },
  'GET /sapi/v1/loan/repay/collateral/rate': { security: 'SIGNED', summary: 'Check Collateral Repay Rate (USER_DATA)', params: 'loanCoin:str,collateralCoin:str,repayAmount:float', source: src('_crypto_loan.py') },
  'POST /sapi/v1/loan/customize/margin_call': { security: 'SIGNED', summary: 'Customize Margin Call (USER_DATA)', params: 'marginCall:float,orderId:int?,collateralCoin:str?', source: src('_crypto_loan.py') },
  // ---- lending (savings), deleted 3.4.0 (_savings.py)
  'GET /sapi/v1/lending/daily/product/list': { security: 'SIGNED', summary: 'Get Flexible Product List (USER_DATA)', params: 'status:str?,featured:str?,current:int?,size:int?', source: src('_savings.py') },
  'GET /sapi/v1/lending/daily/userLeftQuota': { security: 'SIGNED', summary: 'Get Left Daily Purchase Quota of Flexible Product (USER_DATA)', params: 'productId:str', source: src('_savings.py') },
  'POST /sapi/v1/lending/daily/purchase': { security: 'SIGNED', summary: 'Purchase Flexible Product (USER_DATA)', params: 'productId:str,amount:float', source: src('_savings.py') },
  'GET /sapi/v1/lending/daily/userRedemptionQuota': { security: 'SIGNED', summary: 'Get Left Daily Redemption Quota of Flexible Product (USER_DATA)', params: 'productId:str,type:str', source: src('_savings.py') },
  'POST /sapi/v1/lending/daily/redeem': { security: 'SIGNED', summary: 'Redeem Flexible Product (USER_DATA)', params: 'productId:str,amount:float,type:str', source: src('_savings.py') },
  'GET /sapi/v1/lending/daily/token/position': { security: 'SIGNED', summary: 'Get Flexible Product Position (USER_DATA)', params: 'asset:str?', source: src('_savings.py') },
  'GET /sapi/v1/lending/union/account': { security: 'SIGNED', summary: 'Lending Account (USER_DATA)', params: '', source: src('_savings.py') },
  'GET /sapi/v1/lending/union/purchaseRecord': { security: 'SIGNED', summary: 'Get Purchase Record (USER_DATA)', params: 'lendingType:str,asset:str?,startTime:int?,endTime:int?,current:int?,size:int?', source: src('_savings.py') },
  'GET /sapi/v1/lending/union/redemptionRecord': { security: 'SIGNED', summary: 'Get Redemption Record (USER_DATA)', params: 'lendingType:str,asset:str?,startTime:int?,endTime:int?,current:int?,size:int?', source: src('_savings.py') },
  'GET /sapi/v1/lending/union/interestHistory': { security: 'SIGNED', summary: 'Get Interest History (USER_DATA)', params: 'lendingType:str,asset:str?,startTime:int?,endTime:int?,current:int?,size:int?', source: src('_savings.py') },
  'GET /sapi/v1/lending/project/list': { security: 'SIGNED', summary: 'Get Fixed and Activity Project List (USER_DATA)', params: 'type:str,asset:str?,status:str?,isSortAsc:bool?,sortBy:str?,current:int?,size:int?', source: src('_savings.py') },
  'POST /sapi/v1/lending/customizedFixed/purchase': { security: 'SIGNED', summary: 'Purchase Fixed/Activity Project (USER_DATA)', params: 'projectId:str,lot:int', source: src('_savings.py') },
  'GET /sapi/v1/lending/project/position/list': { security: 'SIGNED', summary: 'Get Fixed/Activity Project Position (USER_DATA)', params: 'asset:str?,projectId:str?,status:str?', source: src('_savings.py') },
  'POST /sapi/v1/lending/positionChanged': { security: 'SIGNED', summary: 'Change Fixed/Activity Position to Daily Position (USER_DATA)', params: 'projectId:str,lot:int,positionId:int?', source: src('_savings.py') },
  // ---- futures (spot/futures.py): transfer removed 3.9.0, cross-collateral loan removed 2.0.0rc3 / 3.4.0
  'POST /sapi/v1/futures/transfer': { security: 'SIGNED', summary: 'New Future Account Transfer (USER_DATA)', params: 'asset:str,amount:float,type:int', source: src('spot/futures.py') },
  'GET /sapi/v1/futures/transfer': { security: 'SIGNED', summary: 'Get Future Account Transaction History List (USER_DATA)', params: 'asset:str,startTime:int,endTime:int?,current:int?,size:int?', source: src('spot/futures.py') },
  'POST /sapi/v1/futures/loan/borrow': { security: 'SIGNED', summary: 'Borrow For Cross-Collateral (TRADE)', params: 'coin:str,collateralCoin:str,amount:float?,collateralAmount:float?', source: src('spot/futures.py') },
  'GET /sapi/v1/futures/loan/borrow/history': { security: 'SIGNED', summary: 'Cross-Collateral Borrow History (USER_DATA)', params: 'coin:str?,startTime:int?,endTime:int?,limit:int?', source: src('spot/futures.py') },
  'POST /sapi/v1/futures/loan/repay': { security: 'SIGNED', summary: 'Repay For Cross-Collateral (TRADE)', params: 'coin:str,collateralCoin:str,amount:float', source: src('spot/futures.py') },
  'GET /sapi/v1/futures/loan/repay/history': { security: 'SIGNED', summary: 'Cross-Collateral Repayment History (USER_DATA)', params: 'coin:str?,startTime:int?,endTime:int?,limit:int?', source: src('spot/futures.py') },
  'GET /sapi/v2/futures/loan/wallet': { security: 'SIGNED', summary: 'Cross-Collateral Wallet (USER_DATA)', params: '', source: src('spot/futures.py') },
  'GET /sapi/v2/futures/loan/configs': { security: 'SIGNED', summary: 'Cross-Collateral Information (USER_DATA)', params: 'loanCoin:str?,collateralCoin:str?', source: src('spot/futures.py') },
  'GET /sapi/v2/futures/loan/calcAdjustLevel': { security: 'SIGNED', summary: 'Calculate Rate After Adjust Cross-Collateral LTV (USER_DATA)', params: 'loanCoin:str,collateralCoin:str,amount:float,direction:str', source: src('spot/futures.py') },
  'GET /sapi/v2/futures/loan/calcMaxAdjustAmount': { security: 'SIGNED', summary: 'Get Max Amount for Adjust Cross-Collateral LTV (USER_DATA)', params: 'loanCoin:str,collateralCoin:str', source: src('spot/futures.py') },
  'POST /sapi/v2/futures/loan/adjustCollateral': { security: 'SIGNED', summary: 'Adjust Cross-Collateral LTV (TRADE)', params: 'loanCoin:str,collateralCoin:str,amount:float,direction:str', source: src('spot/futures.py') },
  'GET /sapi/v1/futures/loan/adjustCollateral/history': { security: 'SIGNED', summary: 'Adjust Cross-Collateral LTV History (USER_DATA)', params: 'loanCoin:str?,collateralCoin:str?,startTime:int?,endTime:int?,limit:int?', source: src('spot/futures.py') },
  'GET /sapi/v1/futures/loan/liquidationHistory': { security: 'SIGNED', summary: 'Cross-Collateral Liquidation History (USER_DATA)', params: 'loanCoin:str?,collateralCoin:str?,startTime:int?,endTime:int?,limit:int?', source: src('spot/futures.py') },
  'GET /sapi/v1/futures/loan/collateralRepayLimit': { security: 'SIGNED', summary: 'Check Collateral Repay Limit (USER_DATA)', params: 'coin:str,collateralCoin:str', source: src('spot/futures.py') },
  'GET /sapi/v1/futures/loan/collateralRepay': { security: 'SIGNED', summary: 'Get Collateral Repay Quote (USER_DATA)', params: 'coin:str,collateralCoin:str,amount:float', source: src('spot/futures.py') },
  'POST /sapi/v1/futures/loan/collateralRepay': { security: 'SIGNED', summary: 'Repay with Collateral (USER_DATA)', params: 'quoteId:str', source: src('spot/futures.py') },
  'GET /sapi/v1/futures/loan/collateralRepayResult': { security: 'SIGNED', summary: 'Collateral Repayment Result (USER_DATA)', params: 'quoteId:str', source: src('spot/futures.py') },
  'GET /sapi/v1/futures/loan/interestHistory': { security: 'SIGNED', summary: 'Cross-Collateral Interest History (USER_DATA)', params: 'collateralCoin:str?,startTime:int?,endTime:int?,current:int?,limit:int?', source: src('spot/futures.py') },
  // ---- bswap, removed 3.7.0 (spot/bswap.py)
  'GET /sapi/v1/bswap/pools': { security: 'API_KEY', summary: 'List All Swap Pools (MARKET_DATA)', params: '', source: src('spot/bswap.py, limit_request') },
  'GET /sapi/v1/bswap/liquidity': { security: 'SIGNED', summary: 'Get liquidity information of a pool (USER_DATA)', params: 'poolId:int?', source: src('spot/bswap.py') },
  'POST /sapi/v1/bswap/liquidityAdd': { security: 'SIGNED', summary: 'Add Liquidity (TRADE)', params: 'poolId:int,asset:str,quantity:float', source: src('spot/bswap.py') },
  'POST /sapi/v1/bswap/liquidityRemove': { security: 'SIGNED', summary: 'Remove Liquidity (TRADE)', params: 'poolId:int,type:str,asset:str,shareAmount:float', source: src('spot/bswap.py') },
  'GET /sapi/v1/bswap/liquidityOps': { security: 'SIGNED', summary: 'Get Liquidity Operation Record (USER_DATA)', params: 'operationId:int?,poolId:int?,operation:str?,startTime:int?,endTime:int?,limit:int?', source: src('spot/bswap.py') },
  'GET /sapi/v1/bswap/quote': { security: 'SIGNED', summary: 'Request Quote (USER_DATA)', params: 'quoteAsset:str,baseAsset:str,quoteQty:float', source: src('spot/bswap.py') },
  'POST /sapi/v1/bswap/swap': { security: 'SIGNED', summary: 'Swap (TRADE)', params: 'quoteAsset:str,baseAsset:str,quoteQty:float', source: src('spot/bswap.py') },
  'GET /sapi/v1/bswap/swap': { security: 'SIGNED', summary: 'Get Swap History (USER_DATA)', params: 'swapId:int?,startTime:int?,endTime:int?,status:int?,baseAsset:str?,quoteAsset:str?,limit:int?', source: src('spot/bswap.py') },
  'GET /sapi/v1/bswap/poolConfigure': { security: 'SIGNED', summary: 'Get Pool Configure (USER_DATA)', params: 'poolId:int?', source: src('spot/bswap.py') },
  'GET /sapi/v1/bswap/addLiquidityPreview': { security: 'SIGNED', summary: 'Add Liquidity Preview (USER_DATA)', params: 'poolId:int,type:str,quoteAsset:str,quoteQty:float', source: src('spot/bswap.py') },
  'GET /sapi/v1/bswap/removeLiquidityPreview': { security: 'SIGNED', summary: 'Remove Liquidity Preview (USER_DATA)', params: 'poolId:int,type:str,quoteAsset:str,shareAmount:float', source: src('spot/bswap.py') },
  'GET /sapi/v1/bswap/unclaimedRewards': { security: 'SIGNED', summary: 'Get Unclaimed Rewards Record (USER_DATA)', params: 'type:int?', source: src('spot/bswap.py') },
  'POST /sapi/v1/bswap/claimRewards': { security: 'SIGNED', summary: 'Claim rewards (TRADE)', params: 'type:int?', source: src('spot/bswap.py') },
  'GET /sapi/v1/bswap/claimedHistory': { security: 'SIGNED', summary: 'Get Claimed History (USER_DATA)', params: 'poolId:int?,assetRewards:str?,type:int?,startTime:int?,endTime:int?,limit:int?', source: src('spot/bswap.py') },
  // ---- sub-account IP restriction v1, removed 3.0.0rc2 (sub_account.py)
  'POST /sapi/v1/sub-account/subAccountApi/ipRestriction': { security: 'SIGNED', summary: 'Enable or Disable IP Restriction for a Sub-account API Key (For Master Account)', params: 'email:str,subAccountApiKey:str,ipRestrict:bool,thirdParty:bool?', source: src('spot/sub_account.py') },
  'POST /sapi/v1/sub-account/subAccountApi/ipRestriction/ipList': { security: 'SIGNED', summary: 'Add IP List for a Sub-account API Key (For Master Account)', params: 'email:str,subAccountApiKey:str,ipAddress:str,thirdPartyName:str?', source: src('spot/sub_account.py') },
  // ---- spot OCO, deprecated 3.8.0 and gone from the client at 3.12.0 (_trade.py)
  'POST /api/v3/order/oco': {
    security: 'SIGNED', summary: 'New OCO (TRADE)', source: src('_trade.py new_oco_order'),
    params: 'symbol:str,side:str,quantity:float,price:float,stopPrice:float,listClientOrderId:str?,limitClientOrderId:str?,limitStrategyId:int?,limitStrategyType:int?,limitIcebergQty:float?,stopClientOrderId:str?,stopStrategyId:int?,stopStrategyType:int?,stopLimitPrice:float?,stopIcebergQty:float?,stopLimitTimeInForce:str?,newOrderRespType:str?',
  },
};

/** Replacements of endpoints removed in 3.6.0, from the exchange's margin change log (2024, public docs). */
export const MARGIN_3_6_0_REPLACEMENTS: Record<string, string> = {
  'POST /sapi/v1/margin/transfer': 'POST /sapi/v1/asset/transfer',
  'POST /sapi/v1/margin/isolated/transfer': 'POST /sapi/v1/asset/transfer',
  'GET /sapi/v1/margin/isolated/transfer': 'GET /sapi/v1/margin/transfer',
  'POST /sapi/v1/margin/loan': 'POST /sapi/v1/margin/borrow-repay',
  'POST /sapi/v1/margin/repay': 'POST /sapi/v1/margin/borrow-repay',
  'GET /sapi/v1/margin/loan': 'GET /sapi/v1/margin/borrow-repay',
  'GET /sapi/v1/margin/repay': 'GET /sapi/v1/margin/borrow-repay',
  'GET /sapi/v1/margin/asset': 'GET /sapi/v1/margin/allAssets',
  'GET /sapi/v1/margin/pair': 'GET /sapi/v1/margin/allPairs',
  'GET /sapi/v1/margin/isolated/pair': 'GET /sapi/v1/margin/isolated/allPairs',
  'GET /sapi/v1/margin/dribblet': 'GET /sapi/v1/asset/dribblet',
  'GET /sapi/v1/margin/dust': 'POST /sapi/v1/asset/dust-btc',
  'POST /sapi/v1/margin/dust': 'POST /sapi/v1/asset/dust',
};
