// A bad setting is named the way the user gave it: the flag, the environment variable, or the config
// file's key; and GET / points newcomers at the docs page.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { gatewayAt } from '../support/gateway.js';

const message = (f: () => unknown) => { try { f(); return ''; } catch (e) { return (e as Error).message; } };

test('an invalid port is named as a flag, an environment variable or a config key', () => {
  assert.match(message(() => readConfig(['--port', 'abc'], {})), /^invalid --port "abc"; expected a whole number from 0 to 65535$/);
  assert.match(message(() => readConfig([], { GATEWAY_PORT: 'abc' })), /^invalid GATEWAY_PORT "abc"; expected a whole number/);
  const dir = mkdtempSync(join(tmpdir(), 'config-sources-'));
  try {
    writeFileSync(join(dir, 'gw.yaml'), 'port: abc\nmaxPipelined: 0\n');
    assert.match(message(() => readConfig(['--config', join(dir, 'gw.yaml')], {})), /^invalid config file key port "abc"/);
    writeFileSync(join(dir, 'gw.yaml'), 'maxPipelined: 0\n');
    assert.match(message(() => readConfig(['--config', join(dir, 'gw.yaml')], {})), /^invalid config file key maxPipelined "0"; expected a whole number from 1 to 1024$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('GET / redirects to the docs page', async () => {
  const gw = await gatewayAt('3.12.0', 'http://127.0.0.1:9', [], { logger: createLogger('silent') });
  try {
    const res = await fetch(`${gw.url}/`, { redirect: 'manual' });
    assert.is(res.status, 302);
    assert.is(res.headers.get('location'), '/_gateway/docs');
  } finally {
    await gw.close();
  }
});

test.run();
