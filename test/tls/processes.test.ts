// The TLS listener as the CLI runs it: a certificate rotated on disk and SIGHUP sent is what a new
// connection gets, while a keep-alive connection opened before keeps working on the old one; and
// under --workers 2 every worker serves TLS (each one's pid seen over https, plain HTTP refused).
import { copyFileSync, readFileSync } from 'node:fs';
import { Agent, get } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { certificateAuthority, type Authority } from '../support/certificates.js';
import { curl } from '../support/curl.js';
import { startGatewayProcess, startUpstream, type Upstream } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

const test = suite('TLS: rotation by SIGHUP, and workers');
let upstream: Upstream;
let ca: Authority;

test.before(async () => {
  upstream = await startUpstream();
  ca = certificateAuthority('ca', '/CN=Test CA');
});
test.after(async () => { await upstream?.stop(); });

interface Answer { status: number; body: string; socket: TLSSocket; fingerprint: string }

/** GET over `agent` (keep-alive: the same connection while it lives). */
function getVia(agent: Agent, url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (res) => {
      const socket = res.socket as TLSSocket; // handed back to the agent at the end
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode!, body, socket, fingerprint }));
    }).once('error', reject);
  });
}

const until = async (what: string, ok: () => boolean, ms = 15_000) => {
  for (const end = Date.now() + ms; !ok();) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

test('SIGHUP after the files changed: a new connection gets the new certificate, an open keep-alive connection keeps working', async () => {
  const first = ca.issue('first', '/CN=localhost', true);
  const second = ca.issue('second', '/CN=localhost', true);
  const dir = tempDir('tls-rotate-');
  const cert = join(dir, 'tls.crt'), key = join(dir, 'tls.key');
  copyFileSync(first.cert, cert);
  copyFileSync(first.key, key);
  const gw = await startGatewayProcess(['--upstream', `exchange=${upstream.url}`, '--tls-cert', cert, '--tls-key', key, '--accept-grace', '0', '--log-format', 'json']);
  const url = `https://localhost:${new URL(gw.url).port}/api/v3/ping`;
  const trusted = { ca: readFileSync(ca.cert) };
  const kept = new Agent({ ...trusted, keepAlive: true, maxSockets: 1 });
  try {
    const before = await getVia(kept, url);
    assert.is(before.status, 200);
    assert.is(before.fingerprint, first.fingerprint);
    copyFileSync(second.cert, cert);
    copyFileSync(second.key, key);
    gw.child.kill('SIGHUP');
    await until('the reload line', () => /reloaded \(SIGHUP\)/.test(gw.output()));
    assert.match(gw.output(), /TLS: certificate CN=localhost .* \(reloaded\)/);
    const fresh = await getVia(new Agent({ ...trusted, keepAlive: false }), url);
    assert.is(fresh.status, 200);
    assert.is(fresh.fingerprint, second.fingerprint, 'a new connection: the new certificate');
    const again = await getVia(kept, url);
    assert.is(again.status, 200, 'the open connection still serves');
    assert.ok(again.socket === before.socket, 'on the same connection');
    assert.is(again.fingerprint, first.fingerprint, 'which keeps the certificate it began with');
  } finally {
    kept.destroy();
    await gw.stop();
  }
});

test('--workers 2: every worker serves TLS, and none serves plain HTTP', async () => {
  const served = ca.issue('workers', '/CN=localhost', true);
  const gw = await startGatewayProcess(['--upstream', `exchange=${upstream.url}`, '--tls-cert', served.cert, '--tls-key', served.key, '--workers', '2', '--accept-grace', '0', '--worker-stall', '20000']);
  try {
    assert.match(gw.output(), /listening on https:\/\/127\.0\.0\.1:\d+ \(2 workers\)/);
    const base = `https://localhost:${new URL(gw.url).port}`;
    const pids = new Set<number>();
    for (let i = 0; i < 200 && pids.size < 2; i++) {
      const r = await curl(['--cacert', ca.cert, `${base}/_gateway/health`]);
      assert.is(r.status, 200, r.stderr);
      pids.add((JSON.parse(r.body) as { pid: number }).pid);
    }
    assert.is(pids.size, 2, 'both workers answered over https');
    for (let i = 0; i < 6; i++) assert.is((await curl([`${base.replace('https', 'http')}/api/v3/ping`])).status, 400);
  } finally {
    await gw.stop();
  }
});

test.run();
