// The test runner (test/run.mjs) judges each file alone although its lanes run several files in one
// process: a file that crashes, overruns its time limit, leaves a process running, leaves a file in
// its temp folder or leaves its lane unable to exit fails by name, and the files after it in the same
// lane still run and pass; a file marked "own process" gets one, and a file may ask for a longer
// time limit. Runs the runner on a folder of small
// test files, one lane at a time. The runs are independent (each its own folder, lane and temp
// folder) and mostly wait (a hang to its limit, a sleep past it, a lane's grace): they all start as
// the file loads, and each test awaits its own (one after another they took 18 s of the file's 19).
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT, NODE_FLAGS } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

const run = promisify(execFile);
const support = (name: string) => pathToFileURL(join(ROOT, 'dist', 'test', 'support', name)).href;
const head = `import { test } from '${support('uvu.js')}';\nimport * as assert from '${support('assert.js')}';\n`;
const passing = (name: string) => `test('${name}', () => { assert.ok(true); });\ntest.run();\n`;

/** One lane runs them in this order. */
const FILES: Record<string, string> = {
  'a-shared-temp.test.js': `import { tempDir } from '${support('temp.js')}';\nimport { writeFileSync } from 'node:fs';\nconst dir = tempDir('shared-');\nwriteFileSync(dir + '/x', '1');\n${passing('a')}`,
  'b-crash.test.js': `test('b', async () => { assert.ok(true); setTimeout(() => { throw new Error('boom from b'); }); await new Promise((r) => setTimeout(r, 200)); });\ntest.run();\n`,
  'c-after-crash.test.js': passing('c'),
  'd-hang.test.js': `test('d', async () => { assert.ok(true); console.log('d is waiting'); await new Promise(() => setInterval(() => {}, 1000)); });\ntest.run();\n`,
  'e-after-hang.test.js': passing('e'),
  'f-leaves-process.test.js': `import { spawn } from 'node:child_process';\ntest('f', () => { assert.ok(true); spawn('sleep', ['30'], { stdio: 'ignore' }).unref(); });\ntest.run();\n`,
  'g-leaves-file.test.js': `import { writeFileSync } from 'node:fs';\nimport { join } from 'node:path';\nimport { tmpdir } from 'node:os';\ntest('g', () => { assert.ok(true); writeFileSync(join(tmpdir(), 'g-left.txt'), 'x'); });\ntest.run();\n`,
  'h-leaves-timer.test.js': `setInterval(() => {}, 1000);\n${passing('h')}`,
  'i-own-process.test.js': `// test-runner: own process\ntest('i', () => { assert.is(globalThis.UVU_DEFER, undefined, 'not in a lane'); });\ntest.run();\n`,
};

/**
 * Run the runner, one lane, on test files `files` (name → source after the imports), in that order.
 * `limitS`: the per-file limit (short, so the hang case is quick).
 */
async function runner(files: Record<string, string>, limitS = 3): Promise<{ code: number; stdout: string }> {
  const dir = tempDir('runner-');
  const names = Object.keys(files);
  for (const name of names) writeFileSync(join(dir, name), head + files[name]);
  // Durations order the queue (longest first).
  writeFileSync(join(dir, '.test-durations.json'), JSON.stringify(Object.fromEntries(names.map((n, i) => [relative(ROOT, join(dir, n)), 1000 - i]))));
  // Not TEST_TOTALS_FILE: the fixtures' counts are not the suite's (.ci/run adds that file up).
  const { TEST_TOTALS_FILE, ...env } = process.env; // eslint-disable-line @typescript-eslint/no-unused-vars
  return run(process.execPath, [...NODE_FLAGS, join(ROOT, 'test', 'run.mjs')], {
    cwd: ROOT, timeout: 60_000, env: { ...env, TEST_RUN_DIR: dir, TEST_CONCURRENCY: '1', TEST_FILE_LIMIT_S: String(limitS), TEST_LANE_GRACE_S: '1' },
  }).then((ok) => ({ ...ok, code: 0 }), (e: { code: number; stdout: string; stderr: string }) => e);
}

const slow = (name: string) => `test('${name}', async () => { await new Promise((r) => setTimeout(r, 4000)); assert.ok(true); });\ntest.run();\n`;
const killer = `spawn('sh', ['-c', 'sleep 0.5; kill -9 ' + process.pid], { detached: true, stdio: 'ignore' }).unref()`;
const runs = {
  judged: runner(FILES),
  limits: runner({
    'j-own-limit.test.js': `// test-runner: limit 8 s\n${slow('j')}`,
    'k-default-limit.test.js': slow('k'),
    'l-shorter-limit.test.js': `// test-runner: limit 1 s\n${passing('l')}`,
  }),
  lateCrash: runner({ 'late-crash.test.js': `test('late', () => { assert.ok(true); setTimeout(() => { throw new Error('late boom'); }, 500); });\ntest.run();\n` }),
  // The file's helper kills the lane while the runner waits for the file's processes to end.
  killedBetween: runner({
    'a-killer.test.js': `import { spawn } from 'node:child_process';\ntest('a', () => { assert.ok(true); spawn('sh', ['-c', 'sleep 0.3; kill -9 $PPID'], { stdio: 'ignore' }); });\ntest.run();\n`,
    'b-next.test.js': passing('b'),
  }),
  // After its test the file's timer takes the lane's thread for good, so the lane never reads the
  // next file; a process outside the lane's session (the runner does not wait for it, `killer`) kills it.
  diedBeforeBegun: runner({
    'a-stuck.test.js': `import { spawn } from 'node:child_process';\ntest('a', () => { assert.ok(true); ${killer}; setTimeout(() => { for (;;); }, 0); });\ntest.run();\n`,
    'b-given.test.js': passing('b'),
  }, 20), // the file given to the stuck lane waits for the kill: on a loaded machine \`sleep 0.5; kill\` took longer than 3 s
};

test('each file is judged alone in a shared lane; failures name the file and the lanes go on', async () => {
  const r = await runs.judged;
  const out = r.stdout;
  const line = (name: string) => new RegExp(`^(ok  |FAIL) \\S*${name.replace('.', '\\.')} `, 'm').exec(out)?.[1]?.trim();
  assert.is(r.code, 1, out);
  assert.is(line('a-shared-temp.test.js'), 'ok', out);
  assert.is(line('b-crash.test.js'), 'FAIL', out);
  assert.match(out, /b-crash\.test\.js: no uvu summary[^]*boom from b/);
  assert.is(line('c-after-crash.test.js'), 'ok', out);
  assert.is(line('d-hang.test.js'), 'FAIL', out);
  assert.match(out, /d-hang\.test\.js: exceeded the per-file limit of 3 s[^]*d is waiting/);
  assert.is(line('e-after-hang.test.js'), 'ok', out);
  assert.is(line('f-leaves-process.test.js'), 'FAIL', out);
  assert.match(out, /f-leaves-process\.test\.js: left running after it ended \(now killed\): \d+ sleep 30/);
  assert.is(line('g-leaves-file.test.js'), 'FAIL', out);
  assert.match(out, /g-leaves-file\.test\.js: left in its temp folder \(TMPDIR\): g-left\.txt/);
  assert.is(line('h-leaves-timer.test.js'), 'ok', out);
  assert.is(line('i-own-process.test.js'), 'ok', out);
  assert.match(out, /a lane did not end after its last file \(still open: .*Timeout.*\); files it ran: .*h-leaves-timer\.test\.js/);
  // Tests passed: a, c, e, h, i, and f's and g's own; failed: b, d, what f and g left, the lane h kept open.
  assert.match(out, /^7 passed, 5 failed$/m);
});

test('a file may give itself a longer time limit (never a shorter one)', async () => {
  const r = await runs.limits;
  const out = r.stdout;
  assert.match(out, /^ok   \S*j-own-limit\.test\.js /m);
  assert.match(out, /k-default-limit\.test\.js: exceeded the per-file limit of 3 s/);
  assert.match(out, /^ok   \S*l-shorter-limit\.test\.js /m);
  assert.match(out, /^2 passed, 1 failed$/m);
});

test('a lane that dies after its last file fails with its last output', async () => {
  const r = await runs.lateCrash;
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stdout, /^ok   \S*late-crash\.test\.js /m);
  // Said as the end of the lane (the runner had asked it to end) or, on a slow machine, as its death before that.
  assert.match(r.stdout, /a lane (did not end after its last file \(exit 1; its last output lines:[^]*late boom[^]*files it ran: \S*late-crash\.test\.js|ended between files \(exit 1\) after \S*late-crash\.test\.js; its last output lines:[^]*late boom)/);
  assert.match(r.stdout, /^1 passed, 1 failed$/m);
});

/**
 * Both files passed (`second` in a new lane), and the lane's death is one failure named after `first`,
 * the file it had run last.
 */
function assertLaneDiedBetween(r: { code: number; stdout: string }, first: string, second: string): void {
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stdout, new RegExp(`^ok   \\S*${first}\\.test\\.js `, 'm'));
  assert.match(r.stdout, new RegExp(`^ok   \\S*${second}\\.test\\.js `, 'm'));
  assert.match(r.stdout, new RegExp(`a lane ended between files \\(exit SIGKILL\\) after \\S*${first}\\.test\\.js`));
  assert.match(r.stdout, /^2 passed, 1 failed$/m);
}

test('a lane killed between two files is reported, and the next file gets a new lane', async () => {
  const r = await runs.killedBetween;
  assertLaneDiedBetween(r, 'a-killer', 'b-next');
});

test('a lane that dies after it was given a file but before it began it: the file runs in a new lane', async () => {
  const r = await runs.diedBeforeBegun;
  assertLaneDiedBetween(r, 'a-stuck', 'b-given');
});

test.run();
