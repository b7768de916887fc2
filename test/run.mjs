// Runs the uvu test files compiled under dist/test and ends with the line CI reads:
// "N passed, N failed[, N skipped]". Files run in parallel, TEST_CONCURRENCY lanes at a time
// (default: three per core, as many files spend most of their time waiting on deadlines, sockets or
// a browser: the four slowest take 1.5-2.7 s of CPU over 8-15 s, and four lanes that began with
// them left a core idle; on two cores, alternated runs of the suite took 60.2, 59.5, 61.8 s with
// four lanes and 55.4, 56.5, 53.6, 59.6 s with six, 57.4 s with eight; soaks one at a time: each
// measures the gateway under a load of its own, and the 1 000-reload soak beside the fleet soak
// starved the fleet's three gateways of CPU). A lane is one node process (test/lane.mjs) that runs
// the files it is given one after another: starting a process and loading the modules every file
// shares cost a quarter of the suite's CPU when each file had its own. Each file is still judged
// alone: its own output, temp folder, time limit and check for processes left behind; a file that
// crashes or overruns its lane ends that lane, and the next file gets a new one. Soaks, and a file
// with a line `// test-runner: own process`, run in a process of their own (soaks measure heaps).
// Exit status is non-zero if anything failed.
//   node test/run.mjs [--soak] [--save-durations] [path-regex]
// --soak runs the long soak files (*.soak.js, `npm run test:soak`) instead of the *.test.js files.
// Each file's line gives its wall time and, for a file run in a lane, its CPU time (the lane's and
// that of the processes the file started and reaped: what the file costs whatever else the cores
// run, where its wall time moves with the machine's load); the run's line gives the CPU time of all.
// --save-durations rewrites test/durations.json (or soak-durations.json), the order of a fresh
// checkout's first run, from this run's file times.
// Builder threads run at normal priority in tests (GATEWAY_BUILDER_PRIORITY=normal unless set):
// with four files on two cores the cores are always busy, and a nice-19 builder thread would get
// ~1.5 % of one, so deadlines and "within 2 s" checks would test the scheduler, not the gateway.
// test/builders/pool/priority.test.ts checks each priority explicitly.
// TEST_TOTALS_FILE=path appends "passed failed skipped" to that file, so .ci/run can add up phases.
// Test files run with V8's optimizing compiler held back (test/node-flags.json; soaks run as users do):
// a function is optimized only after about 15 times the work V8 waits for by default. Most code of a
// test process runs too briefly for TurboFan's compile work to pay back, and on two cores that work
// competes with the other files; the few loops that run long (YAML parsing, ajv's code generation, a
// burst's request path) still get it. Alternated suite runs: CPU 154.7 / 146.5 s with --no-opt, 141.7
// / 135.6 s with this (--no-opt had taken the suite's CPU from 110 s to 101 s against the default).
// The node processes the tests start (gateways, upstreams, tools) take the same flags (NODE_FLAGS in
// test/support/processes.ts reads the same file). No other V8 flag: any (--expose-gc, these among them) makes node compile
// the internal modules it loads lazily without their code cache, ~30-40 ms of CPU a process; the files
// that want a collection get gc() at run time (test/support/gc.ts). Soaks measure heaps: --expose-gc.
// Every test must assert: test files import test/support/uvu.ts and test/support/assert.ts, which
// count assertions and fail a test that made none (a test that cannot fail proves nothing); a file
// under dist/test that imports uvu or uvu/assert itself would escape the count, so it fails the run.
// Tests leave nothing behind: each run gets a fresh temp folder (<os tmpdir>/catalogue-gateway-test-*),
// each file its own folder inside it as TMPDIR (children inherit it), and whatever a file leaves
// there counts as one failed test naming the file and what it left; the folder is removed after.
// Nothing hangs or lingers: each lane (or own-process file) runs in a process group of its own, and
// each file has a time limit (TEST_FILE_LIMIT_S, default 120 s, soaks 600 s: the slowest file takes
// ~20 s alone, ~45 s on a loaded machine); past it the file fails with its last output lines and its
// whole group (gateways, upstreams, browsers it started) is killed; a file whose work is a browser's
// rendering, which a loaded machine slows the most, may give itself more with a line
// `// test-runner: limit <N> s` (never less than the default). A process of the group still
// running after the file ended is killed too, and counts as one failed test naming it; so does a
// lane that its files left unable to exit (an open server or timer). Ctrl-C kills every group.
// A skipped test is a failed one: a test that cannot run says why and fails (no silent gaps).
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// TEST_RUN_DIR: another folder of compiled test files (test/structure/runner.test.ts runs the runner on its own).
const testDir = process.env.TEST_RUN_DIR || join(root, 'dist', 'test');
const args = process.argv.slice(2);
const soak = args.includes('--soak');
const pattern = args.find((a) => !a.startsWith('--'));
const filter = pattern ? new RegExp(pattern) : null;
const suffix = soak ? '.soak.js' : '.test.js';
const concurrency = Number(process.env.TEST_CONCURRENCY) || (soak ? 1 : availableParallelism() * 3);
const FILE_LIMIT_MS = (Number(process.env.TEST_FILE_LIMIT_S) || (soak ? 600 : 120)) * 1000;
const TAIL_LINES = 40;
/** V8's flags for test files (see above). */
const TEST_NODE_FLAGS = JSON.parse(readFileSync(join(root, 'test', 'node-flags.json'), 'utf8'));
const tailOf = (out) => out.trimEnd().split('\n').slice(-TAIL_LINES).map((l) => `      ${l}`).join('\n');
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

/**
 * CPU milliseconds of this run so far: the runner and every process it reaped (lanes, own-process
 * files, and what they reaped in turn): utime, stime, cutime and cstime of /proc/self/stat (10 ms
 * ticks). Undefined off Linux.
 */
function cpuMs() {
  if (process.platform !== 'linux') return undefined;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
}

/** Process groups of the files running now, so Ctrl-C or a kill of the runner takes them along. */
const groups = new Set();
const killGroup = (pid) => { try { process.kill(-pid, 'SIGKILL'); } catch { /* already gone */ } };
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(sig, () => { for (const pid of groups) killGroup(pid); process.exit(130); });
}

/**
 * State and session of process `pid`, from /proc/<pid>/stat ("pid (comm) state ppid pgrp session
 * …"; comm may hold spaces and parentheses), or undefined once it is gone.
 */
function procStat(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, , , session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, session };
  } catch { return undefined; }
}

/**
 * The processes still running in the session of `pid` (a detached child leads its own, and so does
 * each lane), as "pid command" lines, empty when none is left. A zombie (state Z: ended, not yet
 * reaped, e.g. one whose parent was killed) is not running. Read from /proc on Linux: a `ps` per
 * file (~7 ms of CPU each, a few per file) cost the suite about a second of CPU.
 */
function groupMembers(pid) {
  if (process.platform !== 'linux') return psMembers(pid);
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(entry);
    if (stat?.session !== String(pid) || stat.state === 'Z') continue;
    try { found.push(`${entry} ${readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim()}`); } catch { /* ended meanwhile */ }
  }
  return found;
}

/** Whether `pid` still runs (a zombie, ended and waiting to be reaped, does not). */
function alive(pid) {
  if (process.platform === 'linux') {
    const stat = procStat(pid);
    return stat !== undefined && stat.state !== 'Z';
  }
  try { process.kill(pid, 0); return true; } catch { return false; }
}

function psMembers(pid) {
  try {
    return execFileSync('ps', ['-o', 'pid=,stat=,args=', '-g', String(pid)], { encoding: 'utf8' }).split('\n').map((l) => l.trim()).filter(Boolean)
      .map((l) => l.split(/\s+/)).filter(([, stat]) => !stat.startsWith('Z')).map(([p, , ...args]) => `${p} ${args.join(' ')}`);
  } catch { return []; } // ps exits 1 when the group is empty
}

const childEnv = (tmp) => ({ GATEWAY_BUILDER_PRIORITY: 'normal', ...process.env, FORCE_COLOR: '0', TMPDIR: tmp, TMP: tmp, TEMP: tmp });
// A file asks for a process of its own with a line "// test-runner: own process".
const OWN_PROCESS = /^\/\/ test-runner: own process$/m;
const OWN_LIMIT = /^\/\/ test-runner: limit (\d+) s$/m;
/** The file's time limit: the default, or the longer one its `// test-runner: limit <N> s` line asks for. */
const limitOf = (text) => Math.max(FILE_LIMIT_MS, Number(OWN_LIMIT.exec(text)?.[1] ?? 0) * 1000);

/** Wait up to a second for a process told to stop as a file ended; the pids still running (ps lines) after. */
async function lingering(pid, except) {
  const others = () => groupMembers(pid).filter((l) => l.split(' ', 1)[0] !== String(except));
  let left = others();
  for (let i = 0; i < 10 && left.length; i++) { await new Promise((r) => setTimeout(r, 100)); left = others(); }
  return left;
}

/**
 * A lane: test/lane.mjs in a process group of its own, its stdout and stderr one pipe. run(file,
 * tmp) resolves like runFile; after a crash or a time-out the lane is `closed` and a new one is needed.
 */
function startLane() {
  const mark = `@@test-lane-${randomBytes(8).toString('hex')}`;
  const child = spawn('/bin/sh', ['-c', 'exec "$0" "$@" 2>&1', process.execPath, ...TEST_NODE_FLAGS, join(root, 'test', 'lane.mjs')], {
    cwd: root, detached: true, env: { ...childEnv(runTmp), TEST_LANE_MARK: mark }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  groups.add(child.pid);
  const done = new RegExp(`\\n${mark} (\\d+) (\\d+) (.*)\\n`);
  const begun = `${mark}-begun\n`;
  const lane = { closed: null, files: [], out: '', settle: null, begun: false };
  const take = (d) => {
    lane.out += d;
    if (!lane.begun && lane.out.includes(begun)) { lane.begun = true; lane.out = lane.out.replace(begun, ''); }
    const m = done.exec(lane.out);
    if (!m || !lane.settle) return;
    const out = lane.out.slice(0, m.index);
    lane.out = lane.out.slice(m.index + m[0].length);
    lane.settle({ out, status: Number(m[1]), cpu: Number(m[2]), kept: JSON.parse(m[3]) });
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  child.stdin.on('error', () => {}); // a lane that died mid-write: its close settles the file
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.once('close', (status, signal) => {
    lane.closed = { status: status ?? signal };
    groups.delete(child.pid);
    // Between two files (a file's late error, a kill from outside): nothing of the file's is pending,
    // so it is said here. So is a lane that died after it was given a file but before it began it
    // (killed as the file before ended, on a loaded machine): that file goes to a new lane.
    const between = (after) => `a lane ended between files (exit ${status ?? signal}) after ${after}; its last output lines:\n${tailOf(lane.out)}`;
    if (lane.settle && !lane.begun && lane.files.length > 1) {
      lane.died = between(lane.files.at(-2));
      lane.settle({ out: lane.out, status: status ?? signal, crashed: true, notBegun: true });
    } else if (lane.settle) lane.settle({ out: lane.out, status: status ?? signal, crashed: true });
    else if (!lane.ending) lane.died = between(lane.files.at(-1));
  });
  lane.run = (file, tmp, limit) => new Promise((resolve) => {
    const started = Date.now();
    let timedOut = false;
    lane.files.push(relative(root, file));
    lane.begun = false;
    const timer = setTimeout(() => { timedOut = true; killGroup(child.pid); }, limit);
    lane.settle = async ({ out, status, crashed, notBegun, cpu, kept = [] }) => {
      lane.settle = null;
      clearTimeout(timer);
      const ms = Date.now() - started;
      if (crashed) { killGroup(child.pid); return resolve({ out, status, ms, timedOut, left: [], notBegun }); }
      const left = await lingering(child.pid, child.pid);
      for (const l of left) { try { process.kill(Number(l.split(' ', 1)[0]), 'SIGKILL'); } catch { /* gone */ } }
      // A lane that died meanwhile (killed by what the file left) is closed before the next file is
      // given to it: its 'close' can come after the check above on a loaded machine.
      if (!alive(child.pid)) await closed;
      resolve({ out, status, ms, cpu, timedOut, left, kept });
    };
    child.stdin.write(`${JSON.stringify({ file, tmp })}\n`);
  });
  /** No more files: resolve with why the lane failed to end by itself, or null. */
  lane.end = () => new Promise((resolve) => {
    if (lane.closed) return resolve(lane.died ?? null);
    lane.ending = true;
    child.once('close', () => {
      const open = new RegExp(`${mark}-open (.*)`).exec(lane.out);
      resolve(lane.closed.status === 0 ? null : `a lane did not end after its last file${open ? ` (still open: ${open[1]})` : ` (exit ${lane.closed.status}; its last output lines:\n${tailOf(lane.out)}\n)`}; files it ran: ${lane.files.join(', ')}`);
    });
    child.stdin.end();
  });
  return lane;
}

/**
 * Run one file with `tmp` as its temp folder, in a process group of its own, at most `limit` ms;
 * resolve with its combined output, exit status, wall time, whether it hit the limit, and what of
 * its group was still running when it ended (then killed).
 */
function runFile(file, tmp, limit) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [...(soak ? ['--expose-gc'] : TEST_NODE_FLAGS), file], {
      cwd: root, detached: true, env: childEnv(tmp), stdio: ['ignore', 'pipe', 'pipe'],
    });
    groups.add(child.pid);
    let out = '';
    let timedOut = false;
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const timer = setTimeout(() => { timedOut = true; killGroup(child.pid); }, limit);
    child.once('close', async (status, signal) => {
      clearTimeout(timer);
      const left = timedOut ? [] : await lingering(child.pid);
      killGroup(child.pid);
      groups.delete(child.pid);
      resolve({ out, status: status ?? signal, ms: Date.now() - started, timedOut, left });
    });
  });
}

/** Counts from uvu's summary; a crash before the summary or a file that ran no test is a failure. */
function judge({ out, status, timedOut, limit }) {
  const num = (re) => Number(re.exec(out)?.[1] ?? 0);
  const total = num(/Total:\s+(\d+)/), ok = num(/Passed:\s+(\d+)/), skip = num(/Skipped:\s+(\d+)/);
  let bad = total - ok + skip;
  let why = skip ? `${skip} test(s) skipped: a test that cannot run is a failure (make it run, or remove it)` : '';
  if (timedOut) {
    why = `exceeded the per-file limit of ${limit / 1000} s (TEST_FILE_LIMIT_S, or the file's own limit line); killed with every process it started. Its last output lines:\n${tailOf(out)}`;
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

const leftNote = (left) => `left in its temp folder (TMPDIR): ${left.slice(0, 10).join(', ')}${left.length > 10 ? `, … (${left.length})` : ''}`;
/** Files whose temp folder holds folders their lane removes at its exit: checked after the lanes end. */
const laterChecks = [];

const runTmp = mkdtempSync(join(tmpdir(), 'catalogue-gateway-test-'));
let passed = 0, failed = 0, skipped = 0;
const failures = [];
async function worker() {
  let lane = null;
  for (let file = queue.shift(); file; file = queue.shift()) {
    const rel = relative(root, file);
    const tmp = join(runTmp, rel.replace(/^dist\/test\//, '').replace(/[/\\]/g, '_'));
    mkdirSync(tmp);
    let r;
    const text = readFileSync(file, 'utf8');
    const limit = limitOf(text);
    if (soak || OWN_PROCESS.test(text)) r = await runFile(file, tmp, limit);
    else {
      lane ??= startLane();
      r = await lane.run(file, tmp, limit);
      if (lane.closed) {
        if (lane.died) { failed += 1; failures.push(lane.died); }
        lane = null;
      }
      if (r.notBegun) { rmSync(tmp, { recursive: true, force: true }); queue.unshift(file); continue; }
    }
    const judged = judge({ ...r, limit });
    if (r.left.length) {
      judged.bad += 1;
      judged.total += 1;
      judged.why = [judged.why, `left running after it ended (now killed): ${r.left.slice(0, 5).join('; ')}`].filter(Boolean).join('; ');
    }
    // Temp folders the lane's process removes at its exit are checked once it has exited.
    const kept = new Set(r.kept ?? []);
    const all = leftIn(tmp);
    const left = all.filter((name) => !kept.has(join(tmp, name)));
    if (left.length) {
      judged.bad += 1; // one more failed test, named after the file
      judged.total += 1;
      judged.why = [judged.why, leftNote(left)].filter(Boolean).join('; ');
    }
    if (left.length < all.length) {
      for (const name of left) rmSync(join(tmp, name), { recursive: true, force: true });
      laterChecks.push({ rel, tmp });
    } else rmSync(tmp, { recursive: true, force: true });
    const { total, ok, skip, bad, why } = judged;
    durations[rel] = r.ms;
    passed += ok; skipped += skip; failed += Math.max(0, bad);
    const cpu = r.cpu === undefined ? '' : `, cpu ${(r.cpu / 1000).toFixed(1)}s`;
    const lines = [`${bad > 0 ? 'FAIL' : 'ok  '} ${rel} (${ok}/${total}, ${(r.ms / 1000).toFixed(1)}s${cpu})`];
    if (bad > 0) {
      failures.push(rel);
      if (why) lines.push(`    [run.mjs] ${rel}: ${why}`);
      if (!r.timedOut) lines.push(r.out.split('\n').map((l) => `    ${l}`).join('\n'));
    }
    // One write per file, so parallel files' output never interleaves.
    process.stdout.write(lines.join('\n') + '\n');
  }
  const stuck = await lane?.end();
  if (stuck) { failed += 1; failures.push(stuck); }
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
  for (const { rel, tmp } of laterChecks) {
    const left = leftIn(tmp);
    if (left.length) { failed += 1; failures.push(`${rel}: ${leftNote(left)}`); }
    rmSync(tmp, { recursive: true, force: true });
  }
  writeFileSync(durationsFile, JSON.stringify(durations, null, 1));
  if (args.includes('--save-durations')) {
    const rounded = Object.fromEntries(Object.entries(durations).filter(([f]) => existsSync(join(root, f))).sort().map(([f, ms]) => [f, Math.round(ms / 100) * 100]));
    writeFileSync(join(root, 'test', soak ? 'soak-durations.json' : 'durations.json'), `${JSON.stringify(rounded, null, 1)}\n`);
  }
  const cpu = cpuMs();
  console.log(`\n${selected.length} file(s), ${concurrency} at a time, ${((Date.now() - started) / 1000).toFixed(1)}s${cpu === undefined ? '' : `, CPU ${(cpu / 1000).toFixed(1)}s`}`);
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
