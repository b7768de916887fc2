// A test server's request body, whole, before it answers (the stand-ins and recording upstreams).
import type { IncomingMessage } from 'node:http';

/** Call `then` with the request's whole body once it has arrived. */
export function onBody(req: IncomingMessage, then: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => then(Buffer.concat(chunks)));
}
