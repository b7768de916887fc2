// The TLS listener's files (--tls-cert, --tls-key, --tls-client-ca): read and checked one by one, so
// an error names the flag, the file and the reason (never the key), and turned into the options of
// node's TLS server. Read at start-up and again by every reload, which hands them to
// server.setSecureContext(): new connections get them, open ones keep the context they began with.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { SecureContextOptions, Server as TlsServer, TlsOptions } from 'node:tls';
import type { Logger } from '../log.js';
import { UsageError } from '../usage-error.js';

export interface TlsSettings {
  tlsCert?: string;
  tlsKey?: string;
  tlsClientCa?: string;
  headersTimeoutMs: number;
}

/** What the files hold, ready for node, with one line saying what is served. */
export interface TlsContext {
  secure: SecureContextOptions;
  /** Client certificates are required (mTLS). */
  clientCa: boolean;
  summary: string;
  /** The certificate's end of validity is past, or within a week. */
  expiring?: string;
}

/** TLS 1.0 and 1.1 are deprecated (RFC 8996): 1.2 at least. Node's default ciphers are kept. */
const MIN_VERSION = 'TLSv1.2';
const WEEK_MS = 7 * 24 * 3600 * 1000;

/** The TLS files of a configuration, read and checked; undefined when TLS is off. Throws UsageError. */
export function readTls(cfg: TlsSettings, now = Date.now()): TlsContext | undefined {
  if (cfg.tlsCert === undefined && cfg.tlsKey === undefined) {
    if (cfg.tlsClientCa !== undefined) throw new UsageError(`--tls-client-ca ${cfg.tlsClientCa} needs --tls-cert and --tls-key: client certificates are asked for in a TLS handshake`);
    return undefined;
  }
  if (cfg.tlsCert === undefined || cfg.tlsKey === undefined) {
    throw new UsageError(cfg.tlsCert === undefined ? `--tls-key ${cfg.tlsKey} needs --tls-cert (the certificate of that key)` : `--tls-cert ${cfg.tlsCert} needs --tls-key (the certificate's private key)`);
  }
  const certPem = readPem('tls-cert', cfg.tlsCert);
  const keyPem = readPem('tls-key', cfg.tlsKey);
  const cert = certificates('tls-cert', cfg.tlsCert, certPem)[0];
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch (e) {
    throw new UsageError(`invalid --tls-key ${cfg.tlsKey}: not an unencrypted PEM private key (${reason(e)})`);
  }
  if (!cert.checkPrivateKey(key)) throw new UsageError(`invalid --tls-key ${cfg.tlsKey}: it is not the private key of the certificate in --tls-cert ${cfg.tlsCert}`);
  const secure: SecureContextOptions = { cert: certPem, key: keyPem, minVersion: MIN_VERSION };
  let clientCa = '';
  if (cfg.tlsClientCa !== undefined) {
    const caPem = readPem('tls-client-ca', cfg.tlsClientCa);
    const cas = certificates('tls-client-ca', cfg.tlsClientCa, caPem);
    const notCa = cas.find((c) => !c.ca);
    if (notCa) throw new UsageError(`invalid --tls-client-ca ${cfg.tlsClientCa}: ${oneLine(notCa.subject)} is not a CA certificate (basicConstraints CA:TRUE)`);
    secure.ca = caPem;
    clientCa = `; client certificates required, signed by ${cas.map((c) => oneLine(c.subject)).join(' or ')}`;
  }
  const until = Date.parse(cert.validTo);
  return {
    secure, clientCa: Boolean(secure.ca),
    summary: `TLS: certificate ${oneLine(cert.subject)} (${cert.subjectAltName ?? 'no subjectAltName'}), valid until ${new Date(until).toISOString()}${clientCa}`,
    expiring: until - now < WEEK_MS ? `--tls-cert ${cfg.tlsCert}: the certificate ${until < now ? 'expired' : 'expires'} ${new Date(until).toISOString()}; clients will refuse it${until < now ? '' : ' then'}` : undefined,
  };
}

/** The options of the TLS server: the context, and a refused handshake without a client certificate when a client CA is set. */
export function tlsServerOptions(ctx: TlsContext, cfg: TlsSettings): TlsOptions {
  return { ...ctx.secure, requestCert: ctx.clientCa, rejectUnauthorized: ctx.clientCa, handshakeTimeout: cfg.headersTimeoutMs };
}

/** What each server serves now, to say when a reload changed it. */
const serving = new WeakMap<Server, TlsContext>();

/** Once listening: which certificate, and a warning when it ends within a week. */
export function announceTls(server: Server, ctx: TlsContext, logger: Logger): void {
  serving.set(server, ctx);
  logger.info(ctx.summary);
  if (ctx.expiring) logger.warn(ctx.expiring);
}

/** A reload's files for new connections; open connections keep the context they began with. */
export function swapSecureContext(server: Server, ctx: TlsContext, logger: Logger): void {
  (server as unknown as TlsServer).setSecureContext(ctx.secure);
  const was = serving.get(server);
  if (was?.secure.cert !== ctx.secure.cert || was?.secure.ca !== ctx.secure.ca) announceTls(server, { ...ctx, summary: `${ctx.summary} (reloaded)` }, logger);
  else serving.set(server, ctx);
}

function readPem(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`invalid --${flag} ${path}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? reason(e)})`);
  }
}

/** Every certificate of a PEM file, in order; at least one. */
function certificates(flag: string, path: string, pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.length) throw new UsageError(`invalid --${flag} ${path}: no PEM certificate in it (-----BEGIN CERTIFICATE-----)`);
  return blocks.map((b, i) => {
    try {
      return new X509Certificate(b);
    } catch (e) {
      throw new UsageError(`invalid --${flag} ${path}: certificate ${i + 1} does not parse (${reason(e)})`);
    }
  });
}

const oneLine = (subject: string) => subject.split('\n').join(', ');
/** OpenSSL's reason, without the stack: it never quotes the file's bytes. */
const reason = (e: unknown) => String((e as Error).message ?? e).split('\n')[0];
