// The vocabulary of version changes (catalogue/<service>/changes.yaml), as the loader builds it.
// A change is declared at the release where it happened, on the operation as it was just before;
// its request steps carry an older request up through that release, its answer steps carry the
// newer answer back down. Only data: what needs code names a transform (transforms.ts).

/** Where a step is written (the model's Where; not imported, so the model may import this file). */
interface Where {
  file: string;
  line: number;
}

export type RequestStep =
  | { kind: 'move'; to: string; at: Where }
  | { kind: 'rename'; names: Record<string, string>; at: Where }
  | { kind: 'set'; values: Record<string, string>; at: Where }
  | { kind: 'default'; values: Record<string, string>; at: Where }
  | { kind: 'map'; parameter: string; to: string; values: Record<string, string>; at: Where }
  | { kind: 'drop'; names: string[]; at: Where }
  | { kind: 'transform'; name: string; at: Where }
  | { kind: 'bridge'; name: string; action: string; via: string; at: Where };

export type AnswerStep =
  | { kind: 'rename'; names: Record<string, string>; at: Where }
  | { kind: 'restore'; values: Record<string, unknown>; at: Where }
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
