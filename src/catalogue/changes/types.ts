// The vocabulary of version changes (catalogue/<service>/changes.yaml), as the loader builds it.
// A change is declared at the release where it happened, on the operation as it was just before;
// its request steps carry an older request up through that release, its answer steps carry the
// newer answer back down. Only data: what needs code names a transform (transforms.ts).

/** Where a step is written (the model's Where; not imported, so the model may import this file). */
interface Where {
  file: string;
  line: number;
}

/** A constant as YAML wrote it: a query parameter sends its text, a JSON body field keeps its type. */
export type Scalar = string | number | boolean | null;

/**
 * Names are parameters, or paths into a JSON body (`a.b`, `list[].x`, `list[]`) when their first
 * part is a body field of the operation (json-path.ts).
 */
export type RequestStep =
  | { kind: 'move'; to: string; at: Where }
  | { kind: 'rename'; names: Record<string, string>; at: Where }
  | { kind: 'set'; values: Record<string, Scalar>; at: Where }
  | { kind: 'default'; values: Record<string, Scalar>; at: Where }
  | { kind: 'map'; parameter: string; to: string; values: Record<string, Scalar>; at: Where }
  | { kind: 'drop'; names: string[]; at: Where }
  /** A scalar field becomes a list field: { assignee: assignees } sends assignee x as assignees [x] (joined to the list if sent too). */
  | { kind: 'list'; names: Record<string, string>; at: Where }
  /** Fields (or each item of a list, `ids[]`) that must be integers: a numeric string is sent as the integer, any other string is refused. */
  | { kind: 'integers'; names: string[]; at: Where }
  | { kind: 'transform'; name: string; at: Where }
  | { kind: 'bridge'; name: string; action: string; via: string; token?: TokenSource; scope?: Record<string, Scalar>; at: Where };

export type BridgeStep = Extract<RequestStep, { kind: 'bridge' }>;

/**
 * A bridge step's `token`: the subscription `via` makes is authorised by a token the gateway obtains
 * with its API key from the REST operation `from`. `answer` (a JSON template) shows where "<token>"
 * and its expiry "<expiresAt>" (epoch ms) sit in that answer, `params` the params of `via` carrying "<token>".
 */
export interface TokenSource {
  from: string;
  answer: unknown;
  params: Record<string, unknown>;
}

/** The steps that work on JSON: a REST body's fields (and a websocket-API frame's params). */
export type JsonRequestStep = Extract<RequestStep, { kind: 'rename' | 'set' | 'default' | 'map' | 'drop' | 'list' | 'integers' }>;

/**
 * The steps reaching into the answer take `in`, a path to the objects they work on (`items[]`,
 * `pull_request`, `[]`); without it, the answer object or each object of a list answer.
 */
export type AnswerStep =
  | { kind: 'rename'; names: Record<string, string>; in?: string; at: Where }
  | { kind: 'restore'; values: Record<string, unknown>; in?: string; at: Where }
  /** Fields the older answer had, copied (when absent) from another path of the same object: { rate: resources.core }. */
  | { kind: 'copy'; fields: Record<string, string>; in?: string; at: Where }
  /** Fields the older answer had that nothing can restore: declared (lint lists them), the answer passes without them. */
  | { kind: 'lost'; names: string[]; in?: string; at: Where }
  /** HTTP status codes: the newer release's → the older release's (to 204 or 304 the body is dropped). */
  | { kind: 'status'; codes: Record<string, number>; at: Where }
  | { kind: 'unwrap'; at: Where }
  | { kind: 'errors'; codes: Record<string, number>; at: Where }
  | { kind: 'transform'; name: string; at: Where };

export interface Change {
  id: string;
  /** Release id where the change happened, and its position in the release list. */
  release: string;
  index: number;
  /** "METHOD /path" of the operation just before the release. */
  operation: string;
  summary?: string;
  source: string;
  note?: string;
  request: RequestStep[];
  answer: AnswerStep[];
  /** With a bridge feeding a stream: the event shapes it maps, at the upstream's end and at the client's. */
  events?: EventShapes;
  at: Where;
}

/**
 * The shapes of the events a bridge carries (changes.yaml `events`): JSON templates whose string
 * values "<name>" are placeholders; "<event>" is the event itself, wrapped at the upstream's end and
 * bare (or otherwise wrapped) at the client's; "<subscriptionId>" at the upstream's end names the field
 * of the upstream subscription's id (in the subscribe answer, and the close call's parameter). `expired` is the event the client gets when its
 * subscription lapses (filled with <eventTime> and the bridge's own placeholders); `ended` the type
 * of an upstream event ending the subscription (not passed on).
 */
export interface EventShapes {
  upstream: unknown;
  client: unknown;
  expired?: unknown;
  ended?: string;
  at: Where;
}

/** A removal no change can carry across: the old call answers 410 naming the replacement. */
export interface Unbridgeable {
  release: string;
  index: number;
  operation: string;
  /** Only requests sending one of `values` in `parameter` (else every request of the operation). */
  parameter?: string;
  values?: string[];
  replacement?: string;
  reason: string;
  source: string;
  at: Where;
}

export interface ChangeSet {
  changes: Change[];
  unbridgeable: Unbridgeable[];
  /**
   * The upstream release the loader checked these changes against (the service's default) and found
   * sound: kept in the cached model, so a start-up with the default need not check them again.
   */
  checkedAgainst?: string;
}

export const NO_CHANGES: ChangeSet = { changes: [], unbridgeable: [] };
