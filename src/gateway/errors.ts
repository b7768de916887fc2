// Gateway answers that are not the upstream's: one error type, rendered in the service's envelope.
import type { Service } from '../catalogue/model.js';

/** Why a request was refused; service.yaml maps each reason to the envelope's code. */
export type Reason =
  | 'notFound' | 'missing' | 'notAllowed' | 'invalid' | 'combination' | 'duplicate' | 'unauthorized' | 'forbidden'
  | 'upstream' | 'timeout' | 'unknown' | 'tooLarge' | 'unsupportedMedia' | 'builder';

export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly reason: Reason,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

/** Body of an error answer in the envelope the service's clients already parse. */
export function envelope(service: Service | undefined, reason: Reason, message: string): Record<string, unknown> {
  if (service?.errors.envelope === 'code-msg') {
    // service.yaml names a code per reason; a reason it does not name answers with its 'unknown' code.
    const codes = service.errors.codes;
    return { code: codes[reason] ?? codes.unknown, msg: message };
  }
  return { error: message };
}

/** What to answer for an error thrown while handling a request (shared by the Koa and proxy paths). */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  /** Absent when nobody is listening any more (the client went away). */
  body?: Record<string, unknown>;
}

export function errorAnswer(e: unknown, service: Service | undefined, where: string, logger: { warn(m: string): void; error(m: string): void }): ErrorAnswer {
  if (e instanceof GatewayError) {
    if (e.status >= 500) logger.warn(`${where} → ${e.status}: ${e.message}`);
    return { status: e.status, headers: e.headers, body: envelope(service, e.reason, e.message) };
  }
  if ((e as Error)?.name === 'AbortError' || (e as { code?: string })?.code === 'UND_ERR_ABORTED') {
    return { status: 499, headers: {} }; // client closed the request
  }
  logger.error(`${where} → 500: ${(e as Error)?.stack ?? String(e)}`);
  return { status: 500, headers: {}, body: envelope(service, 'unknown', 'internal gateway error') };
}
