// Typed model of a loaded catalogue. The YAML files are the only source of these facts;
// the loader checks them and fills in the derived fields (release indexes, owning file and line).

import type { ChangeSet } from './changes/types.js';
import type { Credentials, ErrorConfig, VersionHeader } from './service-profile.js';

export type { Credentials, ErrorConfig, UpstreamAnswer, UpstreamUnknown, VersionHeader } from './service-profile.js';

export type SecurityScheme = 'NONE' | 'API_KEY' | 'SIGNED';

/** Lifecycle fields shared by every kind of item. Release ids refer to releases.yaml. */
export interface Lifecycle {
  added?: string;
  deprecated?: string;
  removed?: string;
  replacement?: string;
  note?: string;
  source?: string;
  /** Derived: positions in the release list (added defaults to 0, the first release). */
  span: Span;
  /** Derived: where the item is written, for messages. */
  at: Where;
}

export interface Span {
  added: number;
  deprecated: number | null;
  removed: number | null;
}

export interface Where {
  file: string;
  line: number;
}

export interface Release {
  id: string;
  date: string;
  /** The day the changes took effect at the upstream, where the source gives one (announced earlier). */
  effective?: string;
  notes?: string;
  source?: string;
  note?: string;
  index: number;
}

export interface Parameter extends Lifecycle {
  name: string;
  /** query: query string or form body; header; body: a top-level field of a JSON object body; path: a {name} segment of the path. */
  in: 'query' | 'header' | 'body' | 'path';
  /** Always true for path parameters. */
  required: boolean;
  description?: string;
  schema: Record<string, unknown>;
  /** Name of an enum in enums.yaml: values are checked with their own lifecycle. */
  enum?: string;
  pathPrefix?: string;
  /**
   * List-valued parameters (schema type: array): the forms the upstream reads. json = JSON array
   * text in one value; repeated = the key once per item. Set by the loader for every array (default json).
   */
  style?: ParameterStyle[];
  /** Path parameters only: the value may span several segments (hold `/`), GitHub's x-multi-segment. */
  multiSegment?: boolean;
}

export type ParameterStyle = 'json' | 'repeated';

export interface SecurityEntry extends Lifecycle {
  scheme: SecurityScheme;
}

export interface Constraint {
  exclusive: string[];
  /** One of the parameters must be sent. */
  oneRequired?: boolean;
  note?: string;
  source?: string;
}

export interface Endpoint extends Lifecycle, Partial<Record<'userData', true>> {
  service: string;
  module: string;
  method: string;
  /** Static segments and whole-segment `{name}` parameters (path-template.ts parses it). */
  path: string;
  /** "METHOD /path", the key used everywhere (route table, diff, messages). */
  key: string;
  summary?: string;
  tags?: string;
  security: SecurityEntry[];
  parameters: Parameter[];
  constraints: Constraint[];
  body?: Record<string, unknown>;
  builder?: string;
  /**
   * Request weight the upstream counts today, at the newest release (the YAML's plain number becomes
   * { value, per: 'IP' }): the gateway charges it whatever the client's pin, since version changes carry
   * every request up to the upstream's release.
   */
  weight?: Weight;
  /** Every weight with its lifecycle, when the YAML gives a list (the weight changed between releases). */
  weights?: WeightEntry[];
}

/**
 * How much one request counts against the upstream's rate limit: a fixed value, or the first rule
 * whose parameter was sent, else `otherwise`.
 */
export interface Weight {
  value?: number;
  rules?: WeightRule[];
  otherwise?: number;
  per: 'IP' | 'UID';
  source?: string;
  note?: string;
}

/** One weight of a list: in force from its added release until its removed one. */
export type WeightEntry = Weight & Lifecycle;

export interface WeightRule {
  parameter: string;
  /** present: sent at all; true: sent as true; value: its number picks a step; items: its list length picks a step. */
  measure: 'present' | 'true' | 'value' | 'items';
  weight?: number;
  /** Ascending; the first with upTo ≥ the measure applies (no upTo: everything above). */
  steps?: { upTo?: number; weight?: number; perItem?: number }[];
}

export interface EnumValue extends Lifecycle {
  value: string;
  description?: string;
}

export interface EnumDef {
  name: string;
  description?: string;
  source?: string;
  note?: string;
  values: EnumValue[];
}

export interface Placeholder {
  enum?: string;
  pattern?: string;
  description?: string;
  source?: string;
}

export interface Stream extends Lifecycle {
  name: string;
  description?: string;
  /** User-data streams (a template that is one placeholder, the listen key): how the gateway keeps a held key alive. */
  keepAlive?: KeepAlive;
}

/**
 * The upstream closes a user-data stream some time after its last keep-alive; the gateway sends the
 * keep-alive endpoint more often than that while a client holds the stream.
 */
export interface KeepAlive {
  /** As written (30m): how often the gateway sends the keep-alive. */
  interval: string;
  /** As written (60m): how long after the last keep-alive the upstream closes the stream. */
  expiresAfter: string;
  /** Derived: interval in milliseconds. */
  intervalMs: number;
  source?: string;
  note?: string;
}

export interface WsMethod extends Lifecycle, Partial<Record<'userData', true>> {
  name: string;
  summary?: string;
  security: SecurityEntry[];
  parameters: Parameter[];
  constraints: Constraint[];
  /** Weight of one request frame against the REQUEST_WEIGHT limits (shared with REST), at the newest release. */
  weight?: Weight;
  /** Every weight with its lifecycle, when the YAML gives a list. */
  weights?: WeightEntry[];
  /** It opens a user-data subscription (`field`: the answer's result field naming it) or ends one (`field`: the parameter naming it). */
  subscription?: UserDataSubscription;
}

export interface UserDataSubscription {
  role: 'opens' | 'ends';
  field: string;
}

/**
 * An endpoint a client calls that the gateway deliberately does not serve (not-served.yaml): at every
 * release a request to it is refused with its reason, never forwarded. Never also an endpoint.
 */
export interface NotServed {
  method: string;
  /** As written; a {name} segment matches any one segment. */
  path: string;
  /** "METHOD /path", as an endpoint's key. */
  key: string;
  /** The endpoint to call instead ("METHOD /path"), served at the newest release. */
  replacement?: string;
  reason: string;
  source: string;
  note?: string;
  at: Where;
}

export interface BuilderDef {
  name: string;
  kind?: 'synchronous' | 'asynchronous';
  summary?: string;
  note?: string;
  source?: string;
}

/**
 * A limit the upstream meters clients by (service.yaml rateLimits). The gateway enforces it before
 * forwarding: behind a gateway every client shares its egress IP, so one greedy client could get
 * everyone banned.
 */
export interface RateLimit extends Lifecycle {
  kind: 'REQUEST_WEIGHT' | 'ORDERS' | 'RAW_REQUESTS';
  /** As written (1m, 10s, 1d): the upstream names its counter headers after it. */
  interval: string;
  /** Derived: the window in seconds. */
  seconds: number;
  limit: number;
  /** ip: the gateway's egress IP (all clients together); apiKey: the account; token: the client token. */
  countedBy: 'ip' | 'apiKey' | 'token';
  /** ORDERS: keys ("METHOD /path") of the endpoints, and "ws-api <method>" of the websocket-API methods, that count 1 each. */
  counts?: string[];
  /** Only endpoints whose path starts with this count (the upstream meters path families apart). */
  pathPrefix?: string;
  /** The upstream's answer header carrying its own count of this limit (the gateway learns from it). */
  header?: string;
}

export interface Service {
  id: string;
  title: string;
  description?: string;
  source?: string;
  kind: 'proxy' | 'builder';
  /** True when releases.yaml exists: the gateway pins it and stamps X-Gateway-Release. */
  versioned: boolean;
  releases: Release[];
  upstreams: { rest?: string; streams?: string; wsApi?: string };
  errors: ErrorConfig;
  /** The upstream's rate limits, every release's (pick the ones alive at a release with aliveAt). */
  rateLimits: RateLimit[];
  apiKeyHeader?: string;
  signedParameters: Parameter[];
  commonParameters: Parameter[];
  schemas: Record<string, unknown>;
  builders: BuilderDef[];
  endpoints: Endpoint[];
  enums: Record<string, EnumDef>;
  placeholders: Record<string, Placeholder>;
  streams: Stream[];
  /** streams.yaml paths: the stream server's raw and combined connection paths (served as they are). */
  streamPaths?: { raw: string; combined: string };
  wsMethods: WsMethod[];
  /** ws-api.yaml path: the websocket API's connection path (served as it is). */
  wsApiPath?: string;
  /** service.yaml versionHeader: the upstream's own version header (absent: the gateway's release choice only). */
  versionHeader?: VersionHeader;
  /** service.yaml credentials: how a client's credential reaches the upstream. */
  credentials: Credentials;
  /** service.yaml links: rewrite the upstream's Link headers to point back at the gateway. */
  rewriteLinks: boolean;
  /** service.yaml upstreamRelease: the release the upstream implements (absent: the newest). */
  upstreamRelease?: string;
  /** changes.yaml: how a request at an older release reaches the upstream's, and its answer comes back. */
  changes: ChangeSet;
  /** not-served.yaml: endpoints clients call that no release serves, each refused with its reason. */
  notServed: NotServed[];
}

export interface Catalogue {
  /** Folder the catalogue was loaded from. */
  dir: string;
  services: Service[];
}
