// An upstream that answers every request with a JSON list of one object padded to a chosen size,
// written in 64 KiB chunks as they are asked for (never held whole): with a Content-Length, or
// chunked. For the tests that bound what the gateway holds of a large answer.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LargeUpstream {
  url: string;
  /** The answer's size in bytes, and whether it carries a Content-Length. */
  set(bytes: number, withLength: boolean): void;
  stop(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, 0x61); // 'a'

export async function largeUpstream(): Promise<LargeUpstream> {
  let size = 1024;
  let withLength = true;
  const server: Server = createServer((req, res) => {
    req.resume();
    const head = Buffer.from('[{"assetName":"BTC","pad":"');
    const tail = Buffer.from('"}]');
    const total = Math.max(size, head.length + tail.length);
    res.writeHead(200, { 'content-type': 'application/json', ...(withLength ? { 'content-length': String(total) } : {}) });
    let left = total - head.length - tail.length;
    res.write(head);
    const more = (): void => {
      while (left > 0) {
        const n = Math.min(left, CHUNK.length);
        left -= n;
        if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) return void res.once('drain', more);
      }
      res.end(tail);
    };
    res.on('error', () => {});
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    set(bytes, length) { size = bytes; withLength = length; },
    stop: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}
