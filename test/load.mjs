// `npm run test:load [-- --runs N]`: the suite with the machine busy. Starts two busy-looping
// processes (`node -e 'for(;;){}'`, one per core here), runs `node test/run.mjs` N times in a row
// (default 1) while they spin, kills them, and prints one line per run and a closing
// "N passed, N failed" over all runs. A timed assertion that holds only on an idle machine
// measures the scheduler, not the gateway: this is where it shows. Exit status non-zero if any run
// failed. Other arguments (a path regex) are passed to test/run.mjs.
//   node test/load.mjs [--runs N] [--hogs N] [path-regex]
import { spawn } from 'node:child_process';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log("usage: npm run test:load -- [--runs N] [--hogs N] [path-regex]\nRuns the test suite N times (default 1) beside N busy-looping processes (default 2), then prints each run's result.");
  process.exit(0);
}
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const n = Number(args[i + 1]);
  if (!Number.isInteger(n) || n < 0) { console.error(`error: ${name} needs a whole number, got "${args[i + 1]}"`); process.exit(2); }
  args.splice(i, 2);
  return n;
};
const runs = option('--runs', 1);
const hogCount = option('--hogs', 2);
const root = new URL('..', import.meta.url);

const hogs = Array.from({ length: hogCount }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
const killHogs = () => { for (const h of hogs) h.kill('SIGKILL'); };
process.on('exit', killHogs);
let current = null; // the suite run in progress: stopped with this script, so it can kill its files' processes
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    killHogs();
    if (!current) process.exit(130);
    current.once('close', () => process.exit(130));
    current.kill(sig);
  });
}
console.log(`test:load: ${hogCount} busy-looping process(es) (pids ${hogs.map((h) => h.pid).join(', ')}), ${runs} run(s)`);

/** One suite run; resolves with its closing counts and wall time. */
function runSuite() {
  return new Promise((resolve) => {
    const started = Date.now();
    const { TEST_TOTALS_FILE: _, ...env } = process.env; // this script appends the runs' sum, once
    const child = spawn(process.execPath, [new URL('run.mjs', import.meta.url).pathname, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
    current = child;
    let last = '';
    child.stdout.on('data', (d) => { process.stdout.write(d); last = (last + d).slice(-2000); });
    child.once('close', (status) => {
      current = null;
      const m = /(\d+) passed, (\d+) failed/.exec(last.split('\n').filter(Boolean).at(-1) ?? '');
      resolve({ passed: Number(m?.[1] ?? 0), failed: m ? Number(m[2]) : 1, status, s: (Date.now() - started) / 1000 });
    });
  });
}

const results = [];
for (let i = 1; i <= runs; i++) {
  const r = await runSuite();
  results.push(r);
  console.log(`test:load: run ${i}/${runs}: ${r.passed} passed, ${r.failed} failed, ${r.s.toFixed(1)} s wall`);
}
killHogs();
for (const [i, r] of results.entries()) console.log(`test:load run ${i + 1}: ${r.passed} passed, ${r.failed} failed, ${r.s.toFixed(1)} s`);
const passed = results.reduce((n, r) => n + r.passed, 0), failed = results.reduce((n, r) => n + r.failed, 0);
if (process.env.TEST_TOTALS_FILE) (await import('node:fs')).appendFileSync(process.env.TEST_TOTALS_FILE, `${passed} ${failed} 0\n`);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 || results.some((r) => r.status !== 0) ? 1 : 0;
