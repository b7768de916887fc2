// Closing one side of a relay like the other side closed: the same code when it may be sent, a
// reason that fits a close frame.
import WebSocket from 'ws';

/** Close codes an endpoint may send (RFC 6455 §7.4; 1004–1006 and 1015 are reserved). */
export function sendableCode(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}

/** A close reason fits in 123 bytes of UTF-8. */
export function shortReason(reason: string | Buffer): string | Buffer {
  const b = typeof reason === 'string' ? Buffer.from(reason) : reason;
  if (b.length <= 123) return reason;
  let s = b.subarray(0, 120).toString('utf8');
  while (Buffer.byteLength(s) > 120) s = s.slice(0, -1); // a cut multi-byte character became U+FFFD
  return `${s}...`;
}

/** Close `ws` with the code the other side closed with (or a sendable stand-in). */
export function closeLike(ws: WebSocket, code: number, reason: Buffer | string, fallback: number, fallbackReason: string): void {
  if (ws.readyState === WebSocket.CLOSED || ws.readyState === WebSocket.CLOSING) return;
  if (code === 1005) ws.close(); // the other side sent no code: send none either
  else if (sendableCode(code)) ws.close(code, shortReason(reason));
  else ws.close(fallback, fallbackReason);
}
