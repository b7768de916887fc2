// A bad setting is named the way the user gave it: the flag, the environment variable, or the config
// file's key; and GET / points newcomers at the docs page.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { gatewayAt } from '../support/gateway.js';
import { tempDir } from '../support/temp.js';
import { shippedCopy } from '../catalogue/folder.js';

const message = (f: () => unknown) => { try { f(); return ''; } catch (e) { return (e as Error).message; } };

test('an invalid port is named as a flag, an environment variable or a config key', () => {
  assert.match(message(() => readConfig(['--port', 'abc'], {})), /^invalid --port "abc"; expected a whole number from 0 to 65535$/);
  assert.match(message(() => readConfig([], { GATEWAY_PORT: 'abc' })), /^invalid GATEWAY_PORT "abc"; expected a whole number/);
  const dir = tempDir('config-sources-');
  writeFileSync(join(dir, 'gw.yaml'), 'port: abc\nmaxPipelined: 0\n');
  assert.match(message(() => readConfig(['--config', join(dir, 'gw.yaml')], {})), /^invalid config file key port "abc"/);
  writeFileSync(join(dir, 'gw.yaml'), 'maxPipelined: 0\n');
  assert.match(message(() => readConfig(['--config', join(dir, 'gw.yaml')], {})), /^invalid config file key maxPipelined "0"; expected a whole number from 1 to 1024$/);
});

test('--host: IP addresses and host names are taken; anything else is named as it was given', () => {
  for (const h of ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost', 'gw-1.internal.example', 'example.com.']) assert.is(readConfig(['--host', h], {}).host, h);
  assert.match(message(() => readConfig(['--host', '999.1.1.1'], {})), /^invalid --host "999\.1\.1\.1"; expected an IP address/);
  assert.match(message(() => readConfig([], { GATEWAY_HOST: 'a b' })), /^invalid GATEWAY_HOST "a b"/);
  assert.match(message(() => readConfig(['--host', 'under_score.example'], {})), /^invalid --host/);
  assert.match(message(() => readConfig(['--host', '-lead.example'], {})), /^invalid --host/);
  const dir = tempDir('config-host-');
  writeFileSync(join(dir, 'gw.yaml'), 'host: "http://127.0.0.1"\n');
  assert.match(message(() => readConfig(['--config', join(dir, 'gw.yaml')], {})), /^invalid config file key host "http:\/\/127\.0\.0\.1"/);
  // How host and port were given, for errors raised when listening.
  writeFileSync(join(dir, 'gw.yaml'), 'port: 8081\n');
  assert.equal(readConfig(['--config', join(dir, 'gw.yaml')], { GATEWAY_HOST: '::1' }).given, { host: 'GATEWAY_HOST', port: 'config file key port' });
  assert.equal(readConfig([], {}).given, { host: '--host', port: '--port' }, 'a default is named by its flag');
});

test('--builder-priority: background by default; idle and normal taken; anything else named', () => {
  assert.is(readConfig([], {}).builderPriority, 'background');
  assert.is(readConfig(['--builder-priority', 'idle'], {}).builderPriority, 'idle');
  assert.is(readConfig([], { GATEWAY_BUILDER_PRIORITY: 'normal' }).builderPriority, 'normal');
  assert.match(message(() => readConfig(['--builder-priority', 'low'], {})), /^invalid --builder-priority "low"/);
});

test('GET / redirects to the docs page where no service serves the root (the default catalogue has GitHub\'s API root)', async () => {
  const dir = shippedCopy('root-');
  const gw = await gatewayAt('3.12.0', 'http://127.0.0.1:9', ['--catalogue', dir], { logger: createLogger('silent') });
  try {
    const res = await fetch(`${gw.url}/`, { redirect: 'manual' });
    assert.is(res.status, 302);
    assert.is(res.headers.get('location'), '/_gateway/docs');
  } finally {
    await gw.close();
  }
});

test.run();
