// Request counters and latency sums per route and status, in Prometheus text format.
// Kept to plain counters so observing a request costs a map lookup, not a histogram.
export class Metrics {
  private counts = new Map<string, { n: number; seconds: number }>();
  private started = Date.now();

  observe(route: string, status: number, startedNs: bigint): void {
    const key = `${route}\u0000${status}`;
    const c = this.counts.get(key) ?? { n: 0, seconds: 0 };
    c.n++;
    c.seconds += Number(process.hrtime.bigint() - startedNs) / 1e9;
    this.counts.set(key, c);
  }

  render(): string {
    const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
    const lines = [
      '# HELP gateway_requests_total Requests answered, by route and status.',
      '# TYPE gateway_requests_total counter',
    ];
    const secs = ['# HELP gateway_request_seconds_total Time spent answering, by route and status.', '# TYPE gateway_request_seconds_total counter'];
    for (const [key, c] of this.counts) {
      const [route, status] = key.split('\u0000');
      const labels = `route="${esc(route)}",status="${status}"`;
      lines.push(`gateway_requests_total{${labels}} ${c.n}`);
      secs.push(`gateway_request_seconds_total{${labels}} ${c.seconds.toFixed(6)}`);
    }
    return [...lines, ...secs, '# HELP gateway_uptime_seconds Seconds since start.', '# TYPE gateway_uptime_seconds gauge',
      `gateway_uptime_seconds ${((Date.now() - this.started) / 1000).toFixed(0)}`, ''].join('\n');
  }
}
