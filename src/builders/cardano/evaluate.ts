// Offline Plutus evaluation with whisky-js (the reference's own evaluator: the uplc CEK machine
// with mainnet cost models and mainnet slot config). Its WASM is loaded on the first script
// build only, so the plain builders never pay for it.
import { BudgetExceededError } from '../errors.js';
import models from './cost-models.json' with { type: 'json' };
import { inputError } from './errors.js';
import { executionBudget } from './execution-budget.js';
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

/**
 * Refuse a transaction whose scripts run past the execution budget, before the exact evaluation.
 * whisky-js's `js_evaluate_tx_scripts` (the reference's evaluator, whose budgets decide the
 * bytes) runs a script with no budget at all: a non-terminating one never returns. Its
 * `execute_tx_scripts` runs each redeemer under the protocol's max tx ex-units and stops there,
 * so it goes first; once it has seen every script finish within budget, the exact evaluation is
 * bounded too (same CEK machine, same costs). `name` says which request field a redeemer comes
 * from. Any other failure is left to the exact evaluation, which reports it as before.
 */
export async function checkExecutionBudget(
  txHex: string,
  resolved: readonly Utxo[],
  name: (tag: RedeemerTag, index: number) => string | undefined,
): Promise<void> {
  const w = await loadWhisky();
  let results: BoundedResultJson[];
  try {
    results = w.execute_tx_scripts(txHex, resolved.map((u) => JSON.parse(utxoJson(u))), COST_MODELS_JSON) as BoundedResultJson[];
  } catch {
    return; // could not start: the exact evaluation reports why, with the usual message
  }
  const budget = executionBudget();
  const label = (tag: string, index: string | number) => {
    const t = tag.toUpperCase() as RedeemerTag;
    const source = name(t, Number(index));
    return `${t.toLowerCase()} redeemer #${index}${source ? ` (${source})` : ''}`;
  };
  const limit = `mem ${budget.mem}, steps ${budget.steps}: the protocol's max execution units per transaction`;
  const fields = (rs: BoundedResultJson[]) => [...new Set(rs.map((r) => name(r.redeemer_tag.toUpperCase() as RedeemerTag, Number(r.redeemer_index)) ?? 'script'))].join(', ');

  const over = results.filter((r) => r.error !== undefined && /over budget/i.test(r.error));
  if (over.length > 0) {
    const which = over.map((r) => label(r.redeemer_tag, r.redeemer_index)).join(', ');
    throw new BudgetExceededError(`${fields(over)}: script execution budget exceeded: ${which} ran out of the execution budget (${limit}) before finishing`);
  }
  // A configured budget may be below the evaluator's own ceiling: the whole transaction counts.
  const done = results.filter((r) => r.calculated_ex_units !== undefined);
  const mem = done.reduce((sum, r) => sum + BigInt(r.calculated_ex_units!.mem), 0n);
  const steps = done.reduce((sum, r) => sum + BigInt(r.calculated_ex_units!.steps), 0n);
  if (mem > budget.mem || steps > budget.steps) {
    const used = done.map((r) => `${label(r.redeemer_tag, r.redeemer_index)} mem ${r.calculated_ex_units!.mem}, steps ${r.calculated_ex_units!.steps}`).join('; ');
    throw new BudgetExceededError(`${fields(done)}: script execution budget exceeded: the scripts use mem ${mem}, steps ${steps} (${used}); the budget is ${limit}`);
  }
}

const COST_MODELS_JSON = { plutusV1: models.plutusV1, plutusV2: models.plutusV2, plutusV3: models.plutusV3 };

interface BoundedResultJson {
  redeemer_tag: string;
  redeemer_index: string;
  calculated_ex_units?: { mem: string; steps: string };
  error?: string;
}

type EvalResultJson =
  | { success: { index: number; budget: { mem: number | string; steps: number | string }; tag: string } }
  | { error: { index: number; budget: unknown; tag: string; errorMessage: string; logs?: string[] } };
