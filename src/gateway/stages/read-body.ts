// Read a request body into memory with a size limit. Bodies here are small forms and JSON
// documents; holding them whole lets the gateway validate them and still forward the exact bytes.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../errors.js';

const EMPTY = Buffer.alloc(0);

/** Whether a body follows the head (most GETs: no, and the pipeline need not wait a turn for one). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return length === undefined ? req.headers['transfer-encoding'] !== undefined : length !== '0';
}

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limit) throw tooLarge(limit);
  if (!hasBody(req) || declared === 0) return EMPTY;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}

function tooLarge(limit: number): GatewayError {
  return new GatewayError('tooLarge', `request body larger than the limit of ${limit} bytes`);
}
