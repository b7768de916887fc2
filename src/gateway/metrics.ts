// The gateway's Prometheus metrics (prom-client): request, upstream and builder latency histograms,
// gauges sampled at scrape time (websockets), and prom-client's default process and Node.js
// metrics. One registry per gateway, so gateways started side by side in one process (tests,
// benchmarks) never mix their numbers.
//
// Cost on the hot path: the labelled child of each (method, route, release, status) is looked up
// in nested maps and kept, so an observation is two map lookups and a bucket increment; the
// label strings are never hashed per request.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Latency buckets (seconds): a proxy answers in ms, a slow upstream or a build in seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Child = { observe(value: number): void };

export class Metrics {
  readonly registry = new Registry();
  private readonly http = new Histogram({
    name: 'http_request_duration_seconds', help: 'Time from a request\'s arrival to the end of its answer, by method, route template, status and release.',
    labelNames: ['method', 'route', 'status', 'release'] as const, buckets: BUCKETS, registers: [this.registry],
  });
  private readonly upstream = new Histogram({
    name: 'gateway_upstream_duration_seconds', help: 'Time from dispatching a request to the upstream to the end of its relayed answer, by route template and release.',
    labelNames: ['route', 'release'] as const, buckets: BUCKETS, registers: [this.registry],
  });
  private readonly builder = new Histogram({
    name: 'gateway_builder_duration_seconds', help: 'Time a transaction build took (queue wait included), by builder and outcome (ok or error).',
    labelNames: ['builder', 'outcome'] as const, buckets: BUCKETS, registers: [this.registry],
  });
  private readonly children = new Map<string, Map<number, Child>>();
  private readonly upstreamChildren = new Map<string, Child>();
  /** Replaces render() when the numbers live elsewhere (under --workers: the primary's aggregate of every worker). */
  private source?: () => Promise<string>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Gauges named like counters, which promtool's lint rejects; the per-type gauges
    // nodejs_active_{handles,requests,resources} carry the same numbers.
    for (const n of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) this.registry.removeSingleMetric(n);
  }

  /**
   * One answered request. `route` is a bounded label: the catalogue's path template, or what the
   * request was when it matched none (admin:<path>, refused:<status>, preflight); never a raw path.
   */
  observe(method: string, route: string, status: number, release: string, seconds: number): void {
    const key = `${method} ${route} ${release}`;
    let byStatus = this.children.get(key);
    if (!byStatus) this.children.set(key, (byStatus = new Map()));
    let child = byStatus.get(status);
    if (!child) byStatus.set(status, (child = this.http.labels(method, route, String(status), release)));
    child.observe(seconds);
  }

  observeUpstream(route: string, release: string, seconds: number): void {
    const key = `${route} ${release}`;
    let child = this.upstreamChildren.get(key);
    if (!child) this.upstreamChildren.set(key, (child = this.upstream.labels(route, release)));
    child.observe(seconds);
  }

  observeBuilder(builder: string, outcome: 'ok' | 'error', seconds: number): void {
    this.builder.labels(builder, outcome).observe(seconds);
  }

  /** A number read at scrape time, as gauge `name` (e.g. open websockets). */
  addGauge(name: string, help: string, sample: () => number): void {
    new Gauge({ name, help, registers: [this.registry], collect() { this.set(sample()); } });
  }

  /** A running total kept elsewhere and read at scrape time, as counter `name` (must end in _total). */
  addCounter(name: string, help: string, sample: () => number): void {
    new Counter({ name, help, registers: [this.registry], collect() { this.reset(); this.inc(sample()); } });
  }

  /** Serve another source's text instead of this registry's (cluster aggregation). */
  renderFrom(source: () => Promise<string>): void {
    this.source = source;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.source ? this.source() : this.registry.metrics();
  }
}
