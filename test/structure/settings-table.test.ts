// One declaration per setting (src/settings.ts): the configuration table of docs/configuration.md, --help and the
// config file's key check are derived from it, so none can drift from what the parser accepts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig, USAGE } from '../../src/config.js';
import { SETTINGS } from '../../src/settings.js';
import { readmeTable } from '../../src/settings-doc.js';
import { tempDir } from '../support/temp.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

test('the configuration table of docs/configuration.md is the one the settings declaration renders', () => {
  const readme = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
  const m = /<!-- settings:start[^>]*-->\n([\s\S]*?)\n<!-- settings:end -->/.exec(readme);
  assert.ok(m, 'docs/configuration.md has the settings markers');
  assert.is(m![1], readmeTable(), 'docs/configuration.md table differs from src/settings.ts: run `npm run settings-table -- --write`');
});

test('every declared flag is in --help with its variable, and every variable and file key is read', () => {
  for (const s of SETTINGS.filter((x) => x.flag)) {
    assert.ok(USAGE.includes(`--${s.flag}`), `--${s.flag} in --help`);
    assert.ok(USAGE.includes(s.env), `${s.env} in --help`);
  }
  // A variable and a file key reach the same field as the flag (scalar settings).
  const dir = tempDir('settings-');
  for (const s of SETTINGS.filter((x) => !x.special && x.parse && typeof x.default === 'string')) {
    const value = s.arg ? String(s.default) : 'true';
    const viaEnv = readConfig([], { [s.env]: value }) as unknown as Record<string, unknown>;
    writeFileSync(join(dir, 'gw.yaml'), `${s.key}: ${JSON.stringify(value)}\n`);
    const viaFile = readConfig(['--config', join(dir, 'gw.yaml')], {}) as unknown as Record<string, unknown>;
    const viaFlag = readConfig(s.arg ? [`--${s.flag}`, value] : [`--${s.flag}`], {}) as unknown as Record<string, unknown>;
    assert.equal(viaEnv[s.key], viaFlag[s.key], `${s.env} reads like --${s.flag}`);
    assert.equal(viaFile[s.key], viaFlag[s.key], `config key ${s.key} reads like --${s.flag}`);
  }
});

test('an unknown config key is refused naming the valid keys, which are the declared ones', () => {
  const dir = tempDir('settings-keys-');
  writeFileSync(join(dir, 'gw.yaml'), 'timeout: 5\n');
  let message = '';
  try { readConfig(['--config', join(dir, 'gw.yaml')], {}); } catch (e) { message = (e as Error).message; }
  assert.match(message, /unknown key "timeout"; valid: .*timeoutMs/);
  for (const s of SETTINGS.filter((x) => x.special !== 'config')) assert.ok(message.includes(s.key === 'corsOrigins' ? 'cors' : s.key), `${s.key} listed`);
});

test.run();
