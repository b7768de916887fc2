// The deadlines of requests in progress, on one timer. Every request gets the same allowance from
// its arrival, so deadlines come almost in the order requests start: they are kept in a list in
// deadline order (a request started late, after waiting behind pipelined ones, is placed by a
// short walk from the end) and one timer waits for the earliest. Starting and finishing a request
// is a link and an unlink; a timer per request cost a Timeout object, its async-hook bookkeeping
// and a list insert and removal each time, on every proxied request. A sequential client re-arms
// the timer about once per allowance, not once per request. The walk is bounded: a late starter
// that would pass more than MAX_WALK entries (a pipelining flood over many connections could make
// every start walk the whole list) gets a timer of its own instead, as every request once did.

/** Entries a late starter may be walked past before it gets a timer of its own. */
const MAX_WALK = 32;

/** An entry of the list; the adapter's per-request record extends it. */
export interface Deadline {
  /** performance.now() by which the request must be answered. */
  due: number;
  prev?: Deadline | null;
  next?: Deadline | null;
  /** In the list (not yet expired or finished). */
  queued?: boolean;
  /** Its own timer, when it was placed outside the list (see MAX_WALK). */
  timer?: NodeJS.Timeout;
}

export class Deadlines<T extends Deadline> {
  private head: T | null = null;
  private tail: T | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (Infinity: none armed). */
  private armedFor = Infinity;

  /** `expire` is called once for each entry whose deadline passes while it is in the list. */
  constructor(private readonly expire: (entry: T) => void) {}

  add(entry: T): void {
    let after = this.tail;
    for (let steps = 0; after && after.due > entry.due; steps++) {
      if (steps === MAX_WALK) return this.alone(entry);
      after = after.prev as T | null;
    }
    entry.prev = after;
    entry.next = after ? after.next : this.head;
    if (entry.next) entry.next.prev = entry;
    else this.tail = entry;
    if (after) after.next = entry;
    else this.head = entry;
    entry.queued = true;
    if (entry.due < this.armedFor) this.arm(entry.due);
  }

  /** Take `entry` out (it finished); a no-op if it is not in the list. */
  remove(entry: T): void {
    if (entry.timer) {
      clearTimeout(entry.timer);
      entry.timer = undefined;
      return;
    }
    if (!entry.queued) return;
    entry.queued = false;
    if (entry.prev) entry.prev.next = entry.next ?? null;
    else this.head = (entry.next as T | null) ?? null;
    if (entry.next) entry.next.prev = entry.prev ?? null;
    else this.tail = (entry.prev as T | null) ?? null;
    entry.prev = entry.next = null;
    // The timer stays armed, even with the list empty: when it fires it finds nothing due and waits
    // for the new head. Moving it here would cost what this list saves (it is unref'd: an armed
    // timer never keeps the process alive).
  }

  private alone(entry: T): void {
    entry.queued = false;
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.expire(entry);
    }, Math.max(1, Math.ceil(entry.due - performance.now()))).unref();
  }

  private arm(due: number): void {
    clearTimeout(this.timer);
    this.armedFor = due;
    // Whole milliseconds, at least 1: a timer never fires early, so a due entry is never missed.
    this.timer = setTimeout(() => this.fire(), Math.max(1, Math.ceil(due - performance.now()))).unref();
  }

  private fire(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = performance.now();
    while (this.head && this.head.due <= now) {
      const entry = this.head;
      this.remove(entry);
      this.expire(entry);
    }
    if (this.head) this.arm(this.head.due);
  }
}
