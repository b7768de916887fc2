// Runs the uvu test files compiled under dist/test and ends with the line CI reads:
// "N passed, N failed[, N skipped]". Each file runs in its own process so one file's servers,
// timers or WASM memory cannot leak into the next; files run in parallel, TEST_CONCURRENCY at a
// time (default: two per core, as most files spend much of their time waiting on deadlines,
// sockets or a browser; soaks one at a time: each measures the gateway under a load of its own, and
// the 1 000-reload soak beside the fleet soak starved the fleet's three gateways of CPU). Exit status
// is non-zero if anything failed.
//   node test/run.mjs [--soak] [--save-durations] [path-regex]
// --soak runs the long soak files (*.soak.js, `npm run test:soak`) instead of the *.test.js files.
// --save-durations rewrites test/durations.json (or soak-durations.json), the order of a fresh
// checkout's first run, from this run's file times.
// Builder threads run at normal priority in tests (GATEWAY_BUILDER_PRIORITY=normal unless set):
// with four files on two cores the cores are always busy, and a nice-19 builder thread would get
// ~1.5 % of one, so deadlines and "within 2 s" checks would test the scheduler, not the gateway.
// test/builders/pool/priority.test.ts checks each priority explicitly.
// TEST_TOTALS_FILE=path appends "passed failed skipped" to that file, so .ci/run can add up phases.
// Test files run without V8's optimizing compiler (--no-opt; soaks keep it): a test process lives
// a second or two, too short for TurboFan's compile work to pay back, and on two cores that work
// competes with the other files (the suite's CPU went from 110 s to 101 s). The node processes the
// tests start (gateways, upstreams, tools) take the same flag (NODE_FLAGS, test/support/processes.ts).
// No other V8 flag: some (--expose-gc, --no-opt among them) make node compile the internal modules it
// loads lazily without their code cache, ~30-40 ms of CPU a process; the two files that want a
// collection get gc() at run time (test/support/gc.ts). Soaks measure heaps: --expose-gc.
// Every test must assert: test files import test/support/uvu.ts and test/support/assert.ts, which
// count assertions and fail a test that made none (a test that cannot fail proves nothing); a file
// under dist/test that imports uvu or uvu/assert itself would escape the count, so it fails the run.
// Tests leave nothing behind: each run gets a fresh temp folder (<os tmpdir>/catalogue-gateway-test-*),
// each file its own folder inside it as TMPDIR (children inherit it), and whatever a file leaves
// there counts as one failed test naming the file and what it left; the folder is removed after.
// Nothing hangs or lingers: each file runs in a process group of its own with a time limit
// (TEST_FILE_LIMIT_S, default 120 s, soaks 600 s: the slowest file takes ~20 s alone, ~45 s on a loaded
// machine); past it the file fails with its last output lines and its whole group (gateways,
// upstreams, browsers it started) is killed. A process of the group still running after the file
// exited is killed too, and counts as one failed test naming it. Ctrl-C kills every group.
// A skipped test is a failed one: a test that cannot run says why and fails (no silent gaps).
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const testDir = join(root, 'dist', 'test');
const args = process.argv.slice(2);
const soak = args.includes('--soak');
const pattern = args.find((a) => !a.startsWith('--'));
const filter = pattern ? new RegExp(pattern) : null;
const suffix = soak ? '.soak.js' : '.test.js';
const concurrency = Number(process.env.TEST_CONCURRENCY) || (soak ? 1 : availableParallelism() * 2);
const FILE_LIMIT_MS = (Number(process.env.TEST_FILE_LIMIT_S) || (soak ? 600 : 120)) * 1000;
const TAIL_LINES = 40;
// Each file's duration in the last run: the longest start first, so one slow file does not run alone at the end.
const durationsFile = join(testDir, soak ? '.soak-durations.json' : '.test-durations.json');
const WRAPPERS = new Set(['support/uvu.js', 'support/assert.js'].map((f) => join(testDir, f)));
const DIRECT_UVU = /\bfrom\s*['"]uvu(\/assert)?['"]|\brequire\(\s*['"]uvu(\/assert)?['"]\s*\)|\bimport\(\s*['"]uvu(\/assert)?['"]\s*\)/;

function files(dir, wanted = (name) => name.endsWith(suffix)) {
  return readdirSync(dir).sort().flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p, wanted);
    return wanted(name) ? [p] : [];
  });
}

function readDurations() {
  const read = (f) => { try { return JSON.parse(readFileSync(f, 'utf8')); } catch { return {}; } };
  // A fresh checkout has run nothing yet: test/durations.json (kept in git, rewritten by
  // `node test/run.mjs --save-durations`) orders its first run.
  return { ...read(join(root, 'test', soak ? 'soak-durations.json' : 'durations.json')), ...read(durationsFile) };
}

/** Process groups of the files running now, so Ctrl-C or a kill of the runner takes them along. */
const groups = new Set();
const killGroup = (pid) => { try { process.kill(-pid, 'SIGKILL'); } catch { /* already gone */ } };
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(sig, () => { for (const pid of groups) killGroup(pid); process.exit(130); });
}

/** The processes still in group `pid`, as "pid command" lines (ps), empty when none is left. */
function groupMembers(pid) {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '-g', String(pid)], { encoding: 'utf8' }).split('\n').map((l) => l.trim()).filter(Boolean);
  } catch { return []; } // ps exits 1 when the group is empty
}

/**
 * Run one file with `tmp` as its temp folder, in a process group of its own, at most FILE_LIMIT_MS;
 * resolve with its combined output, exit status, wall time, whether it hit the limit, and what of
 * its group was still running when it ended (then killed).
 */
function runFile(file, tmp) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [soak ? '--expose-gc' : '--no-opt', file], {
      cwd: root, detached: true, env: { GATEWAY_BUILDER_PRIORITY: 'normal', ...process.env, FORCE_COLOR: '0', TMPDIR: tmp, TMP: tmp, TEMP: tmp }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    groups.add(child.pid);
    let out = '';
    let timedOut = false;
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const timer = setTimeout(() => { timedOut = true; killGroup(child.pid); }, FILE_LIMIT_MS);
    child.once('close', async (status, signal) => {
      clearTimeout(timer);
      // A process told to stop as the file ended gets a second to go before it counts as left behind.
      let left = timedOut ? [] : groupMembers(child.pid);
      for (let i = 0; i < 10 && left.length; i++) { await new Promise((r) => setTimeout(r, 100)); left = groupMembers(child.pid); }
      killGroup(child.pid);
      groups.delete(child.pid);
      resolve({ out, status: status ?? signal, ms: Date.now() - started, timedOut, left });
    });
  });
}

/** Counts from uvu's summary; a crash before the summary or a file that ran no test is a failure. */
function judge({ out, status, timedOut }) {
  const num = (re) => Number(re.exec(out)?.[1] ?? 0);
  const total = num(/Total:\s+(\d+)/), ok = num(/Passed:\s+(\d+)/), skip = num(/Skipped:\s+(\d+)/);
  let bad = total - ok + skip;
  let why = skip ? `${skip} test(s) skipped: a test that cannot run is a failure (make it run, or remove it)` : '';
  if (timedOut) {
    const tail = out.trimEnd().split('\n').slice(-TAIL_LINES).map((l) => `      ${l}`).join('\n');
    why = `exceeded the per-file limit of ${FILE_LIMIT_MS / 1000} s (TEST_FILE_LIMIT_S); killed with every process it started. Its last output lines:\n${tail}`;
    bad = Math.max(1, bad);
  } else if (!/Total:\s+\d+/.test(out)) { why = `no uvu summary (exit ${status}): the file crashed or never called .run()`; bad = Math.max(1, bad); }
  else if (total === 0) { why = 'ran no test (uvu printed "Total: 0"): a test file must run at least one test'; bad = 1; }
  else if (status !== 0 && bad <= 0) { why = `exit ${status} after its tests passed`; bad = 1; }
  return { total, ok, skip, bad, why };
}

const selected = files(testDir).filter((f) => !filter || filter.test(relative(root, f)));
const previous = readDurations();
const queue = [...selected].sort((a, b) => (previous[relative(root, b)] ?? Infinity) - (previous[relative(root, a)] ?? Infinity));
const durations = { ...previous };

/** What is left in a folder, as a short list for the failure line. */
function leftIn(dir) {
  let names = [];
  try { names = readdirSync(dir); } catch { return []; }
  return names.sort();
}

const runTmp = mkdtempSync(join(tmpdir(), 'catalogue-gateway-test-'));
let passed = 0, failed = 0, skipped = 0;
const failures = [];
async function worker() {
  for (let file = queue.shift(); file; file = queue.shift()) {
    const rel = relative(root, file);
    const tmp = join(runTmp, rel.replace(/^dist\/test\//, '').replace(/[/\\]/g, '_'));
    mkdirSync(tmp);
    const r = await runFile(file, tmp);
    const judged = judge(r);
    if (r.left.length) {
      judged.bad += 1;
      judged.total += 1;
      judged.why = [judged.why, `left running after it ended (now killed): ${r.left.slice(0, 5).join('; ')}`].filter(Boolean).join('; ');
    }
    const left = leftIn(tmp);
    if (left.length) {
      judged.bad += 1; // one more failed test, named after the file
      judged.total += 1;
      judged.why = [judged.why, `left in its temp folder (TMPDIR): ${left.slice(0, 10).join(', ')}${left.length > 10 ? `, … (${left.length})` : ''}`].filter(Boolean).join('; ');
    }
    rmSync(tmp, { recursive: true, force: true });
    const { total, ok, skip, bad, why } = judged;
    durations[rel] = r.ms;
    passed += ok; skipped += skip; failed += Math.max(0, bad);
    const lines = [`${bad > 0 ? 'FAIL' : 'ok  '} ${rel} (${ok}/${total}, ${(r.ms / 1000).toFixed(1)}s)`];
    if (bad > 0) {
      failures.push(rel);
      if (why) lines.push(`    [run.mjs] ${rel}: ${why}`);
      if (!r.timedOut) lines.push(r.out.split('\n').map((l) => `    ${l}`).join('\n'));
    }
    // One write per file, so parallel files' output never interleaves.
    process.stdout.write(lines.join('\n') + '\n');
  }
}

const started = Date.now();
for (const f of files(testDir, (name) => name.endsWith('.js'))) {
  if (WRAPPERS.has(f) || !DIRECT_UVU.test(readFileSync(f, 'utf8'))) continue;
  failed += 1;
  failures.push(`${relative(root, f)}: imports uvu or uvu/assert itself; import test/support/uvu.js and test/support/assert.js, which count assertions`);
}
if (selected.length === 0) {
  console.log(`no ${suffix} file under ${relative(root, testDir)}${filter ? ` matches /${pattern}/` : ''}`);
  failed = 1;
} else {
  await Promise.all(Array.from({ length: Math.min(concurrency, selected.length) }, worker));
  writeFileSync(durationsFile, JSON.stringify(durations, null, 1));
  if (args.includes('--save-durations')) {
    const rounded = Object.fromEntries(Object.entries(durations).filter(([f]) => existsSync(join(root, f))).sort().map(([f, ms]) => [f, Math.round(ms / 100) * 100]));
    writeFileSync(join(root, 'test', soak ? 'soak-durations.json' : 'durations.json'), `${JSON.stringify(rounded, null, 1)}\n`);
  }
  console.log(`\n${selected.length} file(s), ${concurrency} at a time, ${((Date.now() - started) / 1000).toFixed(1)}s`);
}
// Anything a file's processes wrote after their folder was checked, or outside it, under the run's folder.
const stray = leftIn(runTmp);
if (stray.length) {
  failed += 1;
  failures.push(`(temp folder) left in ${runTmp}: ${stray.join(', ')}`);
}
rmSync(runTmp, { recursive: true, force: true });
if (failures.length) console.log(`failed files:\n  ${failures.sort().join('\n  ')}`);
if (process.env.TEST_TOTALS_FILE) appendFileSync(process.env.TEST_TOTALS_FILE, `${passed} ${failed} ${skipped}\n`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed > 0 || failures.length ? 1 : 0;
