// From a plan to the final transaction, as the reference's `complete`: select wallet inputs,
// sort inputs and mints, build; for scripts, evaluate the first build (all budgets 0/0), set
// each redeemer to floor(units × 110 / 100) and build again from the same selection.
import { assemble, minUtxoLovelace } from './assemble.js';
import { AssetMap, LOVELACE } from './assets.js';
import { SELECTION_THRESHOLD, selectUtxos } from './coin-selection.js';
import { inputError } from './errors.js';
import { type EvaluationFailure, type RedeemerTag, checkExecutionBudget, evaluateScripts } from './evaluate.js';
import type { Budget, PlanInput, PlanMint, TxPlan, Utxo } from './tx-plan.js';

/** Headroom the reference adds on top of evaluated budgets, in percent. */
export const EVALUATION_MARGIN_PERCENT = 110n;

export interface Wallet {
  utxos: Utxo[];
  /** Request field holding them (for messages), e.g. "inputs". */
  path: string;
}

export async function complete(plan: TxPlan, wallet: Wallet): Promise<string> {
  if (wallet.utxos.length === 0) throw inputError(wallet.path, 'empty list: at least one UTxO is needed to pay the fee');

  let chosen = selectUtxos(wallet.utxos, requiredValue(plan, false), SELECTION_THRESHOLD, wallet.path);
  // The reference's selection ignores burns, so it succeeds only when the UTxOs it picks for
  // lovelace happen to hold the burned tokens. Then keep its choice (same bytes); otherwise,
  // where the reference would fail, select for the burned tokens too.
  if (burnsUncovered(plan, chosen)) chosen = selectUtxos(wallet.utxos, requiredValue(plan, true), SELECTION_THRESHOLD, wallet.path);
  const selected = chosen.map((utxo) => ({
    utxo,
    path: `${wallet.path}[${wallet.utxos.indexOf(utxo)}]`,
  }));
  const sorted: TxPlan = {
    ...plan,
    inputs: [...plan.inputs, ...selected].sort(byOutpoint),
    mints: [...plan.mints].sort((x, y) => compare(x.policyId, y.policyId)),
  };
  checkDistinctOutpoints(sorted.inputs);

  const firstPass = assemble(sorted, selected);
  const scripted = sorted.inputs.some((i) => i.spend) || sorted.mints.length > 0;
  if (!scripted) return firstPass;

  // As the reference: the evaluator resolves the spent inputs (script input and selected wallet
  // UTxOs, with their inline datums); collateral plays no part in a script's context.
  const resolved = sorted.inputs.map((i) => i.utxo);
  // The bounded evaluator also wants the collateral resolved (it checks every input the tx names).
  await checkExecutionBudget(firstPass, [...resolved, ...sorted.collaterals.map((c) => c.utxo)], (tag, index) => redeemerSource(sorted, tag, index));
  const evaluated = await evaluateScripts(firstPass, resolved, (failures) => evaluationError(sorted, failures));
  return assemble(withBudgets(sorted, evaluated), selected);
}

/**
 * What selection must cover: the outputs (an output without lovelace counts its min-ADA), less
 * the inputs already placed and the minted tokens, per unit clamped at zero as the reference's
 * unsigned `Value` does. Collateral is not counted. A burn, in the reference, subtracts its
 * amount cast to u64 (2^64 − n), which removes the unit; with `selectBurns` it adds the burned
 * amount instead, so selection finds the tokens.
 */
function requiredValue(plan: TxPlan, selectBurns: boolean): AssetMap {
  const required = new AssetMap();
  for (const output of plan.outputs) {
    required.addAll(output.amount);
    const lovelace = output.amount.reduce((sum, x) => (x.unit === LOVELACE ? sum + x.quantity : sum), 0n);
    if (lovelace === 0n) required.add(LOVELACE, minUtxoLovelace(output));
  }
  for (const input of plan.inputs) required.subtractAll(input.utxo.amount);
  for (const mint of plan.mints) {
    const unit = mint.policyId + mint.assetName;
    if (mint.quantity > 0n) required.subtract(unit, mint.quantity);
    else if (selectBurns) required.add(unit, -mint.quantity);
    else required.subtract(unit, required.get(unit));
  }
  return required;
}

/** Whether the plan's own inputs and `selected` hold less of some burned token than is burned. */
function burnsUncovered(plan: TxPlan, selected: readonly Utxo[]): boolean {
  const burns = plan.mints.filter((m) => m.quantity < 0n);
  if (burns.length === 0) return false;
  const held = new AssetMap();
  for (const input of plan.inputs) held.addAll(input.utxo.amount);
  for (const utxo of selected) held.addAll(utxo.amount);
  return burns.some((m) => held.get(m.policyId + m.assetName) < -m.quantity);
}

const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** The ledger's (and the reference's) input order: tx hash as lowercase hex, then index. */
function byOutpoint(x: PlanInput, y: PlanInput): number {
  return compare(x.utxo.txHash, y.utxo.txHash) || x.utxo.outputIndex - y.utxo.outputIndex;
}

/** Redeemer indexes are positions in the sorted inputs; a repeated outpoint would shift them. */
function checkDistinctOutpoints(inputs: readonly PlanInput[]): void {
  for (let i = 1; i < inputs.length; i++) {
    const [prev, cur] = [inputs[i - 1]!, inputs[i]!];
    if (prev.utxo.txHash === cur.utxo.txHash && prev.utxo.outputIndex === cur.utxo.outputIndex) {
      throw inputError(cur.path, `spends the same UTxO (${cur.utxo.txHash}#${cur.utxo.outputIndex}) as ${prev.path}`);
    }
  }
}

const withMargin = (b: Budget): Budget => ({
  mem: (b.mem * EVALUATION_MARGIN_PERCENT) / 100n,
  steps: (b.steps * EVALUATION_MARGIN_PERCENT) / 100n,
});

function withBudgets(plan: TxPlan, evaluated: Awaited<ReturnType<typeof evaluateScripts>>): TxPlan {
  const inputs = plan.inputs.map((i) => ({ ...i }));
  const mints: PlanMint[] = plan.mints.map((m) => ({ ...m }));
  for (const { tag, index, budget } of evaluated) {
    if (tag === 'SPEND') {
      const input = inputs[index];
      if (input?.spend) input.spend = { ...input.spend, exUnits: withMargin(budget) };
    } else if (tag === 'MINT') {
      const mint = mints[index];
      if (mint) mints[index] = { ...mint, exUnits: withMargin(budget) };
    }
  }
  return { ...plan, inputs, mints };
}

function redeemerSource(plan: TxPlan, tag: RedeemerTag, index: number): string | undefined {
  return tag === 'SPEND' ? plan.inputs[index]?.path : tag === 'MINT' ? plan.mints[index]?.path : undefined;
}

function evaluationError(plan: TxPlan, failures: EvaluationFailure[]): Error {
  const describe = (f: EvaluationFailure) => {
    const tag = f.tag.toUpperCase();
    const source = tag === 'SPEND' ? plan.inputs[f.index]?.path : tag === 'MINT' ? plan.mints[f.index]?.path : undefined;
    const trace = f.logs.length > 0 ? `; trace: ${JSON.stringify(f.logs)}` : '; trace: (empty)';
    return `${tag.toLowerCase()} redeemer #${f.index}${source ? ` (${source})` : ''} failed: ${f.message}${trace}`;
  };
  const fields = [...new Set(failures.map((f) => (f.tag.toUpperCase() === 'SPEND' ? plan.inputs[f.index]?.path : plan.mints[f.index]?.path) ?? 'script'))];
  return inputError(fields.join(', '), `script evaluation failed: ${failures.map(describe).join(' | ')}`);
}
