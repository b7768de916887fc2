// Today's official client, @binance/spot 32.0.4, against the gateway at the catalogue's newest release:
// every RestAPI method, called once with its required fields and once with every field it declares
// (less those the catalogue says cannot go together), through a recording tap → the gateway →
// the local verifying upstream. The gateway refuses none of them, and forwards each byte for byte.
import { createRequire } from 'node:module';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { newestExchangeRelease } from '../support/newest.js';
import { exclusiveLosers, viewAt } from './sample-values.js';
import { readDeclarations, spotConfig, value, type Field } from './spot-declarations.js';
import { forwardingChange, tappedGateway } from './tap.js';

const require = createRequire(import.meta.url);
type RestApi = Record<string, (params?: Record<string, unknown>) => Promise<unknown>>;
const { Spot } = require('@binance/spot') as { Spot: new (config: Record<string, unknown>) => { restAPI: RestApi } };

const NEWEST = newestExchangeRelease();
const test = suite(`@binance/spot 32.0.4 RestAPI at ${NEWEST}`);
const t = tappedGateway(test, NEWEST);

test('every RestAPI method, with its required fields and with every field: no refusal, forwarded byte for byte', async () => {
  const view = viewAt(null);
  const direct = new Spot(spotConfig(t.upstream.url)).restAPI;
  const viaGateway = new Spot(spotConfig(t.tap.url)).restAPI;
  const refused: string[] = [];
  const changed: string[] = [];
  let called = 0;
  for (const m of readDeclarations()) {
    // Which endpoint: one call with the required fields straight to the upstream.
    const required = m.fields.filter((f) => !f.optional);
    await t.upstream.reset();
    await direct[m.name](Object.fromEntries(required.map((f) => [f.name, value('', f, undefined, view)]))).catch(() => undefined);
    const rec = (await t.upstream.records())[0];
    assert.ok(rec, `${m.name} sent nothing`);
    const key = `${rec.method} ${rec.url.split('?')[0]}`;
    const served = view.served.find((e) => e.endpoint.key === key);
    const accepted = (f: Field) => {
      const p = served?.parameters.find((x) => x.name === f.name);
      const s = p?.schema as { enum?: string[] } | undefined;
      return p?.enum ? view.enumValues(p.enum).map((v) => v.value) : s?.enum;
    };
    const losers = exclusiveLosers(key, [...required, ...m.fields.filter((f) => f.optional)].map((f) => f.name), view);
    for (const fields of [required, m.fields.filter((f) => !losers.has(f.name))]) {
      if (fields === required && required.length === m.fields.length && called > 0) continue;
      // Valid parameters only: one of a group the exchange requires (symbol or symbols) must be among them.
      const names = new Set(fields.map((f) => f.name));
      if (served?.endpoint.constraints.some((c) => c.oneRequired && !c.exclusive.some((n) => names.has(n)))) continue;
      const params = Object.fromEntries(fields.map((f) => [f.name, value(key, f, accepted(f), view)]));
      called++;
      try {
        await viaGateway[m.name](params);
        const change = await forwardingChange(t, m.name);
        if (change) changed.push(change);
      } catch (e) {
        const r = (e as { response?: { status: number; data: unknown } }).response;
        refused.push(`${m.name} (${key}${fields === required ? '' : ', every field'}): ${r ? `${r.status} ${JSON.stringify(r.data)}` : (e as Error).message.slice(0, 300)}`);
      }
    }
  }
  await t.upstream.reset();
  console.log(`@binance/spot 32.0.4 at ${NEWEST}: ${called} calls, ${refused.length} refused`);
  assert.ok(called >= 90, `${called} calls`);
  assert.equal(refused, []);
  assert.equal(changed, [], 'forwarded byte for byte');
});

test.run();
