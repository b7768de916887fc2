// What a path template costs the proxy: one gateway process with the default catalogue, CPU per
// proxied GET on a static route (GET /gists/public) against a templated one of the same service
// (GET /gists/{gist_id}: the segment tree, the path parameter's check), alternated round by round.
//   npm run build && node dist/bench/proxy-templates.js [requests-per-round] [rounds]
import { measure } from './proxy/drive.js';
import { startProcess } from './proxy/processes.js';

const PER_ROUND = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 9);
const STATIC = '/gists/public';
const TEMPLATED = '/gists/aa5a315d61ae9438b18d';

const upstream = await startProcess('proxy/upstream.js');
const base = `http://127.0.0.1:${upstream.port}`;
const gw = await startProcess('proxy/gateway-forwarder.js', [base, '--upstream', `github=${base}`, '--rate-limit', 'off', '--log-level', 'error']);
await measure(gw, 3000, undefined, STATIC); // warm up JIT and pools
await measure(gw, 3000, undefined, TEMPLATED);
const ratios: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const us: Record<string, number> = {};
  for (const path of i % 2 ? [STATIC, TEMPLATED] : [TEMPLATED, STATIC]) us[path] = (await measure(gw, PER_ROUND, undefined, path)).cpuUs;
  ratios.push(us[TEMPLATED] / us[STATIC]);
  console.log(`round ${i + 1}: static ${us[STATIC].toFixed(1)} µs, templated ${us[TEMPLATED].toFixed(1)} µs; templated/static ${ratios.at(-1)!.toFixed(3)}`);
}
const sorted = [...ratios].sort((a, b) => a - b);
console.log(`\n${PER_ROUND} requests x ${ROUNDS} rounds: templated/static CPU per request, median ${sorted[Math.floor(ROUNDS / 2)].toFixed(3)} (min ${sorted[0].toFixed(3)}, max ${sorted.at(-1)!.toFixed(3)})`);
process.exit(0);
