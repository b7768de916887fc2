// @binance/connector, a real client of the exchange API: EVERY REST method of its Spot class (the
// prototype chain walked, each method's endpoint and parameters read from its own JSDoc), called once
// with its required arguments and once with every documented option, through a recording tap → the
// gateway pinned at 3.12.0 (no --strict) → the local verifying upstream. No call may be refused, and
// every forwarded request must be byte-identical to what the client sent.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { API_KEY, SECRET } from '../support/gateway.js';
import { PIN, exclusiveLosers, pinned, sampleValue } from './sample-values.js';
import { tappedGateway } from './tap.js';

const require = createRequire(import.meta.url);
type Method = (...args: unknown[]) => Promise<{ status: number }>;
const { Spot } = require('@binance/connector') as { Spot: new (key: string, secret: string, opts: Record<string, unknown>) => Record<string, Method> };
const quiet = { log() {}, error() {}, info() {}, warn() {}, debug() {} };

interface Doc {
  key: string;
  args: { name: string; type: string }[];
  options: { name: string; type: string }[];
}

const jsType = (t: string) => (/array/i.test(t) ? 'array' : /number|int/i.test(t) ? 'number' : /bool/i.test(t) ? 'boolean' : 'string');

/** Every documented method of the connector's REST modules: its endpoint, positional arguments and options. */
function readDocs(): Map<string, Doc> {
  const dir = join(dirname(require.resolve('@binance/connector')), 'modules', 'restful');
  const docs = new Map<string, Doc>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.js'))) {
    const src = readFileSync(join(dir, f), 'utf8');
    for (const m of src.matchAll(/\/\*\*([\s\S]*?)\*\/\s*\n\s*(\w+)\s*\(([^)]*)\)\s*\{/g)) {
      const [, doc, name, sig] = m;
      const ep = /\b(GET|POST|PUT|DELETE) (\/[^\s<]+)/.exec(doc);
      if (!ep) continue;
      const typed = new Map([...doc.matchAll(/@param\s+\{([^}]+)\}\s+\[?(\w+)[\]\s]/g)].map((x) => [x[2], x[1]]));
      const args = sig.split(',').map((a) => a.trim().split(/\s*=/)[0]).filter((a) => a && a !== 'options')
        .map((a) => ({ name: a, type: jsType(typed.get(a) ?? 'string') }));
      const options = [...doc.matchAll(/@param\s+\{([^}]+)\}\s+\[options\.(\w+)\]/g)].map((x) => ({ name: x[2], type: jsType(x[1]) }));
      docs.set(name, { key: `${ep[1]} ${ep[2]}`, args, options });
    }
  }
  return docs;
}

function restMethods(client: object): string[] {
  const names = new Set<string>();
  for (let p = Object.getPrototypeOf(client); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const n of Object.getOwnPropertyNames(p)) if (n !== 'constructor' && typeof (client as Record<string, unknown>)[n] === 'function') names.add(n);
  }
  return [...names].sort();
}

const test = suite(`@binance/connector: every REST method of Spot at ${PIN}`);
const t = tappedGateway(test, PIN);

test('every documented REST method, with required arguments and with every option: no refusal, forwarded unchanged', async () => {
  const docs = readDocs();
  const client = new Spot(API_KEY, SECRET, { baseURL: t.tap.url, logger: quiet, timeout: 10_000 }); // its default: no timeout
  const methods = restMethods(client).filter((n) => docs.has(n));
  const undocumented = restMethods(client).filter((n) => !docs.has(n) && !['publicRequest', 'signRequest'].includes(n) && !/^(subscribe|unsubscribe|.*Websocket)/.test(n));
  const refused: string[] = [];
  const clientChecks: string[] = [];
  // What the exchange retired since (listen keys): answered 410 naming the replacement, never forwarded.
  const retiredKeys = new Set(pinned().service.endpoints.filter((e) => e.removed !== undefined && e.span.removed! > pinned().at).map((e) => e.key));
  const retired: string[] = [];
  let calls = 0;
  for (const name of methods) {
    const d = docs.get(name)!;
    const losers = exclusiveLosers(d.key, [...d.args.map((a) => a.name), ...d.options.map((o) => o.name)]);
    // An argument the catalogue says cannot go with an earlier one keeps the client's default (undefined).
    const args = d.args.map((a) => (losers.has(a.name) ? undefined : sampleValue(d.key, a.name, a.type)));
    const options = Object.fromEntries(d.options.filter((o) => !losers.has(o.name)).map((o) => [o.name, sampleValue(d.key, o.name, o.type)]));
    for (const withOptions of [false, true]) {
      if (withOptions && !d.options.length) continue;
      calls++;
      try {
        await client[name](...args, ...(withOptions ? [options] : d.args.length ? [] : [{}]));
      } catch (e) {
        const r = (e as { response?: { status: number; data: unknown } }).response;
        if (retiredKeys.has(d.key) && r?.status === 410 && /use |named|replacement|userDataStream\.subscribe|subscription/.test(JSON.stringify(r.data))) { retired.push(`${name} (${d.key})`); continue; }
        // The client's own check that needs one of its options (e.g. orderListId or listClientOrderId)
        // sends nothing: the call with every option covers the method.
        if (!r && !withOptions && d.options.length && /required parameters is missing/.test((e as Error).message)) { clientChecks.push(name); continue; }
        refused.push(`${name} (${d.key}${withOptions ? ', all options' : ''}): ${r ? `${r.status} ${JSON.stringify(r.data)}` : (e as Error).message}`);
      }
    }
  }
  console.log(`@binance/connector: ${methods.length} REST methods, ${calls} calls, ${refused.length} refused; without options the client itself refused ${clientChecks.join(', ') || 'none'}${undocumented.length ? `; not REST (no endpoint in their docs): ${undocumented.join(', ')}` : ''}`);
  assert.ok(methods.length > 190, `${methods.length} methods found`);
  assert.equal(refused, [], `${refused.length} of ${calls} calls refused`);
  assert.ok(retired.length >= 6, `the retired listen-key calls answered 410: ${retired.join(', ')}`);
  const forwarded = (await t.upstream.records()).map((r) => ({ method: r.method, url: r.url, body: r.body }));
  const sent = t.tap.sent.filter((x) => !retiredKeys.has(`${x.method} ${x.url.split('?')[0]}`));
  assert.is(forwarded.length, sent.length, 'every request but the retired ones reached the upstream');
  assert.equal(forwarded, sent, 'forwarded byte for byte');
});

test.run();
