// Open websockets across a reload: they keep running on the program they started on; one whose
// stream (URL or SUBSCRIBE), websocket API or release the new program no longer serves is closed
// with 1001 and a reason naming the stream and the release only with --reload-closes-websockets.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type WebSocket from 'ws';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { findService, resolveService } from '../../src/catalogue/resolve.js';
import { readConfig } from '../../src/config.js';
import { goneChecker } from '../../src/gateway/websocket/after-reload.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { catalogueCopy, dirs } from '../gateway/reload-load.js';
import {
  closed, connect, isRefused, nextMessage, open, sleep, startWsUpstream, wsGatewayAt, wsUrl, type UpstreamConnection, type WsUpstream,
} from './ws-upstream.js';

const unit = suite('what a reload takes away from open websockets');

unit('a stream, the websocket API, a release: judged against the views now serving the connection\'s release', () => {
  const exchange = findService(loadCatalogue().catalogue, 'exchange');
  const at = (release: string) => goneChecker([resolveService(exchange, release)]);
  const streams = (release: string, ...names: string[]) => ({ kind: 'streams' as const, service: 'exchange', release, names: new Set(names) });
  const wsApi = (release: string) => ({ kind: 'wsApi' as const, service: 'exchange', release, names: new Set<string>() });
  assert.is(at('3.12.0')(streams('3.12.0', 'btcusdt@aggTrade', 'btcusdt@kline_1s')), undefined);
  assert.is(at('1.16.0')(streams('1.16.0', 'btcusdt@aggTrade', 'btcusdt@kline_1s')), 'gateway reloaded: stream btcusdt@kline_1s is no longer served at 1.16.0');
  assert.is(at('3.12.0')(wsApi('3.12.0')), undefined);
  assert.is(at('2.0.0')(wsApi('2.0.0')), 'gateway reloaded: the websocket API is no longer served at 2.0.0');
  assert.is(goneChecker(undefined)(wsApi('3.11.0')), 'gateway reloaded: release 3.11.0 of exchange is no longer served');
  const long = `${'a'.repeat(200)}@trade`;
  const reason = at('3.12.0')(streams('3.12.0', long.replace('@trade', '@nostream')))!;
  assert.ok(Buffer.byteLength(reason) <= 123, reason);
});

unit.run();

const test = suite('websockets across a reload');
let up: WsUpstream;

test.before(async () => { up = await startWsUpstream(); });
test.before.each(() => { up.reset(); });
test.after(async () => {
  await up.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * A catalogue copy and the edit that removes <symbol>@trade at 3.12.0 (declared unbridgeable, as
 * lint's coverage asks of every stream removal the upstream's release includes).
 */
function removableTrade(): { dir: string; removeTrade(): void } {
  const { dir } = catalogueCopy();
  const file = join(dir, 'exchange/streams.yaml');
  const text = readFileSync(file, 'utf8');
  const entry = "  - name: '<symbol>@trade'\n";
  assert.ok(text.includes(entry));
  const changesFile = join(dir, 'exchange/changes.yaml');
  const changes = readFileSync(changesFile, 'utf8');
  return {
    dir,
    removeTrade: () => {
      writeFileSync(changesFile, changes.replace(/^unbridgeable:\n/m, "unbridgeable:\n  - { release: 3.12.0, operation: 'stream <symbol>@trade', reason: test, source: test }\n"));
      writeFileSync(file, text.replace(entry, `${entry}    removed: 3.12.0\n`));
    },
  };
}

/** A client socket and the upstream connection the gateway opened for it. */
async function relayed(url: string): Promise<{ ws: WebSocket; upstream: UpstreamConnection }> {
  const { ws } = await open(url);
  return { ws, upstream: await up.nextConnection() };
}

/** The upstream sends a frame; the client receives it (the relay still runs). */
async function stillRelays(c: { ws: WebSocket; upstream: UpstreamConnection }, text: string): Promise<void> {
  c.upstream.ws.send(text);
  assert.is((await nextMessage(c.ws)).data.toString(), text);
}

const logged = (lines: string[]) => lines.map((l) => (JSON.parse(l) as { msg: string }).msg);

test('--reload-closes-websockets: streams gone after the reload are closed (1001, stream and release named); the rest keep running', async () => {
  const cat = removableTrade();
  const lines: string[] = [];
  const gw = await wsGatewayAt('3.12.0', up, { logger: createLogger('info', (l) => lines.push(l)) }, ['--catalogue', cat.dir, '--reload-closes-websockets']);
  try {
    const base = wsUrl(gw);
    const trade = await relayed(`${base}/ws/btcusdt@trade`);
    const agg = await relayed(`${base}/ws/btcusdt@aggTrade`);
    const combined = await relayed(`${base}/stream?streams=btcusdt@aggTrade/bnbusdt@trade`);
    // Subscribed after opening: the gateway remembers what it let through.
    const subscribed = await relayed(`${base}/ws`);
    subscribed.ws.send(JSON.stringify({ method: 'SUBSCRIBE', params: ['ethusdt@trade'], id: 1 }));
    assert.match((await nextMessage(subscribed.ws)).data.toString(), /"result":null/);
    // Subscribed, then unsubscribed: nothing gone left on it.
    const unsubscribed = await relayed(`${base}/ws/btcusdt@depth`);
    unsubscribed.ws.send(JSON.stringify({ method: 'SUBSCRIBE', params: ['ethusdt@trade'], id: 1 }));
    await nextMessage(unsubscribed.ws);
    unsubscribed.ws.send(JSON.stringify({ method: 'UNSUBSCRIBE', params: ['ethusdt@trade'], id: 2 }));
    await nextMessage(unsubscribed.ws);
    const api = await relayed(`${base}/ws-api/v3`);

    const gone = ([[trade, 'btcusdt@trade'], [combined, 'bnbusdt@trade'], [subscribed, 'ethusdt@trade']] as const).map(([c, name]) => ({ c, name, ended: closed(c.ws) }));
    cat.removeTrade();
    const outcome = await gw.reload('test');
    assert.ok(outcome.ok, JSON.stringify(outcome));

    for (const { c, name, ended } of gone) {
      const end = await ended;
      assert.is(end.code, 1001, name);
      assert.is(end.reason, `gateway reloaded: stream ${name} is no longer served at 3.12.0`);
      assert.ok(Buffer.byteLength(end.reason) <= 123);
      assert.is((await c.upstream.closed).code, 1001, `the upstream connection of ${name} is closed too`);
    }
    await stillRelays(agg, '{"e":"aggTrade","after":"reload"}');
    await stillRelays(unsubscribed, '{"e":"depthUpdate"}');
    api.ws.send(JSON.stringify({ id: 'p', method: 'ping', params: {} }));
    assert.match((await nextMessage(api.ws)).data.toString(), /"status":200/);
    // New upgrades get the new program.
    const refused = await connect(`${base}/ws/btcusdt@trade`);
    assert.ok(isRefused(refused) && refused.status === 400, 'btcusdt@trade is refused after the reload');

    assert.is(gw.websockets.stats().reloadClosed, 3);
    assert.match(await (await fetch(`${gw.url}/_gateway/metrics`)).text(), /gateway_websocket_reload_closed_total 3\b/);
    assert.ok(logged(lines).some((m) => /^reload closed 3 websocket connection\(s\) whose stream/.test(m)), logged(lines).join('\n'));
    assert.not.ok(lines.some((l) => l.includes('btcusdt@trade')), 'stream names (a user-data stream is its listen key) are not logged');
    for (const c of [agg, unsubscribed, api]) c.ws.close();
  } finally {
    await gw.close();
  }
});

test('without the flag, a websocket whose stream is gone keeps receiving frames from the upstream', async () => {
  const cat = removableTrade();
  const lines: string[] = [];
  const gw = await wsGatewayAt('3.12.0', up, { logger: createLogger('info', (l) => lines.push(l)) }, ['--catalogue', cat.dir]);
  try {
    const trade = await relayed(`${wsUrl(gw)}/ws/btcusdt@trade`);
    cat.removeTrade();
    assert.ok((await gw.reload('test')).ok);
    await sleep(50);
    await stillRelays(trade, '{"e":"trade","t":1}');
    await stillRelays(trade, '{"e":"trade","t":2}');
    assert.is(gw.websockets.stats().open, 1);
    assert.is(gw.websockets.stats().reloadClosed, 0);
    assert.ok(logged(lines).some((m) => /^reload kept 1 open websocket connection\(s\) whose stream.*--reload-closes-websockets closes them/.test(m)), logged(lines).join('\n'));
    const refused = await connect(`${wsUrl(gw)}/ws/btcusdt@trade`);
    assert.ok(isRefused(refused) && refused.status === 400, 'new upgrades are checked by the new program');
    trade.ws.close();
  } finally {
    await gw.close();
  }
});

test('--reload-closes-websockets: a release no longer served closes its websockets; the release still served keeps its own', async () => {
  const args = (releases: string) => [
    '--port', '0', '--release', releases, '--upstream', 'exchange=http://127.0.0.1:9', '--reload-closes-websockets',
    '--upstream', `exchange.streams=${up.url}`, '--upstream', `exchange.wsApi=${up.url}/ws-api/v3`,
  ];
  let releases = '3.11.0,3.12.0';
  const gw: RunningGateway = await startGateway(readConfig(args(releases), {}), { logger: createLogger('silent'), reread: () => readConfig(args(releases), {}) });
  try {
    const old = await relayed(`${wsUrl(gw)}/@3.11.0/ws/btcusdt@aggTrade`);
    const kept = await relayed(`${wsUrl(gw)}/@3.12.0/ws/btcusdt@aggTrade`);
    const ended = closed(old.ws);
    releases = '3.12.0';
    assert.ok((await gw.reload('test')).ok);
    assert.equal(await ended, { code: 1001, reason: 'gateway reloaded: release 3.11.0 of exchange is no longer served' });
    await stillRelays(kept, '{"e":"aggTrade"}');
    kept.ws.close();
    await closed(kept.ws);
    for (let i = 0; i < 50 && gw.websockets.stats().open; i++) await sleep(20);
    // Nothing is open on the replaced program any more: a further reload lets it go, its counts stay.
    assert.ok((await gw.reload('test')).ok);
    assert.equal(gw.websockets.stats(), { open: 0, connecting: 0, accepted: 2, refused: 0, slowClients: 0, reloadClosed: 1 });
  } finally {
    await gw.close();
  }
});

test.run();
