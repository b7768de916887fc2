// Offline Plutus evaluation with whisky-js (the reference's own evaluator: the uplc CEK machine
// with mainnet cost models and mainnet slot config). Its WASM is loaded on the first script
// build only, so the plain builders never pay for it.
import { inputError } from './errors.js';
import type { Budget, Utxo } from './tx-plan.js';

type WhiskyJs = typeof import('@sidan-lab/whisky-js-nodejs');

let whisky: Promise<WhiskyJs> | undefined;

export function loadWhisky(): Promise<WhiskyJs> {
  whisky ??= import('@sidan-lab/whisky-js-nodejs');
  return whisky;
}

/** Mainnet Shelley slot configuration (uplc's SlotConfig::default()). */
const MAINNET_SLOT_CONFIG = JSON.stringify({ slotLength: 1000, zeroSlot: 4_492_800, zeroTime: 1_596_059_091_000 });

export type RedeemerTag = 'SPEND' | 'MINT' | 'CERT' | 'REWARD' | 'VOTE' | 'PROPOSE';

export interface EvaluatedRedeemer {
  tag: RedeemerTag;
  index: number;
  budget: Budget;
}

export interface EvaluationFailure {
  tag: string;
  index: number;
  message: string;
  logs: string[];
}

/** The reference's UTxO JSON, which the evaluator reads to resolve the transaction's inputs. */
function utxoJson(u: Utxo): string {
  return JSON.stringify({
    input: { outputIndex: u.outputIndex, txHash: u.txHash },
    output: {
      address: u.address,
      amount: u.amount.map((x) => ({ unit: x.unit, quantity: x.quantity.toString() })),
      dataHash: u.dataHash,
      plutusData: u.plutusData,
      scriptRef: u.scriptRef,
      scriptHash: u.scriptHash,
    },
  });
}

/**
 * Evaluate every redeemer of `txHex` against `resolved` (all inputs it spends). Throws `failed`
 * (a 400) with the scripts' error messages and trace logs when any script fails.
 */
export async function evaluateScripts(
  txHex: string,
  resolved: readonly Utxo[],
  failed: (failures: EvaluationFailure[]) => Error,
): Promise<EvaluatedRedeemer[]> {
  const w = await loadWhisky();
  const utxos = w.JsVecString.new();
  const chained = w.JsVecString.new();
  let result: InstanceType<WhiskyJs['WasmResult']> | undefined;
  let status: string;
  let data: string;
  try {
    for (const u of resolved) utxos.add(utxoJson(u));
    result = w.js_evaluate_tx_scripts(txHex, utxos, chained, 'mainnet', MAINNET_SLOT_CONFIG);
    status = result.get_status();
    data = status === 'success' ? result.get_data() : result.get_error();
  } finally {
    result?.free();
    utxos.free();
    chained.free();
  }
  // The evaluator could not read the transaction or a resolved UTxO (e.g. a malformed scriptRef
  // or dataHash on an input): still the request's fault.
  if (status !== 'success') throw inputError('inputs', `script evaluation could not start; the evaluator rejected the transaction or a spent UTxO: ${data}`);

  const results = JSON.parse(data) as EvalResultJson[];
  const ok: EvaluatedRedeemer[] = [];
  const failures: EvaluationFailure[] = [];
  for (const r of results) {
    if ('success' in r) {
      const s = r.success;
      ok.push({ tag: s.tag.toUpperCase() as RedeemerTag, index: s.index, budget: { mem: BigInt(s.budget.mem), steps: BigInt(s.budget.steps) } });
    } else {
      const e = r.error;
      failures.push({ tag: String(e.tag).toUpperCase(), index: e.index, message: e.errorMessage, logs: e.logs ?? [] });
    }
  }
  if (failures.length > 0) throw failed(failures);
  return ok;
}

type EvalResultJson =
  | { success: { index: number; budget: { mem: number | string; steps: number | string }; tag: string } }
  | { error: { index: number; budget: unknown; tag: string; errorMessage: string; logs?: string[] } };
