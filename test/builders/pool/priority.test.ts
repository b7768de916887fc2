// Builder threads run at the priority asked for: background (default) nice 19, idle also SCHED_IDLE
// (Linux, where util-linux's chrt is installed), normal untouched; the request loop's thread keeps its own.
// Read from /proc/<pid>/task/<tid>/stat: nice is field 19, the policy field 41 (5 = SCHED_IDLE).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import type { BuilderPriority } from '../../../src/builders/pool/background-priority.js';
import { createBuilderPool } from '../../../src/builders/pool/pool.js';

const test = suite('builder pool: thread priority');
const TEST_PLUGINS = new URL('./test-plugins.js', import.meta.url);
const SCHED_OTHER = 0;
const SCHED_IDLE = 5;
const linux = process.platform === 'linux';
const hasChrt = linux && spawnSync('chrt', ['--version']).status === 0;

function threads(): Map<string, { nice: number; policy: number }> {
  return new Map(readdirSync('/proc/self/task').map((tid) => {
    const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' '); // from field 3 on
    return [tid, { nice: Number(fields[16]), policy: Number(fields[38]) }];
  }));
}

/** The nice value and policy of the threads a 2-thread pool at `priority` started (after a build on each). */
async function builderThreads(priority: BuilderPriority) {
  const before = threads();
  const pool = createBuilderPool({ threads: 2, priority, pluginsModule: TEST_PLUGINS });
  try {
    // Two builds that each hold a thread for a while: one runs on each thread.
    const ran = (await Promise.all([pool.run('pause', { ms: 300 }), pool.run('pause', { ms: 300 })])) as { threadId: number }[];
    assert.is(new Set(ran.map((r) => r.threadId)).size, 2, 'one build on each thread');
    // Node starts helper threads of its own with a worker; the builder threads are the ones named after it.
    return [...threads()].filter(([tid]) => !before.has(tid)).map(([, t]) => t);
  } finally {
    await pool.close();
  }
}

test('background (the default): each builder thread at nice 19, SCHED_OTHER; the main thread untouched', async () => {
  if (!linux) return; // the fields read here are Linux's
  const mainNice = getPriority();
  const started = await builderThreads('background');
  assert.is(started.filter((t) => t.nice === 19 && t.policy === SCHED_OTHER).length, 2, JSON.stringify(started));
  assert.is(getPriority(), mainNice);
  assert.is(threads().get(String(process.pid))!.policy, SCHED_OTHER, 'the main thread keeps SCHED_OTHER');
});

test('idle: nice 19 and SCHED_IDLE where chrt is installed', async () => {
  if (!linux) return;
  const started = await builderThreads('idle');
  const lowered = started.filter((t) => t.nice === 19);
  assert.is(lowered.length, 2, JSON.stringify(started));
  for (const t of lowered) assert.is(t.policy, hasChrt ? SCHED_IDLE : SCHED_OTHER);
});

test('normal: builder threads keep the process priority', async () => {
  if (!linux) return;
  const started = await builderThreads('normal');
  assert.ok(started.length >= 2, JSON.stringify(started));
  assert.is(started.filter((t) => t.nice === 19).length, 0, JSON.stringify(started));
});

test('an unknown priority is refused by name', () => {
  assert.throws(() => createBuilderPool({ threads: 1, priority: 'low' as BuilderPriority }), /priority must be one of background, idle, normal, got "low"/);
});

test.run();
