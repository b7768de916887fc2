// A local stand-in for the exchange's websocket servers (market streams and websocket API), in the
// test's own process: it records every connection and frame, answers like the upstream (SUBSCRIBE →
// {"result":null,"id"}; a websocket-API request → {"id","status":200,"result":{...}}), and the test
// can push frames to a connection.
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { createLogger, type Logger } from '../../src/log.js';
import { startGateway, type RunningGateway, type StartOptions } from '../../src/server.js';
import { readConfig } from '../../src/config.js';

export interface Frame {
  data: Buffer;
  isBinary: boolean;
}

export interface UpstreamConnection {
  url: string;
  headers: IncomingMessage['headers'];
  ws: WebSocket;
  received: Frame[];
  closed: Promise<{ code: number; reason: string }>;
}

export interface WsUpstream {
  url: string;
  connections: UpstreamConnection[];
  /** The next connection (or one already made and not yet taken). */
  nextConnection(timeoutMs?: number): Promise<UpstreamConnection>;
  /** Answer requests automatically (default true). */
  autoAnswer: boolean;
  reset(): void;
  stop(): Promise<void>;
}

/** `autoPong: false` keeps ws from answering pings itself (it also ends a peer owed more than 60 pongs). */
export async function startWsUpstream(options: { autoPong?: boolean } = {}): Promise<WsUpstream> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, ...options });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const { port } = wss.address() as AddressInfo;
  const untaken: UpstreamConnection[] = [];
  const waiters: Array<(c: UpstreamConnection) => void> = [];
  const up: WsUpstream = {
    url: `ws://127.0.0.1:${port}`,
    connections: [],
    autoAnswer: true,
    nextConnection(timeoutMs = 5000) {
      const c = untaken.shift();
      if (c) return Promise.resolve(c);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('no upstream connection')), timeoutMs);
        waiters.push((x) => { clearTimeout(t); resolve(x); });
      });
    },
    reset() {
      up.connections.length = 0;
      untaken.length = 0;
    },
    async stop() {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    },
  };
  wss.on('connection', (ws, req) => {
    const conn: UpstreamConnection = {
      url: req.url ?? '', headers: req.headers, ws, received: [],
      closed: new Promise((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() }))),
    };
    ws.on('message', (data, isBinary) => {
      const buf = data as Buffer;
      conn.received.push({ data: buf, isBinary });
      if (!up.autoAnswer || isBinary) return;
      let req: { id?: unknown; method?: unknown; params?: unknown } | undefined;
      try { req = JSON.parse(buf.toString()); } catch { return; }
      if (!req || typeof req !== 'object') return;
      if (conn.url.startsWith('/ws-api')) {
        ws.send(JSON.stringify({ id: req.id, status: 200, result: { upstream: true, method: req.method, params: req.params ?? null } }));
      } else if (req.method === 'SUBSCRIBE' || req.method === 'UNSUBSCRIBE') {
        ws.send(JSON.stringify({ result: null, id: req.id }));
      }
    });
    up.connections.push(conn);
    const w = waiters.shift();
    if (w) w(conn);
    else untaken.push(conn);
  });
  return up;
}

export interface Opened {
  ws: WebSocket;
  headers: IncomingMessage['headers'];
}

export interface Refused {
  status: number;
  headers: IncomingMessage['headers'];
  body: { code?: number; msg?: string };
}

/** Open a client websocket; resolves with the socket, or with the HTTP refusal. */
export function connect(url: string, options: WebSocket.ClientOptions = {}): Promise<Opened | Refused> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options);
    let headers: IncomingMessage['headers'] = {};
    ws.once('upgrade', (res) => { headers = res.headers; });
    ws.once('open', () => { inbox(ws); resolve({ ws, headers }); });
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        let body = {};
        try { body = JSON.parse(text); } catch { body = { msg: text }; }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    ws.once('error', (e) => reject(e));
  });
}

export const isRefused = (x: Opened | Refused): x is Refused => 'status' in x;

export async function open(url: string, options?: WebSocket.ClientOptions): Promise<Opened> {
  const r = await connect(url, options);
  if (isRefused(r)) throw new Error(`refused ${r.status}: ${JSON.stringify(r.body)}`);
  return r;
}

/** Messages of a client socket, queued from the moment it opened (none is lost between awaits). */
const inboxes = new WeakMap<WebSocket, { frames: Frame[]; waiter?: () => void }>();
function inbox(ws: WebSocket) {
  let box = inboxes.get(ws);
  if (!box) {
    const b: { frames: Frame[]; waiter?: () => void } = { frames: [] };
    ws.on('message', (data, isBinary) => { b.frames.push({ data: data as Buffer, isBinary }); b.waiter?.(); });
    inboxes.set(ws, (box = b));
  }
  return box;
}

/** Next message on a client socket. */
export async function nextMessage(ws: WebSocket, timeoutMs = 5000): Promise<Frame> {
  const box = inbox(ws);
  const deadline = Date.now() + timeoutMs;
  while (!box.frames.length) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error('no message');
    await new Promise<void>((r) => { const t = setTimeout(r, left); box.waiter = () => { clearTimeout(t); r(); }; });
  }
  return box.frames.shift()!;
}

export function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve({ code: -1, reason: 'already closed' });
  return new Promise((r) => ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A gateway pinned at a release whose websocket upstreams are the local stand-in, both given as base
 * URLs (the catalogue's paths are appended).
 */
export async function wsGatewayAt(release: string, upstream: WsUpstream, opts: StartOptions & { logger?: Logger } = {}, extra: string[] = []): Promise<RunningGateway> {
  const args = [
    '--port', '0', '--release', release, '--upstream', 'exchange=http://127.0.0.1:9',
    '--upstream', `exchange.streams=${upstream.url}`, '--upstream', `exchange.wsApi=${upstream.url}`, ...extra,
  ];
  return startGateway(readConfig(args, {}), { logger: createLogger('silent'), ...opts });
}

export const wsUrl = (gw: RunningGateway) => gw.url.replace(/^http/, 'ws');
