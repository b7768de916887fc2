// Opening the upstream side of a websocket relay: the handshake with its timeout, and a refusal or
// an unreachable upstream as one error the gateway turns into the client's upgrade answer.
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';

export interface UpstreamOptions {
  /** Upstream handshake timeout. */
  timeoutMs: number;
  /** Subprotocols the client asked for. */
  protocols?: string[];
  /** Largest message accepted from the upstream. */
  maxPayload?: number;
  /** Handshake headers to send (the request id and trace context). */
  headers?: Record<string, string>;
}

/** The upstream refused or could not be reached; `status` is its HTTP answer when it gave one. */
export class UpstreamConnectError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = 'UpstreamConnectError';
  }
}

/**
 * Open the upstream connection. Resolves once it is open, paused: frames it sends before the relay
 * starts wait in the socket, not in the void.
 */
export function connectUpstream(url: string, opts: UpstreamOptions): { socket: WebSocket; opened: Promise<WebSocket> } {
  const socket = new WebSocket(url, opts.protocols ?? [], {
    handshakeTimeout: opts.timeoutMs, perMessageDeflate: false, autoPong: false, maxPayload: opts.maxPayload,
    followRedirects: false, headers: opts.headers,
  });
  // 'close' follows every 'error'; errors after the handshake are the relay's to report as a close.
  socket.on('error', () => {});
  const opened = new Promise<WebSocket>((resolve, reject) => {
    const onUnexpected = (_req: unknown, res: IncomingMessage) => {
      res.resume();
      fail(new UpstreamConnectError(`upstream answered the websocket upgrade with HTTP ${res.statusCode}`, res.statusCode));
    };
    const onError = (e: Error) => fail(new UpstreamConnectError(`upstream websocket unreachable: ${e.message}`));
    // Closed before it opened (e.g. terminated by the gateway while connecting).
    const onClose = () => fail(new UpstreamConnectError('upstream websocket closed before it opened'));
    const off = () => {
      socket.off('unexpected-response', onUnexpected);
      socket.off('error', onError);
      socket.off('close', onClose);
    };
    const fail = (e: UpstreamConnectError) => {
      off();
      socket.terminate();
      reject(e);
    };
    socket.once('open', () => {
      socket.pause();
      off();
      resolve(socket);
    });
    socket.once('unexpected-response', onUnexpected);
    socket.once('error', onError);
    socket.once('close', onClose);
  });
  return { socket, opened };
}
