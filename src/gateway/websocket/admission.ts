// Whether the catalogue admits an upgrade: every stream name of a streams route matched by a
// template alive at the release, or a websocket API served there; and the frame check each
// admitted connection relays through (stream SUBSCRIBEs, websocket-API requests and their charge).
import { lifecycleFacts } from '../../catalogue/lifecycle.js';
import type { AwaitingInspect, Inspect } from '../../upstream/ws-relay.js';
import { userDataOperations } from '../../catalogue/user-data-streams.js';
import { allowsUserData } from '../client-auth/tokens.js';
import { GatewayError } from '../errors.js';
import type { OpenSubject } from './after-reload.js';
import type { ServiceWs, WsContext } from './context.js';
import { checkStreamFrame, type ApiRequestFacts, type FrameCharge } from './frames.js';
import type { DownInspect } from './migrate-frames.js';
import type { WsRoute } from './routes.js';
import type { WsGuard } from './security.js';
import type { Attempt } from './upgrade-record.js';

/** An upgrade the catalogue admits: its service, upstream base and frame check. */
export interface Admitted {
  svc: ServiceWs;
  base: string;
  /** The catalogue's check of a client frame. */
  check: Inspect;
  /** What the relay runs on each client frame: the check, wrapped by signing mode and tokens ([wssign]). */
  inspect: AwaitingInspect;
  /** [version changes] Answers migrated down, on a websocket-API connection at an older release. */
  inspectDown?: DownInspect;
  /** What the connection relays, kept up to date by its SUBSCRIBE / UNSUBSCRIBE frames. */
  subject: OpenSubject;
  /** [wssign] Called once the connection is open; returns what to call when it ends. */
  opened?: () => () => void;
}

/**
 * Stream names remembered per connection for the check after a reload: a bound on memory (a client
 * may subscribe without end), not the upstream's own limit. Names past it are not checked.
 */
const MAX_TRACKED_NAMES = 1024;

/** The service and checks of a route, or the GatewayError refusing it. */
export function admit(ctx: WsContext, route: WsRoute, at: Attempt): Admitted {
  return route.kind === 'streams' ? admitStreams(ctx, route.names, at) : admitWsApi(ctx, route.path, at);
}

function admitStreams(ctx: WsContext, routeNames: string[], at: Attempt): Admitted {
  const svc = ctx.streamsService;
  if (!svc?.streams) throw new GatewayError('notFound', `No websocket streams${svc ? ' upstream' : ''} in this gateway's catalogue.`);
  const { matcher } = svc.streams;
  const templates: string[] = [];
  for (const name of routeNames) {
    const c = matcher.check(name);
    if (!c.ok) throw new GatewayError(c.gone ? 'gone' : 'invalid', c.reason);
    templates.push(c.stream.name);
    if (svc.view.status(c.stream) === 'deprecated') {
      ctx.opts.logger.info(`ws stream ${c.stream.name}${svc.release ? ` at ${svc.release}` : ''}: ${lifecycleFacts(c.stream, svc.view.service.releases, svc.view.at)} (served)`);
    }
  }
  at.templates = templates;
  const names = new Set(routeNames.slice(0, MAX_TRACKED_NAMES));
  const subject: OpenSubject = { kind: 'streams', service: svc.view.service.id, release: svc.release, names };
  const track = (method: 'SUBSCRIBE' | 'UNSUBSCRIBE', list: string[]) => {
    for (const n of list) {
      if (method === 'UNSUBSCRIBE') names.delete(n);
      else if (names.size < MAX_TRACKED_NAMES) names.add(n);
    }
  };
  const check: Inspect = (data) => checkStreamFrame(matcher, data, track);
  return { svc, base: svc.streams.base, check, inspect: check, subject };
}

function admitWsApi(ctx: WsContext, path: string, at: Attempt): Admitted {
  const svc = ctx.wsApiService;
  if (!svc?.wsApi) throw new GatewayError('notFound', 'No websocket API upstream in this gateway\'s catalogue.');
  const { view } = svc;
  if (!view.wsMethods.length) {
    const first = [...view.service.wsMethods].sort((a, b) => a.span.added - b.span.added)[0];
    throw new GatewayError('notFound', `The websocket API ${path} was ${lifecycleFacts(first, view.service.releases, view.at)}.`);
  }
  const { checker } = svc.wsApi;
  const warned = new Set<string>();
  const served = ({ method, deprecated }: ApiRequestFacts) => {
    if (deprecated && !warned.has(method.name)) {
      warned.add(method.name); // once per connection
      ctx.opts.logger.info(`ws-api ${checker.facts(method)} (served)`);
    }
  };
  const limits = ctx.opts.frameLimits;
  const authorization = typeof at.req.headers.authorization === 'string' ? at.req.headers.authorization : undefined;
  const charge: FrameCharge | undefined = limits && ((method, params) => limits.chargeFrame(view.service.id, method, params, authorization));
  const migrated = svc.migrations?.wsApi(checker, served, charge); // [version changes]
  const inspect: Inspect = migrated?.up ?? ((data) => checker.check(data, served, charge));
  return { svc, base: svc.wsApi.base, check: inspect, inspect, inspectDown: migrated?.down, subject: { kind: 'wsApi', service: view.service.id, release: svc.release, names: new Set() } };
}

/** [wssign] Signing mode / tokens on an admitted connection: per-frame token check and signing, user-data keep-alive. */
export function secure(guard: WsGuard, admitted: Admitted, at: Attempt, token: ReturnType<WsGuard['admitUpgrade']>): void {
  const { route } = at;
  admitted.subject.token = token?.name;
  if (route?.kind === 'wsApi') {
    const hooks = guard.wsApiHooks(admitted.svc.wsApi!.checker, admitted.check, token, admitted.svc.migrations?.bridged.methods);
    admitted.inspect = hooks.inspect;
    const { observeDown } = hooks, down = admitted.inspectDown;
    // The upstream's frame as it came, before any version change carries it down.
    if (observeDown) admitted.inspectDown = (data, isBinary) => { observeDown(data); return down?.(data, isBinary); };
    admitted.opened = hooks.opened;
  } else if (route?.kind === 'streams') {
    // The account's user data is a right of its own: checked before anything is dialled or held.
    const userData = userDataOperations(admitted.svc.view.service);
    if (token && !allowsUserData(token) && (at.templates ?? []).some((t) => userData.has(`stream ${t}`))) {
      throw new GatewayError('forbidden', `Client token "${token.name}" may not open user-data streams: the token needs the user-data right in the tokens file.`);
    }
    admitted.opened = guard.streamsOpened(route.names, at.templates ?? []);
  }
}
