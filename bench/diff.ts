// Cold-process cost of a whole-range release diff, as CI pays it:
//   node dist/tools/diff-releases.js <first> <last> --format json      (catalogue JSON cache warm)
// against a bare `node -e 0` measured in the same run, interleaved so machine load hits both alike.
//
//   node dist/bench/diff.js [--runs N] [--from <id>] [--to <id>] [--service <id>]
// Defaults: 15 runs, the service's first and last releases. Budget: median ≤ 2× the median of
// `node -e 0` in the same run (a ratio, so a slow or busy machine does not move the goalposts).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCatalogue } from '../src/catalogue/load.js';
import { flag, parseArgs } from '../src/args.js';
import { versionedService } from '../src/diff/index.js';

const BUDGET_RATIO = 2;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TOOL = join(ROOT, 'dist', 'tools', 'diff-releases.js');

const args = parseArgs(process.argv.slice(2), ['runs', 'from', 'to', 'service']);
const runs = Number(flag(args, 'runs') ?? 15);
const svc = versionedService(loadCatalogue().catalogue, flag(args, 'service')); // also warms the cache
const from = flag(args, 'from') ?? svc.releases[0].id;
const to = flag(args, 'to') ?? svc.releases.at(-1)!.id;
const diffArgs = [TOOL, from, to, '--format', 'json', '--service', svc.id];

function wall(argv: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

wall(diffArgs); // warm-up: page cache, compiled-code cache of node itself
const base: number[] = [];
const cold: number[] = [];
for (let i = 0; i < runs; i++) {
  base.push(wall(['-e', '0']));
  cold.push(wall(diffArgs));
}
const mb = median(base);
const md = median(cold);
console.log(`diff ${svc.id} ${from} → ${to} --format json, cold process, ${runs} runs (warm catalogue cache)`);
console.log(`  baseline node -e 0   median ${mb.toFixed(1)} ms   (min ${Math.min(...base).toFixed(1)}, max ${Math.max(...base).toFixed(1)})`);
console.log(`  diff-releases        median ${md.toFixed(1)} ms   (min ${Math.min(...cold).toFixed(1)}, max ${Math.max(...cold).toFixed(1)})`);
const ratio = md / mb;
console.log(`  ratio ${ratio.toFixed(2)}×, above baseline ${(md - mb).toFixed(1)} ms; budget ${BUDGET_RATIO}× node -e 0: ${ratio <= BUDGET_RATIO ? 'ok' : 'OVER'}`);
if (ratio > BUDGET_RATIO) process.exitCode = 1;
