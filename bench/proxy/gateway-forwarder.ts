// The gateway under benchmark, in its own process like the baseline: pinned at the newest release.
// Further arguments are gateway flags (e.g. --rate-limit off, --log-level warn); otherwise it runs
// with the defaults `node dist/src/cli.cjs` has, its access log at info on stderr included: a bench
// that wants it quiet passes --log-level error.
import { readConfig } from '../../src/config.js';
import { startGateway } from '../../src/server.js';
import { reportCpuOnRequest } from './cpu.js';
import { reportMemoryOnRequest } from './memory.js';

// The default catalogue's github service goes to the same local upstream unless named: a bench never reaches out.
const flags = process.argv.slice(3);
const github = flags.some((f) => f.startsWith('github=')) ? [] : ['--upstream', `github=${process.argv[2]}`];
const running = await startGateway(readConfig(['--port', '0', '--upstream', `exchange=${process.argv[2]}`, ...github, ...flags], {}));
console.log(`port ${new URL(running.url).port}`);
reportCpuOnRequest();
reportMemoryOnRequest();
// Exit cleanly on SIGINT and SIGTERM, so `node --cpu-prof` can write its profile and the log its last lines.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
