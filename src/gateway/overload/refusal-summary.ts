// Refusals are counted, not narrated: a burst of 503s writes one warn line per kind and route per
// interval ("503 overloaded × 186 in the last 1 s on GET /api/v3/ticker/price: …"), while each
// refusal keeps its own access line. Keys are bounded: a kind is a constant, a place is a route
// template of the catalogue or a fixed name such as "new connections".
import type { RefusalCounter } from '../admission/route-gate.js';

interface Tally { what: string; where: string; n: number; detail: string }

export class RefusalSummary implements RefusalCounter {
  private readonly tallies = new Map<string, Tally>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly log: { warn(m: string): void }, private readonly intervalMs = 1000) {}

  /** One refusal of kind `what` (e.g. "503 overloaded") at `where`; `detail`: why, the last one's reason is shown. */
  count(what: string, where: string, detail: string): void {
    const key = `${what}\n${where}`;
    const t = this.tallies.get(key);
    if (t) {
      t.n++;
      t.detail = detail;
    } else this.tallies.set(key, { what, where, n: 1, detail });
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Write what was counted since the last line (also on close, so nothing counted is lost). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const seconds = this.intervalMs / 1000;
    for (const t of this.tallies.values()) this.log.warn(`${t.what} × ${t.n} in the last ${seconds} s on ${t.where}: ${t.detail}`);
    this.tallies.clear();
  }
}
