// Builder threads run at nice 19, and with GATEWAY_BUILDER_SCHED_IDLE=1 at SCHED_IDLE (Linux, where
// util-linux's chrt is installed); the request loop's thread keeps its own.
// Read from /proc/<pid>/task/<tid>/stat: nice is field 19, the policy field 41 (5 = SCHED_IDLE).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createBuilderPool } from '../../../src/builders/pool/pool.js';
import { sendLovelaceRequest } from '../cardano/fixtures.js';

const test = suite('builder pool: thread priority');
const SCHED_IDLE = 5;
const linux = process.platform === 'linux';
const hasChrt = linux && spawnSync('chrt', ['--version']).status === 0;
// SCHED_IDLE is opt-in; builder threads copy the environment when they start.
process.env.GATEWAY_BUILDER_SCHED_IDLE = '1';

function threads(): Map<string, { nice: number; policy: number }> {
  return new Map(readdirSync('/proc/self/task').map((tid) => {
    const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' '); // from field 3 on
    return [tid, { nice: Number(fields[16]), policy: Number(fields[38]) }];
  }));
}

test('each builder thread runs at nice 19, and SCHED_IDLE where chrt is installed; the main thread is untouched', async () => {
  if (!linux) return; // the fields read here are Linux's
  const before = threads();
  const mainNice = getPriority();
  const pool = createBuilderPool({ threads: 2 });
  try {
    await Promise.all([pool.run('send_lovelace', sendLovelaceRequest()), pool.run('send_lovelace', sendLovelaceRequest())]);
    const lowered = [...threads()].filter(([tid, t]) => !before.has(tid) && t.nice === 19);
    assert.is(lowered.length, 2, 'both builder threads at nice 19');
    if (hasChrt) for (const [, t] of lowered) assert.is(t.policy, SCHED_IDLE);
    assert.is(getPriority(), mainNice);
    assert.is(threads().get(String(process.pid))!.policy, 0, 'the main thread keeps SCHED_OTHER');
  } finally {
    await pool.close();
  }
});

test.run();
