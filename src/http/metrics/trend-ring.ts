// The trend ring (docs/api.md, "Trends"): the server's figures once a second, the
// last trend_samples_max seconds of them, in memory only (a restart starts afresh).
// Stored by column, as the route answers and as charts draw them: one fixed-size
// array per figure, written round and round, so memory never grows.
import { trend_samples_max } from '../../limits.js'

/** Every figure of a sample, in the order the route lists them (docs/api.md). */
export const trend_figures = [
  /** End of the second, Unix seconds. */
  't',
  'commits', 'conflicts', 'rows_written',
  'queries', 'query_p50_ms', 'query_p99_ms',
  'fsyncs', 'fsync_p50_us', 'fsync_p99_us',
  'wal_bytes', 'wal_lag_bytes', 'checkpoints',
  'cache_hits', 'cache_misses', 'memory_reads', 'cache_bytes',
  'page_file_bytes', 'free_pages',
  'tail_subscribers',
] as const

export type TrendFigure = typeof trend_figures[number]
export type TrendSample = Record<TrendFigure, number | null>

export class TrendRing {
  readonly capacity: number
  readonly #columns: Record<TrendFigure, Array<number | null>>
  /** Samples ever pushed: the next one goes to written % capacity. */
  #written = 0

  constructor(capacity: number = trend_samples_max) {
    this.capacity = capacity
    this.#columns = Object.fromEntries(trend_figures.map((f) => [f, new Array<number | null>(capacity).fill(null)])) as Record<TrendFigure, Array<number | null>>
  }

  push(sample: TrendSample): void {
    const slot = this.#written % this.capacity
    for (const figure of trend_figures) this.#columns[figure][slot] = sample[figure]
    this.#written += 1
  }

  get size(): number {
    return Math.min(this.#written, this.capacity)
  }

  /** The samples whose `t` is after `after` (all when absent), oldest first, by column. */
  columns(after?: number): Record<TrendFigure, Array<number | null>> {
    const size = this.size
    const first = this.#written - size
    let from = first
    if (after !== undefined) {
      // t only grows along the ring: skip the samples at or before `after`.
      while (from < this.#written && (this.#columns.t[from % this.capacity] ?? 0) <= after) from += 1
    }
    const out = Object.fromEntries(trend_figures.map((f) => [f, [] as Array<number | null>])) as Record<TrendFigure, Array<number | null>>
    for (let i = from; i < this.#written; i += 1) {
      const slot = i % this.capacity
      for (const figure of trend_figures) out[figure].push(this.#columns[figure][slot] ?? null)
    }
    return out
  }
}
