// A reload applies every setting it can, everywhere: one config edit changes the upstreams (REST,
// streams, websocket API), strict mode, the request deadline and the tokens file, and HTTP requests,
// stream upgrades and websocket-API frames all use the new values; a setting that needs a restart is
// logged as such and keeps its value. --watch sees saves made the way editors make them (a
// temporary file renamed over the old one), every time, not only the first.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { hashLine } from '../../src/gateway/client-auth/tokens.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { nextMessage, open, startWsUpstream, type WsUpstream } from '../websocket/ws-upstream.js';

const test = suite('reload applies the configuration everywhere');
const dir = tempDir('reload-applies-');
const configFile = join(dir, 'gw.yaml');
const tokensFile = join(dir, 'tokens.yaml');
const READER = 'gwt_reader-0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3';
let restA: Upstream; let restB: Upstream; let wsA: WsUpstream; let wsB: WsUpstream;

test.before(async () => { [restA, restB, wsA, wsB] = await Promise.all([startUpstream(), startUpstream(), startWsUpstream(), startWsUpstream()]); });
test.after(async () => { await Promise.all([restA.stop(), restB.stop(), wsA.stop(), wsB.stop()]); });

/** Save like an editor: write a temporary file, rename it over the old one. */
function save(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

function config(rest: Upstream, ws: WsUpstream, o: { strict: boolean; timeoutMs: number; maxConnections: number }): string {
  return `upstreams:\n  exchange:\n    rest: ${rest.url}\n    streams: ${ws.url}\n    wsApi: ${ws.url}\nstrict: ${o.strict}\ntimeoutMs: ${o.timeoutMs}\nmaxConnections: ${o.maxConnections}\ntokensFile: ${tokensFile}\nrateLimit: off\n`;
}
const tokens = (allowed: boolean) => `tokens:\n  - name: reader\n    hash: ${hashLine(READER)}\n    allow:\n      - module: ${allowed ? 'market' : 'trade'}\n      - ws: '*'\n`;
const auth = { authorization: `Bearer ${READER}` };

async function start(lines: string[], watch = false): Promise<RunningGateway> {
  const args = ['--port', '0', '--release', '3.12.0', '--config', configFile, ...(watch ? ['--watch'] : [])];
  return startGateway(readConfig(args, {}), { logger: createLogger('info', (l) => lines.push(l)), reread: () => readConfig(args, {}) });
}

const get = (gw: RunningGateway, path: string, headers: Record<string, string> = {}) => fetch(`${gw.url}${path}`, { headers: { ...auth, ...headers }, signal: AbortSignal.timeout(10_000) });

test('one edit, one reload: REST, streams, websocket API, strict, deadline and tokens all change; a restart-only setting is kept and said', async () => {
  save(configFile, config(restA, wsA, { strict: false, timeoutMs: 5000, maxConnections: 1000 }));
  save(tokensFile, tokens(true));
  const lines: string[] = [];
  const gw = await start(lines);
  try {
    assert.is((await get(gw, '/api/v3/ping?bogus=1')).status, 200, 'not strict: an unknown parameter is forwarded');
    assert.is((await restA.records()).length, 1);
    assert.is((await get(gw, '/api/v3/ping', { 'x-test-delay-ms': '1500' })).status, 200, 'within the 5 s deadline');
    save(configFile, config(restB, wsB, { strict: true, timeoutMs: 500, maxConnections: 2000 }));
    save(tokensFile, tokens(false));
    const outcome = await gw.reload('test');
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.ok(lines.some((l) => /setting --max-connections changed: needs a restart; still using 1000/.test(l)), lines.join('\n'));
    // Tokens: the reader lost market.
    assert.is((await get(gw, '/api/v3/ping')).status, 403);
    save(tokensFile, tokens(true));
    assert.ok((await gw.reload('test')).ok);
    // REST: the new upstream, strict, the new deadline.
    assert.is((await get(gw, '/api/v3/ping?bogus=1')).status, 400, 'strict now');
    assert.is((await get(gw, '/api/v3/ping')).status, 200);
    assert.is((await restB.records()).length, 1, 'the new REST upstream');
    assert.is((await restA.records()).length, 2, 'nothing more to the old one');
    const slow = await get(gw, '/api/v3/ping', { 'x-test-delay-ms': '1500' });
    assert.is(slow.status, 504);
    assert.match(await slow.text(), /deadline of 500 ms/);
    // Streams and the websocket API dial the new upstream; the websocket API is strict too.
    const ws = gw.url.replace(/^http/, 'ws');
    const stream = await open(`${ws}/ws/btcusdt@trade`, { headers: auth });
    assert.ok((await wsB.nextConnection()).url.startsWith('/ws/btcusdt@trade'));
    stream.ws.close();
    const api = await open(`${ws}/ws-api/v3`, { headers: auth });
    api.ws.send(JSON.stringify({ id: 1, method: 'ping', params: { bogus: 1 } }));
    const refusal = JSON.parse((await nextMessage(api.ws)).data.toString()) as { status: number };
    assert.is(refusal.status, 400, 'strict applies to websocket-API frames after the reload');
    api.ws.send(JSON.stringify({ id: 2, method: 'ping' }));
    const answered = JSON.parse((await nextMessage(api.ws)).data.toString()) as { result?: { upstream?: boolean } };
    assert.ok(answered.result?.upstream, 'forwarded');
    assert.ok((await wsB.nextConnection()).url.startsWith('/ws-api/v3'), 'the new websocket-API upstream');
    assert.is(wsA.connections.length, 0, 'the old websocket upstream was never dialled');
    api.ws.close();
  } finally {
    await gw.close();
  }
});

test('--watch applies every atomic save of the config and tokens files, not just the first', async () => {
  save(configFile, config(restA, wsA, { strict: false, timeoutMs: 5000, maxConnections: 1000 }));
  save(tokensFile, tokens(true));
  const lines: string[] = [];
  const gw = await start(lines, true);
  const reloaded = async (n: number) => {
    const until = Date.now() + 10_000;
    while (lines.filter((l) => /reloaded \(--watch/.test(l)).length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.is(lines.filter((l) => /reloaded \(--watch/.test(l)).length >= n, true, `reload ${n} seen:\n${lines.join('\n')}`);
  };
  try {
    let saves = 0;
    for (let i = 1; i <= 2; i++) {
      const strict = i % 2 === 1;
      save(configFile, config(restA, wsA, { strict, timeoutMs: 5000, maxConnections: 1000 }));
      await reloaded(++saves);
      assert.is((await get(gw, '/api/v3/ping?bogus=1')).status, strict ? 400 : 200, `save ${i} of the config file applied`);
      save(tokensFile, tokens(false));
      await reloaded(++saves);
      assert.is((await get(gw, '/api/v3/ping')).status, 403, `save ${i} of the tokens file revoked the token`);
      save(tokensFile, tokens(true));
      await reloaded(++saves);
      assert.is((await get(gw, '/api/v3/ping')).status, 200, `save ${i} of the tokens file restored it`);
    }
  } finally {
    await gw.close();
  }
});

test.run();
