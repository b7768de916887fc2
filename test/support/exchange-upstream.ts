// A local stand-in for the exchange: it records every request and verifies signatures the way the
// exchange does (HMAC-SHA256 hex, RSA PKCS#1 v1.5 SHA-256 base64, Ed25519 base64) over the total
// parameter string = query string (without signature) followed by the request body. Tests run it in
// their own process (startUpstream in ./processes.ts); soaks as a process of its own, so that their
// load does not slow it and its records are not in the heap they measure:
//   node dist/test/support/exchange-upstream.js '<keys json>' [port]   → prints "port <n>" (default: any free port)
// keys: { "<apiKey>": { "hmac": "<secret>" } | { "publicKey": "<PEM>" } }
// The caller reads and clears `records` (a process of its own: GET /__records, POST /__reset).
// Request headers shape the answer:
// x-test-delay-ms delays it; x-test-status sets its status (any number, even an invalid one);
// x-test-drip-ms sends the headers, then one body byte every that many ms, never ending;
// x-test-vary sets a Vary header; x-test-used-weight sets X-MBX-USED-WEIGHT-1M (default: the number of
// requests recorded); x-test-retry-after adds Retry-After to an x-test-status answer.
// fixtures=<dir> (UPSTREAM_FIXTURES for a process of its own): a request whose "<METHOD> <path>" has a file <dir>/<METHOD><path with / as _>.json
// is answered with that file (realistic shapes for clients such as ccxt that parse the answer); any
// other request gets the usual {ok:true,…} echo.
import { createHmac, createPublicKey, timingSafeEqual, verify } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { startedOn } from '../../src/cli/entry.js';

export type Key = { hmac: string } | { publicKey: string };

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** null: no signature sent; true/false: verification result. */
  verified: boolean | null;
  reason?: string;
  /** The caller closed the connection before the answer was sent. */
  aborted?: boolean;
}

/** The fixture answer for a request, if the fixture folder has one. */
function fixture(fixtures: string | undefined, method: string, url: string): string | undefined {
  if (!fixtures) return undefined;
  const path = url.split('?')[0];
  const file = join(fixtures, `${method}${path.replaceAll('/', '_')}.json`);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

function verifySignature(keys: Record<string, Key>, apiKey: string | undefined, url: string, body: string): { ok: boolean | null; reason?: string } {
  const q = url.indexOf('?');
  const query = q < 0 ? '' : url.slice(q + 1);
  const m = /(^|&)signature=([^&]*)$/.exec(query);
  if (!m) return { ok: null };
  const payload = query.slice(0, m.index) + body;
  const key = apiKey ? keys[apiKey] : undefined;
  if (!key) return { ok: false, reason: 'unknown API key' };
  const sig = decodeURIComponent(m[2]);
  if ('hmac' in key) {
    const want = createHmac('sha256', key.hmac).update(payload).digest('hex');
    const ok = sig.length === want.length && timingSafeEqual(Buffer.from(sig), Buffer.from(want));
    return { ok, reason: ok ? undefined : 'HMAC mismatch' };
  }
  const pub = createPublicKey(key.publicKey);
  const algo = pub.asymmetricKeyType === 'ed25519' ? null : 'sha256';
  const ok = verify(algo, Buffer.from(payload), pub, Buffer.from(sig, 'base64'));
  return { ok, reason: ok ? undefined : `${pub.asymmetricKeyType} signature mismatch` };
}

/** The stand-in's server (not listening yet) and the requests it has recorded. */
export function exchangeUpstream(keys: Record<string, Key>, fixtures?: string): { server: Server; records: RecordedRequest[] } {
  const records: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = req.url ?? '/';
      if (url === '/__records') {
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify(records));
      }
      if (url === '/__reset') {
        records.length = 0;
        return res.end('{}');
      }
      const apiKey = req.headers['x-mbx-apikey'] as string | undefined;
      const v = verifySignature(keys, apiKey, url, body);
      const record: RecordedRequest = { method: req.method ?? '', url, headers: req.headers, body, verified: v.ok, reason: v.reason };
      records.push(record);
      res.once('close', () => { if (!res.writableFinished) record.aborted = true; });
      const answer = () => {
        res.setHeader('content-type', 'application/json;charset=UTF-8');
        res.setHeader('x-mbx-used-weight-1m', String(req.headers['x-test-used-weight'] ?? records.length));
        if (v.ok === false) {
          res.statusCode = 400;
          return res.end(JSON.stringify({ code: -1022, msg: `Signature for this request is not valid. (${v.reason})` }));
        }
        if (url.startsWith('/api/v3/rateLimited')) {
          res.statusCode = 429;
          res.setHeader('retry-after', '7');
        }
        const big = Number(req.headers['x-test-body-bytes'] ?? 0);
        if (big) {
          // A large answer, with a length or (x-test-chunked) streamed in chunks without one.
          const data = Buffer.alloc(big, 'abcdefghij');
          if (req.headers['x-test-chunked']) {
            for (let i = 0; i < big; i += 65536) res.write(data.subarray(i, i + 65536));
            return res.end();
          }
          res.setHeader('content-length', big);
          return res.end(data);
        }
        res.end(fixture(fixtures, req.method ?? '', url) ?? JSON.stringify({ ok: true, method: req.method, url, verified: v.ok }));
      };
      const status = req.headers['x-test-status'];
      if (status) {
        // Written by hand: node refuses to send a status outside 100–999 itself.
        const retry = req.headers['x-test-retry-after'] ? `retry-after: ${req.headers['x-test-retry-after']}\r\n` : '';
        res.socket?.end(`HTTP/1.1 ${status} Odd\r\n${retry}content-length: 2\r\n\r\n{}`);
        return;
      }
      const drip = Number(req.headers['x-test-drip-ms'] ?? 0);
      if (drip) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('[');
        const t = setInterval(() => res.write(' '), drip);
        res.once('close', () => clearInterval(t));
        return;
      }
      if (req.headers['x-test-vary']) res.setHeader('vary', String(req.headers['x-test-vary']));
      const delay = Number(req.headers['x-test-delay-ms'] ?? 0);
      if (delay) {
        const timer = setTimeout(answer, delay);
        res.once('close', () => clearTimeout(timer)); // a caller that gave up (or stop()) leaves no timer behind
      } else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  return { server, records };
}

if (startedOn(import.meta.url)) {
  const { server } = exchangeUpstream(JSON.parse(process.argv[2] ?? '{}'), process.env.UPSTREAM_FIXTURES);
  server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => {
    const addr = server.address();
    console.log(`port ${typeof addr === 'object' && addr ? addr.port : 0}`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
