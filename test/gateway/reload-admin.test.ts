// POST /_gateway/reload from off the machine: in signing mode, a client token holding the admin
// right may reload; without one the answer is 401/403 naming what is needed; loopback needs none.
// The client is made non-loopback for real: the gateway listens on every interface and the test
// reaches it through this machine's own network address.
import { writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { hashLine } from '../../src/gateway/client-auth/tokens.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { bearer, dir, HMAC_KEY, HMAC_SECRET, TOKENS, UPSTREAM_KEYS } from '../signing/support.js';
import { startUpstream, type Upstream } from '../support/processes.js';

const test = suite('reload by an admin token');
const OPS = 'gwt_ops-5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3';
const tokens = join(dir, 'admin-tokens.yaml');
writeFileSync(tokens, `tokens:
  - name: ops
    hash: ${hashLine(OPS)}
    rights: [admin]
  - name: reader
    hash: ${hashLine(TOKENS.reader)}
    allow:
      - module: market
`);

/** This machine's first non-loopback IPv4 address (`hostname -I`). */
function networkAddress(): string | undefined {
  return Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
}

let upstream: Upstream;
const address = networkAddress();
test.before(async () => { upstream = await startUpstream(UPSTREAM_KEYS); });
test.after(async () => { await upstream.stop(); });

async function gatewayWith(env: NodeJS.ProcessEnv, lines: string[]): Promise<RunningGateway> {
  const args = ['--port', '0', '--host', '0.0.0.0', '--allowed-host', address ?? '', '--upstream', `exchange=${upstream.url}`, '--tokens-file', tokens];
  return startGateway(readConfig(args, env), { logger: createLogger('info', (l) => lines.push(l)) });
}

const SIGNING = { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET };

async function post(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/_gateway/reload`, { method: 'POST', headers });
  return { status: res.status, body: await res.json() as { error?: string; ok?: boolean; trigger?: string }, challenge: res.headers.get('www-authenticate') };
}

test('signing mode: a non-loopback client reloads with an admin token, is refused without one; loopback needs none', async () => {
  assert.ok(address, 'this test needs a non-loopback interface address (hostname -I shows none)');
  const lines: string[] = [];
  const gw = await gatewayWith(SIGNING, lines);
  try {
    const { port } = new URL(gw.url);
    const remote = `http://${address}:${port}`;
    const loopback = `http://127.0.0.1:${port}`;

    const none = await post(remote);
    assert.is(none.status, 401);
    assert.match(none.body.error!, /client token holding the admin right.*send Authorization: Bearer <token>/);
    assert.is(none.challenge, 'Bearer realm="gateway"');
    const unknown = await post(remote, bearer('gwt_not-a-known-token-000000000000000000000000'));
    assert.is(unknown.status, 401);
    assert.match(unknown.body.error!, /unknown client token/);
    const reader = await post(remote, bearer(TOKENS.reader));
    assert.is(reader.status, 403);
    assert.match(reader.body.error!, /client token "reader" does not hold the admin right/);
    const health = await (await fetch(`${loopback}/_gateway/health`)).json() as { lastReload: unknown };
    assert.is(health.lastReload, null, 'nothing was reloaded');

    const ops = await post(remote, bearer(OPS));
    assert.is(ops.status, 200, JSON.stringify(ops.body));
    assert.is(ops.body.ok, true);
    assert.is(ops.body.trigger, 'POST /_gateway/reload (token "ops")');
    const local = await post(loopback);
    assert.is(local.status, 200, 'loopback keeps working without a token');
    assert.is(local.body.trigger, 'POST /_gateway/reload');

    // The admin-only token calls no endpoint; the reader still can.
    assert.is((await fetch(`${remote}/api/v3/ping`, { headers: bearer(OPS) })).status, 403);
    assert.is((await fetch(`${remote}/api/v3/ping`, { headers: bearer(TOKENS.reader) })).status, 200);

    const all = lines.join('\n');
    assert.match(all, /reloaded \(POST \/_gateway\/reload \(token \\"ops\\"\)\) in \d+ ms/);
    for (const t of [OPS, TOKENS.reader]) assert.not.ok(all.includes(t), 'no token in the logs');
    for (const r of [none, unknown, reader]) assert.not.ok(JSON.stringify(r.body).includes(TOKENS.reader) || JSON.stringify(r.body).includes('gwt_'), 'no token in the answers');
  } finally {
    await gw.close();
  }
});

test('outside signing mode the admin right does not count: a non-loopback reload is refused (403), with a warning at start-up', async () => {
  assert.ok(address, 'this test needs a non-loopback interface address (hostname -I shows none)');
  const lines: string[] = [];
  const gw = await gatewayWith({}, lines);
  try {
    const { port } = new URL(gw.url);
    const refused = await post(`http://${address}:${port}`, bearer(OPS));
    assert.is(refused.status, 403);
    assert.match(refused.body.error!, /not in signing mode with a tokens file/);
    assert.ok(lines.some((l) => /"ops\\" hold the admin right, which counts in signing mode only/.test(l)), lines.join('\n'));
    assert.is((await post(`http://127.0.0.1:${port}`)).status, 200);
  } finally {
    await gw.close();
  }
});

test.run();
