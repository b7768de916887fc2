// `npm run keygen -- --token` gives an operator everything a token needs: the token, a tokens file
// the gateway reads as printed (with its `tokens:` parent), and what the token may call — saying
// plainly when it cannot place orders and how to allow them. --allow sets the allow-list, --write
// adds the entry to a tokens file and prints the token alone.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { findToken, readTokensFile } from '../../src/gateway/client-auth/tokens.js';

const dir = tempDir('keygen-token-');
const keygen = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'dist/tools/keygen.js'), ...args], { cwd: dir, env: { ...process.env, INIT_CWD: dir }, encoding: 'utf8' });

test('the printed tokens file is read by the gateway as is, and the token is found in it', () => {
  const r = keygen('--token', '--name', 'reader');
  assert.is(r.status, 0, r.stderr);
  const token = /^token: (gwt_\S+)$/m.exec(r.stdout)?.[1];
  assert.ok(token, r.stdout);
  const file = r.stdout.slice(r.stdout.indexOf('tokens:\n')).split('\n\n')[0];
  assert.equal(Object.keys(YAML.parse(file) as object), ['tokens'], 'the entry comes with its tokens: parent');
  writeFileSync(join(dir, 'printed.yaml'), file);
  const entry = findToken(readTokensFile(join(dir, 'printed.yaml')), token!);
  assert.is(entry?.name, 'reader');
  assert.equal(entry!.allow.map((a) => a.text), ['GET /api/v3/*']);
  assert.match(r.stdout, 'This token may call: GET /api/v3/*');
  assert.match(r.stdout, "It cannot place orders. To allow them, ask for them when you make it:\n  npm run keygen -- --token --name reader --allow 'GET /api/v3/*' --allow 'POST /api/v3/order'");
});

test('--allow gives the allow-list; a token that may order is not told it cannot', () => {
  const r = keygen('--token', '--name', 'trader', '--allow', 'GET /api/v3/*', '--allow', 'POST /api/v3/order');
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, 'This token may call: GET /api/v3/*, POST /api/v3/order');
  assert.not.match(r.stdout, 'cannot place orders');
  const bad = keygen('--token', '--allow', 'order please');
  assert.is(bad.status, 2);
  assert.match(bad.stderr, 'is not "[METHOD|*] /path/pattern"');
});

test('--write makes the tokens file, then adds to it; stdout is the token alone', () => {
  const first = keygen('--token', '--name', 'a', '--write', 'tokens.yaml');
  const second = keygen('--token', '--name', 'b', '--allow', 'module: trade', '--write', 'tokens.yaml');
  assert.is(first.status, 0, first.stderr);
  assert.match(first.stdout, /^gwt_\S+\n$/);
  assert.match(first.stderr, 'added token "a" to tokens.yaml');
  // --allow takes "METHOD /path" entries; modules and ws methods are written in the file by hand.
  assert.is(second.status, 2, second.stdout);
  const third = keygen('--token', '--name', 'b', '--allow', 'POST /api/v3/order', '--write', 'tokens.yaml');
  assert.is(third.status, 0, third.stderr);
  const tokens = readTokensFile(join(dir, 'tokens.yaml'));
  assert.equal(tokens.map((t) => t.name), ['a', 'b']);
  assert.is(findToken(tokens, third.stdout.trim())?.name, 'b');
  assert.ok(readFileSync(join(dir, 'tokens.yaml'), 'utf8').startsWith('tokens:\n'));
  const again = keygen('--token', '--name', 'a', '--write', 'tokens.yaml');
  assert.is(again.status, 2);
  assert.match(again.stderr, 'already has a token named "a"');
});

test.run();
