// Two costs behind choices in src/, measured in this process and in fresh ones:
// - loading cardano-serialization-lib (a 1.4 MB CommonJS file) with an ESM import, which makes Node
//   scan the whole text with cjs-module-lexer, vs require() (src/builders/cardano/csl.ts), CPU of a
//   fresh process each, median of 7;
// - undici's Request constructor with the 3 headers a bare forward sends vs those plus the 4 the
//   gateway adds upstream (X-Forwarded-For, Forwarded, X-Request-Id, traceparent): what each added
//   header costs before anything is written (the proxy's remaining gap, README Performance).
//   npm run build && node dist/bench/load-and-header-costs.js
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function cslLoadCpuMs(how: 'import' | 'require'): number {
  const load = how === 'import' ? "await import('@emurgo/cardano-serialization-lib-nodejs')" : "createRequire(import.meta.url)('@emurgo/cardano-serialization-lib-nodejs')";
  const script = `import { createRequire } from 'node:module'; const c = process.cpuUsage(); ${load}; const u = process.cpuUsage(c); console.log((u.user + u.system) / 1000);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('../../', import.meta.url), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return Number(r.stdout.trim());
}

const runs = { import: [] as number[], require: [] as number[] };
for (let i = 0; i < 7; i++) for (const how of ['import', 'require'] as const) runs[how].push(cslLoadCpuMs(how));
console.log(`CSL load, CPU of a fresh process (median of 7): ESM import ${median(runs.import).toFixed(0)} ms, require() ${median(runs.require).toFixed(0)} ms`);

// undici's internal Request (lib/core/request.js): what dispatch() builds for every forward.
const Request = require('undici/lib/core/request.js') as new (origin: string, opts: object, handler: object) => unknown;
const handler = { onRequestStart() {}, onResponseStart() {}, onResponseData() {}, onResponseEnd() {}, onResponseError() {} };
const base = { 'user-agent': 'undici', accept: '*/*', 'accept-encoding': 'gzip, deflate' };
const added = {
  ...base,
  'x-forwarded-for': '127.0.0.1', forwarded: 'for=127.0.0.1;proto=http',
  'x-request-id': '0f8fad5b-d9cb-469f-a165-70867728950e', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
};
function nsPerRequest(headers: Record<string, string>): number {
  const make = () => new Request('http://127.0.0.1:1', { path: '/api/v3/klines?symbol=BTCUSDT', method: 'GET', headers }, handler);
  for (let i = 0; i < 20_000; i++) make();
  const n = 300_000;
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) make();
  return Number(process.hrtime.bigint() - t) / n;
}
const three: number[] = [], seven: number[] = [];
for (let round = 0; round < 5; round++) {
  three.push(nsPerRequest(base));
  seven.push(nsPerRequest(added));
}
const [a, b] = [median(three), median(seven)];
console.log(`undici Request: 3 headers ${a.toFixed(0)} ns, 7 headers ${b.toFixed(0)} ns, so ${((b - a) / 4).toFixed(0)} ns per added header (median of 5 rounds)`);
