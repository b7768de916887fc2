// @binance/spot, Binance's OpenAPI-generated connector: every RestAPI method whose endpoint existed at
// the pin (in the spot docs of 3.12.0's date, binance-spot-docs-2025-01-09.json), called with the
// parameters that existed at the pin (its request type's fields the docs list, plus any it requires),
// through a recording tap → the gateway at 3.12.0 WITH --strict → the local verifying upstream. No call
// may be refused and every forwarded request must be byte-identical to what the client sent. Methods
// and fields are read from the package's own type declarations.
import { createRequire } from 'node:module';

import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadEvidence } from '../catalogue/evidence-sources.js';
import { PIN, exclusiveLosers } from './sample-values.js';
import { readDeclarations, spotConfig, value } from './spot-declarations.js';
import { forwardingChange, tappedGateway } from './tap.js';

const require = createRequire(import.meta.url);
type RestApi = Record<string, (params?: Record<string, unknown>) => Promise<unknown>>;
const { Spot } = require('@binance/spot') as { Spot: new (config: Record<string, unknown>) => { restAPI: RestApi } };

const test = suite(`@binance/spot RestAPI at ${PIN} --strict`);
const t = tappedGateway(test, PIN, ['--strict']);

test('every method whose endpoint existed at the pin: no refusal, each request forwarded byte for byte', async () => {
  const docs = loadEvidence().docs;
  const direct = new Spot(spotConfig(t.upstream.url)).restAPI;
  const viaGateway = new Spot(spotConfig(t.tap.url)).restAPI;
  const methods = readDeclarations();
  const refused: string[] = [];
  const skipped: string[] = [];
  const changed: string[] = [];
  let called = 0;
  for (const m of methods) {
    // Which endpoint: one call with the required fields straight to the upstream.
    const required = Object.fromEntries(m.fields.filter((f) => !f.optional).map((f) => [f.name, value('', f)]));
    await t.upstream.reset();
    await direct[m.name](required).catch(() => undefined);
    const rec = (await t.upstream.records())[0];
    if (!rec) { skipped.push(`${m.name} (sent nothing)`); continue; }
    const key = `${rec.method} ${rec.url.split('?')[0]}`;
    const atPin = docs.get(key);
    if (!atPin) { skipped.push(`${m.name} (${key}: not in the docs at the pin)`); continue; }
    const names = new Set(atPin.params.map((p) => p.name));
    const fields = m.fields.filter((f) => !f.optional || names.has(f.name));
    const losers = exclusiveLosers(key, fields.filter((f) => !f.optional).map((f) => f.name).concat(fields.filter((f) => f.optional).map((f) => f.name)));
    const params = Object.fromEntries(fields.filter((f) => !losers.has(f.name))
      .map((f) => [f.name, value(key, f, atPin.params.find((p) => p.name === f.name)?.values)]));
    called++;
    try {
      await viaGateway[m.name](params);
      const change = await forwardingChange(t, m.name);
      if (change) changed.push(change);
    } catch (e) {
      refused.push(`${m.name} (${key}): ${(e as Error).message.slice(0, 300)}`);
    }
  }
  await t.upstream.reset();
  console.log(`@binance/spot: ${methods.length} RestAPI methods, ${called} existed at the pin and were called, ${refused.length} refused; skipped: ${skipped.join(', ')}`);
  assert.ok(called >= 30, `${called} methods called`);
  assert.equal(refused, []);
  assert.equal(changed, [], 'forwarded byte for byte');
  assert.is(t.tap.sent.length, called);
});

test('list parameters (JSON array text) and a signed order reach the upstream as sent', async () => {
  const viaGateway = new Spot(spotConfig(t.tap.url)).restAPI;
  t.tap.sent.length = 0;
  await t.upstream.reset();
  await viaGateway.exchangeInfo({ symbols: ['BNBUSDT', 'BTCUSDT'] });
  await viaGateway.newOrder({ symbol: 'BNBUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: 1, price: 300, selfTradePreventionMode: 'EXPIRE_MAKER' });
  await viaGateway.ticker24hr({ symbols: ['BNBUSDT', 'BTCUSDT'], type: 'MINI' });
  const forwarded = (await t.upstream.records()).map((r) => ({ method: r.method, url: r.url, body: r.body }));
  assert.is(forwarded.length, 3);
  assert.equal(forwarded, t.tap.sent);
  assert.ok((await t.upstream.records()).every((r) => r.verified !== false), 'signatures verified at the upstream');
});

test.run();
