// Fixed, mainnet-like protocol parameters (the reference server's defaults) and the CSL
// TransactionBuilderConfig made from them. The config is immutable and built once per process:
// TransactionBuilder.new copies it, so sharing it across builds is safe.
import * as CSL from './csl.js';
import { type Arena, withArena } from './arena.js';
import { MAX_TX_EX_UNITS } from './execution-budget.js';

export const PROTOCOL = {
  minFeeA: 44n,
  minFeeB: 155_381n,
  maxTxSize: 16_384,
  keyDeposit: 2_000_000n,
  poolDeposit: 500_000_000n,
  priceMem: { numerator: 577n, denominator: 10_000n },
  priceStep: { numerator: 721n, denominator: 10_000_000n },
  maxValueSize: 5_000,
  coinsPerUtxoByte: 4_310n,
  refScriptCostPerByte: 15n,
  collateralPercent: 150,
  maxCollateralInputs: 3,
  /** Max execution units per transaction: the Plutus budget of every script build. */
  maxTxExUnits: MAX_TX_EX_UNITS,
} as const;

const big = (n: bigint) => CSL.BigNum.from_str(n.toString());

let config: CSL.TransactionBuilderConfig | undefined;
let dataCost: CSL.DataCost | undefined;

export function builderConfig(): CSL.TransactionBuilderConfig {
  config ??= withArena((a) => {
    const p = PROTOCOL;
    // Each setter returns a fresh copy; the arena frees the intermediates.
    let b = a.own(CSL.TransactionBuilderConfigBuilder.new());
    b = a.own(b.fee_algo(a.own(CSL.LinearFee.new(a.own(big(p.minFeeA)), a.own(big(p.minFeeB))))));
    b = a.own(b.pool_deposit(a.own(big(p.poolDeposit))));
    b = a.own(b.key_deposit(a.own(big(p.keyDeposit))));
    b = a.own(b.max_value_size(p.maxValueSize));
    b = a.own(b.max_tx_size(p.maxTxSize));
    b = a.own(b.coins_per_utxo_byte(a.own(big(p.coinsPerUtxoByte))));
    b = a.own(b.ex_unit_prices(exUnitPrices(a)));
    b = a.own(b.ref_script_coins_per_byte(a.own(CSL.UnitInterval.new(a.own(big(p.refScriptCostPerByte)), a.own(big(1n))))));
    b = a.own(b.deduplicate_explicit_ref_inputs_with_regular_inputs(true));
    return b.build();
  });
  return config;
}

/** Execution prices as CSL wants them (caller owns the result through `a`). */
export function exUnitPrices(a: Arena): CSL.ExUnitPrices {
  const { priceMem: m, priceStep: s } = PROTOCOL;
  return a.own(
    CSL.ExUnitPrices.new(
      a.own(CSL.UnitInterval.new(a.own(big(m.numerator)), a.own(big(m.denominator)))),
      a.own(CSL.UnitInterval.new(a.own(big(s.numerator)), a.own(big(s.denominator)))),
    ),
  );
}

/** Coins per UTxO byte, for min-ADA computations; built once. */
export function utxoDataCost(): CSL.DataCost {
  dataCost ??= withArena((a) => CSL.DataCost.new_coins_per_byte(a.own(big(PROTOCOL.coinsPerUtxoByte))));
  return dataCost;
}
