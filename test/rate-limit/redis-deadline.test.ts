// Issue 22 finding 4: a Redis that stops answering (SIGSTOP: its TCP connection stays up) must not
// hold rate-limited requests until the request deadline. Past --rate-limit-redis-timeout (50 ms by
// default) fail open forwards at once and fail closed answers 503 at once; one log line when Redis
// goes silent and one when it answers again; gateway_rate_limit_store_up says which. The test sets
// 500 ms: on a machine whose cores are shared by several test files, a 50 ms deadline is sometimes
// missed by a Redis that is running (the event loop itself can be late), which would add outages;
// 200 ms was missed once beside two busy loops (the gauge said down before Redis was stopped).
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { startGatewayProcess, startUpstream, type Proc, type Upstream } from '../support/processes.js';
import { catalogueWithLimits } from './small-limits.js';
import { startRedis, type RedisServer } from './redis-server.js';

const test = suite('rate limits: a silent Redis costs a request at most its command deadline');
let up: Upstream;
let redis: RedisServer;
let open: Proc & { url: string };
let closed: Proc & { url: string };
const REDIS_TIMEOUT_MS = 500;
const REQUEST_TIMEOUT_MS = 10_000;
const LIMITED = '/api/v3/depth?symbol=BTCUSDT&limit=100'; // weight 5 against REQUEST_WEIGHT
const UNLIMITED = '/sapi/v1/system/status'; // counts against no limit: the same proxy path, no Redis
const catalogue = catalogueWithLimits({ weight: 100_000 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test.before(async () => {
  [up, redis] = await Promise.all([startUpstream(), startRedis()]);
  const args = (fail: string) => ['--release', '3.12.0', '--upstream', `exchange=${up.url}`, '--catalogue', catalogue,
    '--rate-limit-store', redis.url, '--rate-limit-fail', fail, '--timeout', String(REQUEST_TIMEOUT_MS), '--log-level', 'info'];
  // The setting by flag for one, by environment for the other. Each is kept as soon as it started,
  // so that test.after stops it even if the other failed to start.
  const started = await Promise.allSettled([
    startGatewayProcess([...args('open'), '--rate-limit-redis-timeout', String(REDIS_TIMEOUT_MS)]).then((p) => (open = p)),
    startGatewayProcess(args('closed'), { GATEWAY_RATE_LIMIT_REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS) }).then((p) => (closed = p)),
  ]);
  for (const s of started) if (s.status === 'rejected') throw s.reason;
});
test.after(async () => {
  redis.child.kill('SIGCONT');
  await Promise.all([open?.stop(), closed?.stop()]);
  await up.stop();
  await redis.kill();
});

async function timed(url: string): Promise<{ status: number; code?: number; ms: number }> {
  const t0 = performance.now();
  const r = await fetch(url);
  const body = await r.json() as { code?: number };
  return { status: r.status, code: body.code, ms: performance.now() - t0 };
}

const storeUp = async (url: string) => Number(/\ngateway_rate_limit_store_up (\d)\n/.exec(await (await fetch(`${url}/_gateway/metrics`)).text())?.[1]);
/** Where each gateway's output stood when Redis was stopped: the lines counted are those after it. */
const from = new Map<Proc, number>();
const lines = (p: Proc, re: RegExp) => p.output().slice(from.get(p) ?? 0).split('\n').filter((l) => re.test(l));
async function logged(p: Proc, re: RegExp): Promise<void> {
  for (let i = 0; i < 100 && !lines(p, re).length; i++) await sleep(50);
}

test('SIGSTOP: open forwards and closed answers 503 within a small multiple of the Redis timeout; one line each way; gauge', async () => {
  for (const g of [open, closed]) {
    // Counted in Redis within its deadline: the gauge says up. A command a busy moment made late
    // marks it down until the next answer, so a few tries.
    let up = 0;
    for (let i = 0; i < 10 && up !== 1; i++) {
      assert.is((await timed(g.url + LIMITED)).status, 200, 'counted in Redis');
      up = await storeUp(g.url);
    }
    assert.is(up, 1, `Redis counts within ${REDIS_TIMEOUT_MS} ms:\n${g.output()}`);
  }
  await sleep(1100); // log lines are written at least once a second: what was said before is out
  for (const g of [open, closed]) from.set(g, g.output().length);
  redis.child.kill('SIGSTOP');
  try {
    // Three rounds; each judged against a reference measured with it (a request that never asks
    // Redis: the machine's load included). The best round must be within the bound: a gateway that
    // waited for Redis would wait --timeout in every round, while one busy moment of a shared
    // machine only spoils a round.
    const over: Record<'open' | 'closed', string[]> = { open: [], closed: [] };
    for (let round = 0; round < 3; round++) {
      const ref = Math.max(...(await Promise.all([timed(open.url + UNLIMITED), timed(closed.url + UNLIMITED)])).map((r) => r.ms));
      // A small multiple of the Redis deadline (the first request waits it out), plus the machine's slowness now.
      const bound = 3 * ref + 4 * REDIS_TIMEOUT_MS;
      const [o, c] = await Promise.all([timed(open.url + LIMITED), timed(closed.url + LIMITED)]);
      assert.is(o.status, 200, `fail open forwards (round ${round})`);
      assert.equal([c.status, c.code], [503, -1008], `fail closed refuses (round ${round})`);
      for (const [mode, r] of [['open', o], ['closed', c]] as const) {
        if (r.ms >= bound) over[mode].push(`round ${round}: ${r.ms.toFixed(0)} ms, bound ${bound.toFixed(0)} ms (an unlimited request took ${ref.toFixed(0)} ms)`);
      }
    }
    for (const mode of ['open', 'closed'] as const) {
      assert.ok(over[mode].length < 3, `${mode}: every round answered past its bound with Redis stopped (--timeout is ${REQUEST_TIMEOUT_MS} ms): ${over[mode].join('; ')}`);
    }
    // Many at once: none waits for Redis (only the first noticed its silence).
    const burst = await Promise.all(Array.from({ length: 20 }, () => timed(closed.url + LIMITED)));
    assert.ok(burst.every((r) => r.status === 503 && r.ms < REQUEST_TIMEOUT_MS / 4), JSON.stringify(burst.map((r) => [r.status, Math.round(r.ms)])));
    for (const g of [open, closed]) assert.is(await storeUp(g.url), 0, 'the gauge shows Redis unusable');
    await logged(closed, /no answer within/);
    assert.is(lines(open, new RegExp(`unreachable \\(no answer within ${REDIS_TIMEOUT_MS} ms\\); counting in this process`)).length, 1, open.output());
    assert.is(lines(closed, new RegExp(`unreachable \\(no answer within ${REDIS_TIMEOUT_MS} ms\\); refusing rate-limited requests with 503`)).length, 1, closed.output());
  } finally {
    redis.child.kill('SIGCONT');
  }
  // Redis answers again: a probe notices, one line, counting (and forwarding, for closed) resumes.
  for (const g of [open, closed]) await logged(g, /reachable again/);
  for (const g of [open, closed]) {
    assert.is(lines(g, /reachable again; counting there/).length, 1, g.output());
    assert.is(lines(g, /unreachable \(/).length, 1, `still one line for the outage:\n${lines(g, /unreachable \(/).join('\n')}`);
    assert.is(await storeUp(g.url), 1);
    assert.is((await timed(g.url + LIMITED)).status, 200);
  }
});

test.run();
