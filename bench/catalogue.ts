// Catalogue load + resolve time in-process, cold (YAML parsed and checked) and warm (the
// content-hash-keyed JSON cache), and gateway start-up to its "listening" line; baselines
// measured in the same run: JSON.parse of the same model, and `node -e 0`.
//   npm run build && node dist/bench/catalogue.js [runs]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCatalogue } from '../src/catalogue/load.js';
import { resolveService } from '../src/catalogue/resolve.js';

const RUNS = Number(process.argv[2] ?? 9);
const root = fileURLToPath(new URL('../../', import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (f: () => void) => { const t = performance.now(); f(); return performance.now() - t; };

const loadAndResolve = (cacheDir: string | false) => () => {
  const { catalogue } = loadCatalogue(undefined, { cacheDir });
  for (const s of catalogue.services) for (const r of s.releases.length ? s.releases : [undefined]) resolveService(s, r?.id);
};

const cacheDir = mkdtempSync(join(tmpdir(), 'bench-cat-'));
const cold = Array.from({ length: Math.min(RUNS, 5) }, () => time(loadAndResolve(false)));
loadAndResolve(cacheDir)(); // fill the cache
const warm = Array.from({ length: RUNS }, () => time(loadAndResolve(cacheDir)));
const cacheFile = join(cacheDir, readdirSync(cacheDir)[0]);
const json = readFileSync(cacheFile, 'utf8');
const parse = Array.from({ length: RUNS }, () => time(() => JSON.parse(json)));
const { catalogue } = loadCatalogue(undefined, { cacheDir });
const releases = catalogue.services.reduce((n, s) => n + Math.max(1, s.releases.length), 0);

function startup(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, [join(root, 'dist/src/cli.cjs'), '--port', '0', '--log-level', 'error'], { env: { ...process.env, GATEWAY_CACHE_DIR: cacheDir } });
    child.stdout.on('data', (d: Buffer) => {
      if (/listening on/.test(d.toString())) { resolve(performance.now() - t); child.kill(); }
    });
    child.once('exit', (c) => reject(new Error(`gateway exited ${c}`)));
  });
}
const starts: number[] = [];
for (let i = 0; i < Math.min(RUNS, 7); i++) starts.push(await startup());
const nodes = Array.from({ length: Math.min(RUNS, 7) }, () => time(() => spawnSync(process.execPath, ['-e', '0'])));

const kb = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
const yamlBytes = catalogue.services.length ? readdirSync(join(root, 'catalogue/exchange/endpoints')).reduce((n, f) => n + readFileSync(join(root, 'catalogue/exchange/endpoints', f)).length, 0) : 0;
console.log(`catalogue: ${catalogue.services.map((s) => `${s.id} ${s.endpoints.length} endpoints`).join(', ')}; exchange endpoint YAML ${kb(yamlBytes)}; cached model ${kb(json.length)}`);
console.log(`load + resolve at all ${releases} releases, cold (parse YAML, check schema): ${median(cold).toFixed(1)} ms (median of ${cold.length})`);
console.log(`load + resolve at all ${releases} releases, warm (JSON cache):              ${median(warm).toFixed(1)} ms (median of ${warm.length})`);
console.log(`baseline JSON.parse of the cached model:                                  ${median(parse).toFixed(1)} ms; warm/baseline ${(median(warm) / median(parse)).toFixed(2)}`);
console.log(`gateway start-up to "listening" (warm cache): ${median(starts).toFixed(0)} ms; baseline node -e 0: ${median(nodes).toFixed(0)} ms; ratio ${(median(starts) / median(nodes)).toFixed(2)}`);
