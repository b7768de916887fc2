// Sign a request the way the exchange's client does, keeping the client's bytes: the raw query
// text is kept exactly and `timestamp` (and `recvWindow`) then `signature` are appended to it.
// The signed payload is that query (without signature) followed by the raw body.

const HAS_SIGNATURE = /(?:^|&)signature=/;
const HAS_TIMESTAMP = /(?:^|&)timestamp=/;
const HAS_RECV_WINDOW = /(?:^|&)recvWindow=/;

export interface SignOptions {
  /** Milliseconds since the epoch. */
  now: number;
  /** recvWindow to add unless the client sent one. */
  recvWindow?: string;
}

/** Query string part of a raw URL ('' when there is none). */
export function queryOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
}

/** True when the client already signed (signature in the query or the form body): pass it unchanged. */
export function carriesSignature(url: string, body: Buffer): boolean {
  return HAS_SIGNATURE.test(queryOf(url)) || (body.length > 0 && HAS_SIGNATURE.test(body.toString('latin1')));
}

/** The URL to forward: raw path?query + &timestamp=…[&recvWindow=…]&signature=…. */
export function signUrl(url: string, body: Buffer, sign: (payload: string | Buffer) => string, opts: SignOptions): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  const bodyText = body.length ? body.toString('latin1') : '';
  let total = query;
  if (!HAS_TIMESTAMP.test(query) && !HAS_TIMESTAMP.test(bodyText)) total = join(total, `timestamp=${opts.now}`);
  if (opts.recvWindow !== undefined && !HAS_RECV_WINDOW.test(query) && !HAS_RECV_WINDOW.test(bodyText)) {
    total = join(total, `recvWindow=${opts.recvWindow}`);
  }
  const payload = body.length ? Buffer.concat([Buffer.from(total, 'utf8'), body]) : total;
  return `${path}?${join(total, `signature=${sign(payload)}`)}`;
}

const join = (a: string, b: string) => (a ? `${a}&${b}` : b);
