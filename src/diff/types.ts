// Shapes of the release diff, stage by stage (oasdiff's split):
//   diff (neutral Delta: what changed, where, in which release)
//   → rules (Change: stable rule id, severity, message)
//   → formatters (text | markdown | json).
import type { Lifecycle, Parameter, SecurityScheme } from '../catalogue/model.js';

export type Kind = 'endpoint' | 'parameter' | 'enum-value' | 'stream' | 'ws-method' | 'security';

/** Kinds in the order every output lists them. */
export const KINDS: readonly Kind[] = ['endpoint', 'security', 'parameter', 'enum-value', 'ws-method', 'stream'];

export type Severity = 'breaking' | 'warning' | 'info';

/** Most severe first. */
export const SEVERITIES: readonly Severity[] = ['breaking', 'warning', 'info'];

/**
 * What happened to an item between the two releases, read in the direction of the diff
 * (in a downgrade, an item added after <to> is "removed").
 */
export type DeltaType =
  | 'added'
  | 'removed'
  | 'deprecated'
  | 'undeprecated'
  | 'became-required'
  | 'became-optional'
  | 'security-changed';

/**
 * Where a change sits: a REST endpoint, a websocket-API method, a websocket stream, or a named enum
 * (its value changes are reported once, naming the parameters that use it).
 */
export interface Subject {
  type: 'endpoint' | 'enum' | 'ws-method' | 'stream';
  /** "METHOD /path" for endpoints, the name otherwise. */
  id: string;
}

/** A user of a named enum: a parameter of an endpoint or websocket method, or a stream's placeholder. */
export interface EnumUser {
  endpoint?: string;
  wsMethod?: string;
  stream?: string;
  /** Parameter or placeholder name. */
  name: string;
}

/** One neutral difference: no policy (severity, wording) yet. */
export interface Delta {
  kind: Kind;
  type: DeltaType;
  subject: Subject;
  /** Parameter name (parameter kind, and enum values listed inline in a parameter's schema). */
  parameter?: string;
  /** Enum value (enum-value kind). */
  value?: string;
  /** Users of a named enum that exist at both releases (enum subjects). */
  usedBy?: EnumUser[];
  /** Release where the change happened, chronologically (for a downgrade: where the item was added). */
  release: string;
  /** The catalogue item concerned, as it stands on the side where it exists (for replacement and notes). */
  item?: Lifecycle;
  /** The parameter concerned (parameter kind, inline enum values), on the side where it exists. */
  param?: Parameter;
  /** Security schemes at <from> and <to> (security-changed). */
  before?: SecurityScheme;
  after?: SecurityScheme;
}

/** A classified change: what the JSON output lists, field for field. */
export interface Change {
  id: string;
  severity: Severity;
  kind: Kind;
  endpoint?: string;
  wsMethod?: string;
  /** Parameter name (parameter kind, inline enum values); the stream or websocket method's name for those kinds. */
  name?: string;
  /** Named enum whose value changed; reported once, with the parameters using it in usedBy. */
  enum?: string;
  value?: string;
  usedBy?: EnumUser[];
  /** Attribute values at <from> and <to> for security and required-flag changes. */
  before?: string;
  after?: string;
  release: string;
  message: string;
}

export interface DiffResult {
  service: string;
  from: string;
  to: string;
  changes: Change[];
}
