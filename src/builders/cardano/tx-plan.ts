// The builder-independent description of a transaction, mirroring the reference's
// TxBuilderBody: every builder fills one in, and `complete` turns it into CSL calls.

export interface Asset {
  /** "lovelace" or policy id (56 hex) followed by the hex asset name. */
  unit: string;
  quantity: bigint;
}

export interface Utxo {
  txHash: string;
  outputIndex: number;
  address: string;
  amount: Asset[];
  dataHash: string | null;
  /** Inline datum, CBOR hex. */
  plutusData: string | null;
  scriptRef: string | null;
  scriptHash: string | null;
}

export type LanguageVersion = 'v1' | 'v2' | 'v3';

export interface ProvidedScript {
  /** Double-CBOR-wrapped script, as in Aiken blueprints' applied scripts. */
  cbor: string;
  /** The version the builder attaches it as. */
  version: LanguageVersion;
  /** The request's `languageVersion` (only used to explain a hash mismatch). */
  declared?: LanguageVersion;
}

export interface Budget {
  mem: bigint;
  steps: bigint;
}

/** A script input whose datum is inline on the same UTxO (so no datum witness). */
export interface ScriptSpend {
  script: ProvidedScript;
  /** Redeemer Plutus data, CBOR hex. */
  redeemer: string;
  exUnits: Budget;
}

export interface PlanInput {
  utxo: Utxo;
  spend?: ScriptSpend;
  /** Request field it came from, for error messages. */
  path: string;
}

export interface PlanOutput {
  address: string;
  /** Empty means "exactly the min-ADA for this output". */
  amount: Asset[];
  /** Inline datum, CBOR hex. */
  inlineDatum?: string;
  path: string;
}

export interface PlanMint {
  policyId: string;
  assetName: string;
  quantity: bigint;
  script: ProvidedScript;
  redeemer: string;
  exUnits: Budget;
  path: string;
}

export type PlanCertificate =
  | { kind: 'stake-registration'; stakeAddress: string; path: string }
  | { kind: 'stake-delegation'; stakeAddress: string; poolKeyHash: string; path: string };

export interface TxPlan {
  /** Inputs placed by the builder itself (e.g. the script input); wallet inputs come from selection. */
  inputs: PlanInput[];
  outputs: PlanOutput[];
  collaterals: { utxo: Utxo; path: string }[];
  mints: PlanMint[];
  certificates: PlanCertificate[];
  requiredSigners: string[];
  changeAddress: string;
  /** Set total collateral, with the collateral return going to the change address. */
  totalCollateral?: bigint;
}

export const ZERO_BUDGET: Budget = { mem: 0n, steps: 0n };
