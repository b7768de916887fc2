// The gateway's Prometheus metrics (prom-client): request, upstream and builder latency histograms,
// gauges sampled at scrape time (websockets), and prom-client's default process and Node.js
// metrics. One registry per gateway, so gateways started side by side in one process (tests,
// benchmarks) never mix their numbers. prom-client itself is loaded on the first scrape (or at
// start under --workers): importing it costs ~100 ms of start-up that a gateway nobody scrapes
// need not pay, and the histograms below count without it. (Hence the default metrics' event-loop
// lag and GC figures begin at the first scrape; CPU, memory and handles are read from the process.)
//
// Cost on the hot path: each (route, method, release, status) series is found through nested
// maps keyed by strings the catalogue already holds (their hashes are cached) and kept, and an
// observation is a bucket increment (histogram.ts); no label is hashed per request.
//
// Bounded cardinality: every label value comes from a fixed set — the catalogue's route templates
// (or admin:/refused:/preflight, see access-record.ts), HTTP's methods (anything else is "other"),
// the served releases ("other" for any other), statuses 100–599 ("other") — and the number of
// series is capped (--metrics-max-series): past it, a label set not seen before is counted in one
// overflow series per histogram (route="overflow") and in gateway_metrics_overflow_total. With
// --release all the product of the sets alone is tens of thousands of series (71 MiB a scrape).
import type { Registry } from 'prom-client';
import { LabelledHistogram, type Series } from './histogram.js';

/** Latency buckets (seconds): a proxy answers in ms, a slow upstream or a build in seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Find-or-create in a map of maps. */
function at<K, V>(m: Map<K, V>, k: K, make: () => V): V {
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = make()));
  return v;
}

/** The methods of RFC 9110 and PATCH; node also parses WebDAV's and others, which all become "other". */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE']);
/** The label value standing for any value outside a label's fixed set. */
export const OTHER = 'other';
/** The route label of the overflow series. */
export const OVERFLOW = 'overflow';
/** Default of --metrics-max-series: a worst-case scrape stays well under 1 MiB (~1.9 KiB per histogram series). */
export const DEFAULT_MAX_SERIES = 400;

/** prom-client's text format (Registry.PROMETHEUS_CONTENT_TYPE), known before prom-client is loaded. */
const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

interface Sampled { kind: 'gauge' | 'counter'; name: string; help: string; sample: () => number }
/** A gauge or counter with labels read at scrape time: one [labels, value] per series (labels bounded by the caller). */
interface SampledFamily { kind: 'gauge' | 'counter'; name: string; help: string; labels: string[]; sample: () => Iterable<[Record<string, string>, number]> }

export class Metrics {
  private loaded?: Promise<Registry>;
  private readonly sampled: Sampled[] = [];
  private readonly families: SampledFamily[] = [];
  private readonly http = new LabelledHistogram('http_request_duration_seconds',
    'Time from a request\'s arrival to the end of its answer, by method, route template, status and release.',
    ['method', 'route', 'status', 'release'], BUCKETS);
  private readonly upstream = new LabelledHistogram('gateway_upstream_duration_seconds',
    'Time from dispatching a request to the upstream to the end of its relayed answer, by route template and release.',
    ['route', 'release'], BUCKETS);
  private readonly builder = new LabelledHistogram('gateway_builder_duration_seconds',
    'Time a transaction build took (queue wait included), by builder and outcome (ok or error).',
    ['builder', 'outcome'], BUCKETS);
  /** route → method → release → status → series */
  private readonly children = new Map<string, Map<string, Map<string, Map<number, Series>>>>();
  /** route → release → series */
  private readonly upstreamChildren = new Map<string, Map<string, Series>>();
  private readonly builderChildren = new Map<string, Series>();
  /** Replaces render() when the numbers live elsewhere (under --workers: the primary's aggregate of every worker). */
  private source?: () => Promise<string>;
  private maxSeries = DEFAULT_MAX_SERIES;
  /** Labelled series made so far (all histograms). */
  private made = 0;
  /** Observations counted in an overflow series. */
  private overflowed = 0;
  private httpOverflow?: Series;
  private upstreamOverflow?: Series;
  private builderOverflow?: Series;
  /** Release label values allowed (the served releases; '' for unversioned services); undefined: not told yet. */
  private releases?: Set<string>;

  constructor() {
    this.addGauge('gateway_metrics_series', 'Labelled histogram series kept (at most --metrics-max-series, plus one overflow series per histogram).', () => this.made);
    this.addCounter('gateway_metrics_overflow_total', 'Observations counted in an overflow series (route="overflow") because --metrics-max-series was reached.', () => this.overflowed);
  }

  /** At most `n` labelled series from now on (series already made stay). */
  limitSeries(n: number): void {
    this.maxSeries = n;
  }

  /** The releases served now: the only release label values besides '' (unversioned services); others are "other". */
  servedReleases(ids: Iterable<string>): void {
    this.releases = new Set(['', ...ids]);
  }

  /** Room for one more series; else the observation is counted as overflowed. */
  private room(): boolean {
    if (this.made < this.maxSeries) {
      this.made++;
      return true;
    }
    this.overflowed++;
    return false;
  }

  /** The registry of every metric, prom-client loaded on the first call. */
  registry(): Promise<Registry> {
    return (this.loaded ??= import('prom-client').then((pc) => {
      const registry = new pc.Registry();
      pc.collectDefaultMetrics({ register: registry });
      // Gauges named like counters, which promtool's lint rejects; the per-type gauges
      // nodejs_active_{handles,requests,resources} carry the same numbers.
      for (const n of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(n);
      for (const h of [this.http, this.upstream, this.builder]) h.register(registry);
      for (const m of this.sampled) {
        const { sample } = m;
        if (m.kind === 'gauge') new pc.Gauge({ name: m.name, help: m.help, registers: [registry], collect() { this.set(sample()); } });
        else new pc.Counter({ name: m.name, help: m.help, registers: [registry], collect() { this.reset(); this.inc(sample()); } });
      }
      for (const f of this.families) {
        const { sample } = f;
        if (f.kind === 'gauge') new pc.Gauge({ name: f.name, help: f.help, labelNames: f.labels, registers: [registry], collect() { this.reset(); for (const [l, v] of sample()) this.set(l, v); } });
        else new pc.Counter({ name: f.name, help: f.help, labelNames: f.labels, registers: [registry], collect() { this.reset(); for (const [l, v] of sample()) this.inc(l, v); } });
      }
      return registry;
    }));
  }

  /**
   * One answered request. `route` is a bounded label: the catalogue's path template, or what the
   * request was when it matched none (admin:<path>, refused:<status>, preflight); never a raw path.
   */
  observe(method: string, route: string, status: number, release: string, seconds: number): void {
    const m = METHODS.has(method) ? method : OTHER;
    const r = this.releases === undefined || this.releases.has(release) ? release : OTHER;
    const st = status >= 100 && status <= 599 ? status : 0;
    const s = this.children.get(route)?.get(m)?.get(r)?.get(st);
    if (s) return s.observe(seconds);
    if (!this.room()) return (this.httpOverflow ??= this.http.child({ method: OTHER, route: OVERFLOW, status: OTHER, release: OTHER })).observe(seconds);
    const byStatus = at(at(at(this.children, route, () => new Map()), m, () => new Map()), r, () => new Map<number, Series>());
    at(byStatus, st, () => this.http.child({ method: m, route, status: st ? String(st) : OTHER, release: r })).observe(seconds);
  }

  observeUpstream(route: string, release: string, seconds: number): void {
    const r = this.releases === undefined || this.releases.has(release) ? release : OTHER;
    const s = this.upstreamChildren.get(route)?.get(r);
    if (s) return s.observe(seconds);
    if (!this.room()) return (this.upstreamOverflow ??= this.upstream.child({ route: OVERFLOW, release: OTHER })).observe(seconds);
    at(at(this.upstreamChildren, route, () => new Map<string, Series>()), r, () => this.upstream.child({ route, release: r })).observe(seconds);
  }

  observeBuilder(builder: string, outcome: 'ok' | 'error', seconds: number): void {
    const key = `${builder} ${outcome}`;
    const s = this.builderChildren.get(key);
    if (s) return s.observe(seconds);
    if (!this.room()) return (this.builderOverflow ??= this.builder.child({ builder: OVERFLOW, outcome })).observe(seconds);
    at(this.builderChildren, key, () => this.builder.child({ builder, outcome })).observe(seconds);
  }

  /** A number read at scrape time, as gauge `name` (e.g. open websockets). Add before the first scrape. */
  addGauge(name: string, help: string, sample: () => number): void {
    this.sampled.push({ kind: 'gauge', name, help, sample });
  }

  /** Gauges with labels read at scrape time (e.g. per route). Add before the first scrape. */
  addGaugeFamily(name: string, help: string, labels: string[], sample: () => Iterable<[Record<string, string>, number]>): void {
    this.families.push({ kind: 'gauge', name, help, labels, sample });
  }

  /** Running totals with labels, kept elsewhere and read at scrape time (name ending in _total). Add before the first scrape. */
  addCounterFamily(name: string, help: string, labels: string[], sample: () => Iterable<[Record<string, string>, number]>): void {
    this.families.push({ kind: 'counter', name, help, labels, sample });
  }

  /** A running total kept elsewhere and read at scrape time, as counter `name` (ending in _total). Add before the first scrape. */
  addCounter(name: string, help: string, sample: () => number): void {
    this.sampled.push({ kind: 'counter', name, help, sample });
  }

  /** Serve another source's text instead of this registry's (cluster aggregation). */
  renderFrom(source: () => Promise<string>): void {
    this.source = source;
  }

  get contentType(): string {
    return CONTENT_TYPE;
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.source ? this.source() : this.registry().then((r) => r.metrics());
  }
}
