// The Plutus execution budget every script build is held to: the protocol's maximum execution
// units per transaction (mainnet: mem 14 000 000, steps 10 000 000 000). Without it a script
// that never terminates (e.g. the omega combinator) spins the evaluator forever.
// Kept free of WASM imports: the pool's worker sets it before any builder loads.
import type { Budget } from './tx-plan.js';

/**
 * The protocol's max tx execution units, and the hard ceiling of the bounded evaluator
 * (whisky-js's `execute_tx_scripts` runs every redeemer under uplc's default budget, which is
 * exactly this): a budget can be configured lower, never higher.
 */
export const MAX_TX_EX_UNITS: Readonly<Budget> = { mem: 14_000_000n, steps: 10_000_000_000n };

let current: Budget = { ...MAX_TX_EX_UNITS };

/** The budget builds are held to now. */
export function executionBudget(): Readonly<Budget> {
  return current;
}

/** Hold builds to `budget` (this thread only); each part must be positive and at most MAX_TX_EX_UNITS. */
export function setExecutionBudget(budget: Budget): void {
  for (const part of ['mem', 'steps'] as const) {
    const value = budget[part];
    if (value <= 0n || value > MAX_TX_EX_UNITS[part]) {
      throw new Error(`execution budget ${part}: ${value} is out of range; expected 1…${MAX_TX_EX_UNITS[part]} (the protocol's max tx execution units, which the evaluator cannot exceed)`);
    }
  }
  current = { mem: budget.mem, steps: budget.steps };
}
