// Two gateway processes sharing a real redis-server enforce one budget; Redis killed mid-test →
// fail open (one warning line, counting in-process) or, with --rate-limit-fail closed, 503 — never a crash.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { startGatewayProcess, startUpstream, type Proc, type Upstream } from '../support/processes.js';
import { catalogueWithLimits } from './small-limits.js';
import { startRedis, type RedisServer } from './redis-server.js';

const test = suite('rate limits shared through Redis');
let up: Upstream;
let redis: RedisServer;
const procs: (Proc & { url: string })[] = [];
const LIMIT = 100;
const DEPTH = '/api/v3/depth?symbol=BTCUSDT&limit=100'; // weight 5

test.before(async () => {
  [up, redis] = await Promise.all([startUpstream(), startRedis()]);
});
test.after(async () => {
  for (const p of procs) await p.stop();
  await up.stop();
  await redis.kill();
});

async function gateway(extra: string[] = []) {
  const p = await startGatewayProcess(['--release', '3.12.0', '--upstream', `exchange=${up.url}`, '--catalogue', catalogue,
    // A generous Redis deadline: these tests share one budget under bursts on a busy machine, where a
    // 50 ms deadline can be missed by a Redis that is up (deadlines: redis-deadline.test.ts).
    '--rate-limit-store', redis.url, '--rate-limit-redis-timeout', '2000', ...extra]);
  procs.push(p);
  return p;
}
const catalogue = catalogueWithLimits({ weight: LIMIT });

const status = async (url: string) => {
  const r = await fetch(url + DEPTH);
  const body = await r.json() as { code?: number };
  return { status: r.status, code: body.code };
};

test('two gateway processes sharing Redis: the combined forwarded weight never exceeds the limit', async () => {
  const [a, b] = await Promise.all([gateway(), gateway()]);
  // Each forwards 5 (weight 25 each), then concurrent bursts on both: 2 x 30 more against what is left of 100.
  for (const url of [a.url, b.url]) for (let i = 0; i < 5; i++) assert.is((await status(url)).status, 200);
  const burst = (url: string) => Promise.all(Array.from({ length: 30 }, () => status(url)));
  const [ra, rb] = await Promise.all([burst(a.url), burst(b.url)]);
  const all = [...ra, ...rb];
  const ok = 10 + all.filter((x) => x.status === 200).length;
  assert.ok(all.every((x) => x.status === 200 || (x.status === 429 && x.code === -1003)), JSON.stringify(all));
  const upstream = (await up.records()).filter((r) => r.url.startsWith('/api/v3/depth')).length;
  assert.is(upstream, ok);
  assert.is(ok * 5, LIMIT, `${ok} forwarded by both together`);
});

test('Redis killed mid-test: fail open logs one line and keeps answering; fail closed answers 503 -1008; no crash', async () => {
  await up.reset();
  const open = procs[0];
  const closed = await gateway(['--rate-limit-fail', 'closed']);
  assert.is((await status(open.url)).status, 429, 'the shared budget is spent');
  assert.is((await status(closed.url)).status, 429, 'the closed one sees the same budget');
  await redis.kill();
  await new Promise((r) => setTimeout(r, 300));
  const afterOpen = await Promise.all(Array.from({ length: 5 }, () => status(open.url)));
  assert.equal(afterOpen.map((x) => x.status), [200, 200, 200, 200, 200], 'counting moved to the process: a fresh budget there');
  const afterClosed = await status(closed.url);
  assert.equal(afterClosed, { status: 503, code: -1008 });
  // The gateways' log lines reach this process through their stderr pipes, maybe after the answers.
  const logged = async (p: { output(): string }, re: RegExp) => {
    for (let i = 0; i < 40 && !re.test(p.output()); i++) await new Promise((r) => setTimeout(r, 50));
    return p.output();
  };
  assert.match(await logged(open, /unreachable \(/), /rate-limit store redis:\/\/127\.0\.0\.1:\d+\/0 unreachable \(.+\); counting in this process/);
  assert.match(await logged(closed, /refusing rate-limited/), /unreachable \(.+\); refusing rate-limited requests with 503/);
  assert.is(open.output().match(/unreachable \(/g)!.length, 1, `one line per outage:\n${open.output()}`);
  for (const p of procs) assert.is(p.child.exitCode, null, 'still running');
  // Endpoints that count against no limit are untouched by the outage.
  assert.is((await fetch(`${closed.url}/sapi/v1/system/status`)).status, 200);
});

test.run();
