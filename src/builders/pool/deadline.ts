// One build's wall-clock deadline, in the shape piscina takes as a task's abort signal (an
// EventEmitter-like object: once/off/removeListener of 'abort', see piscina's README). Past `ms`
// it tells piscina to abort the task: dropped from the queue, or its worker terminated.
//
// Neither AbortSignal.timeout() nor an AbortController: with either, piscina's listener keeps each
// build's objects alive past the young generation (measured: ~2.3 KB promoted per task with an
// AbortSignal, ~1.2 KB with this), and on a busy gateway that promotion is what brings the request
// loop's major collections, and their pauses, round sooner. The timer is cleared with the build.
type Listener = () => void;

export class Deadline {
  private listener: Listener | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.timer = setTimeout(() => this.listener?.(), ms);
  }

  once(_event: 'abort', listener: Listener): void {
    this.listener = listener;
  }

  off(_event: 'abort', listener: Listener): void {
    if (this.listener === listener) this.listener = null;
  }

  removeListener(event: 'abort', listener: Listener): void {
    this.off(event, listener);
  }

  /** The build answered: the deadline no longer applies. */
  clear(): void {
    clearTimeout(this.timer);
    this.listener = null;
  }
}
