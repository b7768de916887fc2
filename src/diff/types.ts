// Shapes of the release diff, stage by stage (oasdiff's split):
//   diff (neutral Delta: what changed, where, in which release)
//   → rules (Change: stable rule id, severity, message)
//   → formatters (text | markdown | json).
import type { Lifecycle, Parameter, Where } from '../catalogue/model.js';

export type Kind = 'endpoint' | 'parameter' | 'enum-value' | 'stream' | 'ws-method' | 'security' | 'schema' | 'body' | 'constraint' | 'weight' | 'answer';

/** Kinds in the order every output lists them. */
export const KINDS: readonly Kind[] = ['endpoint', 'security', 'parameter', 'schema', 'body', 'constraint', 'weight', 'answer', 'enum-value', 'ws-method', 'stream'];

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
  /** A path parameter whose segment is the same, under another name (`before` → `after`). */
  | 'renamed'
  | 'security-changed'
  /** A schema keyword of a parameter or body property changed; `attribute` names it. */
  | 'schema-changed'
  /** A request-body property (`parameter` holds its dotted path), or the body itself when `parameter` is absent. */
  | 'body-added'
  | 'body-removed'
  | 'body-became-required'
  | 'body-became-optional'
  | 'weight-changed'
  /** The answer, as changes.yaml declares it (the catalogue holds no answer schemas): its status, or a field (`parameter`) gone. */
  | 'status-changed'
  | 'answer-field-removed';

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
  /** Base diffs: every release whose pinned clients see this difference. */
  releases?: string[];
  /** The catalogue item concerned, as it stands on the side where it exists (for replacement and notes). */
  item?: Lifecycle;
  /** The parameter concerned (parameter kind, inline enum values), on the side where it exists. */
  param?: Parameter;
  /** Attribute values at <from> and <to> (security schemes, schema keywords and weights as JSON). */
  before?: string;
  after?: string;
  /** A schema change of a request-body property (`parameter` is its dotted path), not of a parameter. */
  inBody?: boolean;
  /** A body property or parameter added or removed: whether it is required. */
  required?: boolean;
  /** The schema keyword compared (schema-changed): type, minimum, maxLength, pattern, exclusive, … */
  attribute?: string;
  /**
   * An item's own removal (release diffs): how many releases it was deprecated before it went;
   * null when it never was.
   */
  deprecatedFor?: number | null;
  /** Where the YAML that caused the change is written (the <to> side when the item exists there). */
  at?: Where;
  /** The source the catalogue gives for the fact that changed, when it is not the item's or parameter's own. */
  source?: string;
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
  /** The schema keyword concerned (schema and constraint kinds). */
  attribute?: string;
  /** Attribute values at <from> and <to> for security, required-flag, schema and weight changes. */
  before?: string;
  after?: string;
  release: string;
  /** Base diffs (--base): every release whose pinned clients see the change, oldest first. */
  releases?: string[];
  message: string;
  /** The YAML item that caused the change: file relative to the catalogue folder, 1-based line. */
  at?: Where;
  /** The catalogue's source for the changed fact (its `source:` field): a document, CHANGELOG entry or client release. */
  source?: string;
  /**
   * Upgrade diffs, changes that break an old client (or deprecations a version change carries):
   * whether the gateway carries clients pinned before it across (its message says how).
   */
  bridged?: boolean;
}

export interface DiffResult {
  service: string;
  /** Release ids, or for a base diff the base's label (folder or git revision) and "working catalogue". */
  from: string;
  to: string;
  /** Base diffs: the releases compared, oldest first (the releases of the working catalogue). */
  releases?: string[];
  /** Base diffs: releases of the base that the working catalogue deleted. */
  droppedReleases?: string[];
  changes: Change[];
}
