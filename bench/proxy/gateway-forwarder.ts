// The gateway under benchmark, in its own process like the baseline: pinned at the newest release.
// Further arguments are gateway flags (e.g. --rate-limit off, --catalogue <dir>).
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway } from '../../src/server.js';
import { reportCpuOnRequest } from './cpu.js';
import { reportMemoryOnRequest } from './memory.js';

const running = await startGateway(readConfig(['--port', '0', '--upstream', `exchange=${process.argv[2]}`, ...process.argv.slice(3)], {}), { logger: createLogger('error') });
console.log(`port ${new URL(running.url).port}`);
reportCpuOnRequest();
reportMemoryOnRequest();
// Exit cleanly on SIGINT so `node --cpu-prof` can write its profile.
process.on('SIGINT', () => process.exit(0));
