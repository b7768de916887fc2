// The parameter stage alone: checkParameters (query pairs read, collected, checked by the route's
// compiled validator with coercion) on GET /api/v3/klines at the default release, in this process.
//   npm run build && node dist/bench/parameters.js [calls-per-round]
import { createLogger } from '../src/log.js';
import { readConfig } from '../src/config.js';
import { checkParameters, type RequestState } from '../src/gateway/pipeline.js';
import { compileProgram } from '../src/gateway/program/program.js';
import type { UpstreamProxy } from '../src/upstream/proxy.js';
import type { Admission } from '../src/gateway/admission/admission.js';
import { startGateway } from '../src/server.js';
import { nsPerCall } from './ns-per-call.js';

const N = Number(process.argv[2] ?? 1_000_000);
const QUERY = 'symbol=BTCUSDT&interval=1m&limit=10';

// A gateway's own views of the catalogue (started on a port nothing forwards to), compiled into a
// program for the exchange alone, as the gateway does per release.
const running = await startGateway(readConfig(['--port', '0', '--upstream', 'exchange=http://127.0.0.1:9', '--rate-limit', 'off'], {}), { logger: createLogger('silent') });
const views = running.views.filter((v) => v.service.id === 'exchange');
const program = compileProgram({
  views, plugins: new Map(), upstreams: {}, hooks: [], strict: false, bodyLimit: 1 << 20, corsOrigins: [], credentialed: new Set(),
  allowedHosts: [], admission: undefined as unknown as Admission, proxy: undefined as unknown as UpstreamProxy,
});
const route = program.table.byKey('GET /api/v3/klines')!;
const EMPTY = Buffer.alloc(0);
const NONE: ReadonlySet<string> = new Set();
const headers = { host: '127.0.0.1' };
const once = (): RequestState => {
  const state: RequestState = { route, url: `/api/v3/klines?${QUERY}`, headers, body: EMPTY, supplied: NONE, drop: NONE, own: {}, params: {} };
  checkParameters(program, state, QUERY);
  return state;
};
const checked = once().params;
if (checked.limit !== 10 || checked.interval !== '1m') throw new Error(`unexpected parameters ${JSON.stringify(checked)}`);
nsPerCall(`checkParameters, GET /api/v3/klines?${QUERY}`, N, once);
await running.close(0);
process.exit(0);
