// No secret in any output: full runs of the gateway CLI at --log-level debug in signing mode
// (HMAC; RSA with an encrypted key; Ed25519), exercising successes, refusals, validation errors,
// upstream failures and failed start-ups. Neither the secret, the private keys (PEM body lines),
// the passphrase, the API keys nor a token may appear in the logs or in any answer.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT, startGatewayProcess, startUpstream, type Upstream, NODE_FLAGS } from '../support/processes.js';
import {
  bearer, dir, ED, ED_KEY, HMAC_KEY, HMAC_SECRET, PASSPHRASE, pemBody, RSA_ENC, RSA_ENC_KEY, tokensFile, TOKENS, UPSTREAM_KEYS,
} from './support.js';

const test = suite('no secrets in logs');
let upstream: Upstream;

const pemLines = (pem: string) => pem.split('\n').filter((l) => l && !l.startsWith('-----'));
const SECRETS: [string, string][] = [
  ['HMAC secret', HMAC_SECRET],
  ['passphrase', PASSPHRASE],
  ['RSA private key', pemBody(RSA_ENC.privatePem)],
  ...pemLines(RSA_ENC.privatePem).map((l, i): [string, string] => [`RSA private key line ${i}`, l]),
  ['Ed25519 private key', pemBody(ED.privatePem)],
  ...pemLines(ED.privatePem).map((l, i): [string, string] => [`Ed25519 private key line ${i}`, l]),
  ['HMAC API key', HMAC_KEY], ['RSA API key', RSA_ENC_KEY], ['Ed25519 API key', ED_KEY],
  ...Object.entries(TOKENS).map(([k, v]): [string, string] => [`token ${k}`, v]),
  ['token body', TOKENS.trader.slice(4)],
];

function assertClean(what: string, text: string): void {
  for (const [name, s] of SECRETS) assert.not.ok(text.includes(s), `${what} contains the ${name}`);
}

/** Words of the run's queries and bodies: none may reach an access line (or any other). */
const REQUEST_WORDS = ['omitZeroBalances', 'timeInForce', 'BNBUSDT', 'signature=', 'deadbeef', 'Bearer', 'Basic ', 'x-test-delay-ms'];

/**
 * Every line of the run is JSON (but the listening line on stdout); each request has exactly one
 * access line with its id, route template and status, and no line holds a query, body or header.
 */
function assertAccessLines(log: string, sent: { id: string; status: number }[]): void {
  const lines = log.split('\n').filter((l) => l && !l.startsWith('listening on'));
  for (const l of lines) assert.ok(/^\{.*\}$/.test(l), `not a JSON log line: ${l}`);
  const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const r of records) {
    const line = JSON.stringify(r);
    for (const w of REQUEST_WORDS) assert.not.ok(line.includes(w), `a log line holds "${w}": ${line}`);
  }
  const access = records.filter((r) => r.msg === 'access');
  for (const { id, status } of sent) {
    const mine = access.filter((r) => r.reqId === id);
    assert.is(mine.length, 1, `one access line for ${id}`);
    const [a] = mine;
    assert.is(a.status, status);
    for (const k of ['time', 'method', 'route', 'ms', 'pid', 'bytes']) assert.ok(a[k] !== undefined, `access line of ${id} has ${k}: ${JSON.stringify(a)}`);
    assert.not.ok(String(a.route).includes('?'), `route is a template: ${a.route}`);
    assert.not.match(String(a.route), /unmatched/);
  }
  assert.ok(access.some((a) => a.route === '/api/v3/account' && a.upstreamMs !== undefined && a.release === '3.12.0'), 'proxied requests log upstream time and release');
  assert.ok(access.some((a) => a.route === 'refused:404'));
  assert.ok(access.some((a) => a.route === 'admin:/_gateway/metrics'));
}

test.before(async () => { upstream = await startUpstream(UPSTREAM_KEYS); });
test.after(async () => { await upstream.stop(); });

const RUNS: Record<string, NodeJS.ProcessEnv> = {
  HMAC: { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET, EXCHANGE_RECV_WINDOW: '5000' },
  'RSA, encrypted key': { EXCHANGE_API_KEY: RSA_ENC_KEY, EXCHANGE_PRIVATE_KEY_FILE: RSA_ENC.privateFile, EXCHANGE_PRIVATE_KEY_PASSPHRASE: PASSPHRASE },
  Ed25519: { EXCHANGE_API_KEY: ED_KEY, EXCHANGE_PRIVATE_KEY_FILE: ED.privateFile },
};

/**
 * One signing mode's full debug run. The three run side by side (one test): each waits ~5 s for its
 * 504, and one after another those waits were most of the file's 17 s.
 */
async function fullDebugRun(name: string, env: NodeJS.ProcessEnv): Promise<void> {
  const gw = await startGatewayProcess(
    ['--log-level', 'debug', '--release', '3.12.0', '--upstream', `exchange=${upstream.url}`, '--timeout', '5000', '--tokens-file', tokensFile],
    { ...env, GATEWAY_LOG_LEVEL: 'debug' },
  );
  const answers: string[] = [];
  const sent: { id: string; status: number }[] = [];
  let calls = 0;
  const call = async (path: string, init: RequestInit = {}, want?: number) => {
    const id = `run-${calls++}`;
    const res = await fetch(`${gw.url}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), 'X-Request-Id': id } });
    const text = await res.text();
    answers.push(`${res.status} ${JSON.stringify([...res.headers])} ${text}`);
    assert.is(res.headers.get('x-request-id'), id, `${path}: the request id is echoed`);
    sent.push({ id, status: res.status });
    if (want !== undefined) assert.is(res.status, want, `${path}: ${text}`);
  };
  const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
  /** Write a request on a fresh socket; the answer's X-Request-Id is what its access line must carry. */
  const rawCall = async (text: string, want: number) => {
    const { port } = new URL(gw.url);
    const answer = await new Promise<string>((resolve) => {
      const s = connect(Number(port), '127.0.0.1', () => s.write(text));
      let got = '';
      s.on('data', (d: Buffer) => { got += d.toString('latin1'); });
      s.on('error', () => {});
      s.on('close', () => resolve(got));
      setTimeout(() => s.destroy(), 3000).unref();
    });
    answers.push(answer);
    assert.match(answer, new RegExp(`^HTTP/1.1 ${want} `), answer);
    const id = /\r\nX-Request-Id: ([^\r]+)\r\n/i.exec(answer)?.[1];
    assert.ok(id, `an id on the raw answer: ${answer}`);
    sent.push({ id: id!, status: want });
  };
  try {
    // --timeout 5000: the answered calls below must not hit it on a loaded machine (1.5 s did). The
    // call that does (504) runs beside them rather than before them: its 5 s were most of the run.
    const timedOut = call('/api/v3/account', { headers: { ...bearer(TOKENS.trader), 'x-test-delay-ms': '6000' } }, 504);
    timedOut.catch(() => {}); // awaited below; a failure there is the test's, not an unhandled rejection
    await call('/api/v3/account?omitZeroBalances=true', { headers: bearer(TOKENS.trader) }, 200);
    await call('/api/v3/order', { method: 'POST', body: 'symbol=BNBUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=350', headers: { ...bearer(TOKENS.trader), ...form } }, 200);
    await call('/api/v3/order', { method: 'POST', body: 'symbol=BNBUSDT&side=BUY&type=LIMIT&timeInForce=NEVER&quantity=1&price=350', headers: { ...bearer(TOKENS.trader), ...form } }, 400);
    await call('/api/v3/account', {}, 401);
    await call('/api/v3/account', { headers: bearer(`${TOKENS.trader}-wrong`) }, 401);
    await call('/api/v3/account', { headers: { Authorization: `Basic ${TOKENS.reader}` } }, 401);
    await call('/api/v3/account', { headers: bearer(TOKENS.reader) }, 403);
    await call('/api/v3/nosuch', { headers: bearer(TOKENS.trader) }, 404);
    await call('/api/v3/account', { method: 'DELETE', headers: bearer(TOKENS.trader) }, 405);
    await call(`/api/v3/account?timestamp=${Date.now()}&signature=deadbeef`, { headers: { ...bearer(TOKENS.trader), 'X-MBX-APIKEY': HMAC_KEY } }, 400);
    for (const p of ['/_gateway/health', '/_gateway/catalogue', '/_gateway/openapi.json', '/_gateway/metrics']) await call(p);
    // Answered on the raw socket: a websocket upgrade refused (bad stream name), a request node's
    // parser refuses. Both carry a token and a signature; each has its access line, neither leaks.
    const secretHeaders = `Authorization: Bearer ${TOKENS.trader}\r\nX-MBX-APIKEY: ${HMAC_KEY}\r\n`;
    await rawCall(`GET /ws/BNBUSDT@trade?signature=deadbeef HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: run-ws\r\n${secretHeaders}Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`, 400);
    await rawCall(`GET /api/v3/account?signature=deadbeef HTTP/1.1\r\n${secretHeaders}Bad Header\r\n\r\n`, 400);
    await timedOut;
    // This mode's requests: the upstream sees the three runs' requests, told apart by their API key.
    const recs = (await upstream.records()).filter((r) => r.headers['x-mbx-apikey'] === env.EXCHANGE_API_KEY);
    assert.ok(recs.some((r) => r.verified === true), `${name}: signed requests went through`);
    for (const r of recs) assert.is(r.headers.authorization, undefined);
  } finally {
    await gw.stop();
  }
  const log = gw.output();
  assert.match(log, /signing mode, (HMAC|RSA|ED25519) signatures/);
  assert.match(log, /client authentication: 3 token/);
  assert.match(log, /listening on/);
  assertClean(`${name}: the log`, log);
  assertClean(`${name}: an answer`, answers.join('\n'));
  assertAccessLines(log, sent);
}

test(`${Object.keys(RUNS).join('; ')}: full debug runs log no secret and answer none`, async () => {
  await Promise.all(Object.entries(RUNS).map(([name, env]) => fullDebugRun(name, env)));
  await upstream.reset();
});

test('an unreachable upstream (warn-level log of a 502) names no secret', async () => {
  const gw = await startGatewayProcess(['--log-level', 'debug', '--upstream', 'exchange=http://127.0.0.1:9', '--tokens-file', tokensFile], RUNS.HMAC);
  try {
    const res = await fetch(`${gw.url}/api/v3/account`, { headers: bearer(TOKENS.trader) });
    assert.is(res.status, 502);
    assertClean('the answer', await res.text());
  } finally { await gw.stop(); }
  assert.match(gw.output(), /"level":"warn".*502/);
  assertClean('the log', gw.output());
});

/** The CLI run to its end: exit status (null if killed at the 20 s bound), stdout and stderr. */
const cli = (args: string[], env: NodeJS.ProcessEnv) => new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
  const child = execFile(process.execPath, [...NODE_FLAGS, `${ROOT}dist/src/cli.cjs`, '--port', '0', '--log-level', 'debug', ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 20_000 },
    (_e, stdout, stderr) => resolve({ status: child.exitCode, stdout, stderr }));
});

// The start-ups run side by side: each is a process that exits at once, and one after another they
// were most of the file's time.
test('failed start-ups: exit 2, one-line error naming the variable, no secret', async () => {
  const badTokens = join(dir, 'plain-tokens.yaml');
  writeFileSync(badTokens, `tokens:\n  - name: a\n    hash: ${TOKENS.trader}\n    allow: ['/x']\n`);
  const cases: [NodeJS.ProcessEnv, string[], RegExp][] = [
    [{ ...RUNS['RSA, encrypted key'], EXCHANGE_PRIVATE_KEY_PASSPHRASE: `${PASSPHRASE}-wrong` }, [], /^error: EXCHANGE_PRIVATE_KEY_FILE: cannot decrypt the private key with EXCHANGE_PRIVATE_KEY_PASSPHRASE/],
    [{ ...RUNS['RSA, encrypted key'], EXCHANGE_PRIVATE_KEY_PASSPHRASE: '' }, [], /^error: EXCHANGE_PRIVATE_KEY_FILE holds an encrypted private key: set EXCHANGE_PRIVATE_KEY_PASSPHRASE( \(see --help\))?$/],
    [{ ...RUNS.HMAC, EXCHANGE_PRIVATE_KEY_FILE: ED.privateFile }, [], /^error: set either EXCHANGE_API_SECRET \(HMAC\) or EXCHANGE_PRIVATE_KEY_FILE/],
    [{ EXCHANGE_API_SECRET: HMAC_SECRET }, [], /^error: EXCHANGE_API_SECRET is set but EXCHANGE_API_KEY is not/],
    [RUNS.HMAC, ['--host', '0.0.0.0'], /^error: signing mode is on and --host 0\.0\.0\.0 is not loopback, but no client tokens are configured: set GATEWAY_TOKENS_FILE/],
    [RUNS.Ed25519, ['--tokens-file', badTokens], /^error: GATEWAY_TOKENS_FILE: tokens\[0\] \("a"\): hash must be sha256:<64 hex digits>/],
  ];
  const runs = await Promise.all(cases.map(([env, args]) => cli(args, env)));
  for (const [i, [, , want]] of cases.entries()) {
    const r = runs[i];
    const out = `${r.stdout}${r.stderr}`;
    assert.is(r.status, 2, out);
    assert.match(r.stderr.split('\n')[0], want);
    assert.not.match(out, /listening on/);
    assertClean('a start-up error', out);
  }
});

test.run();
