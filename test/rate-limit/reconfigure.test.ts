// reconfigure(config, views): a reload's rateLimits: section and settings applied to the running
// limiter, counts kept by limit (service, kind, interval, countedBy, pathPrefix): a limit that stays
// keeps its count (also when its number changed), a new one starts at zero, a removed one goes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { pinReleases } from '../../src/catalogue/pin.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { GatewayError } from '../../src/gateway/errors.js';
import type { RequestState } from '../../src/gateway/pipeline.js';
import { buildRouteTable } from '../../src/gateway/routes/route-table.js';
import { rateLimiting, type RateLimiting } from '../../src/gateway/rate-limit/setup.js';
import { gatewayAt } from '../support/gateway.js';
import { startUpstream } from '../support/processes.js';
import { catalogueWithLimits } from './small-limits.js';

const test = suite('rate limits: reconfigure on reload');
const config = { ...readConfig(['--release', '3.12.0'], {}), rateLimitStore: 'memory' };
// modelCache: false: each copy is a new folder, so no model of it is kept; its unchanged files'
// parses and validators still come from the cache (an uncached load of the whole catalogue was ~1 s of CPU each).
const viewsOf = (dir: string) => pinReleases(loadCatalogue(dir, { modelCache: false }).catalogue, config.release).default.views;

/** A copy with REQUEST_WEIGHT per `interval` instead of per minute. */
function withInterval(weight: number, interval: string): string {
  const dir = catalogueWithLimits({ weight });
  const file = join(dir, 'exchange/service.yaml');
  const text = readFileSync(file, 'utf8');
  const out = text.replace('kind: REQUEST_WEIGHT\n    interval: 1m\n', `kind: REQUEST_WEIGHT\n    interval: ${interval}\n`);
  assert.is.not(out, text);
  writeFileSync(file, out);
  return dir;
}

/** Charge one GET /api/v3/depth?limit=100 (weight 5) to the hooks of the views now: true if allowed. */
function depth(rl: RateLimiting, views: ReturnType<typeof viewsOf>): boolean {
  const route = buildRouteTable(views).byKey('GET /api/v3/depth')!;
  const state: RequestState = { route, url: '/api/v3/depth?symbol=BTCUSDT&limit=100', headers: {}, body: Buffer.alloc(0), supplied: new Set(), drop: new Set(), own: {}, params: { symbol: 'BTCUSDT', limit: 100 } };
  try {
    for (const h of rl.hooks) void h.prepare?.(state);
    return true;
  } catch (e) {
    assert.instance(e, GatewayError);
    assert.is((e as GatewayError).status, 429);
    return false;
  }
}
const allowed = (rl: RateLimiting, views: ReturnType<typeof viewsOf>, n: number) => Array.from({ length: n }, () => depth(rl, views)).filter(Boolean).length;

const WEIGHT_1M = 'rate_limit_exchange_request_weight_1m_ip_api_v3_remaining';
const WEIGHT_2M = 'rate_limit_exchange_request_weight_2m_ip_api_v3_remaining';

test('a kept limit keeps its count under a new number; a new one starts at zero; a removed one goes; off and on again', async () => {
  const a = viewsOf(catalogueWithLimits({ weight: 100 }));
  const rl = rateLimiting(config, a, createLogger('silent'));
  try {
    assert.is(allowed(rl, a, 12), 12, '60 of 100');
    assert.is(rl.limiterGauges()[WEIGHT_1M], 40);

    // The same limit, now 80: the 60 used stay, so 4 more fit.
    const b = viewsOf(catalogueWithLimits({ weight: 80 }));
    rl.reconfigure(config, b);
    assert.is(allowed(rl, b, 10), 4, 'the count was kept against the new limit');
    assert.is(rl.limiterGauges()[WEIGHT_1M], 0);

    // Per 2 minutes instead: another limit. It starts at zero; the per-minute one is gone.
    const c = viewsOf(withInterval(80, '2m'));
    rl.reconfigure(config, c);
    assert.is(allowed(rl, c, 20), 16, 'a new limit starts fresh');
    assert.ok(!(WEIGHT_1M in rl.limiterGauges()), 'the removed limit is forgotten');
    assert.is(rl.limiterGauges()[WEIGHT_2M], 0);

    // Off: no hook at all; on again: the limit is counted from zero.
    rl.reconfigure({ ...config, rateLimit: false }, c);
    assert.is(rl.hooks.length, 0);
    assert.equal(rl.limiterGauges(), {});
    rl.reconfigure(config, c);
    assert.is(rl.hooks.length, 1);
    assert.is(allowed(rl, c, 20), 16);
  } finally {
    await rl.close();
  }
});

test('the per-minute limit back with its old name after a reload without it: fresh, not the old count', async () => {
  const a = viewsOf(catalogueWithLimits({ weight: 100 }));
  const rl = rateLimiting(config, a, createLogger('silent'));
  try {
    assert.is(allowed(rl, a, 30), 20);
    rl.reconfigure(config, viewsOf(withInterval(100, '2m')));
    rl.reconfigure(config, a);
    assert.is(allowed(rl, a, 30), 20, 'removed means forgotten');
  } finally {
    await rl.close();
  }
});

test('a reload applies a rateLimits: edit of service.yaml, the count kept', async () => {
  const up = await startUpstream();
  const dir = catalogueWithLimits({ weight: 100 });
  const gw = await gatewayAt('3.12.0', up.url, ['--catalogue', dir]);
  try {
    const depth = async () => (await fetch(`${gw.url}/api/v3/depth?symbol=BTCUSDT&limit=100`)).status; // weight 5
    for (let i = 0; i < 12; i++) assert.is(await depth(), 200); // 60 of 100
    const file = join(dir, 'exchange/service.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/(kind: REQUEST_WEIGHT\n(?: {4}.*\n)*? {4}limit: )100\n/, '$180\n'));
    const outcome = await gw.reload('test');
    assert.ok(outcome.ok, JSON.stringify(outcome));
    const after = [];
    for (let i = 0; i < 6; i++) after.push(await depth());
    assert.equal(after, [200, 200, 200, 200, 429, 429], '60 kept, 80 now the limit');
  } finally {
    await gw.close();
    await up.stop();
  }
});

test.run();
