// WASM is loaded on demand: nothing at start-up, CSL with the first Cardano request, whisky-js
// (the evaluator) only with the first script build. Checked in a fresh process, since the test
// runner may already have loaded both.
import { spawnSync } from 'node:child_process';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { NODE_FLAGS } from '../support/processes.js';

const test = suite('lazy WASM loading');

const registry = new URL('../../src/builders/registry.js', import.meta.url).href;
const fixtures = new URL('./cardano/fixtures.js', import.meta.url).href;

const script = `
import { createRequire } from 'node:module';
const cache = createRequire(import.meta.url).cache;
const loaded = () => ({
  csl: Object.keys(cache).some((k) => k.includes('cardano-serialization-lib')),
  whisky: Object.keys(cache).some((k) => k.includes('whisky-js')),
});
const steps = {};
const { builtinPlugins } = await import(${JSON.stringify(registry)});
steps.startup = loaded();
const F = await import(${JSON.stringify(fixtures)}); // fixtures need CSL themselves
await builtinPlugins.get('send_lovelace')(F.sendLovelaceRequest());
steps.afterSend = loaded();
await builtinPlugins.get('unlock_fund')(F.unlockFundRequest());
steps.afterUnlock = loaded();
console.log(JSON.stringify(steps));
`;

test('registry loads no WASM; send_lovelace loads CSL only; unlock_fund loads whisky-js', () => {
  const r = spawnSync(process.execPath, [...NODE_FLAGS, '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  const steps = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  assert.equal(steps.startup, { csl: false, whisky: false });
  assert.equal(steps.afterSend, { csl: true, whisky: false });
  assert.equal(steps.afterUnlock, { csl: true, whisky: true });
});

test.run();
