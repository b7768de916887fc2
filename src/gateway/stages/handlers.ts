// The two handlers at the end of the pipeline: a builder plugin (local, on the builder pool) or the
// upstream proxy (behind the route's admission gate, with the forwarding headers and, for a migrated
// request, its answer carried back down the plan).
import type { IncomingMessage } from 'node:http';
import { BuilderError } from '../../builders/errors.js';
import { UpstreamError, type UpstreamTarget } from '../../upstream/proxy.js';
import { GatewayError } from '../errors.js';
import type { Exchange, Program } from '../stage-types.js';
import type { RequestState } from '../request-state.js';
import { identityOf } from '../observe/request-id.js';
import type { Route } from '../routes/route-table.js';
import { linkRewriter, upstreamVersion } from './upstream-headers.js';

export async function build(p: Program, ex: Exchange, name: string, body: unknown): Promise<void> {
  const plugin = p.plugins.get(name)!; // the program checked every builder exists
  let result: unknown;
  try {
    result = await plugin(body);
  } catch (e) {
    if (!(e instanceof BuilderError)) throw e;
    // Refused input (and an exhausted Plutus budget) is the client's: 400. A full queue or a build
    // past its deadline is the gateway's capacity: 503, with Retry-After when the pool knows one.
    if (e.status < 500) throw new GatewayError('builder', e.message);
    throw new GatewayError('overloaded', e.message, { 'retry-after': String(e.retryAfterSeconds ?? 1) });
  }
  if (ex.cancellation.gone || ex.res.headersSent) return;
  const text = JSON.stringify(result);
  ex.res.writeHead(200, { ...ex.own, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  ex.res.end(text);
}

/** A request a bridge answers (version changes): the gateway's own answer, nothing forwarded. */
export async function answerBridged(p: Program, ex: Exchange, state: RequestState): Promise<void> {
  const b = state.bridged!;
  if (!p.userData) throw new GatewayError('gone', `${state.route.endpoint.endpoint.key} was removed in ${b.release}; the gateway holds no key to bridge it, so nothing is forwarded; use ${b.replacement}`);
  const out = await p.userData.act(b.action, state.token?.name ?? '', state.params.listenKey, { bridge: b.name, scope: b.scope, params: state.params });
  if (ex.cancellation.gone || ex.res.headersSent) return;
  const text = JSON.stringify(out.body);
  ex.res.writeHead(out.status, { ...ex.own, 'content-type': 'application/json;charset=UTF-8', 'content-length': Buffer.byteLength(text) });
  ex.res.end(text);
}

export async function forward(p: Program, ex: Exchange, state: RequestState): Promise<void> {
  const { route } = state;
  const base = p.upstreams.get(route.view.service.id);
  if (!base) throw new GatewayError('upstream', `no upstream configured for service ${route.view.service.id}`);
  const gate = route.gate ?? p.admission.gateOf(route);
  if (gate.inflight < gate.limit.limit) gate.inflight++; // under the limit: no await, no allocation
  else await gate.wait(ex.cancellation); // queued (bounded by count and time), or shed with 503
  const sent = performance.now();
  let failure: unknown = null;
  try {
    await p.proxy.forward(base, {
      method: state.method ?? ex.req.method!, url: state.url, headers: state.headers, body: state.body, drop: state.drop, add: forwardedHeaders(ex.req, route, p.upstreamRelease, state.set),
      answerHeaders: route.profile.rewriteLinks ? linkRewriter(ex.req, linkOrigins(route, base), ex.releasePrefix ?? '') : undefined,
      onAnswer: p.answered ? (status, headers) => { for (const h of p.answered!) h.answered!(state, status, headers); } : undefined,
      rewrite: state.answer, rewriteLimit: p.migratedAnswerLimit,
      watch: p.drift?.watchOf(route, p),
    }, ex.res, ex.own, ex.cancellation);
  } catch (e) {
    failure = e;
    throw e instanceof UpstreamError ? new GatewayError(e.code === 'UPSTREAM_TIMEOUT' ? 'timeout' : 'upstream', e.message) : e;
  } finally {
    gate.release(sent, failure, ex.cancellation);
  }
}

/**
 * X-Forwarded-For (appended) and Forwarded (RFC 7239, appended): who asked, for the upstream's logs
 * and limits; X-Request-Id and traceparent: which request this is (observe/request-id.ts). Called once per
 * dispatch, so it also marks when the upstream's part began (the access line's upstream time).
 */
function forwardedHeaders(req: IncomingMessage, route: Route, upstreamRelease: Readonly<Record<string, string>>, set: Record<string, string> | undefined): Record<string, string> {
  const peer = peerOf(req.socket as PeerSocket);
  const xff = req.headers['x-forwarded-for'];
  const fwd = req.headers.forwarded;
  const out: Record<string, string> = {
    'x-forwarded-for': xff ? `${xff}, ${peer.ip}` : peer.ip,
    forwarded: fwd ? `${fwd}, ${peer.forwarded}` : peer.forwarded,
  };
  const version = route.profile.version === null ? undefined : upstreamVersion(route, upstreamRelease);
  if (version) out[version[0]] = version[1];
  if (set) Object.assign(out, set);
  const who = identityOf(req);
  if (who) {
    who.upstreamAt = performance.now();
    out['x-request-id'] = who.id;
    out.traceparent = who.traceparent;
  }
  return out;
}

/** A connection's own forwarding values, worked out on its first request (keep-alive clients send many). */
const PEER = Symbol('gateway.peer');
type PeerSocket = IncomingMessage['socket'] & { [PEER]?: { ip: string; forwarded: string } };
function peerOf(socket: PeerSocket): { ip: string; forwarded: string } {
  let peer = socket[PEER];
  if (!peer) {
    const ip = socket.remoteAddress ?? 'unknown';
    socket[PEER] = peer = { ip, forwarded: `for=${ip.includes(':') ? `"[${ip}]"` : ip};proto=http` };
  }
  return peer;
}


/** The origins the upstream's Link URLs may name: the one it is reached at, and the one the catalogue gives it. */
function linkOrigins(route: Route, base: UpstreamTarget): readonly string[] {
  let origins = route.cache.get('linkOrigins') as string[] | undefined;
  if (!origins) {
    const declared = route.view.service.upstreams.rest;
    origins = [base.origin + base.prefix];
    if (declared) origins.push(new URL(declared).origin);
    route.cache.set('linkOrigins', origins);
  }
  return origins;
}
