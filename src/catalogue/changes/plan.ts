// What a plan is: per (served release, operation), how the request goes up to the upstream's release
// and how its answer comes down, and what refuses it on the way. compose.ts builds one.
import type { SecurityScheme } from '../model.js';
import type { Segment } from './segment.js';
import type { AnswerStep, EventShapes, JsonRequestStep, Scalar, TokenSource } from './types.js';

/**
 * A step on a JSON object as a plan runs it, with the release it carries the request through: the
 * vocabulary's steps, and the guard an unbridgeable value of a body field becomes (410, never sent).
 */
export type JsonStep =
  | (JsonRequestStep & { release: string })
  | { kind: 'guard'; field: string; values: string[] | null; release: string; message: string };

/** Query and form parameters (segment, transform) and JSON fields (json: REST body, websocket params) go up by their own parts. */
export type RequestPart = { kind: 'segment'; segment: Segment } | { kind: 'transform'; name: string } | { kind: 'json'; steps: JsonStep[] };

export interface Refusal {
  release: string;
  replacement?: string;
  reason: string;
}

/** A bridge the plan ends in: the gateway answers the operation itself and holds `via` upstream (bridges.ts). */
export interface PlanBridge {
  release: string;
  /** The change declaring it. */
  change: string;
  name: string;
  action: string;
  via: string;
  /** What a client without the gateway's key is told to use instead (the operation's replacement, else via). */
  replacement: string;
  events?: EventShapes;
  /** The subscription `via` makes is authorised by a token the gateway obtains (the bridge step's `token`). */
  token?: TokenSource;
  /** The account the operation addresses (the bridge step's `scope`: "<name>" filled from the request's parameters). */
  scope?: Record<string, Scalar>;
}

export interface Plan {
  service: string;
  release: string;
  upstreamRelease: string;
  operation: string;
  /** The operation the upstream is sent, and its method and path. */
  target: string;
  method: string;
  path: string;
  /** The changes applied, oldest first. */
  applied: { release: string; id: string }[];
  /** How the request goes up (empty: its parameters stay as sent). */
  request: RequestPart[];
  /** How the answer comes down, in the order to apply (the newest change's steps first). */
  answer: AnswerStep[];
  /** Every request of the operation is refused (410) at this release. */
  refuse?: Refusal;
  /** The gateway answers the operation itself through a bridge (signing mode; else 410 naming the replacement). */
  bridge?: PlanBridge;
  /** Requests sending one of these values (client names and values) are refused (410). */
  /** values null: the parameter is refused whatever its value (an unbridgeable entry naming no values). */
  guards: (Refusal & { parameter: string; values: string[] | null })[];
  security: { from: SecurityScheme; to: SecurityScheme };
  /** The migration changes bytes a signature covers (query and body); a move of the path does not. */
  changesSignedBytes: boolean;
  /** Only a gateway holding the key can carry it: a client's signature cannot survive the migration. */
  needsKey: boolean;
  /** Events on the way that nothing bridges (lint reports them per operation). */
  uncovered: string[];
  /** Why the composed request could be invalid at the upstream's release. */
  problems: string[];
}
