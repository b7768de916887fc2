// Client certificates as credentials (--tls-client-ca): a tokens-file entry may name a certificate,
// by SHA-256 fingerprint or by subject, instead of a bearer token's hash. The handshake has proved
// that the client holds the certificate's key and that the client CA signed it; this maps that
// identity to the entry's rights. A request that also sends a bearer token is judged by the token.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { subjectKey, type TokenEntry } from './tokens.js';

interface Identity {
  fingerprint: string;
  subject: string;
}

/** The connection of each request, by its headers object (what the stages see); noted for TLS servers with a client CA only. */
const connections = new WeakMap<IncomingHttpHeaders, Socket>();
/** A connection's identity, worked out on its first request (null: no verified certificate). */
const identities = new WeakMap<Socket, Identity | null>();

/** A 'request' listener of the TLS server: remember the connection the request came on. */
export function noteTlsRequest(req: IncomingMessage): void {
  connections.set(req.headers, req.socket);
}

/** The connection a request (by its headers) came on, when noted. */
export const connectionOf = (headers: IncomingHttpHeaders): Socket | undefined => connections.get(headers);

/** The tokens-file entry naming the verified client certificate of a connection, if any. */
export function certificateEntry(tokens: readonly TokenEntry[], socket: Socket | undefined): TokenEntry | undefined {
  const id = socket && identityOf(socket);
  if (!id) return undefined;
  return tokens.find((t) => t.certificate && !t.revoked && (t.certificate.fingerprint ? t.certificate.fingerprint === id.fingerprint : t.certificate.subject === id.subject));
}

function identityOf(socket: Socket): Identity | null {
  let id = identities.get(socket);
  if (id !== undefined) return id;
  const tls = socket as Partial<TLSSocket>;
  // `authorized`: the chain verified against --tls-client-ca (with it set, an unverified handshake never gets here).
  const cert = tls.authorized ? tls.getPeerX509Certificate?.() : undefined;
  id = cert ? { fingerprint: cert.fingerprint256.replace(/:/g, '').toLowerCase(), subject: subjectKey(cert.subject.split('\n')) } : null;
  identities.set(socket, id);
  return id;
}
