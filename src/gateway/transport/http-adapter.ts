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
import type { Logger } from '../../log.js';
import { CONNECTION_CUT, recordRequest, recordUnrouted } from '../observe/access-record.js';
import { Deadlines, type Deadline } from './deadlines.js';
import { ClientGone, GatewayError, SummarisedRefusal } from '../errors.js';
import type { RefusalCounter } from '../admission/route-gate.js';
import { cancel, failSafely } from './failure-answer.js';
import { connFor, connOf, next, wait, type Conn, type TrackedSocket } from './pipelining.js';
import type { Metrics } from '../observe/metrics.js';
import type { Selection } from '../program/state.js';
import type { HandOver } from '../stages/hand-over.js';
import { ownHeaders } from '../stages/own-headers.js';
import { runPipeline, type Exchange } from '../pipeline.js';
import { assignIdentity, identityOf } from '../observe/request-id.js';

export interface HttpAdapterOptions {
  /** The program of the release a request asks for, read once per request (a reload swaps the state; in-flight work keeps its own). */
  select: (req: IncomingMessage) => Selection;
  /** Admin routes (/_gateway/…). */
  admin: (req: IncomingMessage, res: ServerResponse, own: Record<string, string>) => void;
  /** Own headers of admin answers (release of the default service, CORS). */
  adminHeaders: (req: IncomingMessage) => Record<string, string>;
  timeoutMs: number;
  maxPipelined: number;
  /** The gateway's hand-over: once stopping, every answer closes its connection (the pipeline refuses what is retried elsewhere). */
  handOver: HandOver;
  metrics: Metrics;
  logger: Logger;
  /** Where 504s at the deadline are counted: a hung route's burst writes a summary line per interval, not one per request. */
  refusals: RefusalCounter;
}

export interface HttpAdapter {
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Requests in progress (for draining). */
  inFlight(): number;
}

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
      if (connOf(socket)) {
        assignIdentity(req);
        recordUnrouted(o, req, arrived, CONNECTION_CUT);
      }
      return void socket.destroy();
    }
    assignIdentity(req); // before anything can answer: every answer, refusals included, carries the id
    const conn = connFor(socket);
    if (conn.active < o.maxPipelined) return start(conn, socket, req, res, arrived);
    wait(o, conn, socket, req, res, arrived);
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
      next(o, conn, socket, o.maxPipelined, start);
    };
    if (o.handOver.active) res.shouldKeepAlive = false;
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
      if ('error' in chosen) run = Promise.reject(refuseRelease(ex, chosen));
      else {
        ex.releasePrefix = chosen.prefix;
        run = runPipeline(chosen.served.program, ex);
      }
    } catch (e) {
      run = Promise.reject(e); // the connection boundary: whatever selection throws is an answer, never a crash
    }
    run.catch((e) => failSafely(ex, e, o.logger));
  }

  /** The deadline passed: answer 408/504 if nothing was sent yet, else cut the answer. */
  function expire(ex: Exchange): void {
    const reason = ex.bodyRead
      ? new SummarisedRefusal('timeout', `no answer within the gateway's deadline of ${o.timeoutMs} ms`)
      : new GatewayError('requestTimeout', `request not received within the gateway's deadline of ${o.timeoutMs} ms`, { connection: 'close' });
    cancel(ex, reason);
    if (ex.res.headersSent) return void ex.res.destroy();
    // A hung route times out every request it holds at once: counted, one warn line per interval (each keeps its access line).
    if (ex.bodyRead) o.refusals.count('504 no answer within the deadline', ex.route?.endpoint.endpoint.key ?? 'requests of no route', `${o.timeoutMs} ms (--timeout) passed with nothing from the upstream or builder`);
    failSafely(ex, reason, o.logger);
  }

  return { handler, inFlight: () => inFlight };
}

/** A release not served: answered in the envelope of the service owning the path. */
function refuseRelease(ex: Exchange, chosen: Extract<Selection, { error: unknown }>): unknown {
  ex.view = chosen.view;
  ex.own = ownHeaders(chosen.served.program.cors, ex.req.headers.origin, chosen.view, undefined);
  return chosen.error;
}
