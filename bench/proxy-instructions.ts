// Instructions per proxied request, counted by valgrind's callgrind rather than timed: CPU time on
// this shared machine strays several per cent between identical runs, an instruction count much
// less (repeat runs of one build agree within ~0.3 %, with an occasional run ~2 % high when a
// major GC or a re-optimisation lands in the window). Each forwarder runs alone under callgrind
// (user-space instructions of every thread; the kernel's share is not counted), one connection
// at a time so no batching differs between them; after a warm-up the counters are zeroed, N
// requests are sent and the counters dumped. About a minute per forwarder.
// The gateway runs as it ships, `node dist/src/cli.cjs` with default flags (rate limits off: the
// warm-up alone passes the exchange's weight per minute), its access lines on stderr, a pipe this
// process reads; `@warn` after a name runs it at --log-level warn (no access lines).
//   npm run build && node dist/bench/proxy-instructions.js [requests] [forwarder ...]
//   forwarders: bare, bareHeaders, gateway, gateway@warn (default: all four), or a path to another
//   built checkout (its dist/src/cli.cjs, or cli.js where it is older, e.g. /tmp/main or /tmp/main@warn)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drive as driveOver, PATH } from './proxy/drive.js';
import { startProcess, track } from './proxy/processes.js';

const N = Number(process.argv[2] ?? 4000);
const WARM = 8000;
const chosen = process.argv.length > 3 ? process.argv.slice(3) : ['bare', 'bareHeaders', 'gateway', 'gateway@warn'];

try {
  execFileSync('valgrind', ['--version']);
} catch {
  console.error('valgrind is not installed (apt-get install -y valgrind)');
  process.exit(2);
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const upstream = await startProcess('proxy/upstream.js');
const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
const out = mkdtempSync(join(tmpdir(), 'callgrind-'));
/** One request at a time on one keep-alive connection. */
const drive = (port: number, n: number) => driveOver(port, n, undefined, 1);

function command(name: string): string[] {
  if (name === 'bare') return [here('proxy/bare-forwarder.js'), upstreamUrl];
  if (name === 'bareHeaders') return [here('proxy/bare-forwarder.js'), upstreamUrl, '--gateway-headers'];
  const [where, level] = name.split('@');
  const other = (file: string) => join(resolve(where), 'dist/src', file);
  const cli = where === 'gateway' ? here('../src/cli.cjs') : existsSync(other('cli.cjs')) ? other('cli.cjs') : other('cli.js');
  // --timeout: under valgrind the first requests, before the JIT warms up, can take longer than the default 10 s.
  return [cli, '--port', '0', '--upstream', `exchange=${upstreamUrl}`, '--rate-limit', 'off', '--timeout', '300000', ...(level ? ['--log-level', level] : [])];
}

async function count(name: string): Promise<number> {
  const file = join(out, `${chosen.indexOf(name)}.out`);
  // --smc-check: V8 writes and rewrites machine code on the heap.
  const child = track(spawn('valgrind', ['--tool=callgrind', '--smc-check=all-non-file', `--callgrind-out-file=${file}`, process.execPath, ...command(name)], { stdio: ['ignore', 'pipe', 'pipe'] }));
  let err = '';
  child.stderr!.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-4000); });
  const port = await new Promise<number>((ok, fail) => {
    child.stdout!.on('data', (d: Buffer) => {
      const m = /port (\d+)|listening on http:\/\/[^:]+:(\d+)/.exec(d.toString());
      if (m) ok(Number(m[1] ?? m[2]));
    });
    child.once('exit', (c) => fail(new Error(`${name} exited ${c}: ${err}`)));
  });
  await drive(port, WARM);
  execFileSync('callgrind_control', ['-z', String(child.pid)], { stdio: 'ignore' });
  await drive(port, N);
  execFileSync('callgrind_control', ['-d', String(child.pid)], { stdio: 'ignore' });
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  // The dump after zeroing is the file with a ".1" suffix; its totals line counts the measured window.
  const dumped = readdirSync(out).find((f) => f === `${chosen.indexOf(name)}.out.1`);
  if (!dumped) throw new Error(`${name}: callgrind wrote no dump`);
  const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(out, dumped), 'utf8'));
  if (!total) throw new Error(`${name}: no totals in the dump`);
  return Number(total[1]) / N;
}

const counts: Record<string, number> = {};
try {
  for (const name of chosen) {
    counts[name] = await count(name);
    console.log(`${name}: ${Math.round(counts[name])} instructions per request`);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
  upstream.child.kill();
}
const base = counts.bare;
if (base) for (const name of chosen) if (name !== 'bare') console.log(`${name}/bare: ${(counts[name] / base).toFixed(3)}`);
console.log(`GET ${PATH}, ${N} requests after ${WARM} to warm up, one connection, under callgrind`);
process.exit(0);
