// With the pool, the main thread loads no WASM at all: CSL and the evaluator load in the worker
// that builds. Checked in a fresh process (the test runner may have loaded both already).
import { spawnSync } from 'node:child_process';
import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import { NODE_FLAGS } from '../../support/processes.js';
import { unlockFundRequest } from '../cardano/fixtures.js';

const test = suite('builder pool: main thread');

const pool = new URL('../../../src/builders/pool/pool.js', import.meta.url).href;

const script = `
import { createRequire } from 'node:module';
const cache = createRequire(import.meta.url).cache;
const wasm = () => Object.keys(cache).filter((k) => /cardano-serialization-lib|whisky-js/.test(k)).length;
const { createBuilderPool, poolPlugins } = await import(${JSON.stringify(pool)});
const p = createBuilderPool({ threads: 1, priority: 'normal' });
const plugins = poolPlugins(p);
const { txHex } = await plugins.get('unlock_fund')(JSON.parse(process.env.BODY));
await p.close();
console.log(JSON.stringify({ txHex: txHex.length > 0, wasmModules: wasm(), names: [...plugins.keys()] }));
`;

test('a build through poolPlugins answers; the main thread has loaded no WASM module', () => {
  const r = spawnSync(process.execPath, [...NODE_FLAGS, '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, BODY: JSON.stringify(unlockFundRequest()) } });
  assert.is(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  assert.is(out.txHex, true);
  assert.is(out.wasmModules, 0);
  assert.equal(out.names, ['send_lovelace', 'lock_fund', 'unlock_fund', 'mint_tokens', 'delegate_stake', 'complex_transaction', 'collateral_return']);
});

test.run();
