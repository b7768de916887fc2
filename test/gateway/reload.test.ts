// Hot reload: SIGHUP, POST /_gateway/reload and --watch all reload; a tokens-file edit takes effect
// without a restart. Reloads under steady load (valid edits applied and visible in the next answer,
// broken ones refused with file:line, no request failing) are the soak's: test/soak/reload-under-load.soak.ts.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { createLogger } from '../../src/log.js';
import { gatewayAt } from '../support/gateway.js';
import { catalogueCopy, dirs, endpoint } from './reload-load.js';
import { startGatewayProcess, startUpstream, type Upstream } from '../support/processes.js';
import { sha256 } from '../../src/gateway/client-auth/tokens.js';
import { TOKENS, bearer } from '../signing/support.js';
import { tempDir } from '../support/temp.js';

/** A tokens file allowing each named test token every GET of module market. */
const tokensYaml = (names: (keyof typeof TOKENS)[]) => `tokens:\n${names.map((n) => `  - name: ${n}\n    hash: sha256:${sha256(TOKENS[n]).toString('hex')}\n    allow:\n      - module: market\n`).join('')}`;

const test = suite('hot reload');
let upstream: Upstream;

test.before(async () => { upstream = await startUpstream({}); });
test.after(async () => {
  await upstream.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('SIGHUP, POST /_gateway/reload and --watch reload a running process; health shows the outcome', async () => {
  const cat = catalogueCopy();
  const gw = await startGatewayProcess(['--catalogue', cat.dir, '--upstream', `exchange=${upstream.url}`, '--watch', '--log-level', 'info']);
  try {
    const served = async (n: number) => (await fetch(`${gw.url}/api/v3/extra${n}`)).status === 200;
    const until = async (n: number) => { for (let i = 0; i < 60 && !(await served(n)); i++) await sleep(100); return served(n); };
    cat.write(endpoint(1));
    assert.ok(await until(1), '--watch applies an edit');
    const health = await (await fetch(`${gw.url}/_gateway/health`)).json() as { lastReload: { ok: boolean; trigger: string } };
    assert.is(health.lastReload.ok, true);
    assert.match(health.lastReload.trigger, /^--watch: .*extra\.yaml/);
    const post = await fetch(`${gw.url}/_gateway/reload`, { method: 'POST' });
    assert.is(post.status, 200);
    assert.is((await post.json() as { trigger: string }).trigger, 'POST /_gateway/reload');
    gw.child.kill('SIGHUP');
    for (let i = 0; i < 50 && !/reloaded \(SIGHUP\)/.test(gw.output()); i++) await sleep(100);
    assert.match(gw.output(), /reloaded \(SIGHUP\) in \d+ ms/);
    assert.ok(await served(1), 'still serving after SIGHUP');
    const metrics = await (await fetch(`${gw.url}/_gateway/metrics`)).text();
    assert.match(metrics, /gateway_reloads_applied_total [3-9]/);
  } finally {
    await gw.stop();
  }
});

test('a tokens-file edit takes effect without a restart', async () => {
  const dir = tempDir('reload-tokens-');
  dirs.push(dir);
  const tokens = join(dir, 'tokens.yaml');
  writeFileSync(tokens, tokensYaml(['reader']));
  const gw = await gatewayAt('3.12.0', upstream.url, ['--tokens-file', tokens], { logger: createLogger('silent') });
  try {
    const ask = async (who: keyof typeof TOKENS) => (await fetch(`${gw.url}/api/v3/ping`, { headers: bearer(TOKENS[who]) })).status;
    assert.is(await ask('reader'), 200);
    writeFileSync(tokens, tokensYaml(['trader']));
    const r = await gw.reload('test');
    assert.ok(r.ok, JSON.stringify(r));
    assert.is(await ask('reader'), 401, 'the removed token is refused');
    assert.is(await ask('trader'), 200, 'the added token is accepted');
    assert.is(readFileSync(tokens, 'utf8').includes(TOKENS.trader), false, 'the file holds hashes, not tokens');
  } finally {
    await gw.close();
  }
});

test.run();
