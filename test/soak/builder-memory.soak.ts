// A soak (npm run test:soak): 5 000 builds on the test's own loop.
// A long-running gateway must not grow: every CSL / whisky-js object a build creates lives in WASM
// memory, which never shrinks, so any leak shows up as resident memory growth.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import sendLovelace from '../../src/builders/cardano/send-lovelace.js';
import unlockFund from '../../src/builders/cardano/unlock-fund.js';
import { sendLovelaceRequest, unlockFundRequest } from '../builders/cardano/fixtures.js';

const test = suite('memory');

// The collector: global.gc under --expose-gc (test/run.mjs), else exposed at run time so the
// plain uvu command works too.
const gc: () => void =
  (globalThis as { gc?: () => void }).gc ??
  (() => {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  })();

const MB = 1024 * 1024;
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return process.memoryUsage().rss;
};

async function builds(sends: number, unlocks: number): Promise<void> {
  const send = sendLovelaceRequest();
  const unlock = unlockFundRequest();
  for (let i = 0; i < sends + unlocks; i++) {
    // unlock_fund every 20th build: two CSL passes and a whisky-js evaluation each.
    if (i % 20 === 19 && unlocks-- > 0) await unlockFund(unlock);
    else await sendLovelace(send);
  }
}

test('5 000 builds (4 750 send_lovelace, 250 unlock_fund) grow RSS by less than 50 MB', async () => {
  await builds(300, 20); // warm-up: JIT, lazy WASM loads, caches
  const before = await settle();
  await builds(4750, 250);
  const growth = (await settle()) - before;
  assert.ok(growth < 50 * MB, `RSS grew by ${(growth / MB).toFixed(1)} MB`);
});

test.run();
