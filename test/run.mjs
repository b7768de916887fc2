// Runs every uvu test file compiled under dist/test and ends with the line CI reads:
// "N passed, N failed[, N skipped]". Each file runs in its own process so one file's servers,
// timers or WASM memory cannot leak into the next; exit status is non-zero if anything failed.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const testDir = join(root, 'dist', 'test');
const filter = process.argv[2] ? new RegExp(process.argv[2]) : null;

function files(dir) {
  return readdirSync(dir).sort().flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return name.endsWith('.test.js') ? [p] : [];
  });
}

let passed = 0, failed = 0, skipped = 0;
const failures = [];
for (const file of files(testDir)) {
  const rel = relative(root, file);
  if (filter && !filter.test(rel)) continue;
  const started = Date.now();
  const r = spawnSync(process.execPath, ['--expose-gc', file], { cwd: root, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' }, timeout: 15 * 60_000 });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  const total = Number(/Total:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const ok = Number(/Passed:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const skip = Number(/Skipped:\s+(\d+)/.exec(out)?.[1] ?? 0);
  // A file that crashed before uvu's summary counts as one failure.
  const bad = r.status !== 0 && total === ok ? Math.max(1, total - ok) : total - ok - skip;
  passed += ok; skipped += skip; failed += Math.max(0, bad);
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`${bad > 0 || r.status !== 0 ? 'FAIL' : 'ok  '} ${rel} (${ok}/${total}, ${secs}s)`);
  if (bad > 0 || r.status !== 0) {
    failures.push(rel);
    process.stdout.write(out.split('\n').map((l) => `    ${l}`).join('\n') + '\n');
  }
}
if (failures.length) console.log(`\nfailed files:\n  ${failures.join('\n  ')}`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed > 0 || failures.length ? 1 : 0;
