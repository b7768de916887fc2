// A labelled Prometheus histogram whose observation is a few array writes. prom-client's own
// Histogram validates and hashes the labels on every observe(), even through .labels(): over a
// microsecond per request for two histograms. Here each label set's series is found once (by the
// caller's cached lookup) and kept; prom-client still renders, merges across workers and lints it,
// through the metric interface its Registry reads (name + get()), and need not be loaded to count.
import type { Registry } from 'prom-client';

export interface Series {
  observe(seconds: number): void;
}

interface SeriesData extends Series {
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  counts: Float64Array;
  sum: number;
  count: number;
}

export class LabelledHistogram<L extends string> {
  private readonly series: SeriesData[] = [];

  constructor(readonly name: string, readonly help: string, private readonly labelNames: readonly L[], private readonly buckets: readonly number[]) {}

  /** prom-client's Registry accepts any object with a name and get() (its aggregated registries do the same). */
  register(registry: Registry): void {
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** The series of one label set; keep it, observing through it costs no label work. */
  child(values: Record<L, string>): Series {
    const labels: Record<string, string> = {};
    for (const n of this.labelNames) labels[n] = values[n];
    const buckets = this.buckets;
    const s: SeriesData = {
      labels, counts: new Float64Array(buckets.length + 1), sum: 0, count: 0,
      observe(v: number) {
        let i = 0;
        while (i < buckets.length && v > buckets[i]) i++;
        s.counts[i]++;
        s.sum += v;
        s.count++;
      },
    };
    this.series.push(s);
    return s;
  }

  /** What prom-client's Registry renders (and its AggregatorRegistry sums across workers). */
  get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const s of this.series) {
      let cumulative = 0;
      for (let i = 0; i <= this.buckets.length; i++) {
        cumulative += s.counts[i];
        values.push({ labels: { le: i < this.buckets.length ? this.buckets[i] : '+Inf', ...s.labels }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
  }
}
