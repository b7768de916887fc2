// `npm run keygen -- --type ed25519|rsa` writes a key pair the exchange accepts; stdout is the public
// key alone (what the exchange's API-key registration takes), what was written and what to do next
// are on stderr.
import { spawnSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

const dir = tempDir('keygen-keys-');

test('an Ed25519 pair: stdout is the public key as written, the files and the next step on stderr', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist/tools/keygen.js'), '--type', 'ed25519', '--out', 'keys'], { cwd: dir, env: { ...process.env, INIT_CWD: dir }, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  const pub = readFileSync(join(dir, 'keys/exchange-ed25519-public.pem'), 'utf8');
  assert.is(r.stdout, pub.trim() + '\n');
  assert.is(createPublicKey(r.stdout).asymmetricKeyType, 'ed25519');
  assert.is(statSync(join(dir, 'keys/exchange-ed25519-private.pem')).mode & 0o777, 0o600);
  assert.match(r.stderr, `wrote ${join(dir, 'keys/exchange-ed25519-private.pem')} (Ed25519 private key, PKCS#8, mode 0600)`);
  assert.match(r.stderr, 'self-check: signature made with node:crypto verified by node-forge');
  assert.match(r.stderr, `EXCHANGE_PRIVATE_KEY_FILE=${join(dir, 'keys/exchange-ed25519-private.pem')}`);
});

test.run();
