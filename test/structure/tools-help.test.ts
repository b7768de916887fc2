// Every command a newcomer can run from package.json's scripts answers --help with its usage on
// stdout and exit status 0 (asking for help is not a usage error). The list comes from the
// scripts themselves, so a new tool is covered as soon as it has a script.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT, NODE_FLAGS } from '../support/processes.js';

const run = promisify(execFile);
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
/** The node scripts the npm scripts run under tools/, dist/tools/ and test/load.mjs: "node <file>" in any step. */
const tools = [...new Set(Object.values(scripts).flatMap((s) => [...s.matchAll(/\bnode ((?:dist\/)?tools\/\S+\.m?js|test\/load\.mjs)/g)].map((m) => m[1])))]
  .filter((f) => f !== 'tools/build.mjs').sort();

test('the tools the npm scripts run are found', () => {
  for (const f of ['dist/tools/catalogue.js', 'dist/tools/diff-releases.js', 'dist/tools/changelog.js', 'dist/tools/keygen.js', 'dist/tools/lint-exports.js', 'tools/system-packages.mjs', 'test/load.mjs']) {
    assert.ok(tools.includes(f), `${f} in ${tools.join(', ')}`);
  }
});

test('each answers --help (and a subcommand\'s --help) with its usage and exit 0', async () => {
  const cases = [...tools.map((f) => [f, '--help']), ['dist/tools/catalogue.js', 'endpoints', '--help'], ['dist/tools/catalogue.js', '-h']];
  await Promise.all(cases.map(async ([file, ...args]) => {
    const r = await run(process.execPath, [...NODE_FLAGS, join(ROOT, file), ...args], { cwd: ROOT, timeout: 20_000 }).then((ok) => ({ ...ok, code: 0 }), (e: { code: number; stdout: string; stderr: string }) => e);
    assert.is(r.code, 0, `${file} ${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
    assert.match(r.stdout, /^usage: /m, `${file} ${args.join(' ')} prints its usage`);
  }));
});

test.run();
