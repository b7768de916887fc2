// Every /api and /sapi method of today's official modular connectors (the method table of 2026-08-21,
// data/binance-modular-connectors-2026-08-21.json), sent through the gateway at the catalogue's newest
// release as those clients send it: the parameters the table requires, and no others the catalogue
// might require (with values the catalogue accepts; one of each group the exchange needs one of),
// with the API key and signed with HMAC where the table says the client signs (and only there), to
// the local verifying upstream. The gateway refuses none of them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { API_KEY, gatewayAt, signed, ts } from '../support/gateway.js';
import { ROOT, startUpstream, type Upstream } from '../support/processes.js';
import { newestExchangeRelease } from '../support/newest.js';
import { exclusiveLosers, sampleValue, viewAt } from './sample-values.js';

interface Row { key: string; method: string; path: string; signed: boolean; params: { name: string; required?: boolean }[]; params_note?: string }
const table = (JSON.parse(readFileSync(join(ROOT, 'data/binance-modular-connectors-2026-08-21.json'), 'utf8')) as { methods: Row[] }).methods;

const NEWEST = newestExchangeRelease();
const test = suite(`the official connectors of 2026-08-21 at ${NEWEST}`);
let upstream: Upstream;
let gw: RunningGateway;

test.before(async () => {
  upstream = await startUpstream({ [API_KEY]: { hmac: 'test-secret-abcdefghijklmnopqrstuvwxyz' } });
  gw = await gatewayAt(NEWEST, upstream.url);
});
test.after(async () => {
  await gw?.close();
  await upstream?.stop();
});

/** binance_common's snake_to_camel: the python clients' argument names as they are sent. */
const camel = (n: string) => n.split('_').map((w, i) => (i && w ? w[0].toUpperCase() + w.slice(1).toLowerCase() : w)).join('');

test('every /api and /sapi method, with the parameters its client sends: no refusal by the gateway', async () => {
  const view = viewAt(null);
  const refused: string[] = [];
  const seen = new Set<string>();
  const calls: (() => Promise<void>)[] = [];
  const answers = new Map<string, string>();
  for (const row of table) {
    if (!/^\/(api|sapi)\//.test(row.path) || seen.has(row.key)) continue;
    seen.add(row.key);
    const at = view.served.find((e) => e.endpoint.key === row.key);
    if (!at) { refused.push(`${row.key}: not served`); continue; }
    const names = row.params.map((p) => (row.params_note ? camel(p.name) : p.name)).filter((n) => !['timestamp', 'signature', 'recvWindow'].includes(n));
    const losers = exclusiveLosers(row.key, names, view);
    // What the client requires, and nothing more: a parameter the catalogue requires and the client may
    // leave out would be a false refusal, the thing this test looks for.
    const required = new Set(row.params.filter((p) => p.required).map((p) => (row.params_note ? camel(p.name) : p.name)));
    // One of each group the exchange needs one of (symbol or symbols).
    for (const c of at.endpoint.constraints) if (c.oneRequired && !c.exclusive.some((n) => required.has(n))) required.add(c.exclusive[0]);
    const sent = [...new Set([...names.filter((n) => required.has(n) && !losers.has(n)), ...[...required].filter((n) => !names.includes(n))])];
    const query = sent.map((n) => {
      const p = at.parameters.find((x) => x.name === n);
      const type = (p?.schema as { type?: string } | undefined)?.type === 'array' ? 'array' : (p?.schema as { type?: string } | undefined)?.type ?? 'string';
      const v = sampleValue(row.key, n, type, view);
      return `${n}=${encodeURIComponent(Array.isArray(v) ? JSON.stringify(v) : String(v))}`;
    }).join('&');
    // As the client sends it: signed or not whatever the catalogue says, with its key either way
    // (both clients put X-MBX-APIKEY on every call).
    const q = row.signed ? signed([query, ts()].filter(Boolean).join('&')) : query;
    calls.push(async () => {
      const res = await fetch(`${gw.url}${row.path}${q ? `?${q}` : ''}`, { method: row.method, headers: { 'X-MBX-APIKEY': API_KEY } });
      answers.set(row.key, `${res.status} ${(await res.text()).slice(0, 200)}`);
    });
  }
  for (let i = 0; i < calls.length; i += 16) await Promise.all(calls.slice(i, i + 16).map((c) => c()));
  // Passed: it reached the stand-in (which answers every path); a refusal of the gateway's never does.
  const reached = new Set((await upstream.records()).map((r) => `${r.method} ${r.url.split('?')[0]}`));
  for (const [key, answer] of answers) if (!reached.has(key)) refused.push(`${key}: ${answer}`);
  assert.equal(refused, []);
  assert.ok(seen.size >= 450 && answers.size === seen.size, `${seen.size} methods, ${answers.size} answered`);
});

test.run();
