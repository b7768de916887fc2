// One lane of test/run.mjs: a node process that runs test files one after another, each when the
// runner asks, instead of a new process per file. A process costs ~0.1 s of CPU to start and a
// test file ~0.2 s more to load the modules every file shares (uvu, the gateway, the catalogue);
// over 125 files on two cores that was a quarter of the suite's CPU (measured: 99 files in one
// process 53 s of CPU, each in its own 85 s).
// Protocol: stdin gets one JSON line per file, {file, tmp}; the lane points TMPDIR at tmp, imports
// the file with uvu deferred, runs its tests and writes "<TEST_LANE_MARK> <status> <cpu> <folders>" on
// a line of its own, <cpu> being the CPU milliseconds the file took (this process and the processes
// it started and reaped), <folders> the temp folders test/support/temp.ts has made and will remove at
// exit (a shared module's serve later files too): the runner reads the file's output up to that
// line, checks for processes and other files left behind, then sends the next. Before a file it
// writes "<TEST_LANE_MARK>-begun": a lane that dies before that line never began the file, which the
// runner gives to a new lane. stdout and stderr are one pipe (the runner starts the lane with
// 2>&1), so a file's output is in order and complete when the mark arrives (writes to a pipe are
// synchronous).
// When stdin ends the lane has nothing more to run and exits once nothing is pending, as a process
// per file did; what a file left open (a server, a socket, a timer) keeps it alive: after
// TEST_LANE_GRACE_S (default 10 s) it names what is still open and exits 3 (the runner fails the lane).
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const mark = process.env.TEST_LANE_MARK;
if (!mark) throw new Error('test/lane.mjs is started by test/run.mjs (TEST_LANE_MARK unset)');
delete process.env.TEST_LANE_MARK; // not inherited by what the files start (a test may run the runner itself)
globalThis.UVU_DEFER = 1; // test.run() queues the file's suites; exec() below runs them
const support = new URL('../dist/test/support/', import.meta.url);
const { exec } = await import(new URL('uvu.js', support).href);
const { tempDirsMade } = await import(new URL('temp.js', support).href);

/**
 * CPU milliseconds used so far by this process and by the children it has reaped (utime, stime,
 * cutime, cstime of /proc/self/stat, in 10 ms ticks); elsewhere this process's alone.
 */
function cpuMs() {
  if (process.platform !== 'linux') { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
}

for await (const line of createInterface({ input: process.stdin })) {
  const { file, tmp } = JSON.parse(line);
  process.stdout.write(`${mark}-begun\n`); // the file is this lane's now: a lane that dies before saying so never began it
  Object.assign(process.env, { TMPDIR: tmp, TMP: tmp, TEMP: tmp });
  globalThis.UVU_QUEUE.length = 0;
  globalThis.UVU_QUEUE.push([null]);
  process.exitCode = 0;
  const cpu0 = cpuMs();
  try {
    await import(pathToFileURL(file).href);
    await exec();
  } catch (e) {
    console.error(e); // a file that throws while loading prints no summary: the runner calls it a crash
  }
  const status = process.exitCode ?? 0;
  process.exitCode = 0;
  process.stdout.write(`\n${mark} ${status} ${Math.round(cpuMs() - cpu0)} ${JSON.stringify(tempDirsMade())}\n`);
}
setTimeout(() => {
  console.log(`${mark}-open ${JSON.stringify(process.getActiveResourcesInfo())}`);
  process.exit(3);
}, (Number(process.env.TEST_LANE_GRACE_S) || 10) * 1000).unref();
