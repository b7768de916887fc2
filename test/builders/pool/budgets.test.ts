// Plutus execution budget through the pool: a never-terminating policy or spending script is
// refused (400) naming the script and the budget, well within 2 s, while the main loop stays
// responsive.
import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import { BudgetExceededError, BuilderInputError } from '../../../src/builders/errors.js';
import { createBuilderPool } from '../../../src/builders/pool/pool.js';
import { unlockFundRequest } from '../cardano/fixtures.js';
import { withLagProbe } from './lag.js';
import { idleLag } from '../../support/timing.js';
import { omegaMintRequest, omegaUnlockRequest } from './omega.js';

const test = suite('builder pool: execution budget');
const pool = createBuilderPool({ threads: 1, priority: 'normal' });

test.before(async () => {
  // Load CSL and the evaluator in the worker first, so the timings below are the script's own.
  await pool.run('unlock_fund', unlockFundRequest());
});
test.after(() => pool.close());

/**
 * The main loop's lag during a refusal, less its lag idling just before (the machine's share). Run
 * on the main loop, a build would block it for its whole time: the tests allow half of that (at
 * least 250 ms), which scheduling on a busy machine stays under.
 */
async function refused(builder: string, body: unknown): Promise<{ error: BudgetExceededError; ms: number; maxLagMs: number }> {
  const idle = await idleLag();
  const started = performance.now();
  const { value: error, maxLagMs } = await withLagProbe(() => pool.run(builder, body).then(() => null, (e: unknown) => e));
  const ms = performance.now() - started;
  assert.instance(error, BudgetExceededError, `expected BudgetExceededError, got ${String(error)}`);
  return { error: error as BudgetExceededError, ms, maxLagMs: maxLagMs - idle };
}

test('mint_tokens with the omega policy: BudgetExceeded naming mint #0 and the budget, < 2 s', async () => {
  const { error, ms, maxLagMs } = await refused('mint_tokens', omegaMintRequest());
  assert.instance(error, BuilderInputError, 'a budget refusal is bad input (400) to callers that only know BuilderInputError');
  assert.is(error.code, 'budget');
  assert.is(error.status, 400);
  assert.match(error.message, /^toMintAsset: script execution budget exceeded: mint redeemer #0 \(toMintAsset\) ran out of the execution budget \(mem 14000000, steps 10000000000/);
  assert.ok(ms < 2000, `took ${ms} ms`);
  assert.ok(maxLagMs < Math.max(250, ms / 2), `main loop lagged ${maxLagMs.toFixed(0)} ms more than idle during a ${ms.toFixed(0)} ms build`);
});

test('unlock_fund with the omega spending script: BudgetExceeded naming spend #n, < 2 s', async () => {
  const { error, ms, maxLagMs } = await refused('unlock_fund', omegaUnlockRequest());
  assert.match(error.message, /^scriptUtxo: script execution budget exceeded: spend redeemer #\d+ \(scriptUtxo\) ran out of the execution budget/);
  assert.ok(ms < 2000, `took ${ms} ms`);
  assert.ok(maxLagMs < Math.max(250, ms / 2), `main loop lagged ${maxLagMs.toFixed(0)} ms more than idle during a ${ms.toFixed(0)} ms build`);
});

test('a configured budget below what a script uses refuses it with the usage and the budget', async () => {
  const tight = createBuilderPool({ threads: 1, priority: 'normal', executionBudget: { mem: 1000n, steps: 1_000_000_000n } });
  try {
    const error = await tight.run('unlock_fund', unlockFundRequest()).then(() => null, (e: unknown) => e);
    assert.instance(error, BudgetExceededError);
    assert.match((error as Error).message, /^scriptUtxo: script execution budget exceeded: the scripts use mem \d+, steps \d+ \(spend redeemer #\d+ \(scriptUtxo\) mem \d+, steps \d+\); the budget is mem 1000, steps 1000000000/);
  } finally {
    await tight.close();
  }
});

test('a budget above the protocol maximum is refused at creation', () => {
  assert.throws(() => createBuilderPool({ threads: 1, priority: 'normal', executionBudget: { mem: 14_000_001n, steps: 1n } }), /executionBudget\.mem 14000001 is out of range; expected 1…14000000/);
});

test.run();
