// Throughput of the Cardano transaction builders on one core (Node is single-threaded, and so is
// the WASM inside), next to a baseline measured in the same run: a bare CSL decode loop
// (Transaction.from_hex + free of a send_lovelace transaction). The ratio builds/decodes makes
// the figures comparable across machines.
//
//   node dist/bench/builders.js [--seconds S]     (default 2 s of measurement per row)
// Targets: send_lovelace ≥ 300 builds/s, unlock_fund ≥ 50 builds/s.
import * as CSL from '../src/builders/cardano/csl.js';
import { BUILDER_CASES } from '../test/builders/cardano/cases.js';

const secondsArg = process.argv.indexOf('--seconds');
const SECONDS = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 2;
const TARGETS: Record<string, number> = { send_lovelace: 300, unlock_fund: 50 };

/** Run `op` for ~SECONDS after a warm-up; return operations per second. */
async function rate(op: () => unknown): Promise<number> {
  const warmUntil = performance.now() + 200;
  while (performance.now() < warmUntil) await op();
  let n = 0;
  const start = performance.now();
  const end = start + SECONDS * 1000;
  while (performance.now() < end) {
    await op();
    n++;
  }
  return n / ((performance.now() - start) / 1000);
}

const builders = BUILDER_CASES;
const [, sendLovelace, sendLovelaceRequest] = builders.find(([name]) => name === 'send_lovelace')!;

const sample = ((await sendLovelace(sendLovelaceRequest())) as { txHex: string }).txHex;
const baseline = await rate(() => CSL.Transaction.from_hex(sample).free());

console.log(`baseline: CSL Transaction.from_hex + free (${sample.length / 2}-byte tx): ${baseline.toFixed(0)} decodes/s`);
console.log('');
console.log(`${'builder'.padEnd(22)}${'builds/s'.padStart(10)}${'ms/build'.padStart(10)}${'ratio'.padStart(10)}  target`);
let missed = 0;
for (const [name, plugin, request] of builders) {
  const body = request();
  const r = await rate(() => plugin(body));
  const target = TARGETS[name];
  const verdict = target === undefined ? '' : r >= target ? `≥ ${target} ok` : `≥ ${target} MISSED`;
  if (target !== undefined && r < target) missed++;
  console.log(`${name.padEnd(22)}${r.toFixed(0).padStart(10)}${(1000 / r).toFixed(2).padStart(10)}${(r / baseline).toFixed(4).padStart(10)}  ${verdict}`);
}
process.exitCode = missed > 0 ? 1 : 0;
