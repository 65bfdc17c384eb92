// Fills the trend ring (trend-ring.ts) once a second: what happened during the second
// (commits, conflicts, rows written, queries and their latency percentiles, fsyncs and
// theirs, checkpoints, page cache hits and misses, reads of nodes in memory) and where things stand at its end
// (WAL size and lag, page cache, page file size and free slots, tail subscribers).
// Commits come from the database's commit observer and queries from the server's
// request accounting; the rest is read from the engine's counters, as differences
// between two readings.
import type { CommitSettled, Database } from '../../database/index.js'
import { trend_interval_ms, trend_query_durations_max } from '../../limits.js'
import { TrendRing, type TrendSample } from './trend-ring.js'

interface EngineReading {
  fsync_count: number
  fsync_max_micros: number
  fsync_buckets: number[]
  checkpoints: number
  cache_hits: number
  cache_misses: number
  memory_reads: number
}

/** The value at quantile q (0..1) of `sorted`, by nearest rank; null for none. */
export function nearestRank(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? null
}

/**
 * The upper bound of the engine bucket holding quantile q of `counts` (the syncs of
 * one second, bucket by bucket); the unbounded last bucket answers the slowest sync
 * known. Null when there were none.
 */
export function bucketQuantile(bounds: ReadonlyArray<number | null>, counts: readonly number[], q: number, max_micros: number): number | null {
  const total = counts.reduce((sum, c) => sum + c, 0)
  if (total === 0) return null
  let seen = 0
  for (let i = 0; i < counts.length; i += 1) {
    seen += counts[i] ?? 0
    if (seen >= q * total) return Math.min(bounds[i] ?? max_micros, max_micros)
  }
  return max_micros
}

export class TrendSampler {
  readonly ring = new TrendRing()
  readonly #db: Database
  readonly #tailSubscribers: () => number
  readonly #timer: ReturnType<typeof setInterval>
  #commits = 0
  #conflicts = 0
  #rows = 0
  #queries = 0
  #durations: number[] = []
  #previous: EngineReading

  constructor(db: Database, tailSubscribers: () => number, interval_ms: number = trend_interval_ms) {
    this.#db = db
    this.#tailSubscribers = tailSubscribers
    this.#previous = this.#read().engine
    this.#timer = setInterval(() => this.sample(), interval_ms)
    // Never what keeps a process alive.
    this.#timer.unref()
  }

  /** A commit settled (the database's commit observer). */
  commit({ outcome, rows }: CommitSettled): void {
    if (outcome === 'committed') {
      this.#commits += 1
      this.#rows += rows
    } else if (outcome === 'conflict') {
      this.#conflicts += 1
    }
  }

  /** A query request was answered after `ms` milliseconds. */
  query(ms: number): void {
    this.#queries += 1
    if (this.#durations.length < trend_query_durations_max) {
      this.#durations.push(ms)
      return
    }
    // A uniform sample of the second's durations (reservoir sampling).
    const slot = Math.floor(Math.random() * this.#queries)
    if (slot < trend_query_durations_max) this.#durations[slot] = ms
  }

  /** Closes the second now: one sample into the ring (the timer calls it; tests may too). */
  sample(now: number = Date.now()): TrendSample {
    const { engine, detail } = this.#read()
    const before = this.#previous
    const durations = this.#durations.sort((a, b) => a - b)
    const fsyncCounts = engine.fsync_buckets.map((c, i) => c - (before.fsync_buckets[i] ?? 0))
    const bounds = detail.fsync.buckets.map((b) => b.le_micros)
    const sample: TrendSample = {
      t: Math.round(now / 1000),
      commits: this.#commits,
      conflicts: this.#conflicts,
      rows_written: this.#rows,
      queries: this.#queries,
      query_p50_ms: round3(nearestRank(durations, 0.5)),
      query_p99_ms: round3(nearestRank(durations, 0.99)),
      fsyncs: engine.fsync_count - before.fsync_count,
      fsync_p50_us: bucketQuantile(bounds, fsyncCounts, 0.5, engine.fsync_max_micros),
      fsync_p99_us: bucketQuantile(bounds, fsyncCounts, 0.99, engine.fsync_max_micros),
      wal_bytes: detail.wal.bytes,
      wal_lag_bytes: detail.wal.lag_bytes,
      checkpoints: engine.checkpoints - before.checkpoints,
      cache_hits: engine.cache_hits - before.cache_hits,
      cache_misses: engine.cache_misses - before.cache_misses,
      memory_reads: engine.memory_reads - before.memory_reads,
      cache_bytes: detail.cache.bytes,
      page_file_bytes: detail.pages.file_bytes,
      free_pages: detail.pages.free,
      tail_subscribers: this.#tailSubscribers(),
    }
    this.ring.push(sample)
    this.#previous = engine
    this.#commits = 0
    this.#conflicts = 0
    this.#rows = 0
    this.#queries = 0
    this.#durations = []
    return sample
  }

  close(): void {
    clearInterval(this.#timer)
  }

  /** One reading of the engine's figures (health detail: not stats, which lists the tenants). */
  #read() {
    const detail = this.#db.healthDetail()
    const engine: EngineReading = {
      fsync_count: detail.fsync.count,
      fsync_max_micros: detail.fsync.max_micros,
      fsync_buckets: detail.fsync.buckets.map((b) => b.count),
      checkpoints: detail.checkpoints.count,
      cache_hits: detail.cache.hits,
      cache_misses: detail.cache.misses,
      memory_reads: detail.cache.memory_reads,
    }
    return { engine, detail }
  }
}

function round3(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1000) / 1000
}
