// The parts of a websocket handshake ws checks too, checked here before an upstream connection is
// spent on the upgrade, so that a bad one is answered in the service's envelope.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../errors.js';

/**
 * Checks method, Upgrade, Sec-WebSocket-Key and -Version. Returns the subprotocols the client
 * offers, which the upstream connection offers in turn: ws's client throws on a duplicated or
 * malformed one.
 */
export function checkHandshake(req: IncomingMessage): string[] {
  const key = req.headers['sec-websocket-key'];
  if (req.method !== 'GET' || String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket'
    || typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key)) {
    throw new GatewayError('invalid', 'Invalid websocket handshake (expected GET with Upgrade: websocket and a Sec-WebSocket-Key).');
  }
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') {
    throw new GatewayError('invalid', `Unsupported Sec-WebSocket-Version '${String(version ?? '').slice(0, 32)}'; expected 13.`);
  }
  const header = req.headers['sec-websocket-protocol'];
  if (header === undefined) return [];
  const protocols = header.split(',').map((p) => p.replace(/^[ \t]+|[ \t]+$/g, ''));
  for (const [i, p] of protocols.entries()) {
    if (!TOKEN.test(p)) {
      throw new GatewayError('invalid', `Invalid Sec-WebSocket-Protocol: '${p.slice(0, 64)}' is not a token (letters, digits and !#$%&'*+-.^_\`|~; no '/', no empty entry).`);
    }
    if (protocols.indexOf(p) !== i) throw new GatewayError('invalid', `Invalid Sec-WebSocket-Protocol: '${p.slice(0, 64)}' is offered twice.`);
  }
  return protocols;
}

/** An HTTP token (RFC 9110 §5.6.2), what a subprotocol name must be (RFC 6455 §4.1). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
