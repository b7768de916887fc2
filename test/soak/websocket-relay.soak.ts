// Soak (`npm run test:soak`): the relay at 1 000 messages/s each way for 10 s — 10 000 frames each
// way, none lost or reordered, bytes identical. `npm test` runs the same check for 1 s
// (test/websocket/relay.test.ts).
import { suite } from '../support/uvu.js';
import type { RunningGateway } from '../../src/server.js';
import { relayInOrder } from '../websocket/relay-order.js';
import { startWsUpstream, wsGatewayAt, type WsUpstream } from '../websocket/ws-upstream.js';

const test = suite('websocket relay soak');
let upstream: WsUpstream;
let gw: RunningGateway;

test.before(async () => {
  upstream = await startWsUpstream();
  upstream.autoAnswer = false;
  gw = await wsGatewayAt('3.12.0', upstream, {}, ['--ws-max-buffered', String(1024 * 1024)]);
});
test.after(async () => {
  await gw.close();
  await upstream.stop();
});

test('1 000 messages/s each way for 10 s: all 10 000 arrive, in order, byte-identical', async () => {
  await relayInOrder(gw, upstream, 10_000, 1000);
});

test.run();
