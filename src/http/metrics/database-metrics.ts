// What the database itself reports, read when Prometheus scrapes (docs/operations.md,
// "Metrics"): WAL, checkpoints, page file and cache, corruption, tenants, blocked
// migrations, the engine's fsync latencies. Every value comes from one reading of
// db.healthDetail() and db.stats() per scrape (the collect callbacks of a scrape run
// together; the reading is dropped once they have), so the figures of one scrape agree.
// Counters here count since the database was opened: a restart starts them again,
// which Prometheus's rate() takes as a reset. The one exception is corruption
// detections, kept in the directory (docs/api.md, "Health and stats"): only a restore or
// a new directory starts it again, and a name ending in _count is reserved for
// histograms and summaries (docs/operations.md, "Metrics").
import { Counter, Gauge, type Registry } from 'prom-client'
import type { Database } from '../../database/index.js'
import { EngineHistogram } from './engine-histogram.js'

interface Reading {
  detail: ReturnType<Database['healthDetail']>
  stats: ReturnType<Database['stats']>
  migrations_blocked: number
}

/** One reading of the database, shared by the collect callbacks of one scrape. */
class PerScrape {
  #reading: Reading | null = null

  constructor(private readonly db: Database) {}

  get(): Reading {
    if (this.#reading === null) {
      this.#reading = { detail: this.db.healthDetail(), stats: this.db.stats(), migrations_blocked: this.db.migrationsBlocked() }
      queueMicrotask(() => { this.#reading = null })
    }
    return this.#reading
  }
}

export function registerDatabaseMetrics(registry: Registry, db: Database): void {
  const scrape = new PerScrape(db)
  /** A gauge set from the reading at scrape time. */
  const gauge = (name: string, help: string, value: (r: Reading) => number) =>
    new Gauge({ name, help, registers: [registry], collect() { this.set(value(scrape.get())) } })
  /** A counter the engine keeps, set from the reading at scrape time. */
  const counter = (name: string, help: string, value: (r: Reading) => number) =>
    new Counter({
      name, help, registers: [registry],
      collect() {
        this.reset()
        this.inc(value(scrape.get()))
      },
    })

  gauge('tenantdb_wal_bytes', 'Bytes of WAL segments on disk.', (r) => r.detail.wal.bytes)
  gauge('tenantdb_wal_lag_bytes', 'WAL bytes after the last checkpoint: what recovery would replay.', (r) => r.detail.wal.lag_bytes)
  gauge('tenantdb_wal_current_lsn', 'LSN of the newest durable commit.', (r) => r.detail.wal.current_lsn)
  gauge('tenantdb_wal_checkpoint_lsn', 'LSN the last checkpoint covers.', (r) => r.detail.wal.checkpoint_lsn)
  counter('tenantdb_checkpoints_total', 'Checkpoints since the database was opened.', (r) => r.detail.checkpoints.count)
  gauge('tenantdb_page_file_bytes', 'Size of the page file in bytes.', (r) => r.detail.pages.file_bytes)
  new Gauge({
    name: 'tenantdb_pages', help: 'Page slots of the page file by state (live: in use; free: reusable now; pending, releasing: freed, held back).',
    labelNames: ['state'], registers: [registry],
    collect() {
      const { pages } = scrape.get().detail
      for (const state of ['live', 'free', 'pending', 'releasing'] as const) this.set({ state }, pages[state])
    },
  })
  counter('tenantdb_page_cache_hits_total', 'Page reads the page cache answered, since the database was opened.', (r) => r.stats.cache.hits)
  counter('tenantdb_page_cache_misses_total', 'Page reads that went to the page file, since the database was opened.', (r) => r.stats.cache.misses)
  counter('tenantdb_memory_node_reads_total', 'Node reads of nodes still in memory (written since the last checkpoint), which no cache serves, since the database was opened.', (r) => r.stats.cache.memory_reads)
  gauge('tenantdb_page_cache_bytes', 'Bytes of decoded pages in the page cache.', (r) => r.stats.cache.bytes)
  counter('tenantdb_corruption_detections_total', 'Detections of damaged page slots or WAL frames, kept in the directory across restarts; non-zero means data loss was detected.', (r) => r.detail.corruption.total)
  gauge('tenantdb_engine_fail_stopped', 'Whether the storage engine stopped writing (1: a failed write or fsync, or an internal error it caught; restart the server), else 0.', (r) => (r.detail.fail_stopped === null ? 0 : 1))
  gauge('tenantdb_tenants', 'Tenants in the catalog.', (r) => r.stats.tenants)
  gauge('tenantdb_migrations_blocked', 'Tenants whose lazy migration to the loaded schema is known to be blocked (checked at start, or tried).', (r) => r.migrations_blocked)

  const fsync = new EngineHistogram('tenantdb_fsync_duration_seconds', 'Durable WAL syncs by duration, as the engine counts them since the database was opened.', () => {
    const { fsync: f } = scrape.get().detail
    return { count: f.count, sum_micros: f.sum_micros, buckets: f.buckets }
  })
  fsync.register(registry)
}
