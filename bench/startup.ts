// Start-up to the first 200: wall time from spawning the process to the first 200 answer of
// GET /_gateway/health, for the gateway (pinned at the newest release, warm catalogue cache) and for
// a bare node:http server script, interleaved in the same run; medians and their ratio (issue 10:
// gateway ≤ 2× bare).
//   npm run build && node dist/bench/startup.js [runs] [--profile]
// --profile: also run the gateway once under `node --cpu-prof` and list where its start-up goes
// (self time by package or source folder, and the slowest module imports measured alone).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const RUNS = Number(args.find((a) => /^\d+$/.test(a)) ?? 9);
const PROFILE = args.includes('--profile');
const root = fileURLToPath(new URL('../../', import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cacheDir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
const env = { ...process.env, GATEWAY_CACHE_DIR: cacheDir };

const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as { port: number };
    s.close(() => resolve(port));
  });
});

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

/** Spawn `node ...argv` (with the port appended by `withPort`) and time spawn → first 200. */
async function timeToFirst200(withPort: (port: number) => string[]): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, withPort(port), { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => { err += d; });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${withPort(port).join(' ')} exited ${child.exitCode}: ${err}`);
      if (await health(port) === 200) return performance.now() - started;
      if (performance.now() - started > 30_000) throw new Error(`no 200 within 30 s: ${err}`);
      await new Promise((r) => setTimeout(r, 2)); // poll every ~2 ms: cheap next to a start-up
    }
  } finally {
    await stop(child);
  }
}

const gateway = (port: number) => [join(root, 'dist/src/cli.js'), '--port', String(port), '--log-level', 'error'];
const bare = (port: number) => [join(root, 'dist/bench/startup/bare-server.js'), String(port)];

await timeToFirst200(gateway); // fill the catalogue cache, warm the OS file cache
await timeToFirst200(bare);
const g: number[] = [], b: number[] = [];
for (let i = 0; i < RUNS; i++) {
  // Interleaved so drift in machine load hits both alike.
  g.push(await timeToFirst200(gateway));
  b.push(await timeToFirst200(bare));
}
console.log(`start-up to the first 200 of GET /_gateway/health, ${RUNS} runs each (warm catalogue cache)`);
console.log(`bare node:http server: median ${median(b).toFixed(0)} ms (runs ${b.map((x) => x.toFixed(0)).join(' ')})`);
console.log(`gateway:               median ${median(g).toFixed(0)} ms (runs ${g.map((x) => x.toFixed(0)).join(' ')})`);
console.log(`ratio gateway/bare: ${(median(g) / median(b)).toFixed(2)} (target ≤ 2)`);

if (PROFILE) await profile();
rmSync(cacheDir, { recursive: true, force: true });

interface ProfileNode { id: number; callFrame: { url: string; functionName: string }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

/** Self time of one gateway start-up under --cpu-prof, grouped by npm package or source folder. */
async function profile(): Promise<void> {
  // In one process that starts the gateway, gets its first 200 and exits by itself (a killed
  // process writes no profile).
  const port = await freePort();
  const script = `
    const { readConfig } = await import(${JSON.stringify(join(root, 'dist/src/config.js'))});
    const { startGateway } = await import(${JSON.stringify(join(root, 'dist/src/server.js'))});
    const { createLogger } = await import(${JSON.stringify(join(root, 'dist/src/log.js'))});
    const running = await startGateway(readConfig(['--port', '${port}'], {}), { logger: createLogger('error') });
    const res = await fetch(running.url + '/_gateway/health');
    if (res.status !== 200) throw new Error('health ' + res.status);
    await running.close();`;
  const profDir = mkdtempSync(join(tmpdir(), 'bench-startup-prof-'));
  const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-interval', '100', '--input-type=module', '-e', script], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`profiled start-up failed: ${r.stderr}`);
  const prof = JSON.parse(readFileSync(join(profDir, readdirSync(profDir)[0]), 'utf8')) as Profile;
  rmSync(profDir, { recursive: true, force: true });
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  prof.samples.forEach((id, i) => {
    const key = owner(byId.get(id)!.callFrame);
    self.set(key, (self.get(key) ?? 0) + prof.timeDeltas[i] / 1000);
  });
  const total = (prof.endTime - prof.startTime) / 1000;
  console.log(`\nwhere one in-process start-up goes (node --cpu-prof, self time, ${total.toFixed(0)} ms profiled):`);
  for (const [k, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${ms.toFixed(1).padStart(7)} ms  ${k}`);

  console.log('\neach module imported alone in a fresh process (median of 5, ms above `node -e 0` with an empty import):');
  const mods = ['koa', '@koa/router', '@koa/cors', 'ajv', 'undici', 'ws', 'yaml', 'node-forge', '@emurgo/cardano-serialization-lib-nodejs',
    ...['src/catalogue/load.js', 'src/gateway/app.js', 'src/gateway/websocket/index.js', 'src/upstream/proxy.js', 'src/builders/registry.js', 'src/server.js']
      .map((p) => join(root, 'dist', p))];
  const importMs = (spec: string) => {
    const code = `const t = performance.now(); ${spec ? `await import(${JSON.stringify(spec)});` : ''} console.log(performance.now() - t);`;
    return median(Array.from({ length: 5 }, () => Number(spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' }).stdout)));
  };
  const rows = mods.filter((m) => !m.startsWith(root) || existsJs(m)).map((m) => [m.replace(join(root, 'dist/'), ''), importMs(m)] as const);
  for (const [m, ms] of [...rows].sort((a, b) => b[1] - a[1])) console.log(`  ${ms.toFixed(1).padStart(7)} ms  ${m}`);
}

function existsJs(p: string): boolean {
  try { readFileSync(p); return true; } catch { return false; }
}

/** The npm package (node_modules/<pkg>) or source folder (dist/src/<dir>) a frame belongs to. */
function owner(f: { url: string; functionName: string }): string {
  if (!f.url) return f.functionName.startsWith('(') ? f.functionName : '(native / V8)';
  if (f.url.startsWith('node:')) return `node:${f.url.slice(5).split('/')[0]} (Node internals)`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f.url);
  if (pkg) return pkg[1];
  const src = /dist\/(src|bench|tools)\/((?:[^/]+\/)?)/.exec(f.url);
  if (src) return `${src[1]}/${src[2] && !src[2].endsWith('.js/') ? src[2] : ''}`;
  return f.url;
}
