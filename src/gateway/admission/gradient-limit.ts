// An adaptive concurrency limit that follows an upstream's latency: Netflix concurrency-limits'
// Gradient2 (the anchor of Envoy's adaptive-concurrency gradient controller too), with AIMD's
// multiplicative back-off for a request that timed out or failed. No npm package implements one
// that is kept up (checked: nothing under concurrency-limits / adaptive-concurrency), hence this.
//
// Per completed request, with rtt its time at the upstream:
//   longRtt  ← exponential average of rtt over ~600 samples (the "normal" latency)
//   gradient = clamp(1.5 · longRtt / rtt, 0.5, 1)      1 = no queueing at the upstream
//   limit    ← 0.8 · limit + 0.2 · (gradient · limit + 4) bounded by [min, max]
// A healthy upstream keeps gradient 1 and the limit grows by ~0.8 a sample up to its ceiling;
// one that slows halves its estimate over a few samples; one that hangs answers nothing until
// the deadline, and each timed-out request then cuts the limit by 10 % (AIMD's back-off).

/** Netflix's defaults: the growth allowance, how much one sample moves the limit, the tolerated rise in latency. */
const QUEUE_SIZE = 4;
const SMOOTHING = 0.2;
const RTT_TOLERANCE = 1.5;
const LONG_WINDOW = 600;
const WARMUP = 10;
const BACKOFF = 0.9;

export class GradientLimit {
  /** The limit as a real number; callers read `limit` (whole requests). */
  private estimate: number;
  /** Whole requests allowed at the upstream at once. */
  limit: number;
  private longRtt = 0;
  private samples = 0;

  constructor(initial: number, private min: number, private max: number) {
    this.estimate = Math.max(min, Math.min(max, initial));
    this.limit = Math.floor(this.estimate);
  }

  /** A new ceiling (a reload changed --route-concurrency): the estimate is kept inside it. */
  bound(min: number, max: number): void {
    this.min = min;
    this.max = max;
    this.set(this.estimate);
  }

  /**
   * One request finished: `rtt` its time at the upstream (ms), `inflight` how many were at the
   * upstream when it finished (itself included), `dropped` when it timed out or failed.
   */
  sample(rtt: number, inflight: number, dropped: boolean): void {
    if (dropped) return this.set(Math.min(this.estimate - 1, this.estimate * BACKOFF));
    if (rtt <= 0) rtt = 0.001;
    // Exponential average, a plain mean over the first samples (Netflix's ExpAvgMeasurement).
    this.samples++;
    this.longRtt = this.samples <= WARMUP ? this.longRtt + (rtt - this.longRtt) / this.samples : this.longRtt + (rtt - this.longRtt) * (2 / (LONG_WINDOW + 1));
    // Latency back to normal after a long slow spell: let the baseline fall faster than the average would.
    if (this.longRtt / rtt > 2) this.longRtt *= 0.95;
    if (inflight < this.estimate / 2) return; // the upstream is not what limits these requests: learn nothing
    const gradient = Math.max(0.5, Math.min(1, (RTT_TOLERANCE * this.longRtt) / rtt));
    this.set(this.estimate * (1 - SMOOTHING) + (this.estimate * gradient + QUEUE_SIZE) * SMOOTHING);
  }

  private set(estimate: number): void {
    this.estimate = Math.max(this.min, Math.min(this.max, estimate));
    this.limit = Math.floor(this.estimate);
  }
}
