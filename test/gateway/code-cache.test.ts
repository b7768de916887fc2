// The gateway's command (dist/src/cli.cjs, tools/cli-loader.cjs) runs its bundle with the V8 code
// cache `npm run build` made for it: named after the bundle as built, used by a node started as
// users start it, refused (and the bundle compiled as usual) by one with other V8 flags.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT, startGatewayProcess, NODE_FLAGS, type Proc } from '../support/processes.js';

const test = suite('code cache of the gateway command');
const DIR = join(ROOT, 'dist/src');

/** The start-up line's word on the code cache (logged at debug; log lines are written in batches). */
async function codeCacheOf(gw: Proc & { url: string }): Promise<string | undefined> {
  const until = Date.now() + 10_000;
  for (;;) {
    const said = /code cache ([a-z]+)/.exec(gw.output())?.[1];
    if (said || Date.now() > until) return said;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function health(url: string): Promise<number> {
  return (await fetch(`${url}/_gateway/health`, { signal: AbortSignal.timeout(10_000) })).status;
}

test('the build made one cache, named after the bundle it was made for', () => {
  const { size, mtimeMs } = statSync(join(DIR, 'cli.main.cjs'));
  const caches = readdirSync(DIR).filter((f) => f.endsWith('.v8cache'));
  assert.equal(caches, [`cli.main.cjs.${size}-${Math.trunc(mtimeMs)}.v8cache`]);
});

test('the bundle is ASCII, so the loader reads it as latin1 and gets the same text', () => {
  const bytes = readFileSync(join(DIR, 'cli.main.cjs'));
  const at = bytes.findIndex((b) => b > 0x7f);
  assert.is(at, -1, `byte 0x${bytes[at]?.toString(16)} at offset ${at}: ${bytes.subarray(Math.max(0, at - 60), at + 20).toString('utf8')}`);
});

test('a gateway started as users start it runs with the cache', async () => {
  const gw = await startGatewayProcess(['--log-level', 'debug', '--upstream', 'exchange=http://127.0.0.1:9'], {}, []);
  try {
    assert.is(await health(gw.url), 200);
    assert.is(await codeCacheOf(gw), 'used', gw.output());
  } finally {
    await gw.stop();
  }
});

test('with other V8 flags the cache is refused, and the gateway serves the same', async () => {
  assert.ok(NODE_FLAGS.length > 0, 'the tests run node with a V8 flag');
  const gw = await startGatewayProcess(['--log-level', 'debug', '--upstream', 'exchange=http://127.0.0.1:9'], {}, NODE_FLAGS);
  try {
    assert.is(await health(gw.url), 200);
    assert.is(await codeCacheOf(gw), 'refused', gw.output());
  } finally {
    await gw.stop();
  }
});

test.run();
