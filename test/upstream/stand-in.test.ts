// The exchange stand-in as a command (docs/stand-in.md): --help prints its usage and exits 0, a bad
// keys argument is refused with what to give, and started as the pages start it, it verifies a
// signed call and delivers a user-data event queued with POST /__user-data/event?queue=1 to the
// next subscription made, wrapped as today's exchange wraps it.
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { NODE_FLAGS, ROOT, startUpstream } from '../support/processes.js';
import { nextMessage, open } from '../websocket/ws-upstream.js';

const SCRIPT = join(ROOT, 'dist/test/support/exchange-upstream.js');
const run = (...args: string[]) => promisify(execFile)(process.execPath, [...NODE_FLAGS, SCRIPT, ...args], { timeout: 20_000 })
  .then((r) => ({ ...r, code: 0 }), (e: { code: number; stdout: string; stderr: string }) => e);

test('--help prints the usage on stdout and exits 0', async () => {
  const r = await run('--help');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^usage: node dist\/test\/support\/exchange-upstream\.js \['<keys json>'\] \[port\]$/m);
  assert.match(r.stdout, 'POST /__user-data/event[?queue=1]');
  assert.is(r.stderr, '');
});

test('keys that are not JSON, or neither a secret nor a public key, and a port that is none, exit 2 saying what to give', async () => {
  for (const [args, says] of [
    [['{tour-key: tour-secret}'], 'the keys argument is not JSON'],
    [['{"k": {"secret": "s"}}'], 'key "k": give {"hmac": "<secret>"} or {"publicKey": "<PEM>"}'],
    [['{"k": {"publicKey": "not a key"}}'], 'key "k": publicKey is not a PEM public key'],
    [['{}', 'ninety'], 'port "ninety" is not a port number'],
  ] as const) {
    const r = await run(...args);
    assert.is(r.code, 2, `${args.join(' ')}: exit ${r.code}`);
    assert.match(r.stderr, `error: ${says}`);
  }
});

test('started as a command: a signed call is verified, a queued event reaches the next subscription, wrapped', async () => {
  const up = await startUpstream({ 'doc-key': { hmac: 'doc-secret' } }, undefined, { ownProcess: true });
  try {
    const query = `symbol=BTCUSDT&timestamp=${Date.now()}`;
    const signature = createHmac('sha256', 'doc-secret').update(query).digest('hex');
    const rest = await (await fetch(`${up.url}/api/v3/account?${query}&signature=${signature}`, { headers: { 'X-MBX-APIKEY': 'doc-key' } })).json();
    assert.equal(rest, { ok: true, method: 'GET', url: `/api/v3/account?${query}&signature=${signature}`, verified: true });

    const event = { e: 'balanceUpdate', E: 1573200697110, a: 'BTC', d: '100.00000000', T: 1573200697068 };
    const post = async (q: string) => (await fetch(`${up.url}/__user-data/event${q}`, { method: 'POST', body: JSON.stringify(event) })).json();
    assert.equal(await post(''), { sent: 0 }, 'no subscription: nobody gets it');
    assert.equal(await post('?queue=1'), { sent: 0, queued: 1 });
    const bad = await fetch(`${up.url}/__user-data/event`, { method: 'POST', body: 'not json' });
    assert.is(bad.status, 400);

    const c = await open(`${up.url.replace(/^http/, 'ws')}/ws-api/v3`);
    const params: Record<string, unknown> = { apiKey: 'doc-key', timestamp: Date.now() };
    params.signature = createHmac('sha256', 'doc-secret').update(`apiKey=doc-key&timestamp=${String(params.timestamp)}`).digest('hex');
    c.ws.send(JSON.stringify({ id: 'sub', method: 'userDataStream.subscribe.signature', params }));
    const answer = JSON.parse(String((await nextMessage(c.ws)).data));
    assert.equal([answer.id, answer.status], ['sub', 200]);
    assert.equal(JSON.parse(String((await nextMessage(c.ws)).data)), { subscriptionId: answer.result.subscriptionId, event });
    assert.equal(await post(''), { sent: 1 }, 'now it is sent at once');
    assert.equal(JSON.parse(String((await nextMessage(c.ws)).data)), { subscriptionId: answer.result.subscriptionId, event });
    c.ws.close();
  } finally {
    await up.stop();
  }
});

test.run();
