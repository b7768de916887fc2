// One catalogue across replicas (--fleet redis://…): a reload asked of one replica reaches every
// replica reading the same catalogue within 2 s; a broken edit swaps nowhere; a replica whose copy
// differs keeps its program and says so; health and metrics show whether the fleet agrees. A real
// redis-server, three gateways.
import { rmSync } from 'node:fs';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { createLogger } from '../../src/log.js';
import type { RunningGateway } from '../../src/server.js';
import { catalogueCopy, dirs, endpoint } from '../gateway/reload-load.js';
import { gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { startRedis, type RedisServer } from '../rate-limit/redis-server.js';

const test = suite('fleet');
let redis: RedisServer;
let upstream: Upstream;
test.before(async () => { [redis, upstream] = await Promise.all([startRedis(), startUpstream()]); });
test.after(async () => {
  await Promise.all([redis.kill(), upstream.stop()]);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Health { catalogue: { hash: string }; fleet: { target: string | null; hash: string; converged: boolean; agree: boolean; replicas: { replica: string; hash: string }[]; connected: boolean } }
const health = async (gw: RunningGateway) => (await fetch(`${gw.url}/_gateway/health`, { signal: AbortSignal.timeout(5000) })).json() as Promise<Health>;
const status = async (gw: RunningGateway, path: string) => (await fetch(`${gw.url}${path}`, { signal: AbortSignal.timeout(5000) })).status;

async function until(what: string, check: () => Promise<boolean>, ms: number): Promise<number> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - t0;
}

test('a reload on one replica reaches all; a broken edit swaps nowhere; a differing copy is kept and reported', async () => {
  const shared = catalogueCopy();
  const own = catalogueCopy(); // the third replica's copy, which the edit never reaches
  const replica = (dir: string, name: string, lines: string[]) => gatewayAt('3.12.0', upstream.url, ['--catalogue', dir, '--fleet', redis.url], { logger: createLogger('info', (l) => lines.push(`${name} ${l}`)) });
  const lines: string[] = [];
  const gws = [await replica(shared.dir, 'a', lines), await replica(shared.dir, 'b', lines), await replica(own.dir, 'c', lines)];
  try {
    await until('three replicas report', async () => (await health(gws[0])).fleet.replicas.length === 3, 10_000);
    const h0 = await health(gws[0]);
    assert.ok(h0.fleet.agree && h0.fleet.connected, JSON.stringify(h0));

    shared.write(endpoint(1) + endpoint(2));
    const outcome = await gws[0].reload('POST /_gateway/reload');
    assert.ok(outcome.ok, JSON.stringify(outcome));
    // b runs a reload of its own once told: 2 s, or twice what a's took on this machine now, whichever is more.
    const allowed = Math.max(2000, 2 * outcome.ms + 500);
    const took = await until('replica b serves the edit', async () => (await status(gws[1], '/api/v3/extra2')) === 200, allowed);
    assert.ok(took <= allowed, `converged in ${took} ms (allowed ${allowed})`);
    const b = await health(gws[1]);
    assert.is(b.catalogue.hash, outcome.hash);
    assert.ok(b.fleet.converged, 'b converged');
    // c reads its own copy, which lacks the edit: it keeps serving and says so.
    await until('c reports its differing copy', async () => lines.some((l) => /^c .*reload \(fleet: catalogue [0-9a-f]{16} .*refused.*this replica's catalogue copy has hash/s.test(l)), 5000);
    assert.is(await status(gws[2], '/api/v3/extra2'), 404, 'c kept its last good program');
    await until('the fleet knows it disagrees', async () => !(await health(gws[0])).fleet.agree, 5000);
    const c = await health(gws[2]);
    assert.not.ok(c.fleet.converged);
    assert.is(c.fleet.target, outcome.hash);
    // Each replica's view of the others refreshes on its heartbeat (2 s).
    const scrape = async () => (await fetch(`${gws[2].url}/_gateway/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    await until('c\'s metrics show the disagreement', async () => /^gateway_fleet_agree 0$/m.test(await scrape()), 5000);
    assert.match(await scrape(), /^gateway_fleet_converged 0$/m);

    // A broken edit: refused on the replica asked, published nowhere, swapped nowhere.
    shared.write(`${endpoint(3)}  - method: GET\n    path: /api/v3/broken\n    parameters:\n      - { name: x, schema: { type: integr } }\n`);
    const refused = await gws[1].reload('POST /_gateway/reload');
    assert.not.ok(refused.ok);
    await new Promise((r) => setTimeout(r, 500));
    for (const gw of gws.slice(0, 2)) assert.is(await status(gw, '/api/v3/extra3'), 404);
    assert.is((await health(gws[0])).catalogue.hash, outcome.hash);
  } finally {
    await Promise.all(gws.map((g) => g.close()));
  }
});

test('without --fleet a gateway needs no Redis and health has no fleet', async () => {
  const gw = await gatewayAt('3.12.0', upstream.url, [], { logger: createLogger('silent') });
  try {
    assert.is((await health(gw) as Partial<Health>).fleet, undefined);
  } finally {
    await gw.close();
  }
});

test.run();
