// The requests' series (docs/operations.md, "Metrics"): tenantdb_http_requests_total by
// route pattern, method and status, and tenantdb_http_request_duration_seconds by route
// pattern and method. Every answered request is counted here, so the count costs no
// label object and no label hash (prom-client's Counter.inc and Histogram.observe build
// both per call): a map from route to method to its series, a map of statuses, an
// array of bucket counts. The registry reads them at scrape time, in the very shapes
// prom-client's Counter and Histogram give (engine-histogram.ts does the same for the
// engine's own buckets), so the exposition text is the one those classes wrote.
import type { Metric, Registry } from 'prom-client'

interface Series {
  readonly route: string
  readonly method: string
  /** Answers by status. */
  readonly statuses: Map<number, number>
  /** Durations per bucket: [i] those above bounds[i - 1] and at most bounds[i]; the last, above every bound. */
  readonly buckets: number[]
  sum: number
  count: number
}

interface Sample {
  metricName?: string
  labels: Record<string, string | number>
  sharedLabels?: Record<string, string>
  value: number
}

interface Reading {
  name: string
  help: string
  type: string
  aggregator: string
  values: Sample[]
}

/** One metric of the registry, read by `get` (the shape the registry reads from every metric). */
class Exposed {
  readonly aggregator = 'sum'

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram',
    private readonly values: () => Sample[],
    private readonly clear: () => void,
  ) {}

  async get(): Promise<Reading> {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.values() }
  }

  /** The registry's resetMetrics() calls it, as for prom-client's own metrics. */
  reset(): void {
    this.clear()
  }
}

export class RequestCounts {
  readonly #bounds: readonly number[]
  readonly #routes = new Map<string, Map<string, Series>>()

  /** `bounds`: the duration buckets' upper bounds, in seconds, ascending. */
  constructor(registry: Registry, bounds: readonly number[]) {
    this.#bounds = bounds
    const clear = () => this.#routes.clear()
    for (const metric of [
      new Exposed('tenantdb_http_requests_total', 'HTTP requests answered, by route pattern, method and status.', 'counter', () => this.#counts(), clear),
      new Exposed('tenantdb_http_request_duration_seconds', 'Time from a request\'s arrival until its answer was sent (a WebSocket tail: until it closed), by route pattern and method.', 'histogram', () => this.#durations(), clear),
    ]) registry.registerMetric(metric as unknown as Metric)
  }

  /** A request was answered with `status` after `seconds`. */
  add(route: string, method: string, status: number, seconds: number): void {
    let methods = this.#routes.get(route)
    if (methods === undefined) {
      methods = new Map()
      this.#routes.set(route, methods)
    }
    let series = methods.get(method)
    if (series === undefined) {
      series = { route, method, statuses: new Map(), buckets: new Array<number>(this.#bounds.length + 1).fill(0), sum: 0, count: 0 }
      methods.set(method, series)
    }
    series.statuses.set(status, (series.statuses.get(status) ?? 0) + 1)
    let bucket = 0
    while (bucket < this.#bounds.length && seconds > (this.#bounds[bucket] as number)) bucket += 1
    series.buckets[bucket] = (series.buckets[bucket] as number) + 1
    series.sum += seconds
    series.count += 1
  }

  * #series(): Generator<Series> {
    for (const methods of this.#routes.values()) yield* methods.values()
  }

  /** As prom-client's Counter gives them: one sample per label set. */
  #counts(): Sample[] {
    const values: Sample[] = []
    for (const { route, method, statuses } of this.#series()) {
      for (const [status, value] of statuses) values.push({ labels: { route, method, status }, value })
    }
    return values
  }

  /** As prom-client's Histogram gives them: cumulative buckets, +Inf, _sum and _count per label set. */
  #durations(): Sample[] {
    const name = 'tenantdb_http_request_duration_seconds'
    const values: Sample[] = []
    for (const { route, method, buckets, sum, count } of this.#series()) {
      const sharedLabels = { route, method }
      let cumulative = 0
      for (const [i, le] of this.#bounds.entries()) {
        cumulative += buckets[i] as number
        values.push({ metricName: `${name}_bucket`, labels: { le }, sharedLabels, value: cumulative })
      }
      values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf' }, sharedLabels, value: count })
      values.push({ metricName: `${name}_sum`, labels: {}, sharedLabels, value: sum })
      values.push({ metricName: `${name}_count`, labels: {}, sharedLabels, value: count })
    }
    return values
  }
}
