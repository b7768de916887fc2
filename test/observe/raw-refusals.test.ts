// Answers written on the raw socket, outside node's ServerResponse, are requests like any other:
// each carries X-Request-Id and has one access line (route refused:<status>, no query, no header
// value) — a request node's parser refused (malformed, headers too large, headers too slow), a
// connection over --max-connections, and the requests of a pipelining flood the gateway cuts.
import { connect } from 'node:net';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { createLogger } from '../../src/log.js';
import type { RunningGateway } from '../../src/server.js';
import { gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';

const test = suite('raw-socket refusals: request ids and access lines');
let upstream: Upstream;
let gw: RunningGateway;
let port: number;
const lines: string[] = [];
const access = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.msg === 'access');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test.before(async () => {
  upstream = await startUpstream();
  gw = await gatewayAt('3.12.0', upstream.url, ['--headers-timeout', '300', '--max-connections', '4', '--max-pipelined', '1'], {
    logger: createLogger('info', (l) => lines.push(l)),
  });
  port = Number(new URL(gw.url).port);
});
test.after(async () => {
  await gw.close(0);
  await upstream.stop();
});

/** Write `text` on a fresh connection; resolve with everything read until the gateway closes it. */
function raw(text: string, timeoutMs = 4000): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => s.write(text));
    let got = '';
    s.on('data', (d: Buffer) => { got += d.toString('latin1'); });
    s.on('error', () => {});
    s.on('close', () => { clearTimeout(timer); resolve(got); });
    const timer = setTimeout(() => s.destroy(), timeoutMs);
  });
}

const idOf = (answer: string) => /\r\nX-Request-Id: ([0-9a-f-]{36})\r\n/.exec(answer)?.[1];

test('malformed, oversized and too slow requests: answered with an id, one access line each, nothing of the request logged', async () => {
  const cases: [string, string, number][] = [
    ['malformed header', 'GET /api/v3/ping?secret=s3 HTTP/1.1\r\nHost x\r\n\r\n', 400],
    ['bad request line', 'GET /api/v3/ping?secret=s3 HTTP/9\r\n\r\n', 400],
    ['headers over the limit', `GET /api/v3/ping HTTP/1.1\r\nHost: x\r\nX-Filler: ${'z'.repeat(20_000)}\r\n\r\n`, 431],
    ['headers never finished', 'GET /api/v3/ping?secret=s3 HTTP/1.1\r\nHost: x\r\nX-Token: t0ken\r\n', 408],
  ];
  for (const [what, text, status] of cases) {
    lines.length = 0;
    const answer = await raw(text);
    assert.match(answer, new RegExp(`^HTTP/1.1 ${status} `), `${what}: ${answer}`);
    const id = idOf(answer);
    assert.ok(id, `${what}: X-Request-Id in ${JSON.stringify(answer)}`);
    await sleep(20);
    const mine = access();
    assert.is(mine.length, 1, `${what}: one access line: ${lines.join('')}`);
    assert.equal({ reqId: mine[0].reqId, route: mine[0].route, status: mine[0].status }, { reqId: id, route: `refused:${status}`, status }, what);
    assert.type(mine[0].ms, 'number');
    if (what === 'malformed header') assert.is(mine[0].method, 'GET', 'the method, when the request line was read');
    assert.ok(mine[0].method === undefined || mine[0].method === 'GET', `${what}: method ${mine[0].method}`);
    assert.ok((mine[0].bytes as number) > 0);
    const text2 = lines.join('');
    // The filler is not hex: a trace id (32 hex digits) once held "ffff" by chance.
    for (const s of ['secret', 's3', 't0ken', 'zzzz']) assert.not.ok(text2.includes(s), `${what}: "${s}" in ${text2}`);
  }
  const slow = access();
  assert.ok(slow.length === 1 && (slow[0].ms as number) >= 250, `the header timeout's line measures the wait: ${JSON.stringify(slow)}`);
});

test('a connection over --max-connections: 503 with an id and an access line', async () => {
  lines.length = 0;
  await upstream.reset();
  // Each held connection has a request in progress (one with none, silent, trickling or idle, would make room).
  const held = await Promise.all(Array.from({ length: 4 }, () => new Promise<ReturnType<typeof connect>>((resolve) => {
    const s = connect(port, '127.0.0.1', () => { s.write('GET /api/v3/ping HTTP/1.1\r\nHost: x\r\nx-test-delay-ms: 2000\r\n\r\n'); resolve(s); });
    s.on('error', () => {});
  })));
  try {
    for (let i = 0; i < 40 && (await upstream.records()).length < 4; i++) await sleep(50); // every one under way
    const answer = await raw('GET /api/v3/ping HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.match(answer, /^HTTP\/1.1 503 /, answer);
    assert.match(answer, /\r\nRetry-After: 1\r\n/);
    const id = idOf(answer);
    assert.ok(id, answer);
    await sleep(20);
    const refused = access().filter((a) => a.status === 503);
    assert.is(refused.length, 1, lines.join(''));
    assert.equal({ reqId: refused[0].reqId, route: refused[0].route }, { reqId: id, route: 'refused:503' });
  } finally {
    for (const s of held) s.destroy();
  }
  await sleep(50);
});

test('a pipelining flood past the hard limit is cut; every request it sent has its access line (444), the one in progress too', async () => {
  lines.length = 0;
  await upstream.reset();
  // The first request holds the connection's one slot for 2 s; the rest, short enough to arrive in one
  // read, wait queued until the queue passes its hard limit (1024).
  const first = 'GET /api/v3/ping HTTP/1.1\r\nHost: x\r\nX-Request-Id: flood-first\r\nx-test-delay-ms: 2000\r\n\r\n';
  const n = 1100;
  const answer = await raw(first + 'GET /x?q=1 HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(n), 6000);
  assert.is(answer, '', 'the connection is cut without an answer');
  await sleep(100);
  const all = access();
  const cut = all.filter((a) => a.status === 444 && a.reqId !== 'flood-first');
  assert.ok(cut.length > 1024 && cut.length <= n, `the queued requests are recorded: ${cut.length}`);
  assert.ok(cut.every((a) => a.route === 'refused:444' && a.method === 'GET'));
  assert.is(new Set(cut.map((a) => a.reqId)).size, cut.length, 'one line per request, each with its own id');
  const inProgress = all.filter((a) => a.reqId === 'flood-first');
  assert.is(inProgress.length, 1);
  assert.equal({ route: inProgress[0].route, status: inProgress[0].status }, { route: '/api/v3/ping', status: 444 });
  assert.not.ok(lines.join('').includes('q='), 'no query in any line');
});

test.run();
