// The surface a client sees at one release, keyed for comparison: every endpoint, websocket-API
// method and stream served there, each with its status, security and parameters. Built from the
// ReleaseView (resolve.ts) and lifecycle.ts only: alive/deprecated is never decided here.
import { aliveAt, currentAt, type Status } from '../catalogue/lifecycle.js';
import type { EnumValue, Lifecycle, Parameter, SecurityScheme, Weight } from '../catalogue/model.js';
import { operationKeyOf } from '../catalogue/operation-key.js';
import { weightAt } from '../catalogue/weight-at.js';
import type { ReleaseView } from '../catalogue/resolve.js';
import type { Subject } from './types.js';

/** One served item: an endpoint, a websocket method or a stream. */
export interface SurfaceItem {
  subject: Subject;
  item: Lifecycle;
  deprecated: boolean;
  /** Absent for streams (no security requirement, no parameters). */
  security?: SecurityScheme;
  /** Keyed by parameterKey: path parameters by position, body fields apart from the query string's. */
  parameters?: Map<string, Parameter>;
  /** Parameters that come with the security scheme (service-wide signed parameters). */
  signed?: ReadonlySet<Parameter>;
  /** The request weight in force at the release (endpoints and websocket methods). */
  weight?: Weight;
}

/** One value of a named enum at a release. */
export interface ValueAt {
  deprecated: boolean;
  item: EnumValue;
}

export class Surface {
  private itemsByKey?: Map<string, SurfaceItem>;
  private enumCache = new Map<string, Map<string, ValueAt>>();

  constructor(readonly view: ReleaseView) {}

  /** Served items keyed by subjectKey(). */
  get items(): Map<string, SurfaceItem> {
    return (this.itemsByKey ??= this.build());
  }

  status(item: Lifecycle): Status {
    return this.view.status(item);
  }

  /** Values of a named enum alive at this release. */
  enumValues(name: string): Map<string, ValueAt> {
    let out = this.enumCache.get(name);
    if (!out) {
      out = new Map(this.view.enumValues(name).map((v) => [v.value, { deprecated: this.status(v) === 'deprecated', item: v }]));
      this.enumCache.set(name, out);
    }
    return out;
  }

  private build(): Map<string, SurfaceItem> {
    const { service } = this.view;
    const out = new Map<string, SurfaceItem>();
    const signedSet = new Set(service.signedParameters);
    // Indexed loops: built hundreds of times by a cold diff, where a for-of allocates per step.
    const { served, wsMethods, streams } = this.view;
    for (let i = 0; i < served.length; i++) {
      const e = served[i];
      const subject: Subject = { type: 'endpoint', id: e.endpoint.key };
      out.set(subjectKey(subject), new WithParameters(subject, e.endpoint, e.status === 'deprecated', e.security, e.parameters, weightAt(e.endpoint, this.view.at), signedSet));
    }
    for (let i = 0; i < wsMethods.length; i++) {
      const m = wsMethods[i];
      const subject: Subject = { type: 'ws-method', id: m.name };
      const security = currentAt(m.security, this.view.at)?.scheme ?? 'NONE';
      out.set(subjectKey(subject), new WithParameters(subject, m, this.status(m) === 'deprecated', security, aliveAt(m.parameters, this.view.at), weightAt(m, this.view.at)));
    }
    for (let i = 0; i < streams.length; i++) {
      const s = streams[i];
      const subject: Subject = { type: 'stream', id: s.name };
      out.set(subjectKey(subject), { subject, item: s, deprecated: this.status(s) === 'deprecated' });
    }
    return out;
  }
}

/**
 * An endpoint or websocket method. Its parameters are mapped by name on first use: only the items
 * served at both ends have their parameters compared, and most of a long range's items are not.
 */
class WithParameters implements SurfaceItem {
  private byName?: Map<string, Parameter>;

  constructor(
    readonly subject: Subject,
    readonly item: Lifecycle,
    readonly deprecated: boolean,
    readonly security: SecurityScheme,
    private readonly list: readonly Parameter[],
    readonly weight: Weight | undefined,
    readonly signed?: ReadonlySet<Parameter>,
  ) {}

  get parameters(): Map<string, Parameter> {
    return (this.byName ??= byName(this.list));
  }
}

/** An endpoint is keyed by its operation (METHOD and path shape): renaming `{id}` keeps the subject. */
export function subjectKey(s: Subject): string {
  return `${s.type}\0${s.type === 'endpoint' ? operationKeyOf(s.id) : s.id}`;
}

/**
 * Query and header parameters by name; path parameters by position (`{0}`, renaming one is not a
 * removal); body fields apart from the query string's (`body <name>`).
 */
function byName(params: readonly Parameter[]): Map<string, Parameter> {
  const out = new Map<string, Parameter>();
  let position = 0;
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    out.set(p.in === 'path' ? `{${position++}}` : p.in === 'body' ? `body ${p.name}` : p.name, p);
  }
  return out;
}

/** Values listed in a parameter's own schema (enum, or items.enum for arrays). */
export function inlineEnum(schema: Record<string, unknown> | undefined): string[] | null {
  if (!schema) return null;
  const list = Array.isArray(schema.enum) ? schema.enum : inlineEnum(schema.items as Record<string, unknown> | undefined);
  return list ? list.map(String) : null;
}

/**
 * The two surfaces a diff compares and how it dates a difference. A release diff (Walk) compares
 * two releases of one catalogue and names the release where each change happened; a base diff
 * (Pinned) compares one release of two catalogues, so every change is dated by that release.
 */
export interface Sides {
  readonly from: Surface;
  readonly to: Surface;
  /** The release where `state` of `subject` changed between the two sides; states are primitives. */
  when(subject: Subject, state: (s: Surface) => unknown): string;
  /** when() of whether the subject is served at all (present in `items`). */
  whenServed(subject: Subject): string;
}
