// [user data] The user-data subscriptions client tokens hold with the gateway's key (signing mode):
// each opens a subscription upstream for the gateway's account, so one token holds at most
// --user-data-subscriptions-per-token, over all its websocket-API connections. A place is taken when
// a subscribe frame goes up (frames sent at once cannot pass the bound together), kept when the
// upstream answers with a subscription, given back on any other answer, by an unsubscribe the
// upstream accepts, and when the connection ends. Which methods open or end one is the catalogue's
// `subscription:` marking; the frames' ids and the subscription ids are read exactly.
import type { UserDataSubscription } from '../../catalogue/model.js';
import { isJsonObject, readJson, scalarText, writeJson } from '../../upstream/exact-json.js';

/** The places of every token, for the life of the process (across reloads and released programs). */
export class UserDataSubscriptions {
  private readonly held = new Map<string, number>();

  constructor(readonly perToken: number) {}

  /** Subscriptions `token` holds or has asked for. */
  count(token: string): number {
    return this.held.get(token) ?? 0;
  }

  /** A tracker for one websocket-API connection of `token`; `unsubscribe` names the methods that end one (for the refusal). */
  connection(token: string, unsubscribe: readonly string[]): ConnectionSubscriptions {
    return new ConnectionSubscriptions(this, token, unsubscribe);
  }

  /** @internal */
  take(token: string): void {
    this.held.set(token, this.count(token) + 1);
  }

  /** @internal */
  give(token: string, n: number): void {
    const left = this.count(token) - n;
    if (left > 0) this.held.set(token, left);
    else this.held.delete(token);
  }
}

interface Waiting extends UserDataSubscription {
  /** For an ending frame: the subscription it names (undefined: every one of the connection). */
  names?: string;
}

/** One connection's subscriptions and the frames whose answers will change them. */
export class ConnectionSubscriptions {
  /** Frames sent up and not answered yet, by their id as exact JSON text. */
  private readonly waiting = new Map<string, Waiting[]>();
  /** Ids of the live subscriptions ('' when the answer named none). */
  private readonly live: string[] = [];
  /** Opening frames sent up and not answered yet (each holds a place). */
  private asked = 0;
  private ended = false;

  constructor(private readonly all: UserDataSubscriptions, readonly token: string, private readonly unsubscribe: readonly string[]) {}

  /** Why an opening frame may not go up now, or undefined. */
  refusal(): string | undefined {
    const n = this.all.count(this.token);
    if (n < this.all.perToken) return undefined;
    const way = this.unsubscribe.length ? `end one with ${this.unsubscribe.join(' or ')}, or close its connection, first` : 'close a connection that holds one first';
    return `Client token "${this.token}" holds ${n} user-data subscriptions made with the gateway's key, the most it may (--user-data-subscriptions-per-token ${this.all.perToken}): ${way}.`;
  }

  /** A frame of `method` goes up with this id and these params (an opening one after refusal() said yes). */
  sent(id: unknown, method: UserDataSubscription, params: Record<string, unknown>): void {
    if (this.ended) return;
    const key = writeJson(id ?? null);
    const list = this.waiting.get(key) ?? [];
    list.push(method.role === 'ends' ? { ...method, names: scalarText(params[method.field]) } : method);
    this.waiting.set(key, list);
    if (method.role === 'opens') {
      this.asked++;
      this.all.take(this.token);
    }
  }

  /** An upstream frame: the answer to a frame sent, if it is one. */
  received(data: Buffer | string): void {
    if (!this.waiting.size) return;
    let v: unknown;
    try {
      v = readJson(typeof data === 'string' ? data : data.toString('utf8'));
    } catch {
      return;
    }
    if (!isJsonObject(v) || !('id' in v) || !('status' in v)) return; // an event, not an answer
    const key = writeJson(v.id ?? null);
    const list = this.waiting.get(key);
    const frame = list?.shift();
    if (!frame) return;
    if (!list!.length) this.waiting.delete(key);
    const ok = scalarText(v.status) === '200';
    const result = isJsonObject(v.result) ? v.result : {};
    if (frame.role === 'opens') {
      this.asked--;
      const sub = scalarText(result[frame.field]) ?? '';
      // A subscription already live here (a listen token sent again to extend it) is not a second one.
      if (ok && (sub === '' || !this.live.includes(sub))) this.live.push(sub);
      else this.all.give(this.token, 1);
    } else if (ok) {
      const gone = frame.names === undefined ? this.live.length : Number(this.live.includes(frame.names));
      if (frame.names === undefined) this.live.length = 0;
      else if (gone) this.live.splice(this.live.indexOf(frame.names), 1);
      this.all.give(this.token, gone);
    }
  }

  /** The connection ended: every place it held is given back. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.all.give(this.token, this.live.length + this.asked);
    this.live.length = 0;
    this.asked = 0;
    this.waiting.clear();
  }
}
