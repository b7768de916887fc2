// The answer steps of the vocabulary on their own (the shipped catalogue uses unwrap and a
// transform; rename, restore and errors are checked here): applied in order, to the answer object
// or each item of a list answer; an error answer only has its code mapped; what is not JSON passes.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { AnswerStep } from '../../src/catalogue/changes/types.js';
import { migrateAnswer } from '../../src/gateway/migrate/answer.js';

const test = suite('version changes: answer steps');
const at = { file: 'changes.yaml', line: 1 };
const run = (steps: AnswerStep[], status: number, body: unknown) => JSON.parse(migrateAnswer(steps, status, Buffer.from(JSON.stringify(body))).body!.toString());

test('rename (new → old) and restore, on an object and on each item of a list', () => {
  const steps: AnswerStep[] = [{ kind: 'rename', names: { tranId: 'txId' }, at }, { kind: 'restore', values: { clientTag: '' }, at }];
  assert.equal(run(steps, 200, { tranId: 7 }), { txId: 7, clientTag: '' });
  assert.equal(run(steps, 200, [{ tranId: 1, clientTag: 'x' }, { tranId: 2 }]), [{ clientTag: 'x', txId: 1 }, { txId: 2, clientTag: '' }]);
});

test('unwrap only a one-item list; errors map the code of an error answer and nothing else', () => {
  const steps: AnswerStep[] = [{ kind: 'unwrap', at }, { kind: 'errors', codes: { '-3045': -3041 }, at }];
  assert.equal(run(steps, 200, [{ a: 1 }]), { a: 1 });
  assert.equal(run(steps, 200, []), [], 'an empty list stays a list (nothing to unwrap)');
  assert.equal(run(steps, 400, { code: -3045, msg: 'The system does not have enough asset now.' }), { code: -3041, msg: 'The system does not have enough asset now.' });
  assert.equal(run(steps, 400, { code: -1102, msg: 'm' }), { code: -1102, msg: 'm' });
  assert.equal(run([{ kind: 'unwrap', at }], 400, [{ a: 1 }]), [{ a: 1 }], 'an error answer is not reshaped');
});

test('an answer that is not JSON comes back byte for byte', () => {
  const raw = Buffer.from('<html>maintenance</html>');
  assert.equal(migrateAnswer([{ kind: 'unwrap', at }], 502, raw), { status: 502, body: raw });
});

test.run();
