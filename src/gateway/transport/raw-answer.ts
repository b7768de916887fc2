// Answers written straight on a socket, where there is no ServerResponse: a connection over the
// cap, a request node's parser refused (malformed, headers too large or too slow), a websocket
// upgrade refused. Each is a last answer: the connection closes after it. Like every other answer
// it carries X-Request-Id, and it is recorded (access line, histogram) as refused:<status>.
import { METHODS, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connectionIdleSince, recordRaw, refusedLabel, type RecordOptions } from '../observe/access-record.js';
import { newIdentity, type RequestIdentity } from '../observe/request-id.js';

/** What node's validateHeaderValue refuses in a header line. */
const UNSAFE_IN_HEADER = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Write a last answer and close; returns the bytes written. The socket is destroyed once the answer
 * is flushed (or after a second): an http server keeps half-open sockets, and a client that never
 * closes its side would otherwise hold the descriptor for good.
 */
export function writeLastAnswer(socket: Duplex, status: number, headers: string[], body = ''): number {
  // Written as text, no node check in between: a line node would refuse (CR, LF, a control or
  // non-Latin-1 character) is left out, never written, so no value can add a header or an answer.
  const safe = headers.filter((h) => !UNSAFE_IN_HEADER.test(h));
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, 'Connection: close', ...safe, `Content-Length: ${Buffer.byteLength(body)}`];
  const text = `${head.join('\r\n')}\r\n\r\n${body}`;
  socket.end(text);
  socket.once('finish', () => socket.destroy());
  setTimeout(() => socket.destroy(), 1000).unref();
  return Buffer.byteLength(text);
}

/**
 * Refuse a connection or an unparsable request with an empty answer, under a new request id, and
 * record it. `raw`: what node's parser had read (clientError's err.rawPacket), for the method.
 */
export function refuseOnSocket(o: RecordOptions, socket: Socket, status: number, headers: string[] = [], raw?: Buffer): RequestIdentity {
  const who = newIdentity();
  const arrived = connectionIdleSince(socket);
  const bytes = writeLastAnswer(socket, status, [`X-Request-Id: ${who.id}`, ...headers]);
  recordRaw(o, who, { method: methodOf(raw), route: refusedLabel(status), status, arrived, bytes });
  return who;
}

/** The method of a request line, when it is one node knows (nothing else of the request is logged). */
function methodOf(raw: Buffer | undefined): string | undefined {
  if (!raw) return undefined;
  const token = /^([A-Z-]{3,20}) /.exec(raw.subarray(0, 24).toString('latin1'))?.[1];
  return token && METHODS.includes(token) ? token : undefined;
}
