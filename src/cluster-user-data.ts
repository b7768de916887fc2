// Under --workers the listen-key bridge's store (gateway/user-data/store.ts) is one, in the primary:
// a listen key made through one worker is renewed, closed and streamed through any other, each
// token's stream bound counts every worker's streams, and the account has one upstream subscription
// whatever the worker count. Workers reach it over the cluster channel: their calls are answered by
// id; the primary sends each upstream event to the workers that hold the subscription and each key's
// end to every worker. A worker that exits gives back its streams and its hold.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from './log.js';
import { GatewayError } from './gateway/errors.js';
import { errorData, errorOf, LocalStore, type BridgeAnswer, type BridgeCall, type ErrorData, type KeyEnd, type StoreDefinition, type StoreListener, type StoreParts, type UserDataStore } from './gateway/user-data/store.js';

const P = 'gateway:user-data:';
type Up =
  | { type: `${typeof P}define`; def: StoreDefinition }
  | { type: `${typeof P}act`; id: number; action: string; owner: string; key: string; call?: BridgeCall }
  | { type: `${typeof P}open`; id: number; owner: string; keys: string[] }
  | { type: `${typeof P}shut`; owner: string }
  | { type: `${typeof P}hold`; account: string }
  | { type: `${typeof P}release`; account: string }
  | { type: `${typeof P}revoke`; owners: string[] };
type Down =
  | { type: `${typeof P}answer`; id: number; answer?: BridgeAnswer | string[]; error?: ErrorData }
  | { type: `${typeof P}event`; event: Record<string, unknown>; account: string }
  | { type: `${typeof P}ended`; key: string; how: KeyEnd };

/** How long a worker waits for the primary's answer (it answers from memory: only a stuck primary is slower). */
const ANSWER_WAIT_MS = 5000;

/** In the primary: keep the one store; `parts` are the primary's signing, its log and no rate limiter (limits are counted by workers). */
export function serveUserDataAcrossWorkers(parts: StoreParts | undefined): void {
  if (!parts) return; // no signing: no worker makes a bridge
  let store: LocalStore | undefined;
  const per = new Map<Worker, { detach: () => void; listener: StoreListener; streams: Map<string, number> }>();
  const send = (w: Worker, m: Down) => { if (w.isConnected()) w.send(m); };
  const of = (w: Worker) => {
    let p = per.get(w);
    if (!p) {
      const listener: StoreListener = { event: (event, account) => send(w, { type: `${P}event`, event, account }), ended: (key, how) => send(w, { type: `${P}ended`, key, how }) };
      p = { listener, streams: new Map(), detach: store!.listen(listener) };
      per.set(w, p);
    }
    return p;
  };
  cluster.on('message', (w: Worker, m: Up) => {
    if (typeof m?.type !== 'string' || !m.type.startsWith(P)) return;
    if (m.type === `${P}define`) {
      if (store) store.define(m.def);
      else store = new LocalStore(m.def, parts);
      of(w);
      return;
    }
    if (!store) return; // a worker defines before anything else
    const p = of(w);
    const answer = (id: number, run: () => BridgeAnswer | string[] | Promise<BridgeAnswer>) => {
      // A margin create awaits its account's token: every answer is a promise, errors included.
      void Promise.resolve().then(run).then((a) => send(w, { type: `${P}answer`, id, answer: a }), (e: unknown) => {
        send(w, { type: `${P}answer`, id, error: e instanceof GatewayError ? errorData(e) : { reason: 'unknown', message: 'internal gateway error' } });
        if (!(e instanceof GatewayError)) throw e;
      });
    };
    switch (m.type) {
      case `${P}act`: return answer(m.id, () => store!.act(m.action, m.owner, m.key, m.call));
      case `${P}open`: return answer(m.id, () => {
        const accounts = store!.open(m.owner, m.keys);
        p.streams.set(m.owner, (p.streams.get(m.owner) ?? 0) + 1);
        return accounts;
      });
      case `${P}shut`: {
        const n = p.streams.get(m.owner) ?? 0;
        if (n <= 0) return;
        if (n > 1) p.streams.set(m.owner, n - 1);
        else p.streams.delete(m.owner);
        return store.shut(m.owner);
      }
      case `${P}hold`: return store.hold(p.listener, m.account);
      case `${P}release`: return store.release(p.listener, m.account);
      case `${P}revoke`: return store.revoke(m.owners);
    }
  });
  cluster.on('exit', (w) => {
    const p = per.get(w);
    if (!p || !store) return;
    per.delete(w);
    p.detach(); // its hold too
    for (const [owner, n] of p.streams) for (let i = 0; i < n; i++) store.shut(owner);
  });
}

/** In a worker: the store in the primary, told to `listener`'s bridge. */
export function remoteStore(listener: StoreListener, logger?: Logger): UserDataStore {
  let next = 0;
  const waiting = new Map<number, { resolve(a: BridgeAnswer | string[] | undefined): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  const send = (m: Up) => { if (process.connected) process.send!(m); };
  const onMessage = (m: Down) => {
    if (typeof m?.type !== 'string' || !m.type.startsWith(P)) return;
    if (m.type === `${P}event`) return listener.event(m.event, m.account);
    if (m.type === `${P}ended`) return listener.ended(m.key, m.how);
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    clearTimeout(w.timer);
    if (m.error) w.reject(errorOf(m.error));
    else w.resolve(m.answer);
  };
  process.on('message', onMessage);
  const call = (m: Up & { id: number }) => new Promise<BridgeAnswer | string[] | undefined>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(m.id);
      logger?.warn(`user data: the primary did not answer within ${ANSWER_WAIT_MS} ms`);
      reject(new GatewayError('overloaded', `The gateway's listen-key store did not answer within ${ANSWER_WAIT_MS} ms; retry later.`, { 'retry-after': '5' }));
    }, ANSWER_WAIT_MS);
    waiting.set(m.id, { resolve, reject, timer });
    if (process.connected) process.send!(m);
    else clearTimeout(timer), waiting.delete(m.id), reject(new GatewayError('overloaded', 'This worker has lost its primary (the gateway is stopping); retry.', { 'retry-after': '1' }));
  });
  return {
    act: async (action, owner, key, bridgeCall) => (await call({ type: `${P}act`, id: next++, action, owner, key, call: bridgeCall })) as BridgeAnswer,
    open: async (owner, keys) => (await call({ type: `${P}open`, id: next++, owner, keys: [...keys] })) as string[],
    shut: (owner) => send({ type: `${P}shut`, owner }),
    hold: (account) => send({ type: `${P}hold`, account }),
    release: (account) => send({ type: `${P}release`, account }),
    revoke: (owners) => send({ type: `${P}revoke`, owners: [...owners] }),
    define: (def) => send({ type: `${P}define`, def }),
    close: () => {
      process.off('message', onMessage);
      for (const w of waiting.values()) clearTimeout(w.timer);
    },
  };
}
