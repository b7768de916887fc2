// Request counters and latency sums per route and status, in Prometheus text format.
// Plain counters kept per route, so observing a request costs two map lookups, not a histogram.
interface Counter {
  n: number;
  seconds: number;
}

export class Metrics {
  private routes = new Map<string, Map<number, Counter>>();
  private started = Date.now();
  private gauges: (() => Record<string, number>)[] = [];
  private reloads = { ok: 0, failed: 0 };

  /** A reload applied (ok) or refused. */
  countReload(ok: boolean): void {
    if (ok) this.reloads.ok++;
    else this.reloads.failed++;
  }

  /** Add numbers sampled at render time (e.g. websocket connections), as gauges named gateway_<key>. */
  addGauges(sample: () => Record<string, number>): void {
    this.gauges.push(sample);
  }

  /** `startedMs` is performance.now() when the request arrived. */
  observe(route: string, status: number, startedMs: number): void {
    let byStatus = this.routes.get(route);
    if (!byStatus) this.routes.set(route, (byStatus = new Map()));
    let c = byStatus.get(status);
    if (!c) byStatus.set(status, (c = { n: 0, seconds: 0 }));
    c.n++;
    c.seconds += (performance.now() - startedMs) / 1000;
  }

  render(): string {
    const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
    const lines = ['# HELP gateway_requests_total Requests answered, by route and status.', '# TYPE gateway_requests_total counter'];
    const secs = ['# HELP gateway_request_seconds_total Time spent answering, by route and status.', '# TYPE gateway_request_seconds_total counter'];
    for (const [route, byStatus] of this.routes) {
      for (const [status, c] of byStatus) {
        const labels = `route="${esc(route)}",status="${status}"`;
        lines.push(`gateway_requests_total{${labels}} ${c.n}`);
        secs.push(`gateway_request_seconds_total{${labels}} ${c.seconds.toFixed(6)}`);
      }
    }
    const gauges = this.gauges.flatMap((g) => Object.entries(g())).flatMap(([k, v]) => [`# TYPE gateway_${k} ${k.endsWith("_total") ? "counter" : "gauge"}`, `gateway_${k} ${v}`]);
    const reloads = ['# HELP gateway_reloads_total Reloads of the catalogue and configuration, by outcome.', '# TYPE gateway_reloads_total counter',
      `gateway_reloads_total{outcome="applied"} ${this.reloads.ok}`, `gateway_reloads_total{outcome="refused"} ${this.reloads.failed}`];
    return [...lines, ...secs, ...gauges, ...reloads, '# HELP gateway_uptime_seconds Seconds since start.', '# TYPE gateway_uptime_seconds gauge',
      `gateway_uptime_seconds ${((Date.now() - this.started) / 1000).toFixed(0)}`, ''].join('\n');
  }
}
