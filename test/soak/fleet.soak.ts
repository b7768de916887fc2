// Issue 28: a fleet on real parts. Three gateway processes (the CLI as shipped) behind nginx
// (round-robin, passive health checks, retries on the next gateway), Redis for the rate limits and
// the fleet channel, a local upstream that records every request:
//   - a catalogue edit reloaded on one replica is served by all three within 2 s; a broken one nowhere;
//   - a rolling restart under steady load (SIGTERM one, wait until it is back, the next), every
//     stopping setting at its default: 0 failed requests, no order (POST) sent twice;
//   - one replica SIGKILLed under load: failures bounded by what it had in flight;
//   - the REQUEST_WEIGHT budget held across replicas: the upstream gets at most the limit (+ one
//     in-flight request per replica), however nginx spreads the load.
// Figures are printed for docs/performance.md.
import { createHmac } from 'node:crypto';
import { rmSync } from 'node:fs';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { catalogueCopy, dirs, endpoint } from '../gateway/reload-load.js';
import { startProcess, startUpstream, ROOT, type Proc, type Upstream } from '../support/processes.js';
import { freePort, startNginx, type Nginx } from '../support/nginx.js';
import { startRedis, type RedisServer } from '../rate-limit/redis-server.js';

const test = suite('fleet behind nginx (soak)');
let redis: RedisServer;
let upstream: Upstream;
let nginx: Nginx;
const cat = catalogueCopy();
const ports: number[] = [];
const replicas: (Proc | undefined)[] = [];
const KEY = 'fleet-api-key';
const SECRET = 'fleet-secret-0123456789abcdef';
const NO_LEARNING = { 'x-test-used-weight': '1' }; // the stub would otherwise report its whole record count as used weight

async function startReplica(i: number): Promise<Proc> {
  const args = ['--port', String(ports[i]), '--release', '3.12.0', '--catalogue', cat.dir, '--upstream', `exchange=${upstream.url}`,
    '--rate-limit-store', redis.url, '--rate-limit-redis-timeout', '2000', '--fleet', redis.url, '--shutdown-grace', '5000', '--log-level', 'warn'];
  return startProcess(`${ROOT}dist/src/cli.cjs`, args, /listening on (http:\/\/\S+)/, { GATEWAY_BUILDER_PRIORITY: 'normal' }, 20_000);
}

test.before(async () => {
  [redis, upstream] = await Promise.all([startRedis(), startUpstream({ [KEY]: { hmac: SECRET } }, undefined, { ownProcess: true })]);
  for (let i = 0; i < 3; i++) ports.push(await freePort());
  for (let i = 0; i < 3; i++) replicas.push(await startReplica(i));
  nginx = await startNginx(ports);
});
test.after(async () => {
  await nginx?.stop();
  await Promise.all(replicas.map((r) => r?.stop()));
  await Promise.all([redis.kill(), upstream.stop()]);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const replicaUrl = (i: number) => `http://127.0.0.1:${ports[i]}`;

const events: string[] = [];
const mark = (what: string) => events.push(`${new Date().toISOString().slice(11, 23)} ${what}`);

interface Load { sent: number; failed: string[]; orders: Set<string>; stop(): Promise<void> }

/** Steady load through nginx: ~100 GETs and ~5 orders a second, each order with its own client id. */
function steadyLoad(): Load {
  const load: Load = { sent: 0, failed: [], orders: new Set(), stop: async () => {} };
  let running = true;
  let n = 0;
  const one = async (i: number) => {
    const order = i % 20 === 0;
    const id = `fleet-${process.pid}-${i}`;
    const query = `symbol=BTCUSDT&side=BUY&type=MARKET&quantity=1&newClientOrderId=${id}&timestamp=${Date.now()}`;
    const path = order ? `/api/v3/order?${query}&signature=${createHmac('sha256', SECRET).update(query).digest('hex')}` : '/api/v3/ping';
    try {
      const res = await fetch(`${nginx.url}${path}`, { method: order ? 'POST' : 'GET', headers: { ...NO_LEARNING, 'x-mbx-apikey': KEY }, signal: AbortSignal.timeout(15_000) });
      if (res.status === 200) await res.arrayBuffer();
      if (res.status !== 200) { const f = `${order ? 'POST' : 'GET'} ${res.status} ${(await res.text()).slice(0, 200)}`; load.failed.push(f); mark(`FAILED ${f.slice(0, 60)}`); }
      else if (order) load.orders.add(id);
    } catch (e) {
      load.failed.push(`${order ? 'POST' : 'GET'} ${(e as Error).message}`); mark(`FAILED ${(e as Error).message}`);
    }
    load.sent++;
  };
  const workers = Array.from({ length: 4 }, async () => {
    while (running) {
      const t = performance.now();
      await one(n++);
      await new Promise((r) => setTimeout(r, Math.max(0, 40 - (performance.now() - t))));
    }
  });
  load.stop = async () => { running = false; await Promise.all(workers); };
  return load;
}

/** Pings this replica answered (its request histogram's count for the route). */
const servedPings = (metrics: string) => metrics.split('\n').filter((l) => l.startsWith('http_request_duration_seconds_count') && l.includes('route="/api/v3/ping"'))
  .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

async function until(what: string, check: () => Promise<boolean>, ms: number): Promise<number> {
  const t0 = Date.now();
  while (!(await check().catch(() => false))) {
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return Date.now() - t0;
}

test('a catalogue edit reloaded on one replica: all three serve it within 2 s; a broken edit swaps nowhere', async () => {
  cat.write(endpoint(1) + endpoint(7));
  const res = await fetch(`${replicaUrl(0)}/_gateway/reload`, { method: 'POST', signal: AbortSignal.timeout(20_000) });
  assert.is(res.status, 200);
  const reloadMs = ((await res.json()) as { ms: number }).ms;
  const t0 = Date.now();
  // Each other replica runs a reload of its own once told: allowed 2 s, or twice what the first took
  // on this machine now (a busy machine slows every reload alike), whichever is more.
  const allowed = Math.max(2000, 2 * reloadMs + 500);
  await Promise.all([1, 2].map((i) => until(`replica ${i} serves the edit`, async () => (await fetch(`${replicaUrl(i)}/api/v3/extra7`, { headers: NO_LEARNING })).status === 200, allowed)));
  const converged = Date.now() - t0;
  console.log(`convergence: the other two replicas served the edit ${converged} ms after the reload answered (that reload took ${reloadMs} ms)`);
  assert.ok(converged <= allowed, `converged in ${converged} ms, allowed ${allowed}`);
  const health = await (await fetch(`${replicaUrl(2)}/_gateway/health`)).json() as { fleet: { agree: boolean; converged: boolean } };
  await until('the fleet agrees', async () => ((await (await fetch(`${replicaUrl(1)}/_gateway/health`)).json()) as { fleet: { agree: boolean } }).fleet.agree, 5000);
  assert.ok(health.fleet.converged);
  cat.write(`${endpoint(8)}  - method: GET\n    path: /api/v3/broken\n    parameters:\n      - { name: x, schema: { type: integr } }\n`);
  assert.is((await fetch(`${replicaUrl(1)}/_gateway/reload`, { method: 'POST', signal: AbortSignal.timeout(20_000) })).status, 422);
  await new Promise((r) => setTimeout(r, 1000));
  for (let i = 0; i < 3; i++) assert.is((await fetch(`${replicaUrl(i)}/api/v3/extra8`, { headers: NO_LEARNING })).status, 404, `replica ${i} did not swap`);
  cat.write(endpoint(1) + endpoint(7)); // back to the good copy (a replica restarted below reads it)
});

test('rolling restart under steady load, default stop settings: 0 failed requests, no order sent twice', async () => {
  // Every replica is up before the restart begins (one that died would be a finding of its own).
  for (const [i, r] of replicas.entries()) assert.is(r!.child.exitCode ?? r!.child.signalCode, null, `replica ${i} exited before the rolling restart:\n${r!.output().slice(-2000)}`);
  await upstream.reset();
  const load = steadyLoad();
  await new Promise((r) => setTimeout(r, 1000));
  for (let i = 0; i < 3; i++) {
    mark(`stop ${i} port ${ports[i]}`);
    // SIGTERM with the default --accept-grace: readiness 503; GETs 503 (nginx retries them on another
    // and marks this one down), orders served, until no connection comes for 250 ms; then the listener
    // closes, in-flight requests finish, exit.
    await replicas[i]!.stop();
    mark(`stopped ${i}`);
    replicas[i] = await startReplica(i);
    mark(`listening ${i}`);
    await until(`replica ${i} ready`, async () => (await fetch(`${replicaUrl(i)}/_gateway/ready`)).status === 200, 10_000);
    mark(`ready ${i}`);
    // As an operator (or Kubernetes with maxUnavailable 0) would: the next goes only once the balancer
    // sends to this one again. nginx keeps a server it saw refuse out for fail_timeout, counted in whole
    // seconds, after it is back: taking the next down sooner can leave no server nginx deems live.
    await until(`nginx sends to replica ${i} again`, async () => servedPings(await (await fetch(`${replicaUrl(i)}/_gateway/metrics`)).text()) > 0, 10_000);
    mark(`served by nginx ${i}`);
  }
  await new Promise((r) => setTimeout(r, 1000));
  await load.stop();
  const records = await upstream.records();
  const ids = records.filter((r) => r.method === 'POST').map((r) => new URL(r.url, 'http://x').searchParams.get('newClientOrderId'));
  const twice = ids.length - new Set(ids).size;
  console.log(`rolling restart: ${load.sent} requests, ${load.failed.length} failed, ${ids.length} orders reached the upstream, ${twice} twice`);
  assert.equal(load.failed.map((f) => f.slice(0, 12)), [], `${load.failed.length} of ${load.sent} failed; nginx said:\n${nginx.errors().split('\n').slice(0, 20).join('\n')}\ntimeline:\n${events.slice(0, 80).join('\n')}`);
  assert.is(twice, 0);
  assert.is(ids.length, load.orders.size, 'every order answered 200 reached the upstream once');
  assert.ok(load.sent > 200, `only ${load.sent} sent`);
});

test('one replica SIGKILLed under load: failures bounded by its in-flight requests', async () => {
  const load = steadyLoad();
  await new Promise((r) => setTimeout(r, 1000));
  replicas[1]!.child.kill('SIGKILL');
  await new Promise((r) => replicas[1]!.child.once('exit', r));
  await new Promise((r) => setTimeout(r, 2000));
  await load.stop();
  console.log(`SIGKILL: ${load.sent} requests, ${load.failed.length} failed (${load.failed.join(', ') || 'none'})`);
  // 4 clients: at most 4 requests were in flight anywhere; nginx retries the idempotent ones.
  assert.ok(load.failed.length <= 4, load.failed.join('\n'));
  replicas[1] = await startReplica(1);
});

test('the REQUEST_WEIGHT budget is held across replicas, however nginx spreads the load', async () => {
  await new Promise((r) => setTimeout(r, 61_000)); // the window the load above used ends
  await upstream.reset();
  const depth = '/api/v3/depth?symbol=BTCUSDT&limit=5000'; // weight 250 at 3.12.0: 6 000 / 250 = 24 a minute
  const statuses = await Promise.all(Array.from({ length: 60 }, () => fetch(`${nginx.url}${depth}`, { headers: NO_LEARNING, signal: AbortSignal.timeout(15_000) }).then((r) => r.status)));
  const forwarded = (await upstream.records()).filter((r) => r.url.startsWith('/api/v3/depth')).length;
  console.log(`weight budget: ${forwarded} of 60 weight-250 requests forwarded (limit 6000 → 24, + at most 3 in flight); answers ${JSON.stringify(Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length])))}`);
  assert.ok(forwarded <= 24 + 3, `${forwarded} forwarded`);
  assert.ok(forwarded >= 20, `${forwarded} forwarded: the budget was not used`);
  assert.is(statuses.filter((s) => s === 429).length, 60 - statuses.filter((s) => s === 200).length, 'the rest refused 429');
});

test.run();
