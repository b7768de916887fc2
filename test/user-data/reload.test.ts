// What a reload does to user data (issue 46: the reload gap and finding 4): the listen-key bridge is
// made, redefined or ended by the configuration a reload applies (--upstream-release), and a token the
// tokens file no longer grants loses its open websocket-API connection and its listen-key stream (1008)
// and its REST calls (401) as soon as the reload reads the file, before the catalogue is compiled.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { writeTokens } from './tokens-file.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { closed, nextMessage, open } from '../websocket/ws-upstream.js';
import { HMAC_KEY, HMAC_SECRET, UPSTREAM_KEYS } from '../signing/support.js';
import { until } from '../support/until.js';

const test = suite('user data across reloads: the bridge follows --upstream-release; revoked tokens lose their connections');

const TOKENS = {
  bot: 'gwt_bot-1c1e8a7b9d3f2e4a6b8c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f',
  desk: 'gwt_desk-2a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f',
  viewer: 'gwt_viewer-3b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6',
};
const ENV = { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET };
const entry = (name: keyof typeof TOKENS, rights = ['user-data']) => ({ name, token: TOKENS[name], rights, allow: ["'GET /api/v3/*'", "ws: '*'"] });

let up: Upstream;
test.before(async () => { up = await startUpstream(UPSTREAM_KEYS); });
test.before.each(async () => { await up.reset(); });
test.after(async () => { await up.stop(); });

function args(tokensFile: string, extra: string[] = []): string[] {
  const ws = up.url.replace(/^http/, 'ws');
  return ['--port', '0', '--release', '3.12.0,2026.08.21', '--default-release', '3.12.0', '--tokens-file', tokensFile, '--upstream', `exchange=${up.url}`,
    '--upstream', `exchange.wsApi=${ws}`, '--upstream', `exchange.streams=${ws}`, '--user-data-linger', '100', ...extra];
}
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const wsBase = (g: RunningGateway) => g.url.replace(/^http/, 'ws');


test('a reload that moves --upstream-release past the listen keys\' retirement makes the bridge; one that moves back ends it', async () => {
  const tokensFile = writeTokens('reload-bridge-tokens.yaml', [entry('bot')]);
  let upstreamRelease = '3.12.0';
  const read = () => readConfig(args(tokensFile, ['--upstream-release', `exchange=${upstreamRelease}`]), ENV);
  const gw = await startGateway(read(), { logger: createLogger('silent'), reread: read });
  try {
    // The upstream speaks 3.12.0: a listen key is the upstream's own, asked for upstream.
    const before = await fetch(`${gw.url}/@3.12.0/api/v3/userDataStream`, { method: 'POST', headers: bearer(TOKENS.bot) });
    await before.arrayBuffer();
    assert.equal((await up.records()).map((r) => r.url), ['/api/v3/userDataStream']);
    upstreamRelease = '2026.08.21';
    assert.ok((await gw.reload('test')).ok);
    const made = await fetch(`${gw.url}/@3.12.0/api/v3/userDataStream`, { method: 'POST', headers: bearer(TOKENS.bot) });
    const body = await made.json() as { listenKey?: string; msg?: string };
    assert.is(made.status, 200, JSON.stringify(body)); // was 410 "the gateway holds no key to bridge it" with the key held
    assert.match(body.listenKey ?? '', /^[A-Za-z0-9]{60}$/);
    const c = await open(`${wsBase(gw)}/@3.12.0/ws/${body.listenKey}?token=${TOKENS.bot}`);
    await until(async () => (await up.userData()).active === 1);
    const got = nextMessage(c.ws);
    await up.emit({ e: 'balanceUpdate', E: 1, a: 'BTC', d: '1.0', T: 1 });
    assert.is(JSON.parse((await got).data.toString()).e, 'balanceUpdate');
    // Back to an upstream with listen keys: the bridge ends, its streams with it, and the calls go upstream again.
    const end = closed(c.ws);
    upstreamRelease = '3.12.0';
    assert.ok((await gw.reload('test')).ok);
    assert.is((await end).code, 1001);
    await up.reset();
    await (await fetch(`${gw.url}/@3.12.0/api/v3/userDataStream`, { method: 'POST', headers: bearer(TOKENS.bot) })).arrayBuffer();
    assert.equal((await up.records()).map((r) => r.url), ['/api/v3/userDataStream']);
  } finally { await gw.close(); }
});

test('a token removed from the tokens file: its websocket-API connection and listen-key stream are closed 1008 when the reload reads the file, its REST calls 401', async () => {
  const tokensFile = writeTokens('reload-revoke-tokens.yaml', [entry('bot'), entry('desk'), entry('viewer')]);
  const read = () => readConfig(args(tokensFile), ENV);
  const lines: string[] = [];
  const gw = await startGateway(read(), { logger: createLogger('info', (l) => lines.push(l)), reread: read });
  try {
    const made = await (await fetch(`${gw.url}/@3.12.0/api/v3/userDataStream`, { method: 'POST', headers: bearer(TOKENS.desk) })).json() as { listenKey: string };
    const stream = await open(`${wsBase(gw)}/@3.12.0/ws/${made.listenKey}?token=${TOKENS.desk}`);
    const api = await open(`${wsBase(gw)}/@2026.08.21/ws-api/v3?token=${TOKENS.desk}`);
    // viewer keeps its rights but loses user data: narrowed, so its stream goes too.
    const viewerKey = await (await fetch(`${gw.url}/@3.12.0/api/v3/userDataStream`, { method: 'POST', headers: bearer(TOKENS.viewer) })).json() as { listenKey: string };
    const viewerStream = await open(`${wsBase(gw)}/@3.12.0/ws/${viewerKey.listenKey}?token=${TOKENS.viewer}`);
    const botApi = await open(`${wsBase(gw)}/@2026.08.21/ws-api/v3?token=${TOKENS.bot}`);
    const ends = [closed(stream.ws), closed(api.ws), closed(viewerStream.ws)];
    writeTokens('reload-revoke-tokens.yaml', [entry('bot'), entry('viewer', [])]);
    const reloading = gw.reload('test');
    // Closed while the reload still compiles: the revocation does not wait for it.
    const codes = await Promise.all(ends);
    assert.equal(codes.map((c) => [c.code, c.reason]), Array(3).fill([1008, 'client token revoked']));
    assert.ok((await reloading).ok);
    assert.is(botApi.ws.readyState, botApi.ws.OPEN, 'a token left as it was keeps its connection');
    assert.is((await fetch(`${gw.url}/api/v3/ping`, { headers: bearer(TOKENS.desk) })).status, 401);
    assert.is((await fetch(`${gw.url}/api/v3/ping`, { headers: bearer(TOKENS.bot) })).status, 200);
    // desk's listen key is forgotten: nobody renews it.
    assert.is((await fetch(`${gw.url}/@3.12.0/api/v3/userDataStream?listenKey=${made.listenKey}`, { method: 'PUT', headers: bearer(TOKENS.bot) })).status, 400);
    assert.ok(lines.some((l) => l.includes('reload revoked client token(s) desk, viewer: closed 3 websocket connection(s) with 1008')), lines.join('\n'));
    botApi.ws.close();
  } finally { await gw.close(); }
});

test.run();
