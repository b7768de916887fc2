// Refusals are counted, not narrated: a burst of 503s writes one warn line per kind and place per
// interval ("503 overloaded × 186 in the last 1 s on GET /api/v3/ticker/price: …"), while each
// refusal keeps its own access line. While refusals go on, each interval is twice the last (up to
// a minute), so a storm of any length writes a few lines, not one a second; a quiet interval
// brings it back to the first. Keys are bounded: a kind is a constant, a place is a route template
// of the catalogue or a fixed name such as "new connections".
import type { RefusalCounter } from '../admission/route-gate.js';

interface Tally { what: string; where: string; n: number; detail: string }

const LONGEST_MS = 60_000;

export class RefusalSummary implements RefusalCounter {
  private readonly tallies = new Map<string, Tally>();
  private timer: NodeJS.Timeout | undefined;
  private interval: number;
  private since = 0;
  private lastFlush = -Infinity;

  constructor(private readonly log: { warn(m: string): void }, private readonly firstMs = 1000) {
    this.interval = firstMs;
  }

  /** One refusal of kind `what` (e.g. "503 overloaded") at `where`; `detail`: why, the last one's reason is shown. */
  count(what: string, where: string, detail: string): void {
    const key = `${what}\n${where}`;
    const t = this.tallies.get(key);
    if (t) {
      t.n++;
      t.detail = detail;
    } else this.tallies.set(key, { what, where, n: 1, detail });
    if (this.timer) return;
    const now = performance.now();
    if (now - this.lastFlush > this.interval) this.interval = this.firstMs; // quiet for a whole interval: start again
    this.since = now;
    this.timer = setTimeout(() => this.flush(), this.interval);
    this.timer.unref();
  }

  /** Write what was counted since the last line (also on close, so nothing counted is lost). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.tallies.size) return;
    const now = performance.now();
    const seconds = Math.round((now - this.since) / 100) / 10;
    for (const t of this.tallies.values()) this.log.warn(`${t.what} × ${t.n} in the last ${seconds} s on ${t.where}: ${t.detail}`);
    this.tallies.clear();
    this.lastFlush = now;
    this.interval = Math.min(LONGEST_MS, this.interval * 2);
  }
}
