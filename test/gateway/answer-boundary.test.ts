// Writing an answer never throws past the http adapter: a header value node refuses
// (ERR_INVALID_CHAR) — whichever stage or hook let it through — makes a logged 500 for that request
// alone, and the process keeps serving. Before, the first such answer ended the process.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { createLogger } from '../../src/log.js';
import { writeLastAnswer } from '../../src/gateway/transport/raw-answer.js';
import { gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import type { Hook } from '../../src/gateway/pipeline.js';

const test = suite('answer boundary');
let upstream: Upstream;
test.before(async () => { upstream = await startUpstream({}); });
test.after(async () => { await upstream.stop(); });

/** A hook that stamps a header value node refuses on the answer of any request asking for it. */
const badHeader: Hook = {
  admit(state) {
    const bad = state.headers['x-test-bad'];
    if (bad === 'cr-lf') state.own['x-hook-note'] = 'one\r\nx-injected: yes';
    if (bad === 'non-latin1') state.own['x-gateway-release'] = '3.13.0-β';
  },
};

test('a header node refuses becomes a logged 500 for that request; the gateway keeps serving', async () => {
  const lines: string[] = [];
  const gw = await gatewayAt('3.12.0', upstream.url, [], { logger: createLogger('info', (l) => lines.push(l)), beforeProxy: [badHeader] });
  try {
    // A proxied answer (the upstream answered 200), a refusal (400: symbol missing), both kinds of bad value.
    for (const [path, kind] of [['/api/v3/ping', 'cr-lf'], ['/api/v3/ping', 'non-latin1'], ['/api/v3/klines', 'cr-lf'], ['/api/v3/klines', 'non-latin1']]) {
      const res = await fetch(`${gw.url}${path}`, { headers: { 'x-test-bad': kind } });
      assert.is(res.status, 500, `${path} ${kind}`);
      assert.equal(await res.json(), { code: -1000, msg: 'internal gateway error' }, 'in the service envelope');
      assert.is(res.headers.get('x-injected'), null);
      assert.match(res.headers.get('x-request-id') ?? '', /\S/, 'the answer keeps its request id');
      const ok = await fetch(`${gw.url}/api/v3/ping`);
      assert.is(ok.status, 200, 'the next request is served');
      assert.is(ok.headers.get('x-gateway-release'), '3.12.0');
    }
    const logged = lines.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => /answer not writable/.test(l.msg));
    assert.is(logged.length, 4, lines.join(''));
    for (const l of logged) {
      assert.is(l.level, 'error');
      assert.match(l.msg, /^GET \/api\/v3\/(ping|klines) → 500: answer not writable: .*(x-hook-note|x-gateway-release)/);
      assert.not.match(l.msg, /x-injected|β/, 'the refused value is not logged');
    }
  } finally {
    await gw.close();
  }
});

test('a raw last answer leaves out a header line with CR, LF or a non-Latin-1 character', async () => {
  let server: Server | undefined;
  const received = await new Promise<string>((resolve, reject) => {
    const s = (server = createServer());
    s.on('connection', (socket) => writeLastAnswer(socket, 400, ['X-Good: 1', 'X-Gateway-Release: 1.0\r\nX-Injected: yes', 'X-Other: β'], '{}'));
    s.listen(0, '127.0.0.1', () => {
      const c = connect((s.address() as AddressInfo).port, '127.0.0.1');
      let text = '';
      c.on('data', (d) => { text += d.toString('latin1'); });
      c.on('close', () => resolve(text));
      c.on('error', reject);
    });
  });
  await new Promise((r) => server!.close(r));
  assert.match(received, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(received, /\r\nX-Good: 1\r\n/);
  assert.not.match(received, /X-Injected|X-Gateway-Release|X-Other/i);
  assert.match(received, /\r\n\r\n\{\}$/);
});

test.run();
