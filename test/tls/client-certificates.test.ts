// Mutual TLS (--tls-client-ca): a handshake without a client certificate, or with one of another
// CA, is refused before any request; a certificate the tokens file names (by subject or by
// fingerprint) gets that entry's rights, over REST and on a websocket upgrade; bearer tokens keep
// working beside certificates. All with the real curl.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { certificateAuthority, type Authority, type Issued } from '../support/certificates.js';
import { curl } from '../support/curl.js';
import { gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { hashLine, parseTokens } from '../../src/gateway/client-auth/tokens.js';
import type { RunningGateway } from '../../src/server.js';
import { startWsUpstream, type WsUpstream } from '../websocket/ws-upstream.js';

const test = suite('mutual TLS: client certificates as credentials');
const READER = 'gwt_reader-token-for-the-mtls-test-0123456789';
let upstream: Upstream;
let wsUp: WsUpstream;
let gw: RunningGateway;
let ca: Authority;
let desk: Issued;
let bot: Issued;
let nameless: Issued;
let stranger: Issued;
let base: string;

test.before(async () => {
  upstream = await startUpstream();
  wsUp = await startWsUpstream();
  ca = certificateAuthority('ca', '/CN=Clients CA');
  const served = ca.issue('gateway', '/CN=localhost', true);
  desk = ca.issue('desk', '/O=Example/CN=desk');
  bot = ca.issue('bot', '/CN=bot');
  nameless = ca.issue('nameless', '/CN=nobody-named');
  stranger = certificateAuthority('other', '/CN=Other CA').issue('desk-elsewhere', '/O=Example/CN=desk'); // same subject, another CA
  const tokens = join(tempDir('mtls-'), 'tokens.yaml');
  writeFileSync(tokens, [
    'tokens:',
    '  - name: desk',
    "    certificate: { subject: 'CN=desk, O=Example' }",
    "    allow: ['GET /api/v3/*']",
    '  - name: bot',
    `    certificate: { fingerprint: '${bot.fingerprint}' }`,
    "    allow: ['* /api/v3/order', 'GET /api/v3/ping']",
    '  - name: reader',
    `    hash: ${hashLine(READER)}`,
    "    allow: ['GET /api/v3/time']",
    '',
  ].join('\n'));
  gw = await gatewayAt(undefined, upstream.url, ['--tls-cert', served.cert, '--tls-key', served.key, '--tls-client-ca', ca.cert, '--tokens-file', tokens,
    '--upstream', `exchange.streams=${wsUp.url}`]);
  base = `https://localhost:${new URL(gw.url).port}`;
});
test.after(async () => {
  await gw?.close();
  await wsUp?.stop();
  await upstream?.stop();
});

const as = (c: Issued | undefined, path: string, extra: string[] = []) => curl(['--cacert', ca.cert, ...(c ? ['--cert', c.cert, '--key', c.key] : []), ...extra, `${base}${path}`]);

test('no client certificate, or one of another CA: the handshake is refused, nothing is forwarded', async () => {
  await upstream.reset();
  for (const [who, c] of [['none', undefined], ['another CA', stranger]] as const) {
    const r = await as(c, '/api/v3/ping');
    assert.is(r.status, 0, `${who}: no HTTP answer`);
    // TLS 1.3 ends the handshake before the server has checked the client's certificate: it then alerts or closes.
    assert.ok([35, 52, 56].includes(r.code), `${who}: curl ${r.code} ${r.stderr}`);
  }
  assert.equal(await upstream.records(), []);
});

test('a certificate named by subject gets its entry\'s rights, and only those', async () => {
  const ok = await as(desk, '/api/v3/time');
  assert.is(ok.status, 200, ok.stderr);
  const refused = await as(desk, '/api/v3/order?symbol=BTCUSDT&side=BUY&type=MARKET&quantity=1', ['-X', 'POST']);
  assert.is(refused.status, 403, refused.body);
  assert.is(JSON.parse(refused.body).msg, 'Client token "desk" is not allowed to call POST /api/v3/order.');
});

test('a certificate named by fingerprint gets its entry\'s rights', async () => {
  assert.is((await as(bot, '/api/v3/ping')).status, 200);
  assert.is((await as(bot, '/api/v3/time')).status, 403);
});

test('a valid certificate no entry names: a bearer token is still needed, and works', async () => {
  const none = await as(nameless, '/api/v3/time');
  assert.is(none.status, 401);
  assert.match(none.body, /Client token required/);
  assert.is((await as(nameless, '/api/v3/time', ['-H', `Authorization: Bearer ${READER}`])).status, 200);
  // The token decides when both are given: the reader's rights, not desk's.
  assert.is((await as(desk, '/api/v3/ping', ['-H', `Authorization: Bearer ${READER}`])).status, 403);
});

test('a websocket upgrade over a named certificate is admitted as its entry (wss://)', async () => {
  const open = (c: Issued) => new Promise<string>((resolve) => {
    const ws = new WebSocket(`${base.replace('https', 'wss')}/ws/btcusdt@trade`, { ca: readFileSync(ca.cert), cert: readFileSync(c.cert), key: readFileSync(c.key) });
    ws.once('open', () => { ws.close(); resolve('open'); });
    ws.once('unexpected-response', (_req, res) => resolve(String(res.statusCode)));
    ws.once('error', (e) => resolve(e.message));
  });
  assert.is(await open(desk), 'open');
  assert.is(await open(nameless), '401');
});

test('the tokens file: a certificate entry is one of subject or fingerprint, and hash or certificate, not both', () => {
  const at = (entry: Record<string, unknown>) => { try { parseTokens([{ name: 'x', allow: ['GET /a'], ...entry }]); return 'accepted'; } catch (e) { return (e as Error).message; } };
  assert.match(at({}), /give exactly one of hash .* or certificate/);
  assert.match(at({ hash: hashLine('t'), certificate: { subject: 'CN=x' } }), /give exactly one of hash/);
  assert.match(at({ certificate: { subject: 'CN=x', fingerprint: bot.fingerprint } }), /one key, subject .* or fingerprint/);
  assert.match(at({ certificate: { fingerprint: 'AB:CD' } }), /fingerprint must be 64 hex digits/);
  assert.match(at({ certificate: { subject: 'desk' } }), /subject must be KEY=value attributes/);
  assert.is(at({ certificate: { fingerprint: `sha256 Fingerprint=${bot.fingerprint}` } }), 'accepted', 'openssl\'s own output line');
  const [a] = parseTokens([{ name: 'a', allow: ['GET /a'], certificate: { subject: 'O=Example,CN=desk' } }]);
  const [b] = parseTokens([{ name: 'b', allow: ['GET /a'], certificate: { subject: 'cn=desk, O=Example' } }]);
  assert.is(a.certificate!.subject, b.certificate!.subject, 'attribute order and name case do not matter');
});

test.run();
