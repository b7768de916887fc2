// The gateway's Prometheus metrics (prom-client): request, upstream and builder latency histograms,
// gauges sampled at scrape time (websockets), and prom-client's default process and Node.js
// metrics. One registry per gateway, so gateways started side by side in one process (tests,
// benchmarks) never mix their numbers.
//
// Cost on the hot path: each (route, method, release, status) series is found through nested
// maps keyed by strings the catalogue already holds (their hashes are cached) and kept, and an
// observation is a bucket increment (histogram.ts); no label is hashed per request.
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { LabelledHistogram, type Series } from './histogram.js';

/** Latency buckets (seconds): a proxy answers in ms, a slow upstream or a build in seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Find-or-create in a map of maps. */
function at<K, V>(m: Map<K, V>, k: K, make: () => V): V {
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = make()));
  return v;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly http = new LabelledHistogram('http_request_duration_seconds',
    'Time from a request\'s arrival to the end of its answer, by method, route template, status and release.',
    ['method', 'route', 'status', 'release'], BUCKETS, this.registry);
  private readonly upstream = new LabelledHistogram('gateway_upstream_duration_seconds',
    'Time from dispatching a request to the upstream to the end of its relayed answer, by route template and release.',
    ['route', 'release'], BUCKETS, this.registry);
  private readonly builder = new LabelledHistogram('gateway_builder_duration_seconds',
    'Time a transaction build took (queue wait included), by builder and outcome (ok or error).',
    ['builder', 'outcome'], BUCKETS, this.registry);
  /** route → method → release → status → series */
  private readonly children = new Map<string, Map<string, Map<string, Map<number, Series>>>>();
  /** route → release → series */
  private readonly upstreamChildren = new Map<string, Map<string, Series>>();
  private readonly builderChildren = new Map<string, Series>();
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
    const byStatus = at(at(at(this.children, route, () => new Map()), method, () => new Map()), release, () => new Map<number, Series>());
    at(byStatus, status, () => this.http.child({ method, route, status: String(status), release })).observe(seconds);
  }

  observeUpstream(route: string, release: string, seconds: number): void {
    at(at(this.upstreamChildren, route, () => new Map<string, Series>()), release, () => this.upstream.child({ route, release })).observe(seconds);
  }

  observeBuilder(builder: string, outcome: 'ok' | 'error', seconds: number): void {
    at(this.builderChildren, `${builder} ${outcome}`, () => this.builder.child({ builder, outcome })).observe(seconds);
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
