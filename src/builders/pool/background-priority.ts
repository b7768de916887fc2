// Builds are batch work beside a latency-sensitive request loop: by default a builder thread asks
// its kernel for a low priority (man 7 sched), so when cores are short the request loop runs first.
// - background (default): nice 19, the lowest nice value. On Linux setpriority(PRIO_PROCESS, 0)
//   (os.setPriority(0, …)) applies to the calling thread only. A nice-19 thread still gets a small
//   share (~1.5 % against one busy normal thread), so builds slow down under load but do not stop.
// - idle: nice 19, then on Linux SCHED_IDLE ("for running very low priority background jobs"): a
//   normal thread that wakes preempts it at once, and a CPU running only SCHED_IDLE threads counts as
//   idle when the kernel places a waking thread. It gets no CPU at all while anything else on the
//   host is runnable, so it suits a host that runs only the gateway: on a busy shared host builds
//   would only ever end at their deadline (CI running four test files on two cores showed it).
//   Node has no binding for sched_setscheduler(2), so util-linux's chrt sets it on this thread's id.
// - normal: the thread keeps the priority it was born with (the process's).
// Lowering one's own priority needs no privilege. Where a step is refused or chrt is missing, the
// thread keeps what it has: builds run either way, only their priority differs.
import { execFile } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

export const BUILDER_PRIORITIES = ['background', 'idle', 'normal'] as const;
export type BuilderPriority = (typeof BUILDER_PRIORITIES)[number];
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

/** Set the calling thread's scheduling priority; resolves to what was obtained. */
export async function setThreadPriority(priority: BuilderPriority): Promise<Outcome> {
  if (priority === 'normal') return 'unchanged';
  let outcome: Outcome = 'unchanged';
  try {
    setPriority(0, 19);
    outcome = 'nice 19';
  } catch {
    /* refused (some containers): keep the default */
  }
  const tid = priority === 'idle' && process.platform === 'linux' ? threadId() : null;
  if (!tid) return outcome;
  return new Promise((resolve) => {
    execFile('chrt', ['--idle', '--pid', '0', tid], { timeout: CHRT_TIMEOUT_MS }, (error) => resolve(error ? outcome : 'idle'));
  });
}
