// Plain HTTP sent to the TLS port is answered 400 naming https and closed, as nginx answers it: never
// served, never redirected (a redirect would teach a client that sent its token in clear once to go
// on doing so). The first byte tells: a TLS connection opens with a handshake record (0x16). The
// TLS server's own connection listener runs only after that byte, which it then reads as usual.
import type { Socket } from 'node:net';
import type { Server as TlsServer } from 'node:tls';

const HANDSHAKE = 0x16;
const BODY = 'The plain HTTP request was sent to HTTPS port: use https://\n';
const ANSWER = `HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\nConnection: close\r\n\r\n${BODY}`;

/**
 * Put the first-byte check before the TLS server's handshake. A connection that sends nothing is
 * closed after `silentMs` (the handshake's own timeout starts only once it began).
 */
export function refusePlainHttp(server: TlsServer, silentMs: number): void {
  const handshake = server.listeners('connection')[0] as (socket: Socket) => void; // tls.Server's own, registered by its constructor
  server.removeListener('connection', handshake);
  server.prependListener('connection', (socket: Socket) => {
    const gone = () => socket.destroy(); // a reset before the first byte: nothing to answer
    socket.on('error', gone);
    let silent = setTimeout(gone, silentMs);
    socket.once('close', () => clearTimeout(silent));
    socket.once('data', (chunk: Buffer) => {
      clearTimeout(silent);
      if (chunk[0] !== HANDSHAKE) {
        // Whatever else it sends is read and dropped, so closing resets nothing before the answer is read.
        silent = setTimeout(gone, silentMs);
        return void socket.end(ANSWER);
      }
      socket.pause();
      socket.removeListener('error', gone);
      socket.unshift(chunk);
      handshake.call(server, socket);
    });
  });
}
