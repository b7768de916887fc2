// Today's ccxt (4.5.84) through the gateway at the catalogue's newest release, --strict (issue 48
// item 5): every endpoint of its binance table on the exchange's host (/api/v3 and /sapi v1–v4),
// each called through the implicit method ccxt defines for it (sapiGetMarginAllOrders(params)) with
// the parameters the catalogue requires there, is either forwarded to the stand-in (its request log
// says so), or refused by the gateway: 410 naming the release of an endpoint the catalogue records as
// removed, or 404 with the reason catalogue/exchange/not-served.yaml gives. None is refused otherwise.
// Its unified calls work at the newest release too.
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { Parameter } from '../../src/catalogue/model.js';
import type { EndpointAt } from '../../src/catalogue/resolve.js';
import { readCcxtTable } from '../../tools/catalogue-import/ccxt-table.js';
import { newestExchangeRelease } from '../support/newest.js';
import { ROOT } from '../support/processes.js';
import { binanceAt, CALLS, ccxt, FIXTURES, unifiedFailures, type Exchange } from './ccxt-client.js';
import { exclusiveLosers, sampleValue, viewAt } from './sample-values.js';
import { tappedGateway } from './tap.js';

const NEWEST = newestExchangeRelease();
const view = viewAt(null);
const host = new URL(view.service.upstreams.rest!).host;
const table = readCcxtTable(join(ROOT, 'node_modules/ccxt'), 'binance').endpoints.filter((e) => e.host === host);
const SIGNING = new Set(view.service.signedParameters.map((p) => p.name));

const test = suite(`ccxt ${ccxt.version} at ${NEWEST} --strict: every endpoint of its table`);
const t = tappedGateway(test, NEWEST, ['--strict'], FIXTURES);
let exchange: Exchange;
// Calls run side by side: ccxt's own pacing (one request per 50 ms) would make this a 25 s test.
test.before(() => { exchange = binanceAt(t.tap.url, { enableRateLimit: false }); });

/** What the catalogue requires at the release (one of each group it needs one of), valued as a client would. */
function paramsFor(at: EndpointAt): Record<string, string> {
  const key = at.endpoint.key;
  const names = at.parameters.filter((p) => p.required && p.in === 'query' && !SIGNING.has(p.name)).map((p) => p.name);
  for (const c of at.endpoint.constraints) if (c.oneRequired && !c.exclusive.some((n) => names.includes(n))) names.push(c.exclusive[0]);
  const losers = exclusiveLosers(key, names, view);
  const out: Record<string, string> = {};
  for (const name of names.filter((n) => !losers.has(n))) out[name] = wire(at.parameters.find((p) => p.name === name)!, key, view);
  return out;
}

/** The value as text: a list as JSON text where the exchange reads that form, else its first item. */
function wire(p: Parameter, key: string, v: typeof view): string {
  const type = (p.schema as { type?: string }).type ?? 'string';
  const value = sampleValue(key, p.name, type, v);
  if (!Array.isArray(value)) return String(value);
  return p.style?.includes('json') ? JSON.stringify(value) : String(value[0]);
}

test(`every endpoint of ccxt's table on ${host}, through its implicit method: forwarded, or refused with the catalogue's reason`, async () => {
  const byKey = new Map(view.endpoints.map((e) => [e.endpoint.key, e]));
  const listed = new Map(view.service.notServed.map((n) => [n.key, n]));
  const seen = new Set<string>();
  const calls: (() => Promise<void>)[] = [];
  const thrown = new Map<string, string>();
  for (const e of table) {
    if (seen.has(e.key)) continue;
    seen.add(e.key);
    const at = byKey.get(e.key);
    const params = at && (at.status === 'alive' || at.status === 'deprecated') ? paramsFor(at) : {};
    calls.push(async () => {
      try {
        await exchange[e.name](params);
      } catch (err) {
        thrown.set(e.key, (err as Error).message);
      }
    });
  }
  const t0 = performance.now();
  for (let i = 0; i < calls.length; i += 24) await Promise.all(calls.slice(i, i + 24).map((c) => c()));
  const ms = performance.now() - t0;

  const forwarded = new Set((await t.upstream.records()).map((r) => `${r.method} ${r.url.split('?')[0]}`));
  const answers = new Map(t.tap.answered.map((a) => [`${a.method} ${a.url.split('?')[0]}`, a]));
  const wrong: string[] = [];
  let served = 0, removed = 0, notServed = 0;
  for (const key of seen) {
    const at = byKey.get(key);
    const a = answers.get(key);
    const got = a ? `${a.status} ${a.answer.slice(0, 300)}` : `no answer (${thrown.get(key)})`;
    const msg = a ? msgOf(a.answer) : '';
    if (at && (at.status === 'alive' || at.status === 'deprecated')) {
      served++;
      if (!forwarded.has(key)) wrong.push(`${key}: served at ${NEWEST} but not forwarded: ${got}`);
    } else if (at?.status === 'removed') {
      removed++;
      if (forwarded.has(key) || a?.status !== 410 || !msg.startsWith(`${key} was removed in `)) wrong.push(`${key}: removed, expected 410 naming its removal: ${got}`);
    } else if (listed.has(key)) {
      notServed++;
      const n = listed.get(key)!;
      const want = `${key} is deliberately not served by this gateway: ${n.reason}${n.replacement ? `; use ${n.replacement} instead` : ''}.`;
      if (forwarded.has(key) || a?.status !== 404 || msg !== want) wrong.push(`${key}: listed, expected 404 with its reason: ${got}`);
      else if (!thrown.get(key)?.includes(n.reason)) wrong.push(`${key}: ccxt did not raise the reason: ${thrown.get(key)}`);
    } else {
      wrong.push(`${key}: neither catalogued nor listed: ${got}`);
    }
  }
  console.log(`ccxt ${ccxt.version} at ${NEWEST}: ${seen.size} endpoints in ${Math.round(ms)} ms: ${served} forwarded, ${removed} refused 410 (removed), ${notServed} refused 404 (not-served.yaml)`);
  assert.equal(wrong, []);
  assert.ok(seen.size >= 480 && notServed === view.service.notServed.length, `${seen.size} endpoints, ${notServed} listed`);
});

/** The msg of an answer in the exchange's envelope, else ''. */
function msgOf(text: string): string {
  try {
    return String((JSON.parse(text) as { msg?: unknown }).msg ?? '');
  } catch {
    return '';
  }
}

test(`${CALLS.length} unified calls work at ${NEWEST}`, async () => {
  assert.equal(await unifiedFailures(exchange), []);
});

test.run();
