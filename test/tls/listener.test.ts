// TLS on the gateway's port (--tls-cert, --tls-key): the real curl through it, TLS 1.2 at least,
// plain HTTP refused with nginx's 400, the probes' plain listener (--health-port) serving nothing
// else, a reload reading broken files refused while the certificate in use keeps serving, and
// start-up errors that name the flag, the file and the reason (never the key).
import { copyFileSync, readFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { certificateAuthority, type Authority, type Issued } from '../support/certificates.js';
import { curl } from '../support/curl.js';
import { gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { readTls } from '../../src/server/tls.js';
import type { RunningGateway } from '../../src/server.js';

const test = suite('TLS on the listener');
let upstream: Upstream;
let gw: RunningGateway;
let ca: Authority;
let served: Issued;
let live: { cert: string; key: string };
let port: string;

test.before(async () => {
  upstream = await startUpstream();
  ca = certificateAuthority('ca', '/CN=Test CA');
  served = ca.issue('gateway', '/CN=localhost', true);
  const dir = tempDir('tls-live-');
  live = { cert: join(dir, 'gateway.pem'), key: join(dir, 'gateway.key') };
  copyFileSync(served.cert, live.cert);
  copyFileSync(served.key, live.key);
  gw = await gatewayAt(undefined, upstream.url, ['--tls-cert', live.cert, '--tls-key', live.key, '--health-port', '0']);
  port = new URL(gw.url).port;
});
test.after(async () => {
  await gw?.close();
  await upstream?.stop();
});

/** The SHA-256 fingerprint of the certificate a new connection gets, and the protocol it speaks. */
function handshake(opts: { maxVersion?: 'TLSv1.1' | 'TLSv1.2' } = {}): Promise<{ fingerprint?: string; protocol?: string; error?: string }> {
  return new Promise((resolve) => {
    const low = opts.maxVersion === 'TLSv1.1' ? { minVersion: 'TLSv1' as const, ciphers: 'DEFAULT:@SECLEVEL=0' } : {};
    const s = tlsConnect({ port: Number(port), host: '127.0.0.1', servername: 'localhost', ca: readFileSync(ca.cert), ...low, ...opts }, () => {
      resolve({ fingerprint: s.getPeerCertificate().fingerprint256, protocol: s.getProtocol() ?? undefined });
      s.end();
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
  });
}

test('curl --cacert: https through the gateway to the upstream; an untrusted certificate is refused by curl', async () => {
  assert.match(gw.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const r = await curl(['--cacert', ca.cert, `https://localhost:${port}/api/v3/ping`]);
  assert.is(r.status, 200, r.stderr);
  assert.is(JSON.parse(r.body).url, '/api/v3/ping');
  const untrusted = await curl([`https://localhost:${port}/api/v3/ping`]);
  assert.is(untrusted.code, 60, 'curl does not trust a certificate of an unknown CA');
  assert.is(untrusted.status, 0);
});

test('TLS 1.2 at least: 1.3 by default, 1.2 when asked, 1.1 refused by the gateway (protocol version alert)', async () => {
  assert.is((await handshake()).protocol, 'TLSv1.3');
  assert.is((await handshake({ maxVersion: 'TLSv1.2' })).protocol, 'TLSv1.2');
  assert.is((await handshake({ maxVersion: 'TLSv1.1' })).error, 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION');
});

test('plain HTTP on the TLS port: 400 naming https and closed; never served, never redirected', async () => {
  await upstream.reset();
  const r = await curl(['-i', `http://localhost:${port}/api/v3/ping`]);
  assert.is(r.status, 400);
  assert.match(r.body, /The plain HTTP request was sent to HTTPS port/);
  assert.not.match(r.body, /^location:/im);
  // A raw client that keeps its side open is closed by the gateway after the answer.
  const raw = await new Promise<string>((resolve) => {
    let got = '';
    const s = netConnect(Number(port), '127.0.0.1', () => s.write('POST /api/v3/order HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n'));
    s.on('data', (d) => { got += d.toString(); });
    s.on('close', () => resolve(got));
  });
  assert.match(raw, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.equal(await upstream.records(), [], 'nothing reached the upstream');
});

test('--health-port: plain HTTP, the health and readiness answers, 404 to everything else', async () => {
  assert.match(gw.healthUrl!, /^http:\/\/127\.0\.0\.1:\d+$/);
  await upstream.reset();
  assert.is((await fetch(`${gw.healthUrl}/_gateway/ready`)).status, 200);
  const health = await (await fetch(`${gw.healthUrl}/_gateway/health`)).json() as { status: string };
  assert.is(health.status, 'ok');
  for (const [method, path] of [['GET', '/api/v3/ping'], ['POST', '/_gateway/reload'], ['GET', '/_gateway/metrics'], ['POST', '/_gateway/ready']]) {
    const r = await fetch(`${gw.healthUrl}${path}`, { method });
    assert.is(r.status, 404, `${method} ${path}`);
    assert.match(await r.text(), /serves only \/_gateway\/health and \/_gateway\/ready/);
  }
  assert.equal(await upstream.records(), []);
});

test('a reload whose key does not match is refused, naming the flag; the certificate in use keeps serving', async () => {
  const before = await handshake();
  const other = ca.issue('other', '/CN=localhost', true);
  copyFileSync(other.key, live.key);
  try {
    const outcome = await gw.reload('test');
    assert.is(outcome.ok, false);
    assert.match(outcome.problems!.join('\n'), /invalid --tls-key .*: it is not the private key of the certificate in --tls-cert/);
    assert.is(before.fingerprint, served.fingerprint);
    assert.is((await handshake()).fingerprint, served.fingerprint);
    assert.is((await curl(['--cacert', ca.cert, `https://localhost:${port}/api/v3/ping`])).status, 200);
  } finally {
    copyFileSync(served.key, live.key);
  }
  assert.is((await gw.reload('test')).ok, true);
});

test('start-up errors name the flag, the file and the reason, never the key', () => {
  const dir = tempDir('tls-bad-');
  const base = { headersTimeoutMs: 1000 };
  const other = ca.issue('stranger', '/CN=localhost', true);
  const cases: [Parameters<typeof readTls>[0], RegExp][] = [
    [{ ...base, tlsCert: served.cert }, /--tls-cert .* needs --tls-key/],
    [{ ...base, tlsKey: served.key }, /--tls-key .* needs --tls-cert/],
    [{ ...base, tlsClientCa: ca.cert }, /--tls-client-ca .* needs --tls-cert and --tls-key/],
    [{ ...base, tlsCert: join(dir, 'none.pem'), tlsKey: served.key }, /invalid --tls-cert .*none\.pem: cannot read the file \(ENOENT\)/],
    [{ ...base, tlsCert: served.key, tlsKey: served.key }, /invalid --tls-cert .*: no PEM certificate in it/],
    [{ ...base, tlsCert: served.cert, tlsKey: served.cert }, /invalid --tls-key .*: not an unencrypted PEM private key/],
    [{ ...base, tlsCert: served.cert, tlsKey: other.key }, /invalid --tls-key .*: it is not the private key of the certificate in --tls-cert/],
    [{ ...base, tlsCert: served.cert, tlsKey: served.key, tlsClientCa: served.cert }, /invalid --tls-client-ca .*: CN=localhost is not a CA certificate/],
  ];
  for (const [cfg, message] of cases) {
    const e = (() => { try { readTls(cfg); } catch (x) { return x as Error; } return undefined; })();
    assert.ok(e, `refused: ${JSON.stringify(cfg)}`);
    assert.match(e!.message, message);
    assert.not.match(e!.message, /[A-Za-z0-9+/=]{40}/, 'no PEM contents');
  }
  const ok = readTls({ ...base, tlsCert: served.cert, tlsKey: served.key, tlsClientCa: ca.cert })!;
  assert.match(ok.summary, /certificate CN=localhost \(DNS:localhost, IP Address:127\.0\.0\.1\).*client certificates required, signed by CN=Test CA/);
  assert.is(ok.expiring, undefined, 'valid for 30 days: no warning');
  assert.match(readTls({ ...base, tlsCert: served.cert, tlsKey: served.key }, Date.now() + 40 * 86_400_000)!.expiring!, /the certificate expired/);
});

test.run();
