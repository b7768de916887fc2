// `npm test` runs this first: the system programs some tests drive, each from its Debian package.
// Missing ones are installed in one apt-get step (with its progress) when that is permitted here
// (root, or passwordless sudo, on Debian or Ubuntu); otherwise one line per missing package names it
// and the command that installs it, and the exit status is 1, before any test runs: a test that
// cannot run its real dependency is a failure, never a skip. Plain .mjs so it runs before the build.
//   node tools/system-packages.mjs [--check] [--help]
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** What each package provides, where the tests look for it, and who needs it. */
const PACKAGES = [
  { pkg: 'chromium', program: '/usr/bin/chromium', why: 'the docs page browser test (test/docs/browser.test.ts)' },
  { pkg: 'redis-server', program: 'redis-server', why: 'the shared rate-limit test (test/rate-limit/redis.test.ts)' },
  { pkg: 'prometheus', program: 'promtool', why: 'the metrics exposition check (test/observe/metrics.test.ts)' },
  { pkg: 'nginx', program: 'nginx', why: 'the tests behind a reverse proxy' },
  { pkg: 'curl', program: 'curl', why: 'the documentation examples (test/docs/examples.test.ts)' },
  { pkg: 'openssl', program: 'openssl', why: 'the TLS tests\' certificates (test/support/certificates.ts, docs/tls.md)' },
];

const USAGE = `usage: node tools/system-packages.mjs [--check]
Ensures the system programs the tests need: ${PACKAGES.map((p) => `${p.program} (Debian package ${p.pkg})`).join(', ')}.
Missing ones are installed with apt-get (apt-get update, then one apt-get install) when running as root or
with passwordless sudo on Debian/Ubuntu; otherwise it prints the install command for each and exits 1.
  --check   only report; install nothing (exit 1 if any is missing)`;

/** Is `program` (an absolute path, or a name looked up on PATH and the sbin folders) executable? */
function found(program) {
  const candidates = program.startsWith('/') ? [program]
    : [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin', '/usr/local/sbin'].filter(Boolean).map((d) => join(d, program));
  return candidates.some((p) => { try { accessSync(p, constants.X_OK); return true; } catch { return false; } });
}

/** How to run apt-get here: [] as root, ['sudo', '-n'] with passwordless sudo, or null (not permitted or not Debian). */
function aptPrefix() {
  if (!existsSync('/etc/debian_version') || !found('apt-get')) return null;
  if (process.getuid?.() === 0) return [];
  if (found('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) return ['sudo', '-n'];
  return null;
}

function run(cmd) {
  console.log(`system-packages: ${cmd.join(' ')}`);
  const r = spawnSync(cmd[0], cmd.slice(1), { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return r.status === 0;
}

function main(args) {
  if (args.includes('--help') || args.includes('-h')) { console.log(USAGE); return 0; }
  const missing = PACKAGES.filter((p) => !found(p.program));
  if (missing.length === 0) return 0;
  const names = missing.map((p) => p.pkg);
  const prefix = args.includes('--check') ? null : aptPrefix();
  if (prefix) {
    console.log(`system-packages: installing ${names.join(', ')} (needed by ${missing.map((p) => p.why).join('; ')})`);
    const ok = run([...prefix, 'apt-get', 'update']) &&
      run([...prefix, 'apt-get', 'install', '-y', '--no-install-recommends', ...names]);
    const still = missing.filter((p) => !found(p.program));
    if (ok && still.length === 0) return 0;
    for (const p of still.length ? still : missing) console.error(`system-packages: ${p.program} is still missing after apt-get (package ${p.pkg})`);
    return 1;
  }
  for (const p of missing) {
    console.error(`system-packages: missing ${p.program}, needed by ${p.why}: install Debian package ${p.pkg} with \`sudo apt-get install -y ${p.pkg}\` (or run npm test as root to have it installed)`);
  }
  console.error(`system-packages: or all at once: sudo apt-get update && sudo apt-get install -y ${names.join(' ')}`);
  return 1;
}

process.exitCode = main(process.argv.slice(2));
