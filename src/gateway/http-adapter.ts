// The node:http adapter: turns each request into an Exchange, runs it through the pipeline (or the
// Koa admin app for /_gateway/*), and renders whatever the pipeline throws. It also holds the
// per-request and per-connection bounds, because only here are request and socket both in view:
//   - a total deadline from arrival (waiting behind pipelined requests, reading the body, the
//     upstream or the builder): 408 before the body is in, 504 after, the socket cut if the answer
//     had already begun;
//   - at most `maxPipelined` requests of one connection in progress; further pipelined requests
//     wait in the socket (reading pauses), so a client that floods without reading cannot make
//     the gateway send the upstream more than it reads;
//   - a request whose client has gone before it is dispatched is never dispatched.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../log.js';
import { CLIENT_CLOSED, CONNECTION_CUT, markCut, recordRequest, recordUnrouted } from './access-record.js';
import { Deadlines, type Deadline } from './deadlines.js';
import { answer, ClientGone, envelope, GatewayError, render } from './errors.js';
import { REASONS } from '../catalogue/reasons.js';
import type { Metrics } from './metrics.js';
import type { Selection } from './state.js';
import { ownHeaders } from './own-headers.js';
import { runPipeline, type Exchange } from './pipeline.js';
import { assignIdentity, identityOf } from './request-id.js';

export interface HttpAdapterOptions {
  /** The program of the release a request asks for, read once per request (a reload swaps the state; in-flight work keeps its own). */
  select: (req: IncomingMessage) => Selection;
  /** Admin routes (/_gateway/…). */
  admin: (req: IncomingMessage, res: ServerResponse, own: Record<string, string>) => void;
  /** Own headers of admin answers (release of the default service, CORS). */
  adminHeaders: (req: IncomingMessage) => Record<string, string>;
  timeoutMs: number;
  maxPipelined: number;
  metrics: Metrics;
  logger: Logger;
}

export interface HttpAdapter {
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Requests in progress (for draining). */
  inFlight(): number;
}

/** Per-connection state, kept on the socket. */
interface Conn {
  active: number;
  queue: [IncomingMessage, ServerResponse, number][];
  paused: boolean;
}

const CONN = Symbol('gateway.conn');
type TrackedSocket = Socket & { [CONN]?: Conn; _paused?: boolean; parser?: { pause(): void; resume(): void } | null };
/** A flood beyond this many parsed-but-waiting requests on one connection is abuse: the connection is cut. */
const QUEUE_HARD_LIMIT = 1024;

/** An exchange with its place among the deadlines: one object per request. */
type TimedExchange = Exchange & Deadline;

export function createHttpAdapter(o: HttpAdapterOptions): HttpAdapter {
  let inFlight = 0;
  const deadlines = new Deadlines<TimedExchange>(expire);

  function handler(req: IncomingMessage, res: ServerResponse): void {
    const arrived = performance.now();
    const socket = req.socket as TrackedSocket;
    if (!socket.writable) {
      // Refused at connect (over --max-connections: that refusal has its line), or cut after a flood.
      if (socket[CONN]) {
        assignIdentity(req);
        recordUnrouted(o, req, arrived, CONNECTION_CUT);
      }
      return void socket.destroy();
    }
    assignIdentity(req); // before anything can answer: every answer, refusals included, carries the id
    let conn = socket[CONN];
    if (!conn) socket[CONN] = conn = { active: 0, queue: [], paused: false };
    if (conn.active < o.maxPipelined) return start(conn, socket, req, res, arrived);
    conn.queue.push([req, res, arrived]);
    if (conn.queue.length > QUEUE_HARD_LIMIT) return cut(conn, socket);
    pause(conn, socket);
  }

  function start(conn: Conn, socket: TrackedSocket, req: IncomingMessage, res: ServerResponse, arrived: number): void {
    const id = identityOf(req)!.id;
    conn.active++;
    inFlight++;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      conn.active--;
      inFlight--;
      next(conn, socket);
    };
    if ((req.url ?? '').startsWith('/_gateway/')) {
      res.once('close', () => {
        recordRequest(o, req, res, arrived);
        finish();
      });
      res.setHeader('x-request-id', id);
      return o.admin(req, res, o.adminHeaders(req));
    }
    // The deadline counts from arrival (waiting behind pipelined requests included).
    const ex: TimedExchange = { req, res, id, own: {}, cancellation: { gone: false }, bodyRead: false, due: arrived + o.timeoutMs, prev: null, next: null, queued: false, timer: undefined };
    deadlines.add(ex);
    res.on('close', () => { // emitted once; 'on' spares the once-wrapper
      deadlines.remove(ex);
      if (!res.writableFinished) cancel(ex, new ClientGone()); // the client left: stop the upstream or never start it
      recordRequest(o, req, res, arrived, ex);
      finish();
    });
    let run: Promise<void>;
    try {
      const chosen = o.select(req);
      run = 'error' in chosen ? Promise.reject(refuseRelease(ex, chosen)) : runPipeline(chosen.served.program, ex);
    } catch (e) {
      run = Promise.reject(e); // the connection boundary: whatever selection throws is an answer, never a crash
    }
    run.catch((e) => failSafely(ex, e));
  }

  /** A release not served: answered in the envelope of the service owning the path. */
  function refuseRelease(ex: Exchange, chosen: Extract<Selection, { error: unknown }>): unknown {
    ex.view = chosen.view;
    ex.own = ownHeaders(chosen.served.program.cors, ex.req.headers.origin, chosen.view, undefined);
    return chosen.error;
  }

  /** The deadline passed: answer 408/504 if nothing was sent yet, else cut the answer. */
  function expire(ex: Exchange): void {
    const reason = ex.bodyRead
      ? new GatewayError('timeout', `no answer within the gateway's deadline of ${o.timeoutMs} ms`)
      : new GatewayError('requestTimeout', `request not received within the gateway's deadline of ${o.timeoutMs} ms`, { connection: 'close' });
    cancel(ex, reason);
    if (ex.res.headersSent) ex.res.destroy();
    else failSafely(ex, reason);
  }

  function cancel(ex: Exchange, reason: unknown): void {
    if (ex.cancellation.gone) return;
    ex.cancellation.gone = true;
    ex.cancellation.reason = reason;
    ex.cancellation.cancel?.(reason);
  }

  /**
   * Render an error in the owning service's envelope, once; a second failure of the same request is
   * dropped. The boundary of every answer: nothing thrown here reaches the process (see failSafely).
   */
  function fail(ex: Exchange, e: unknown): void {
    const { req, res } = ex;
    if (res.headersSent || res.destroyed) return;
    const where = `${req.method} ${(req.url ?? '').split('?')[0]}`;
    const a = render(e, ex.view?.service, where, o.logger);
    if (a.body === undefined) return void res.destroy();
    try {
      send(ex, a.status, { ...ex.own, ...a.headers }, a.body);
    } catch (err) {
      // A header value node refuses (ERR_INVALID_CHAR…), which some stage or hook let through — the
      // same one a success answer tripped on before landing here: this request alone gets a plain
      // 500 without the gateway's own headers, and a log line naming the header (never its value).
      o.logger.error(`${where} → 500: answer not writable: ${(err as Error)?.message ?? String(err)}`);
      if (res.headersSent) return void res.destroy();
      const plain = answer(500, {}, envelope(ex.view?.service, 'unknown', REASONS.unknown.message));
      send(ex, plain.status, plain.headers, plain.body!);
    }
  }

  function send(ex: Exchange, status: number, headers: Record<string, string | number>, body: string): void {
    const { req, res } = ex;
    res.writeHead(status, { ...headers, 'x-request-id': ex.id, 'content-length': Buffer.byteLength(body) });
    res.end(req.method === 'HEAD' ? undefined : body);
    // A body still arriving (a 413, a 408) is not worth reading: close once the answer is out.
    if (!ex.bodyRead && !req.complete) res.once('finish', () => req.socket.destroySoon());
  }

  /** fail(), and if even the plain answer cannot be written, the connection is cut: never an uncaught error. */
  function failSafely(ex: Exchange, e: unknown): void {
    try {
      fail(ex, e);
    } catch (err) {
      o.logger.error(`${ex.req.method} ${(ex.req.url ?? '').split('?')[0]}: no answer could be written, connection cut: ${(err as Error)?.stack ?? String(err)}`);
      ex.res.destroy();
    }
  }

  /** A flood past the hard limit: drop the connection; each request it queued gets its access line. */
  function cut(conn: Conn, socket: TrackedSocket): void {
    for (const [req, , arrived] of conn.queue.splice(0)) recordUnrouted(o, req, arrived, CONNECTION_CUT);
    markCut(socket);
    socket.destroy();
  }

  function pause(conn: Conn, socket: TrackedSocket): void {
    if (conn.paused && socket._paused) return; // (node may have resumed it on its own 'drain')
    conn.paused = true;
    // node:http's own back-pressure flag: with it set, the server also pauses its parser and does
    // not resume the socket behind our back (it does the same when a client stops reading answers).
    socket._paused = true;
    socket.pause();
  }

  function next(conn: Conn, socket: TrackedSocket): void {
    while (conn.queue.length && conn.active < o.maxPipelined) {
      const [req, res, arrived] = conn.queue.shift()!;
      if (socket.destroyed || res.destroyed) { // the client left while this request waited: never dispatch it
        recordUnrouted(o, req, arrived, CLIENT_CLOSED);
        continue;
      }
      start(conn, socket, req, res, arrived);
    }
    if (conn.paused && conn.queue.length === 0 && !socket.destroyed) {
      conn.paused = false;
      socket._paused = false;
      socket.parser?.resume();
      socket.resume();
    }
  }

  return { handler, inFlight: () => inFlight };
}
