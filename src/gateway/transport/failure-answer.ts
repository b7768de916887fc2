// The last step of a failed request: render the error in the owning service's envelope, once, and
// make sure nothing thrown while writing it reaches the process. Also how a request is cancelled
// (its client left, or its deadline passed): the upstream or builder it waits for is told to stop.
import type { Logger } from '../../log.js';
import { REASONS } from '../../catalogue/reasons.js';
import { answer, envelope, render } from '../errors.js';
import type { Exchange } from '../pipeline.js';

export function cancel(ex: Exchange, reason: unknown): void {
  if (ex.cancellation.gone) return;
  ex.cancellation.gone = true;
  ex.cancellation.reason = reason;
  ex.cancellation.cancel?.(reason);
}

/** fail(), and if even the plain answer cannot be written, the connection is cut: never an uncaught error. */
export function failSafely(ex: Exchange, e: unknown, logger: Logger): void {
  try {
    fail(ex, e, logger);
  } catch (err) {
    logger.error(`${ex.req.method} ${(ex.req.url ?? '').split('?')[0]}: no answer could be written, connection cut: ${(err as Error)?.stack ?? String(err)}`);
    ex.res.destroy();
  }
}

/** Render an error in the owning service's envelope, once; a second failure of the same request is dropped. */
function fail(ex: Exchange, e: unknown, logger: Logger): void {
  const { req, res } = ex;
  if (res.headersSent || res.destroyed) return;
  const where = `${req.method} ${(req.url ?? '').split('?')[0]}`;
  const a = render(e, ex.view?.service, where, logger);
  if (a.body === undefined) return void res.destroy();
  try {
    send(ex, a.status, { ...ex.own, ...a.headers }, a.body);
  } catch (err) {
    // A header value node refuses (ERR_INVALID_CHAR…), which some stage or hook let through — the
    // same one a success answer tripped on before landing here: this request alone gets a plain
    // 500 without the gateway's own headers, and a log line naming the header (never its value).
    logger.error(`${where} → 500: answer not writable: ${(err as Error)?.message ?? String(err)}`);
    if (res.headersSent) return void res.destroy();
    const plain = answer(500, {}, envelope(ex.view?.service, 'unknown', REASONS.unknown.message));
    send(ex, plain.status, plain.headers, plain.body!);
  }
}

function send(ex: Exchange, status: number, headers: Record<string, string | number>, body: string): void {
  const { req, res } = ex;
  res.writeHead(status, { ...headers, 'x-request-id': ex.id, 'content-length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
  // A body still arriving (a 413, a 408) is not worth reading: close once the answer is out.
  if (!ex.bodyRead && !req.complete) res.once('finish', () => req.socket.destroySoon());
}
