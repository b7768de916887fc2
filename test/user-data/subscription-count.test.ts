// The per-token count of user-data subscriptions (src/gateway/websocket/user-data-subscriptions.ts),
// fed the upstream answers a connection would see: what takes a place, what gives it back.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { UserDataSubscriptions } from '../../src/gateway/websocket/user-data-subscriptions.js';
import { readJson } from '../../src/upstream/exact-json.js';

const test = suite('user data: counting subscriptions per token');
const OPENS = { role: 'opens', field: 'subscriptionId' } as const;
const ENDS = { role: 'ends', field: 'subscriptionId' } as const;
const frame = (text: string) => readJson(text) as Record<string, unknown>;
type Connection = ReturnType<UserDataSubscriptions['connection']>;
/** A frame sent up on `c` and the upstream's answer to it (`answer`: the fields after the id). */
function exchange(c: Connection, id: string | number, method: typeof OPENS | typeof ENDS, params: Record<string, unknown>, answer: string): void {
  c.sent(id, method, params);
  c.received(`{"id":${JSON.stringify(id)},${answer}}`);
}

test('a place is taken when the frame goes up, kept on a subscription, given back on any other answer', () => {
  const all = new UserDataSubscriptions(2);
  const c = all.connection('bot', ['userDataStream.unsubscribe']);
  c.sent(1, OPENS, {});
  c.sent(2, OPENS, {});
  assert.is(all.count('bot'), 2, 'both in flight hold a place');
  assert.match(c.refusal()!, /Client token "bot" holds 2 user-data subscriptions made with the gateway's key, the most it may \(--user-data-subscriptions-per-token 2\): end one with userDataStream.unsubscribe, or close its connection, first\./);
  c.received('{"subscriptionId":7,"event":{"e":"balanceUpdate"}}'); // an event is no answer
  c.received('{"id":2,"status":429,"error":{"code":-1003,"msg":"x"}}');
  assert.is(all.count('bot'), 1);
  c.received('{"id":1,"status":200,"result":{"subscriptionId":0}}');
  assert.is(all.count('bot'), 1);
  assert.is(c.refusal(), undefined);
});

test('an answer naming a subscription the connection holds (a listen token sent again) takes no second place', () => {
  const all = new UserDataSubscriptions(2);
  const c = all.connection('bot', []);
  exchange(c, 'a', OPENS, {}, '"status":200,"result":{"subscriptionId":5,"expirationTime":1}');
  exchange(c, 'b', OPENS, {}, '"status":200,"result":{"subscriptionId":5,"expirationTime":2}');
  assert.is(all.count('bot'), 1);
});

test('ends: the named one on a 200 answer, all of the connection without a name; not on a refusal or an unknown id', () => {
  const all = new UserDataSubscriptions(5);
  const c = all.connection('bot', []);
  for (const id of [1, 2, 3]) exchange(c, id, OPENS, {}, `"status":200,"result":{"subscriptionId":${id * 10}}`);
  assert.is(all.count('bot'), 3);
  exchange(c, 'u1', ENDS, { subscriptionId: 99 }, '"status":200,"result":{}');
  exchange(c, 'u2', ENDS, { subscriptionId: 10 }, '"status":400,"error":{"code":-1000,"msg":"x"}');
  assert.is(all.count('bot'), 3, 'an unknown id or a refused unsubscribe changes nothing');
  exchange(c, 'u3', ENDS, frame('{"subscriptionId":"20"}'), '"status":200,"result":{}'); // the id as text, as the exchange accepts it
  assert.is(all.count('bot'), 2);
  exchange(c, 'u4', ENDS, {}, '"status":200,"result":{}');
  assert.is(all.count('bot'), 0);
});

test('ids are matched exactly (no double rounding), and a closed connection gives back what it held and asked for', () => {
  const all = new UserDataSubscriptions(3);
  const c = all.connection('bot', []);
  const other = all.connection('other', []);
  c.sent(frame('{"id":12345678901234567891}').id, OPENS, {});
  c.sent(frame('{"id":12345678901234567890}').id, OPENS, {});
  other.sent(1, OPENS, {});
  c.received('{"id":12345678901234567890,"status":400,"error":{"code":-1,"msg":"x"}}');
  assert.is(all.count('bot'), 1, 'the refused one, not its neighbour');
  c.received('{"id":12345678901234567891,"status":200,"result":{"subscriptionId":1}}');
  c.sent(9, OPENS, {});
  assert.is(all.count('bot'), 2);
  c.end();
  assert.is(all.count('bot'), 0);
  assert.is(all.count('other'), 1, 'another token keeps its own');
  c.received('{"id":9,"status":200,"result":{"subscriptionId":2}}');
  assert.is(all.count('bot'), 0, 'nothing counts after the end');
});

test.run();
