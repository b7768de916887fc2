// Every refusal a build can end with, each with a stable `code` and the HTTP status it stands for.
// The builders layer never imports the gateway: the gateway reads `status` (and
// `retryAfterSeconds`) off these errors and renders them in the service's envelope.
// A build runs in a worker thread; an error crosses the thread boundary as plain data
// (`toWire`) and is rebuilt here with its class (`fromWire`), since structured cloning keeps an
// Error's message but drops its class and own fields.

export type BuilderErrorCode = 'input' | 'budget' | 'busy' | 'deadline';

export abstract class BuilderError extends Error {
  abstract readonly code: BuilderErrorCode;
  abstract readonly status: number;
  /** Seconds a client should wait before retrying (sent as Retry-After), when retrying can help. */
  readonly retryAfterSeconds?: number;
}

/** Bad input: the request can never be built as it is. → 400 */
export class BuilderInputError extends BuilderError {
  readonly code: BuilderErrorCode = 'input';
  readonly status: number = 400;
  constructor(message: string) {
    super(message);
    this.name = 'BuilderInputError';
  }
}

/**
 * A Plutus script ran past the execution budget (the protocol's per-transaction max ex-units).
 * Still the request's fault, so it is a BuilderInputError (→ 400) to callers that only know that.
 */
export class BudgetExceededError extends BuilderInputError {
  override readonly code: BuilderErrorCode = 'budget';
  constructor(message: string) {
    super(message);
    this.name = 'BudgetExceededError';
  }
}

/** Every builder thread is busy and the queue is full. → 503 with Retry-After */
export class BuilderBusyError extends BuilderError {
  readonly code: BuilderErrorCode = 'busy';
  readonly status: number = 503;
  override readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.name = 'BuilderBusyError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * No answer within the build's wall-clock deadline; the worker was terminated and replaced.
 * → 503, not 504: no upstream timed out — the gateway's own builder gave up, which is the
 * service being (for now) unable to answer; and not 400, since under load a request that
 * normally builds in milliseconds can wait past the deadline in the queue.
 */
export class BuilderDeadlineError extends BuilderError {
  readonly code: BuilderErrorCode = 'deadline';
  readonly status: number = 503;
  constructor(message: string) {
    super(message);
    this.name = 'BuilderDeadlineError';
  }
}

/** A BuilderError as structured-clone-safe data. */
export interface WireError {
  code: BuilderErrorCode;
  message: string;
  retryAfterSeconds?: number;
}

export function toWire(e: BuilderError): WireError {
  return { code: e.code, message: e.message, ...(e.retryAfterSeconds !== undefined && { retryAfterSeconds: e.retryAfterSeconds }) };
}

export function fromWire(w: WireError): BuilderError {
  switch (w.code) {
    case 'input':
      return new BuilderInputError(w.message);
    case 'budget':
      return new BudgetExceededError(w.message);
    case 'busy':
      return new BuilderBusyError(w.message, w.retryAfterSeconds ?? 1);
    case 'deadline':
      return new BuilderDeadlineError(w.message);
  }
}
