// `npm run keygen -- --token` gives an operator everything a token needs: the token, a tokens file
// the gateway reads as printed (with its `tokens:` parent), and what the token may call — saying
// plainly when it cannot place orders and how to allow them. stdout is one thing a script takes
// whole (the token; with --format yaml the tokens file), everything else is on stderr. --allow sets
// the allow-list, --right adds a right, --write adds the entry to a tokens file.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { allowsUserData, findToken, readTokensFile } from '../../src/gateway/client-auth/tokens.js';

const dir = tempDir('keygen-token-');
const keygen = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'dist/tools/keygen.js'), ...args], { cwd: dir, env: { ...process.env, INIT_CWD: dir }, encoding: 'utf8' });

const TOKEN_LINE = /^gwt_[\w-]{43}\n$/;

test('stdout is the token alone, as npm run -s prints it; the tokens file on stderr is read by the gateway as is', () => {
  // The command of the acceptance line, through npm as a reader runs it.
  const r = spawnSync('npm', ['run', '-s', 'keygen', '--', '--token', '--name', 'reader', '--allow', 'GET /api/v3/account'], { cwd: ROOT, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, TOKEN_LINE, `stdout: ${JSON.stringify(r.stdout)}`);
  const file = r.stderr.slice(r.stderr.indexOf('tokens:\n')).split(/\nThis token/)[0];
  assert.equal(Object.keys(YAML.parse(file) as object), ['tokens'], 'the entry comes with its tokens: parent');
  writeFileSync(join(dir, 'printed.yaml'), file);
  const entry = findToken(readTokensFile(join(dir, 'printed.yaml')), r.stdout.trim());
  assert.is(entry?.name, 'reader');
  assert.equal(entry!.allow.map((a) => a.text), ['GET /api/v3/account']);
  assert.match(r.stderr, 'it is on stdout');
  assert.not.match(r.stderr, 'above');
  assert.match(r.stderr, 'This token may call: GET /api/v3/account');
  assert.match(r.stderr, "It cannot place orders. To allow them, ask for them when you make it:\n  npm run keygen -- --token --name reader --allow 'GET /api/v3/account' --allow 'POST /api/v3/order'");
});

test('--format yaml: stdout is the tokens file alone, the token on stderr; --right user-data is in it', () => {
  const r = keygen('--token', '--name', 'fills', '--right', 'user-data', '--format', 'yaml');
  assert.is(r.status, 0, r.stderr);
  writeFileSync(join(dir, 'yaml-out.yaml'), r.stdout);
  assert.equal(YAML.parse(r.stdout), { tokens: [{ name: 'fills', hash: /sha256:\w+/.exec(r.stdout)![0], rights: ['user-data'], allow: ['GET /api/v3/*'] }] });
  const token = /^token: (gwt_\S+)$/m.exec(r.stderr)?.[1];
  assert.ok(token, r.stderr);
  const entry = findToken(readTokensFile(join(dir, 'yaml-out.yaml')), token!);
  assert.ok(entry && allowsUserData(entry), 'the token holds the user-data right');
  assert.match(r.stderr, 'It holds the right user-data');
  const bad = keygen('--token', '--right', 'everything');
  assert.is(bad.status, 2);
  assert.match(bad.stderr, 'unknown right "everything"; valid: admin, user-data');
  const both = keygen('--token', '--format', 'yaml', '--write', 'x.yaml');
  assert.is(both.status, 2);
  assert.match(both.stderr, 'not both');
});

test('--allow gives the allow-list; a token that may order is not told it cannot', () => {
  const r = keygen('--token', '--name', 'trader', '--allow', 'GET /api/v3/*', '--allow', 'POST /api/v3/order');
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, TOKEN_LINE);
  assert.match(r.stderr, 'This token may call: GET /api/v3/*, POST /api/v3/order');
  assert.not.match(r.stderr, 'cannot place orders');
  const bad = keygen('--token', '--allow', 'order please');
  assert.is(bad.status, 2);
  assert.match(bad.stderr, 'is not "[METHOD|*] /path/pattern"');
});

test('--write makes the tokens file, then adds to it; stdout is the token alone', () => {
  const first = keygen('--token', '--name', 'a', '--write', 'tokens.yaml');
  const second = keygen('--token', '--name', 'b', '--allow', 'module: trade', '--write', 'tokens.yaml');
  assert.is(first.status, 0, first.stderr);
  assert.match(first.stdout, TOKEN_LINE);
  assert.match(first.stderr, 'added token "a" to tokens.yaml, which holds its hash; the token is on stdout');
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
