// npm run bench: every benchmark in turn, each in its own process (they compare against
// baselines measured in the same run, so their figures stand alone; this only sequences them).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCHES: [string, string[]][] = [
  ['catalogue.js', []],
  ['diff.js', []],
  ['reload.js', []],
  ['proxy.js', ['20000', '10']],
  ['proxy-instructions.js', []],
  ['parameters.js', []],
  ['observe.js', []],
  ['log-buffer.js', []],
  ['builders.js', ['--seconds', '1']],
  ['signing.js', []],
  ['websocket.js', []],
  ['startup.js', []],
  ['soak.js', []],
  ['load-and-header-costs.js', []],
];

let failed = 0;
for (const [file, args] of BENCHES) {
  console.log(`\n=== bench/${file.replace(/\.js$/, '.ts')} ${args.join(' ')}`);
  const r = spawnSync(process.execPath, [fileURLToPath(new URL(file, import.meta.url)), ...args], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
