// Every reason the gateway refuses or fails a request, defined once with its HTTP status and default
// message (in the style of fastify's lib/errors.js). A service's service.yaml maps reasons to its
// own error codes (errors.codes); the loader refuses a key that is not a reason here, so a typo
// can never fall back to the "unknown" code silently. The catalogue JSON Schema and the refusal table
// of docs/architecture.md are kept in step with this table by a test.
export interface ReasonDef {
  status: number;
  message: string;
}

export const REASONS = {
  notFound: { status: 404, message: 'no such endpoint at the served release' },
  gone: { status: 410, message: 'endpoint removed at or before the served release' },
  methodNotAllowed: { status: 405, message: 'method not allowed for this path at the served release' },
  // 404, not 501: the resource is absent here (not a method the server cannot handle), and a 5xx would
  // read as a gateway fault clients retry and alerts count.
  notServed: { status: 404, message: 'endpoint deliberately not served by this gateway' },
  malformed: { status: 400, message: 'malformed request (request target, headers or framing)' },
  duplicate: { status: 400, message: 'a parameter was sent more than once' },
  missing: { status: 400, message: 'mandatory parameter missing, empty or malformed' },
  notAllowed: { status: 400, message: 'parameter not part of this endpoint at the served release' },
  combination: { status: 400, message: 'parameters that cannot be sent together' },
  invalid: { status: 400, message: 'invalid parameter or body value' },
  builder: { status: 400, message: 'the builder refused the request' },
  streamInvalid: { status: 400, message: 'invalid websocket stream request' },
  unauthorized: { status: 401, message: 'credentials required' },
  badSignature: { status: 401, message: 'signature for this request is not valid' },
  forbidden: { status: 403, message: 'not allowed' },
  crossSite: { status: 403, message: 'cross-site request refused' },
  requestTimeout: { status: 408, message: 'the request was not received within the deadline' },
  tooLarge: { status: 413, message: 'request body larger than the limit' },
  unsupportedMedia: { status: 415, message: 'unsupported Content-Type' },
  tooManyRequests: { status: 429, message: "too many requests: the upstream's rate limit would be exceeded" },
  unknown: { status: 500, message: 'internal gateway error' },
  upstream: { status: 502, message: 'upstream unreachable or answered badly' },
  overloaded: { status: 503, message: 'gateway busy or shutting down; retry later' },
  timeout: { status: 504, message: 'no answer within the deadline' },
} as const satisfies Record<string, ReasonDef>;

export type Reason = keyof typeof REASONS;

export const REASON_NAMES = Object.keys(REASONS) as Reason[];

export function isReason(name: string): name is Reason {
  return Object.hasOwn(REASONS, name);
}
