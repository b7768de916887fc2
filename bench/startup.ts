// Start-up to the first 200: wall time from spawning the process to the first 200 answer of
// GET /_gateway/health, for the gateway as it ships (`node dist/src/cli.cjs`, the bundle
// tools/bundle.ts makes, default flags: its access log on, stderr a pipe this process reads; pinned
// at the newest release, warm catalogue cache) and for a bare node:http server script, interleaved
// in the same run; medians and their ratio (issue 25: gateway ≤ 1.6× bare).
//   npm run build && node dist/bench/startup.js [runs] [--profile]
// --profile: also run the gateway once under `node --cpu-prof` and list where its start-up goes
// (self time by package or source folder, and the slowest module imports measured alone).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './proxy/processes.js';

const args = process.argv.slice(2);
const RUNS = Number(args.find((a) => /^\d+$/.test(a)) ?? 9);
const PROFILE = args.includes('--profile');
const root = fileURLToPath(new URL('../../', import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cacheDir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
const env = { ...process.env, GATEWAY_CACHE_DIR: cacheDir };

/** One GET /_gateway/health; resolves with the status, or 0 when nothing listens yet. */
const health = (port: number) => new Promise<number>((resolve) => {
  const req = request({ host: '127.0.0.1', port, path: '/_gateway/health', agent: false }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
  req.once('error', () => resolve(0));
  req.end();
});

const stop = (child: ChildProcess) => new Promise<void>((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) return resolve();
  child.once('exit', () => resolve());
  child.kill('SIGKILL');
});

/**
 * Time on a CPU of the main thread of `pid` so far, ms (/proc/<pid>/schedstat): what the start-up
 * cost, apart from the time it waited for a core, which on a busy machine is most of the wall time.
 */
const mainThreadCpuMs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;

/** Spawn `node ...argv` (with the port appended by `withPort`) and time spawn → first 200 (wall, and main-thread CPU). */
async function timeToFirst200(withPort: (port: number) => string[]): Promise<{ ms: number; cpuMs: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, withPort(port), { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => { err += d; });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${withPort(port).join(' ')} exited ${child.exitCode}: ${err}`);
      if (await health(port) === 200) return { ms: performance.now() - started, cpuMs: mainThreadCpuMs(child.pid!) };
      if (performance.now() - started > 120_000) throw new Error(`no 200 within 120 s: ${err}`);
      await new Promise((r) => setTimeout(r, 2)); // poll every ~2 ms: cheap next to a start-up
    }
  } finally {
    await stop(child);
  }
}

const gateway = (port: number) => [join(root, 'dist/src/cli.cjs'), '--port', String(port)];
const bare = (port: number) => [join(root, 'dist/bench/startup/bare-server.js'), String(port)];

await timeToFirst200(gateway); // fill the catalogue cache, warm the OS file cache
await timeToFirst200(bare);
const g: { ms: number; cpuMs: number }[] = [], b: { ms: number; cpuMs: number }[] = [];
for (let i = 0; i < RUNS; i++) {
  // Interleaved so drift in machine load hits both alike.
  g.push(await timeToFirst200(gateway));
  b.push(await timeToFirst200(bare));
}
const ms = (xs: { ms: number }[]) => xs.map((x) => x.ms);
const cpu = (xs: { cpuMs: number }[]) => xs.map((x) => x.cpuMs);
console.log(`start-up to the first 200 of GET /_gateway/health, ${RUNS} runs each (warm catalogue cache)`);
console.log(`bare node:http server: median ${median(ms(b)).toFixed(0)} ms (runs ${ms(b).map((x) => x.toFixed(0)).join(' ')}); main thread on a CPU ${median(cpu(b)).toFixed(0)} ms`);
console.log(`gateway:               median ${median(ms(g)).toFixed(0)} ms (runs ${ms(g).map((x) => x.toFixed(0)).join(' ')}); main thread on a CPU ${median(cpu(g)).toFixed(0)} ms`);
console.log(`ratio gateway/bare: ${(median(ms(g)) / median(ms(b))).toFixed(2)} (target ≤ 1.6); main-thread CPU ${(median(cpu(g)) / median(cpu(b))).toFixed(2)} (steadier on a busy machine)`);

if (PROFILE) await profile();
rmSync(cacheDir, { recursive: true, force: true });

interface ProfileNode { id: number; callFrame: { url: string; functionName: string }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

/**
 * Where one gateway start-up goes, in one process that imports the gateway, starts it, gets its first
 * 200 and exits by itself (a killed process writes no profile): the split between module loading and
 * start-up work, the packages loaded, CPU self time by package, and each package's import cost alone.
 */
async function profile(): Promise<void> {
  const port = await freePort();
  const dist = (p: string) => JSON.stringify(join(root, 'dist', p));
  const script = `
    import { createRequire } from 'node:module';
    const t0 = performance.now();
    const { readConfig } = await import(${dist('src/config.js')});
    const { startGateway } = await import(${dist('src/server.js')});
    const { createLogger } = await import(${dist('src/log.js')});
    const t1 = performance.now();
    const running = await startGateway(readConfig(['--port', '${port}'], {}), { logger: createLogger('error') });
    const t2 = performance.now();
    const res = await fetch(running.url + '/_gateway/health');
    if (res.status !== 200) throw new Error('health ' + res.status);
    const t3 = performance.now();
    await running.close();
    // CommonJS packages (koa, undici, ajv, ws, ...) land in require.cache even when imported from ESM.
    const packages = {};
    for (const f of Object.keys(createRequire(import.meta.url).cache)) {
      const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(f);
      if (m) packages[m[1]] = (packages[m[1]] ?? 0) + 1;
    }
    console.log(JSON.stringify({ bootMs: t0, importMs: t1 - t0, startMs: t2 - t1, firstOkMs: t3 - t2, packages }));`;
  const profDir = mkdtempSync(join(tmpdir(), 'bench-startup-prof-'));
  const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, '--input-type=module', '-e', script], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`profiled start-up failed: ${r.stderr}`);
  const phases = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { bootMs: number; importMs: number; startMs: number; firstOkMs: number; packages: Record<string, number> };
  const prof = JSON.parse(readFileSync(join(profDir, readdirSync(profDir)[0]), 'utf8')) as Profile;
  rmSync(profDir, { recursive: true, force: true });
  console.log(`\none profiled start-up (under --cpu-prof, so slower): node boot to first line ${phases.bootMs.toFixed(0)} ms; importing the gateway's modules ${phases.importMs.toFixed(0)} ms; startGateway() ${phases.startMs.toFixed(0)} ms; first 200 ${phases.firstOkMs.toFixed(0)} ms`);
  console.log(`packages loaded (CommonJS files): ${Object.entries(phases.packages).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ')}`);

  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  prof.samples.forEach((id, i) => {
    const key = owner(byId.get(id)!.callFrame);
    self.set(key, (self.get(key) ?? 0) + prof.timeDeltas[i] / 1000);
  });
  console.log(`CPU self time by owner (${((prof.endTime - prof.startTime) / 1000).toFixed(0)} ms profiled; "Node internals" is mostly the module loader reading and compiling files):`);
  for (const [k, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 14)) console.log(`  ${ms.toFixed(1).padStart(7)} ms  ${k}`);

  // Each package's first import alone, in a fresh process: what making it lazy would save at most.
  const importMs = (spec: string) => {
    const code = `const t = performance.now(); await import(${JSON.stringify(spec)}); console.log(performance.now() - t);`;
    return median(Array.from({ length: 7 }, () => Number(spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' }).stdout)));
  };
  const mine = ['src/catalogue/load.js', 'src/gateway/app.js', 'src/gateway/proxy-path.ts', 'src/gateway/websocket/index.js', 'src/upstream/proxy.js', 'src/server.js']
    .map((p) => join(root, 'dist', p.replace(/\.ts$/, '.js'))).filter(existsJs);
  const specs = [...Object.keys(phases.packages).filter((p) => existsJs(join(root, 'node_modules', p, 'package.json'))), ...mine];
  // The first import of anything costs the ESM loader's own start; measured on an empty module.
  const floor = importMs('data:text/javascript,');
  console.log(`import cost of each loaded package (and of some gateway modules with all they import), alone in a fresh process, median of 7, minus ${floor.toFixed(1)} ms for importing an empty module; top 16:`);
  const rows = specs.map((m) => [m.replace(join(root, 'dist/'), ''), importMs(m) - floor] as const);
  for (const [m, ms] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, 16)) console.log(`  ${ms.toFixed(1).padStart(7)} ms  ${m}`);
}

function existsJs(p: string): boolean {
  try { readFileSync(p); return true; } catch { return false; }
}

/** The npm package (node_modules/<pkg>) or source folder (dist/src/<dir>) a frame belongs to. */
function owner(f: { url: string; functionName: string }): string {
  if (!f.url) return f.functionName.startsWith('(') ? f.functionName : '(native / V8)';
  if (f.url.startsWith('node:')) return 'Node internals';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f.url);
  if (pkg) return pkg[1];
  const src = /dist\/(src|bench|tools)\/((?:[^/]+\/)?)/.exec(f.url);
  if (src) return `${src[1]}/${src[2] && !src[2].endsWith('.js/') ? src[2] : ''}`;
  return f.url;
}
