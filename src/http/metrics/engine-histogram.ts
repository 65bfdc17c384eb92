// A Prometheus histogram whose buckets the storage engine already counts (the fsync
// latencies of health detail): read at scrape time and exposed as they are, so the
// bounds are the engine's own (inclusive, like Prometheus's `le`) and nothing is
// estimated. prom-client's Histogram only counts what it observes itself, so this is a
// collector of its own, in the shape the registry reads from every metric (name, help,
// type, and get() with the values).
import type { Metric, Registry } from 'prom-client'

/** One bucket as the engine counts it: inclusive upper bound (null: unbounded) and the values in it alone. */
export interface EngineBucket {
  le_micros: number | null
  count: number
}

export interface EngineHistogramReading {
  count: number
  sum_micros: number
  buckets: readonly EngineBucket[]
}

interface Sample {
  metricName: string
  labels: Record<string, string | number>
  value: number
}

export class EngineHistogram {
  readonly type = 'histogram'
  readonly aggregator = 'sum'

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => EngineHistogramReading,
  ) {}

  /** Adds it to `registry` (which takes any object of this shape, not only its own classes). */
  register(registry: Registry): void {
    registry.registerMetric(this as unknown as Metric)
  }

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const { count, sum_micros, buckets } = this.read()
    const values: Sample[] = []
    let cumulative = 0
    for (const bucket of buckets) {
      cumulative += bucket.count
      // The unbounded bucket is +Inf, which every histogram has.
      if (bucket.le_micros !== null) values.push({ metricName: `${this.name}_bucket`, labels: { le: bucket.le_micros / 1e6 }, value: cumulative })
    }
    values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf' }, value: count })
    values.push({ metricName: `${this.name}_sum`, labels: {}, value: sum_micros / 1e6 })
    values.push({ metricName: `${this.name}_count`, labels: {}, value: count })
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }

  /** The registry's resetMetrics() calls it; the engine's figures are not ours to reset. */
  reset(): void {}
}
