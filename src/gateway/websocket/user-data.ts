// User-data streams in signing mode: the client obtains a listen key through the gateway (REST
// POST of the listen-key endpoint, or userDataStream.start over the websocket API: the gateway adds
// the API key to both), then opens its stream through the gateway. For as long as a stream
// connection carrying that listen key is open, the gateway keeps the key alive with the catalogue's
// keep-alive endpoint (PUT, the API key in its header), and closes it (DELETE) when the last such
// connection ends, so the client never needs the key.
//
// Which endpoints: the stream template that is a single placeholder (`<listenKey>`) names the
// parameter; the served API_KEY endpoints requiring that parameter are the keep-alive (PUT) and the
// close (DELETE). How often: the stream's keepAlive.interval in the catalogue (the loader requires
// it wherever such a PUT exists). The listen key is a credential of its own: it is never logged.
import type { ReleaseView } from '../../catalogue/resolve.js';
import { listenKeyOf, takesListenKey } from '../../catalogue/user-data-streams.js';
import type { Logger } from '../../log.js';
import type { Secret } from '../../upstream/signing/secret.js';
import { upstreamBase } from '../../upstream/upstream-base.js';

export interface UserDataOptions {
  view: ReleaseView;
  /** Upstream overrides ("<service>" → the REST base URL). */
  upstreams: Record<string, string>;
  apiKey: Secret;
  /** Tests only: a shorter keep-alive interval than the catalogue's, to see keep-alives happen. */
  intervalMs?: number;
  timeoutMs: number;
  logger: Logger;
}

export interface UserDataKeeper {
  /** The stream template of user-data streams (e.g. "<listenKey>"). */
  template: string;
  /** Keep these listen keys alive until the returned function is called (the connection ended). */
  hold(listenKeys: readonly string[]): () => void;
}

/** The keeper of a view's user-data streams, or undefined when its catalogue has none (or no keep-alive endpoint). */
export function userDataKeeper(opts: UserDataOptions): UserDataKeeper | undefined {
  const { view, logger } = opts;
  const stream = view.streams.find((s) => listenKeyOf(s.name));
  const base = upstreamBase(view.service, 'rest', opts.upstreams);
  const header = view.service.apiKeyHeader;
  if (!stream || !base || !header) return undefined;
  const template = stream.name;
  const param = listenKeyOf(template)!;
  const takes = (method: string) => view.served.find((e) => e.endpoint.method === method && takesListenKey(e.security, e.parameters, param));
  const keepAlive = takes('PUT');
  const closer = takes('DELETE');
  const intervalMs = opts.intervalMs ?? stream.keepAlive?.intervalMs;
  if (!keepAlive || !closer || !intervalMs) return undefined;
  const held = new Map<string, { count: number; timer: NodeJS.Timeout }>();

  /** One request to the upstream; failures are logged (without the key) and do not throw. */
  const call = (method: string, path: string, key: string): void => {
    const url = `${base.replace(/\/+$/, '')}${path}?${param}=${encodeURIComponent(key)}`;
    void fetch(url, { method, headers: { [header]: opts.apiKey.reveal() }, signal: AbortSignal.timeout(opts.timeoutMs) })
      .then(async (res) => {
        await res.arrayBuffer();
        if (res.ok) logger.debug(`user-data stream: ${method} ${path} → ${res.status}`);
        else logger.warn(`user-data stream: ${method} ${path} → ${res.status}`);
      })
      .catch((e: unknown) => logger.warn(`user-data stream: ${method} ${path} failed: ${(e as Error)?.name ?? 'error'}`));
  };

  const release = (key: string) => {
    const h = held.get(key);
    if (!h || --h.count > 0) return;
    clearInterval(h.timer);
    held.delete(key);
    call(closer.endpoint.method, closer.endpoint.path, key);
  };

  return {
    template,
    hold(keys) {
      const mine = [...new Set(keys)];
      for (const key of mine) {
        const h = held.get(key);
        if (h) h.count++;
        else {
          const timer = setInterval(() => call(keepAlive.endpoint.method, keepAlive.endpoint.path, key), intervalMs);
          timer.unref();
          held.set(key, { count: 1, timer });
        }
      }
      let done = false;
      return () => {
        if (done) return;
        done = true;
        for (const key of mine) release(key);
      };
    },
  };
}
