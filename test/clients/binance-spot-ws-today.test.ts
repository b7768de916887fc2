// Today's official client, @binance/spot 32.0.4, on the gateway's websocket API at the catalogue's
// newest release: every method of its WebsocketAPIConnection, called with the fields it declares
// (less those the catalogue says cannot go together), signed by the client itself, through the gateway
// to a local websocket-API stand-in that answers every request. The gateway refuses none of them.
import { createRequire } from 'node:module';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { aliveAt } from '../../src/catalogue/lifecycle.js';
import { newestExchangeRelease } from '../support/newest.js';
import { startWsUpstream, wsGatewayAt, wsUrl, type WsUpstream } from '../websocket/ws-upstream.js';
import { viewAt } from './sample-values.js';
import { readDeclarations, value, type Field } from './spot-declarations.js';

const require = createRequire(import.meta.url);
type Connection = Record<string, (params?: Record<string, unknown>) => Promise<unknown>> & { disconnect(): Promise<void> };
const { Spot } = require('@binance/spot') as { Spot: new (config: Record<string, unknown>) => { websocketAPI: { connect(): Promise<Connection> } } };

const NEWEST = newestExchangeRelease();
const test = suite(`@binance/spot 32.0.4 websocket API at ${NEWEST}`);
let upstream: WsUpstream;
let gw: RunningGateway;

test.before(async () => {
  upstream = await startWsUpstream();
  gw = await wsGatewayAt(NEWEST, upstream);
});
test.after(async () => {
  await gw?.close();
  await upstream?.stop();
});

/** What a failed call says: an Error's message or the answer's error. */
const describe = (e: unknown) => (e instanceof Error ? e.message : JSON.stringify(e) ?? String(e)).slice(0, 300);

/** The method a frame names. */
const methodOf = (data: Buffer) => (JSON.parse(data.toString()) as { method: string }).method;

test('every websocket-API method of the client, with every field it declares: no refusal by the gateway', async () => {
  const view = viewAt(null);
  const spot = new Spot({ configurationWebsocketAPI: { apiKey: 'ws-key', apiSecret: 'ws-secret', wsURL: `${wsUrl(gw)}/ws-api/v3`, timeout: 10_000, reconnectDelay: 60_000 } });
  const conn = await spot.websocketAPI.connect();
  const refused: string[] = [];
  const notSent: string[] = [];
  let called = 0;
  try {
    for (const m of readDeclarations('WebsocketAPIConnection')) {
      // Which method: the frame the client sends with its required fields (the catalogue then types the rest).
      const sentBefore = upstream.connections.flatMap((c) => c.received).length;
      const required = Object.fromEntries(m.fields.filter((f) => !f.optional).map((f) => [f.name, value('', f, undefined, view)]));
      const first = await conn[m.name](required).then(() => undefined, (e: unknown) => e);
      const frames = upstream.connections.flatMap((c) => c.received);
      // Refused with only the required fields (e.g. one of symbol or symbols is needed): found by its name.
      const byName = view.wsMethods.find((x) => x.name.replaceAll('.', '').toLowerCase() === m.name.toLowerCase())?.name;
      if (frames.length === sentBefore && !byName) { notSent.push(`${m.name}: ${first === undefined ? 'answered without a frame' : describe(first)}`); continue; }
      const name = frames.length === sentBefore ? byName! : methodOf(frames.at(-1)!.data);
      const method = view.wsMethods.find((x) => x.name === name && view.status(x) !== 'removed');
      const params = method ? aliveAt(method.parameters, view.at) : [];
      const accepted = (f: Field) => {
        const p = params.find((x) => x.name === f.name);
        const s = p?.schema as { enum?: string[] } | undefined;
        return p?.enum ? view.enumValues(p.enum).map((v) => v.value) : s?.enum;
      };
      const exclusive = method?.constraints.flatMap((c) => c.exclusive.slice(1)) ?? [];
      const fields = m.fields.filter((f) => !exclusive.includes(f.name));
      called++;
      try {
        await conn[m.name](Object.fromEntries(fields.map((f) => [f.name, value('', f, accepted(f), view)])));
      } catch (e) {
        refused.push(`${m.name} (${name}): ${describe(e)}`);
      }
    }
  } finally {
    await conn.disconnect();
  }
  console.log(`@binance/spot 32.0.4 websocket API at ${NEWEST}: ${called} methods called, ${refused.length} refused; not sent by the client itself: ${notSent.join('; ') || 'none'}`);
  assert.ok(called >= 50, `${called} methods called`);
  assert.equal(notSent, []);
  assert.equal(refused, []);
});

test.run();
