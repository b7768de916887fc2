// Gateway answers that are not the upstream's: one error type whose status comes from the central
// reason table, and one envelope() per service for its body, so a refusal reads the same on every
// path. render() makes the HTTP answer of the request pipeline; websocket frames and upgrade
// refusals put the same envelope in their own shape (websocket/refusal.ts, frames.ts).
import { REASONS, type Reason } from '../catalogue/reasons.js';
import type { Service } from '../catalogue/model.js';
import { errorBody } from '../catalogue/envelope.js';

export type { Reason };

export class GatewayError extends Error {
  readonly status: number;
  /** A 5xx whose cause was already logged once (e.g. a store outage): a debug line per request, not a warning. */
  quiet = false;
  /** `status` defaults to the reason's; only a status relayed from elsewhere (an upstream's refusal) differs. */
  constructor(
    readonly reason: Reason,
    message: string,
    readonly headers: Record<string, string> = {},
    status?: number,
  ) {
    super(message);
    this.name = 'GatewayError';
    this.status = status ?? REASONS[reason].status;
  }
}

/**
 * A refusal counted where it happens and logged as one summary line per interval (a burst of
 * 503s would otherwise write a warn line each); every one still has its access line.
 */
export class SummarisedRefusal extends GatewayError {}

/** Body of an error answer in the envelope the service's clients already parse (catalogue/envelope.ts). */
export const envelope = errorBody;

/** A rendered gateway answer; `body` absent when nobody is listening any more (the client went away). */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

interface Log {
  debug(m: string): void;
  warn(m: string): void;
  error(m: string): void;
}

/** The client went away (hang-up, reset): nothing to answer, nothing worth more than a debug line. */
export class ClientGone extends Error {
  override name = 'ClientGone';
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Render an error thrown while handling a request, in `service`'s envelope. */
export function render(e: unknown, service: Service | undefined, where: string, log: Log): Answer {
  if (e instanceof GatewayError) {
    if (e.status >= 500 && !(e instanceof SummarisedRefusal)) {
      if (e.quiet) log.debug(`${where} → ${e.status}: ${e.message}`);
      else log.warn(`${where} → ${e.status}: ${e.message}`);
    }
    return answer(e.status, e.headers, envelope(service, e.reason, e.message, e.status));
  }
  if (isHangUp(e)) {
    log.debug(`${where}: client went away`);
    return { status: 499, headers: {} };
  }
  log.error(`${where} → 500: ${(e as Error)?.stack ?? String(e)}`);
  return answer(500, {}, envelope(service, 'unknown', REASONS.unknown.message));
}

export function answer(status: number, headers: Record<string, string>, body: unknown): Answer {
  return { status, headers: { ...headers, 'content-type': JSON_TYPE }, body: JSON.stringify(body) };
}

/** Errors that mean the client closed the connection, not that anything is wrong. */
function isHangUp(e: unknown): boolean {
  if (e instanceof ClientGone) return true;
  const code = (e as { code?: string })?.code;
  return (e as Error)?.name === 'AbortError' || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'UND_ERR_ABORTED';
}
