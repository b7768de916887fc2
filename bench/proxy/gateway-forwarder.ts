// The gateway under benchmark, in its own process like the baseline: pinned at the newest release.
// Further arguments are gateway flags (e.g. --rate-limit off, --log-level warn); otherwise it runs
// with the defaults `node dist/src/cli.cjs` has, its access log at info on stderr included: a bench
// that wants it quiet passes --log-level error.
import { readConfig } from '../../src/config.js';
import { startGateway } from '../../src/server.js';
import { reportCpuOnRequest } from './cpu.js';
import { reportMemoryOnRequest } from './memory.js';

const running = await startGateway(readConfig(['--port', '0', '--upstream', `exchange=${process.argv[2]}`, ...process.argv.slice(3)], {}));
console.log(`port ${new URL(running.url).port}`);
reportCpuOnRequest();
reportMemoryOnRequest();
// Exit cleanly on SIGINT and SIGTERM, so `node --cpu-prof` can write its profile and the log its last lines.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
