// Builds are batch work beside a latency-sensitive request loop: a builder thread asks its kernel
// for the lowest priority a thread can have (man 7 sched), so when cores are short the request
// loop runs first.
// - nice 19, the lowest nice value. On Linux setpriority(PRIO_PROCESS, 0) (os.setPriority(0, …))
//   applies to the calling thread only. Still, a nice-19 thread keeps the CPU for the rest of its
//   time slice when the request loop wakes, and its CPU does not count as free for a waking thread.
// - then, on Linux, SCHED_IDLE ("for running very low priority background jobs"): a normal thread
//   that wakes preempts it at once, and a CPU running only SCHED_IDLE threads counts as idle when
//   the kernel places a waking thread. Node has no binding for sched_setscheduler(2), so util-linux's
//   chrt sets it on this thread's id (from /proc/thread-self).
// Lowering one's own priority needs no privilege. Where a step is refused or chrt is missing, the
// thread keeps what it has: builds run either way, only their priority differs.
// SCHED_IDLE is opt-in (GATEWAY_BUILDER_SCHED_IDLE=1): a SCHED_IDLE thread gets no CPU at all while
// anything else on the host is runnable, so on a host kept busy by other processes builds would
// only ever end at their deadline (CI running four test files on two cores showed it). Nice 19
// still gets a small share.
import { execFile } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

export type Outcome = 'idle' | 'nice 19' | 'unchanged';

const CHRT_TIMEOUT_MS = 2000;

/** This thread's kernel id, on Linux ("/proc/thread-self" → "<pid>/task/<tid>"); null elsewhere. */
function threadId(): string | null {
  try {
    return readlinkSync('/proc/thread-self').split('/').at(-1) ?? null;
  } catch {
    return null;
  }
}

/** Lower the calling thread's scheduling priority as far as it goes; resolves to what was obtained. */
export async function runInBackground(schedIdle = process.env.GATEWAY_BUILDER_SCHED_IDLE === '1'): Promise<Outcome> {
  let outcome: Outcome = 'unchanged';
  try {
    setPriority(0, 19);
    outcome = 'nice 19';
  } catch {
    /* refused (some containers): keep the default */
  }
  const tid = schedIdle && process.platform === 'linux' ? threadId() : null;
  if (!tid) return outcome;
  return new Promise((resolve) => {
    execFile('chrt', ['--idle', '--pid', '0', tid], { timeout: CHRT_TIMEOUT_MS }, (error) => resolve(error ? outcome : 'idle'));
  });
}
