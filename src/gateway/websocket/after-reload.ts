// After a reload: which open websocket connections relay something the new program no longer
// serves — a stream name no template alive at their release matches any more, the websocket API,
// or their release itself. Open connections keep running on the program they started on; this only
// names the ones whose subject is gone, and the operator decides whether they are closed
// (--reload-closes-websockets).
import type { ReleaseView } from '../../catalogue/resolve.js';
import type { Relay } from '../../upstream/ws-relay.js';
import type { AfterReload } from './contract.js';
import { StreamMatcher } from './stream-names.js';

/** What an open connection relays, as the gateway let it through. */
export interface OpenSubject {
  kind: 'streams' | 'wsApi';
  service: string;
  release: string | undefined;
  /** Stream names of the URL and of the SUBSCRIBEs forwarded since (streams only). */
  names: ReadonlySet<string>;
  /** The client token's name, when tokens are configured (a reload that revokes it closes the connection). */
  token?: string;
}

/** Close (1008) the open `relays` of these client tokens: a reload removed them or took rights away. */
export function closeRevoked(relays: ReadonlyMap<Relay, OpenSubject>, tokens: ReadonlySet<string>): number {
  let closed = 0;
  for (const [relay, subject] of relays) {
    if (subject.token !== undefined && tokens.has(subject.token) && relay.closeGone('client token revoked', 1008)) closed++;
  }
  return closed;
}

/**
 * A check of open connections against the views of the new program serving their release
 * (undefined: the release is no longer served). Returns the close reason of a connection whose
 * subject is gone (it names the stream and the release; at most 123 bytes), else undefined.
 */
export function goneChecker(next: ReleaseView[] | undefined): (subject: OpenSubject) => string | undefined {
  const matchers = new Map<string, StreamMatcher | null>();
  return (o) => {
    const at = o.release ? ` at ${o.release}` : '';
    const view = next?.find((v) => v.service.id === o.service);
    if (!view || (view.release?.id !== o.release)) return `gateway reloaded: release ${o.release ?? '(none)'} of ${o.service} is no longer served`;
    if (o.kind === 'wsApi') return view.wsMethods.length ? undefined : `gateway reloaded: the websocket API is no longer served${at}`;
    let matcher = matchers.get(o.service);
    if (matcher === undefined) matchers.set(o.service, (matcher = view.streams.length ? new StreamMatcher(view) : null));
    for (const name of o.names) {
      if (!matcher?.matching(name).length) return `gateway reloaded: stream ${clip(name)} is no longer served${at}`;
    }
    return undefined;
  };
}

/** Count the open `relays` whose subject `next` no longer serves, and close them (1001) when `close` is set. */
export function closeGone(relays: ReadonlyMap<Relay, OpenSubject>, next: ReleaseView[] | undefined, close: boolean): AfterReload {
  const out = { gone: 0, closed: 0 };
  if (!relays.size) return out;
  const gone = goneChecker(next);
  for (const [relay, subject] of relays) {
    const reason = gone(subject);
    if (reason === undefined) continue;
    out.gone++;
    if (close && relay.closeGone(reason)) out.closed++;
  }
  return out;
}

/** 60 characters keep an ASCII reason within a close frame's 123 bytes (the relay cuts any longer). */
const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}...` : s);
