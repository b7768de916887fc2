// One connection's pipelined requests: at most `maxPipelined` in progress; further ones wait in the
// socket (reading pauses, node:http's own back-pressure flag set so it does not resume behind our
// back), so a client that floods without reading cannot make the gateway send the upstream more than
// it reads. A flood past a hard limit cuts the connection; a request whose client left while it
// waited is never dispatched. Each refused or dropped request still gets its access line.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { CLIENT_CLOSED, CONNECTION_CUT, markCut, recordUnrouted, type RecordOptions } from '../observe/access-record.js';

/** Per-connection state, kept on the socket. */
export interface Conn {
  active: number;
  queue: [IncomingMessage, ServerResponse, number][];
  paused: boolean;
}

const CONN = Symbol('gateway.conn');
export type TrackedSocket = Socket & { [CONN]?: Conn; _paused?: boolean; parser?: { pause(): void; resume(): void } | null };
/** A flood beyond this many parsed-but-waiting requests on one connection is abuse: the connection is cut. */
const QUEUE_HARD_LIMIT = 1024;

/** The connection's state, or undefined for a socket that has had no request yet. */
export const connOf = (socket: TrackedSocket): Conn | undefined => socket[CONN];

export function connFor(socket: TrackedSocket): Conn {
  let conn = socket[CONN];
  if (!conn) socket[CONN] = conn = { active: 0, queue: [], paused: false };
  return conn;
}

/** Queue a request behind the ones in progress (pausing the socket), or cut a flooding connection. */
export function wait(o: RecordOptions, conn: Conn, socket: TrackedSocket, req: IncomingMessage, res: ServerResponse, arrived: number): void {
  conn.queue.push([req, res, arrived]);
  if (conn.queue.length > QUEUE_HARD_LIMIT) {
    for (const [r, , at] of conn.queue.splice(0)) recordUnrouted(o, r, at, CONNECTION_CUT);
    markCut(socket);
    socket.destroy();
    return;
  }
  if (conn.paused && socket._paused) return; // (node may have resumed it on its own 'drain')
  conn.paused = true;
  socket._paused = true;
  socket.pause();
}

/** A request finished: start the waiting ones while there is room, and read the socket again once none waits. */
export function next(o: RecordOptions, conn: Conn, socket: TrackedSocket, maxPipelined: number, start: (conn: Conn, socket: TrackedSocket, req: IncomingMessage, res: ServerResponse, arrived: number) => void): void {
  while (conn.queue.length && conn.active < maxPipelined) {
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
