// A local stand-in for the exchange (docs/stand-in.md): it records every request and verifies
// signatures the way the exchange does (HMAC-SHA256 hex, RSA PKCS#1 v1.5 SHA-256 base64, Ed25519
// base64) over the total parameter string = query string (without signature) followed by the request
// body. Tests run it in their own process (startUpstream in ./processes.ts); soaks as a process of
// its own, so that their load does not slow it and its records are not in the heap they measure:
//   node dist/test/support/exchange-upstream.js '<keys json>' [port]   → prints "port <n>" (default: any free port)
// keys: { "<apiKey>": { "hmac": "<secret>" } | { "publicKey": "<PEM>" } }; --help prints the usage.
// The caller reads and clears `records` (a process of its own: GET /__records, POST /__reset).
// Request headers shape the answer:
// x-test-delay-ms delays it; x-test-status sets its status (any number, even an invalid one);
// x-test-error: "<status> <code>" answers that status with the exchange's envelope {code, msg}
// ("<status>" alone: no code, an empty JSON object), as the exchange refuses what it does not have;
// x-test-drip-ms sends the headers, then one body byte every that many ms, never ending;
// x-test-vary sets a Vary header; x-test-used-weight sets X-MBX-USED-WEIGHT-1M (default: the number of
// requests recorded); x-test-retry-after adds Retry-After to an x-test-status answer.
// Its websocket API (/ws-api/v3) speaks today's user-data mechanism only (the exchange's docs at
// binance-spot-api-docs a5e0bc3): userDataStream.subscribe.signature (verified like REST: every param
// but signature, sorted, `name=value&…`), session.logon (Ed25519 keys only) then userDataStream.subscribe,
// userDataStream.unsubscribe (one subscriptionId or all), session.subscriptions, session.status/logout;
// events are sent wrapped, {"subscriptionId": n, "event": {…}}, on POST /__user-data/event (body: the
// event), to every active subscription (with ?queue=1 to the next subscription made instead, for a
// stream about to be opened); GET /__user-data reports the active subscriptions and every
// frame received. Margin user data (developers.binance.com/docs/margin_trading/trade-data-stream): POST
// /sapi/v1/userListenToken with a known API key answers {"token", "expirationTime"} (validity ms, default
// and at most 24 h; an isolated account with isIsolated=true and its symbol), and
// userDataStream.subscribe.listenToken with a token not yet expired subscribes like the others,
// answering {"subscriptionId", "expirationTime"} (else -1209); sent again on the same connection with a
// new token of the same account it extends that subscription (same id, the new expirationTime), and
// at its expirationTime the subscription ends with {"subscriptionId", "event": {"e": "eventStreamTerminated"}}.
// POST /__user-data/event?account=spot|margin|<SYMBOL> sends only to the subscriptions of that account
// (spot: by signature or session; margin: cross-margin listen tokens; a symbol: its isolated account's).
// Retired calls (REST /api/v3/userDataStream, userDataStream.start/ping/stop) answer
// as unknown operations do (404; an error frame) and are recorded.
// fixtures=<dir> (UPSTREAM_FIXTURES for a process of its own): a request whose "<METHOD> <path>" has a file <dir>/<METHOD><path with / as _>.json
// is answered with that file (realistic shapes for clients such as ccxt that parse the answer); any
// other request gets the usual {ok:true,…} echo.
import { createHmac, createPublicKey, randomBytes, timingSafeEqual, verify } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { join } from 'node:path';
import { startedOn } from '../../src/cli/entry.js';
import { onBody } from './request-body.js';

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

/** A websocket-API frame the stand-in received: its method, and whether a signature it carried verified. */
export interface WsApiRecord { method: string; verified: boolean | null; params: Record<string, unknown> }

/** A margin listen token the stand-in made: its account ('margin', or the isolated symbol) and when it expires. */
interface ListenToken { account: string; expirationTime: number }

/** The user-data side of the stand-in's websocket API. */
export interface UserDataSide {
  frames: WsApiRecord[];
  active(): number;
  /** Send an event to every active subscription (of `account` only when given; how many got it), or queue it for the next one made. */
  emit(event: unknown, queue?: boolean, account?: string): { sent: number; queued?: number };
  /** The next `times` subscribe frames (with `token`: POST /sapi/v1/userListenToken calls): refused with `status`/`code` (and retryAfter `retryAfterMs` from now), or never answered (`silent`). */
  refuse(r: SubscribeRefusal): void;
  /** The next token call to refuse, if any (taken). */
  refusesToken(): SubscribeRefusal | undefined;
  /** The listen-token subscriptions held now. */
  margin(): { account: string; subscriptionId: number; expirationTime: number }[];
  reset(): void;
  close(): void;
}

/** POST /__user-data/refuse's body: how the next subscribe frames are answered. */
export interface SubscribeRefusal {
  times: number;
  status?: number;
  code?: number;
  retryAfterMs?: number;
  silent?: boolean;
  /** Refuse POST /sapi/v1/userListenToken calls instead of subscribe frames. */
  token?: boolean;
}

/** Verify a websocket-API signature (params sorted, every one but signature, `name=value&…`). */
function verifyWsParams(keys: Record<string, Key>, params: Record<string, unknown>, only?: 'ed25519'): { ok: boolean; reason?: string } {
  const key = typeof params.apiKey === 'string' ? keys[params.apiKey] : undefined;
  if (!key) return { ok: false, reason: 'unknown API key' };
  if (typeof params.signature !== 'string' || typeof params.timestamp !== 'number') return { ok: false, reason: 'signature and timestamp required' };
  const payload = Object.keys(params).sort().filter((k) => k !== 'signature' && params[k] !== undefined)
    .map((k) => `${k}=${encodeURIComponent(typeof params[k] === 'object' ? JSON.stringify(params[k]) : String(params[k]))}`).join('&');
  if ('hmac' in key) {
    if (only) return { ok: false, reason: 'only Ed25519 keys may log on' };
    const want = createHmac('sha256', key.hmac).update(payload).digest('hex');
    return { ok: params.signature.length === want.length && timingSafeEqual(Buffer.from(params.signature), Buffer.from(want)) };
  }
  const pub = createPublicKey(key.publicKey);
  if (only && pub.asymmetricKeyType !== only) return { ok: false, reason: 'only Ed25519 keys may log on' };
  return { ok: verify(pub.asymmetricKeyType === 'ed25519' ? null : 'sha256', Buffer.from(payload), pub, Buffer.from(params.signature, 'base64')) };
}

/** Today's websocket API on `server` (path /ws-api/v3): user-data subscriptions and sessions. */
function websocketApi(server: Server, keys: Record<string, Key>, listenTokens: Map<string, ListenToken>): UserDataSide {
  const frames: WsApiRecord[] = [];
  const subs = new Map<WebSocket, Set<number>>();
  /** The account of each subscription: 'spot', 'margin' or an isolated symbol. */
  const accountOf = new Map<number, string>();
  /** Per connection, its listen-token subscriptions by account: id, expiry and the timer ending it. */
  const tokenSubs = new Map<WebSocket, Map<string, { id: number; expirationTime: number; timer: NodeJS.Timeout }>>();
  let refusingToken: SubscribeRefusal = { times: 0 };
  /** Events queued for the next subscription made (POST /__user-data/event?queue=1). */
  const queued: unknown[] = [];
  let refusing: SubscribeRefusal = { times: 0 };
  let nextId = 0;
  /** A new subscription on `ws`, answered; then the queued events, sent to it. */
  const subscribed = (ws: WebSocket, id: number, answer: () => void, account = 'spot') => {
    subs.get(ws)!.add(id);
    accountOf.set(id, account);
    answer();
    for (const event of queued.splice(0)) ws.send(JSON.stringify({ subscriptionId: id, event }));
  };
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on('upgrade', (req, socket, head) => {
    if ((req.url ?? '').split('?')[0] !== '/ws-api/v3') return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      let logon: string | undefined;
      let sessionSub: number | undefined;
      subs.set(ws, new Set());
      tokenSubs.set(ws, new Map());
      ws.on('close', () => {
        for (const id of subs.get(ws) ?? []) accountOf.delete(id);
        subs.delete(ws);
        for (const t of tokenSubs.get(ws)?.values() ?? []) clearTimeout(t.timer);
        tokenSubs.delete(ws);
      });
      ws.on('message', (data) => {
        let req: { id?: unknown; method?: unknown; params?: Record<string, unknown> };
        try { req = JSON.parse(String(data)); } catch { return; }
        const method = String(req.method);
        const params = req.params && typeof req.params === 'object' ? req.params : {};
        const signed = params.signature !== undefined ? verifyWsParams(keys, params, method === 'session.logon' ? 'ed25519' : undefined) : undefined;
        frames.push({ method, verified: signed ? signed.ok : null, params });
        const mine = subs.get(ws)!;
        const answer = (status: number, body: Record<string, unknown>) => ws.send(JSON.stringify({ id: req.id ?? null, status, ...body }));
        const fail = (status: number, code: number, msg: string) => answer(status, { error: { code, msg } });
        /** A subscribe frame refused as POST /__user-data/refuse asked, or (silent) never answered. */
        const refuse = () => {
          refusing.times--;
          if (refusing.silent) return;
          const retryAfter = Date.now() + (refusing.retryAfterMs ?? 0);
          answer(refusing.status ?? 429, { error: { code: refusing.code ?? -1003, msg: 'Too many requests; current limit of IP is exceeded.', data: { serverTime: Date.now(), retryAfter } } });
        };
        const status = () => ({ apiKey: logon ?? null, authorizedSince: logon ? 1 : null, connectedSince: 1, returnRateLimits: false, serverTime: Date.now(), userDataStream: mine.size > 0 });
        switch (method) {
          case 'userDataStream.subscribe.signature': {
            if (!signed?.ok) return fail(401, -1022, `Signature for this request is not valid.${signed?.reason ? ` (${signed.reason})` : ''}`);
            if (refusing.times > 0) return refuse();
            const id = nextId++;
            return subscribed(ws, id, () => answer(200, { result: { subscriptionId: id } }));
          }
          case 'userDataStream.subscribe.listenToken': {
            if (refusing.times > 0) return refuse();
            const t = listenTokens.get(String(params.listenToken));
            if (t === undefined || t.expirationTime <= Date.now()) return fail(400, -1209, 'Invalid listenToken.');
            const { account, expirationTime } = t;
            const held = tokenSubs.get(ws)!;
            const end = (id: number) => setTimeout(() => {
              // Not renewed in time: the subscription ends, and says so.
              held.delete(account);
              if (!mine.delete(id)) return;
              accountOf.delete(id);
              ws.send(JSON.stringify({ subscriptionId: id, event: { e: 'eventStreamTerminated', E: Date.now() } }));
            }, expirationTime - Date.now());
            const same = held.get(account);
            if (same && mine.has(same.id)) {
              // A new token of the same account on the same connection: that subscription is extended.
              clearTimeout(same.timer);
              held.set(account, { id: same.id, expirationTime, timer: end(same.id) });
              return answer(200, { result: { subscriptionId: same.id, expirationTime } });
            }
            const id = nextId++;
            held.set(account, { id, expirationTime, timer: end(id) });
            return subscribed(ws, id, () => answer(200, { result: { subscriptionId: id, expirationTime } }), account);
          }
          case 'session.logon':
            if (!signed?.ok) return fail(401, -1022, `Signature for this request is not valid.${signed?.reason ? ` (${signed.reason})` : ''}`);
            logon = String(params.apiKey);
            return answer(200, { result: status() });
          case 'session.status': return answer(200, { result: status() });
          case 'session.logout':
            if (sessionSub !== undefined) mine.delete(sessionSub);
            logon = undefined;
            sessionSub = undefined;
            return answer(200, { result: status() });
          case 'userDataStream.subscribe':
            if (!logon) return fail(401, -2015, 'Invalid API-key, IP, or permissions for action.');
            if (sessionSub !== undefined) return fail(400, -1000, 'Already subscribed.');
            const id = nextId++;
            sessionSub = id;
            return subscribed(ws, id, () => answer(200, { result: { subscriptionId: id } }));
          case 'userDataStream.unsubscribe': {
            const ended = params.subscriptionId === undefined ? [...mine] : [Number(params.subscriptionId)];
            for (const id of ended) { mine.delete(id); accountOf.delete(id); }
            for (const [account, t] of tokenSubs.get(ws)!) if (ended.includes(t.id)) { clearTimeout(t.timer); tokenSubs.get(ws)!.delete(account); }
            return answer(200, { result: {} });
          }
          case 'session.subscriptions': return answer(200, { result: [...mine].map((subscriptionId) => ({ subscriptionId })) });
          default: return fail(400, -1020, 'This operation is not supported.');
        }
      });
    });
  });
  return {
    frames,
    active: () => [...subs.values()].reduce((n, s) => n + s.size, 0),
    emit(event, queue = false, account) {
      if (queue) return { sent: 0, queued: queued.push(event) };
      let n = 0;
      for (const [ws, ids] of subs) {
        for (const subscriptionId of ids) {
          if (account !== undefined && accountOf.get(subscriptionId) !== account) continue;
          ws.send(JSON.stringify({ subscriptionId, event }));
          n++;
        }
      }
      return { sent: n };
    },
    refuse(r) { if (r.token) refusingToken = { ...r }; else refusing = { ...r }; },
    refusesToken() {
      if (refusingToken.times <= 0) return undefined;
      refusingToken.times--;
      return refusingToken;
    },
    margin: () => [...tokenSubs.values()].flatMap((m) => [...m].map(([account, t]) => ({ account, subscriptionId: t.id, expirationTime: t.expirationTime }))),
    reset: () => { frames.length = 0; queued.length = 0; refusing = { times: 0 }; refusingToken = { times: 0 }; },
    close: () => { for (const ws of wss.clients) ws.terminate(); },
  };
}

/** POST /__user-data/event[?queue=1]: the body is the event; the answer says how many got it (or how many wait). */
function userDataEvent(res: ServerResponse, userData: UserDataSide, url: string, body: string): void {
  res.setHeader('content-type', 'application/json');
  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch {
    res.statusCode = 400;
    return void res.end(JSON.stringify({ error: 'the body must be the event, as JSON' }));
  }
  const q = new URLSearchParams(url.split('?')[1] ?? '');
  res.end(JSON.stringify(userData.emit(event, q.get('queue') === '1', q.get('account') ?? undefined)));
}

/** The stand-in's server (not listening yet) and the requests it has recorded. */
export function exchangeUpstream(keys: Record<string, Key>, fixtures?: string): { server: Server; records: RecordedRequest[]; userData: UserDataSide } {
  const records: RecordedRequest[] = [];
  /** Margin listen tokens made by POST /sapi/v1/userListenToken: token → its account and expirationTime (ms). */
  const listenTokens = new Map<string, ListenToken>();
  let userData: UserDataSide;
  const server = createServer((req, res) => onBody(req, (bytes) => {
    const body = bytes.toString('utf8');
    const url = req.url ?? '/';
    if (url === '/__records') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify(records));
    }
    if (url === '/__reset') {
      records.length = 0;
      listenTokens.clear();
      userData.reset();
      return res.end('{}');
    }
    if (url === '/__user-data') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ active: userData.active(), frames: userData.frames, margin: userData.margin() }));
    }
    if (url === '/__user-data/event' || url.startsWith('/__user-data/event?')) return userDataEvent(res, userData, url, body);
    if (url === '/__user-data/refuse') {
      userData.refuse(JSON.parse(body || '{}') as SubscribeRefusal);
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
      if (url.split('?')[0] === '/api/v3/userDataStream') {
        res.statusCode = 404; // retired on 2026-02-20: an unknown path
        return res.end('');
      }
      if (url.split('?')[0] === '/sapi/v1/userListenToken' && req.method === 'POST') {
        if (apiKey === undefined || !(apiKey in keys)) {
          res.statusCode = 401;
          return res.end(JSON.stringify({ code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' }));
        }
        const refused = userData.refusesToken();
        if (refused) {
          if (refused.silent) return; // an answer that never comes
          res.statusCode = refused.status ?? 400;
          return res.end(JSON.stringify({ code: refused.code ?? -3003, msg: 'test refusal' }));
        }
        const sent = new URLSearchParams(`${url.split('?')[1] ?? ''}&${body}`);
        const isolated = sent.get('isIsolated') === 'true';
        if (isolated && !sent.get('symbol')) {
          res.statusCode = 400;
          return res.end(JSON.stringify({ code: -1102, msg: "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed." }));
        }
        const validity = Math.min(Number(sent.get('validity') ?? 86_400_000) || 86_400_000, 86_400_000);
        const token = randomBytes(51).toString('base64');
        const expirationTime = Date.now() + validity;
        listenTokens.set(token, { account: isolated ? sent.get('symbol')! : 'margin', expirationTime });
        return res.end(JSON.stringify({ token, expirationTime }));
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
    const error = req.headers['x-test-error'];
    if (typeof error === 'string') {
      const [status, code] = error.split(' ');
      res.statusCode = Number(status);
      res.setHeader('content-type', 'application/json;charset=UTF-8');
      return res.end(code === undefined ? '{}' : JSON.stringify({ code: Number(code), msg: 'test refusal' }));
    }
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
  }));
  server.keepAliveTimeout = 60_000;
  userData = websocketApi(server, keys, listenTokens);
  return { server, records, userData };
}

const USAGE = `usage: node dist/test/support/exchange-upstream.js ['<keys json>'] [port]
A local stand-in for the exchange on 127.0.0.1; prints "port <n>" when it listens (port: default any free one).
  keys   the API keys whose signatures it accepts: {"<apiKey>": {"hmac": "<secret>"} or {"publicKey": "<PEM>"}, …}
         (publicKey: the SPKI PEM of an RSA or Ed25519 key, newlines written \\n; default: no keys)
It answers REST calls with what it received, {"ok":true,"method":…,"url":…,"verified":true|false|null},
and serves the websocket API's user-data subscriptions on /ws-api/v3.
Test hooks: GET /__records, POST /__reset, GET /__user-data, POST /__user-data/event[?queue=1][&account=spot|margin|<SYMBOL>]
(body: the event), POST /__user-data/refuse (body: {"times":n,"status":429,"code":-1003,"retryAfterMs":ms} or
{"times":n,"silent":true}; with "token":true the next POST /sapi/v1/userListenToken calls instead).
UPSTREAM_FIXTURES=<dir>: canned answers, <dir>/<METHOD><path with / as _>.json. All of it: docs/stand-in.md.`;

/** The keys argument, checked: every entry an HMAC secret or a public key node can read. */
function readKeys(arg: string): Record<string, Key> {
  let keys: unknown;
  try {
    keys = JSON.parse(arg);
  } catch (e) {
    throw new Error(`the keys argument is not JSON (${(e as Error).message}): give '{"<apiKey>": {"hmac": "<secret>"}}'`);
  }
  if (!keys || typeof keys !== 'object' || Array.isArray(keys)) throw new Error('the keys argument must be a JSON object: {"<apiKey>": {"hmac": "<secret>"} | {"publicKey": "<PEM>"}}');
  for (const [name, key] of Object.entries(keys as Record<string, unknown>)) {
    const k = key as Record<string, unknown> | null;
    if (typeof k?.hmac === 'string') continue;
    if (typeof k?.publicKey !== 'string') throw new Error(`key "${name}": give {"hmac": "<secret>"} or {"publicKey": "<PEM>"}`);
    try { createPublicKey(k.publicKey); } catch (e) { throw new Error(`key "${name}": publicKey is not a PEM public key node can read (${(e as Error).message})`); }
  }
  return keys as Record<string, Key>;
}

if (startedOn(import.meta.url)) {
  const [arg, port = '0'] = process.argv.slice(2);
  if (arg === '--help' || arg === '-h') {
    console.log(USAGE);
    process.exit(0);
  }
  let keys: Record<string, Key>;
  try {
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw new Error(`port "${port}" is not a port number (0-65535)`);
    keys = readKeys(arg ?? '{}');
  } catch (e) {
    console.error(`error: ${(e as Error).message} (--help: usage)`);
    process.exit(2);
  }
  const { server } = exchangeUpstream(keys, process.env.UPSTREAM_FIXTURES);
  server.once('error', (e: NodeJS.ErrnoException) => {
    console.error(`error: cannot listen on 127.0.0.1:${port} (${e.code ?? e.message})${e.code === 'EADDRINUSE' ? '; give another port, or 0 for any free one' : ''}`);
    process.exit(1);
  });
  server.listen(Number(port), '127.0.0.1', () => {
    const addr = server.address();
    console.log(`port ${typeof addr === 'object' && addr ? addr.port : 0}`);
  });
  process.on('SIGTERM', () => process.exit(0));
}
