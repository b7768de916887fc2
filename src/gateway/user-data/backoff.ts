// How long to wait before trying the upstream again: exponential from a floor, with jitter, capped,
// and never sooner than the upstream itself asked (its retryAfter). A run of failures (a 429 that
// the exchange escalates to an IP ban of the gateway, a subscribe answer that never comes) is
// spaced out further each time; a success starts over.
export class Backoff {
  private failures = 0;

  constructor(private readonly floorMs: number, private readonly capMs: number, private readonly random: () => number = Math.random) {}

  /** The wait before the next try after one more failure, at least `atLeastMs`. */
  next(atLeastMs = 0): number {
    const exp = Math.min(this.capMs, this.floorMs * 2 ** this.failures);
    this.failures = Math.min(this.failures + 1, 30);
    return Math.max(atLeastMs, Math.round(exp * (0.8 + 0.4 * this.random())), this.floorMs);
  }

  reset(): void {
    this.failures = 0;
  }
}
