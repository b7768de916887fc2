// Hot reload of the whole exchange catalogue (issue 14), in a running gateway serving every
// release, on a copy of the catalogue: the time POST /_gateway/reload's work takes (load and check
// on a worker thread, compile every release's program, swap), for
//   - an unchanged catalogue (the JSON cache answers),
//   - a one-file edit (one YAML file parsed again; the others' parses and the validators kept),
//   - a cold cache (every file parsed and every schema compiled),
// against the baseline of a cold in-process load of the same catalogue in the same run.
//   npm run build && node dist/bench/reload.js [runs]
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCatalogue } from '../src/catalogue/load.js';
import { readConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startGateway } from '../src/server.js';

const RUNS = Number(process.argv[2] ?? 5);
const root = fileURLToPath(new URL('../../', import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const work = mkdtempSync(join(tmpdir(), 'bench-reload-'));
const catalogue = join(work, 'catalogue');
const cacheDir = join(work, 'cache');
cpSync(join(root, 'catalogue'), catalogue, { recursive: true });
const edited = join(catalogue, 'exchange', 'endpoints', 'market.yaml');

try {
  const baseline = Array.from({ length: 3 }, () => { const t = performance.now(); loadCatalogue(catalogue, { cacheDir: false }); return performance.now() - t; });
  const gw = await startGateway(readConfig(['--port', '0', '--catalogue', catalogue, '--cache-dir', cacheDir, '--release', 'all', '--rate-limit', 'off'], {}), { logger: createLogger('silent') });
  const reload = async () => {
    const outcome = await gw.reload('bench');
    if (!outcome.ok) throw new Error(`reload refused: ${outcome.summary}`);
    return outcome.ms;
  };
  const unchanged: number[] = [];
  const oneFile: number[] = [];
  const cold: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    unchanged.push(await reload());
    appendFileSync(edited, `# edit ${i}\n`);
    oneFile.push(await reload());
  }
  for (let i = 0; i < Math.min(RUNS, 3); i++) {
    rmSync(cacheDir, { recursive: true, force: true });
    appendFileSync(edited, `# cold ${i}\n`);
    cold.push(await reload());
  }
  await gw.close(0);
  const fmt = (xs: number[]) => `median ${median(xs).toFixed(0)} ms (${xs.map((x) => x.toFixed(0)).join(' ')})`;
  console.log(`reload of the exchange catalogue in a gateway serving all its releases, ${RUNS} runs`);
  console.log(`  baseline: in-process load, no cache (the first also loads yaml and ajv)${fmt(baseline)}`);
  console.log(`  reload, catalogue unchanged               ${fmt(unchanged)}`);
  console.log(`  reload after a one-file edit              ${fmt(oneFile)}`);
  console.log(`  reload with the cache folder emptied      ${fmt(cold)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
