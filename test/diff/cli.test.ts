// The diff and changelog commands as users run them: exit statuses, --fail-on, --ignore, errors.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { findService } from '../../src/catalogue/resolve.js';
import { RULES } from '../../src/diff/index.js';
import { loadExchangeSeed } from '../helpers/seed.js';
import { loadFixture, runTool, tempDir } from './support.js';

const diff = (...args: string[]) => runTool('diff-releases', args);
const exchange = findService(loadCatalogue().catalogue, 'exchange');
const tmp = tempDir('diff-cli-');

test('--fail-on breaking: exit 1 for 3.5.1 → 3.6.0 (margin endpoints removed), 0 for 3.10.0 → 3.11.0', () => {
  const bad = diff('3.5.1', '3.6.0', '--fail-on', 'breaking');
  assert.is(bad.status, 1, bad.stderr);
  assert.match(bad.stdout, /endpoint-removed/);
  const ok = diff('3.10.0', '3.11.0', '--fail-on', 'breaking', '--format', 'json');
  assert.is(ok.status, 0, ok.stderr);
  const json = JSON.parse(ok.stdout);
  assert.ok(json.changes.length > 0, '3.11.0 adds the time-unit parameter');
  assert.not.ok(json.changes.some((c: { severity: string }) => c.severity === 'breaking'));
  assert.is(diff('3.10.0', '3.11.0', '--fail-on', 'any').status, 1, '--fail-on any fails on info changes');
  assert.is(diff('3.10.0', '3.11.0').status, 0, 'no --fail-on: exit 0');
});

test('--ignore drops the listed rules and endpoints; then --fail-on passes', () => {
  const file = join(tmp, 'ignore.txt');
  writeFileSync(file, '# accepted for the 3.6.0 upgrade\nendpoint-removed\nparameter-removed # none expected\nenum-value-removed\nsecurity-tightened\nrequired-parameter-added\nparameter-became-required\nws-method-removed\nstream-removed\n');
  const r = diff('3.5.1', '3.6.0', '--fail-on', 'breaking', '--ignore', file, '--format', 'json');
  assert.is(r.status, 0, r.stderr);
  assert.not.ok(JSON.parse(r.stdout).changes.some((c: { id: string }) => c.id === 'endpoint-removed'));
  writeFileSync(file, 'POST /sapi/v1/margin/loan\n');
  const one = JSON.parse(diff('3.5.1', '3.6.0', '--ignore', file, '--format', 'json').stdout);
  assert.not.ok(one.changes.some((c: { endpoint?: string }) => c.endpoint === 'POST /sapi/v1/margin/loan'));
  assert.ok(one.changes.some((c: { endpoint?: string }) => c.endpoint === 'GET /sapi/v1/margin/loan'));
  writeFileSync(file, 'endpoint-gone\n');
  const bad = diff('3.5.1', '3.6.0', '--ignore', file);
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /ignore\.txt:1: "endpoint-gone" is neither a rule id nor an endpoint.*endpoint-removed/);
});

test('unknown release: exit 2, one line naming it and every valid release', () => {
  const r = diff('1.0.0', '9.9.9');
  assert.is(r.status, 2);
  assert.is(r.stdout, '');
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /unknown release "9\.9\.9"/);
  for (const rel of exchange.releases) assert.ok(r.stderr.includes(rel.id), rel.id);
});

test('bad flags: exit 2 with the valid choices', () => {
  for (const [args, re] of [
    [['1.0.0', '1.1.0', '--format', 'yaml'], /invalid format "yaml"; valid: text, markdown, json, junit, github, html, json-schema/],
    [['1.0.0', '1.1.0', '--fail-on', 'minor'], /invalid fail-on "minor"; valid: breaking, warning, info, any/],
    [['1.0.0', '1.1.0', '--service', 'shop'], /invalid service "shop"; valid: exchange/],
    [['1.0.0', '1.1.0', '--colour'], /unknown option --colour/],
    [['1.0.0'], /expected two releases <from> <to> \(or --base <dir \| git revision>\), got 1/],
  ] as const) {
    const r = diff(...args);
    assert.is(r.status, 2, args.join(' '));
    assert.match(r.stderr, re);
    assert.is(r.stderr.trim().split('\n').length, 1);
  }
});

test('--list-rules: every rule id with its one severity', () => {
  const r = diff('--list-rules');
  assert.is(r.status, 0);
  const rows = r.stdout.trim().split('\n').map((l) => l.split(/\s+/).slice(0, 2).join(' '));
  assert.equal(rows, RULES.map((x) => `${x.id} ${x.severity}`));
});

test('equal releases: no changes, exit 0 even with --fail-on any', () => {
  const r = diff('3.8.0', '3.8.0', '--format', 'json', '--fail-on', 'any');
  assert.is(r.status, 0);
  assert.equal(JSON.parse(r.stdout), { service: 'exchange', from: '3.8.0', to: '3.8.0', changes: [] });
  assert.match(diff('3.8.0', '3.8.0').stdout, /exchange 3\.8\.0 → 3\.8\.0: no changes/);
});

test('downgrade from the CLI: additions of the newer release are breaking removals', () => {
  const r = diff('3.8.0', '3.7.0', '--format', 'json', '--fail-on', 'breaking');
  assert.is(r.status, 1);
  const cs = JSON.parse(r.stdout).changes as { id: string; endpoint?: string; release: string }[];
  assert.ok(cs.some((c) => c.id === 'endpoint-removed' && c.endpoint === 'POST /api/v3/orderList/oto' && c.release === '3.8.0'));
  assert.ok(cs.some((c) => c.id === 'endpoint-undeprecated' && c.endpoint === 'POST /api/v3/order/oco'));
});

test('--catalogue and --service reach another catalogue', () => {
  const { dir } = loadFixture();
  const r = diff('1.0', '10.0', '--catalogue', dir, '--service', 'shop', '--format', 'json');
  assert.is(r.status, 0, r.stderr);
  assert.ok(JSON.parse(r.stdout).changes.length > 10);
});

test('changelog: every release newest first with its date and notes, --output writes the file', () => {
  const out = join(tmp, 'CHANGELOG.md');
  const r = runTool('changelog', ['--output', out]);
  assert.is(r.status, 0, r.stderr);
  const text = readFileSync(out, 'utf8');
  const headings = [...text.matchAll(/^## (\S+) \((\d{4}-\d{2}-\d{2})\)$/gm)].map((m) => `${m[1]} ${m[2]}`);
  assert.equal(headings, exchange.releases.map((x) => `${x.id} ${x.date}`).reverse());
  // next to the seed's history: each seed release's notes appear under its heading
  for (const rel of loadExchangeSeed().releases) {
    const section = text.split(`\n## ${rel.id} (`)[1]?.split('\n## ')[0] ?? '';
    assert.ok(section.includes(rel.notes), `${rel.id} notes`);
  }
  assert.match(text.split('\n## 3.6.0 (')[1].split('\n## ')[0], /`endpoint-removed` in 3\.6\.0/);
  assert.is(runTool('changelog', []).stdout, text, 'stdout when no --output');
  assert.is(runTool('changelog', ['--service', 'nope']).status, 2);
});

test.run();
