// The metrics of one server (docs/operations.md, "Metrics"), in a prom-client registry
// of its own (never the library's global one: several servers, a test's say, may run
// in one process). Events are counted as they happen: requests (by route pattern,
// method and status; request-counts.ts, with no allocation per request), commits (through the database's commit observer), change-tail
// subscribers and the events sent to them. What the database reports itself is read
// at scrape time (database-metrics.ts).
//
// Label values come from short fixed sets only: a route pattern (never the path a
// client sent, its tenant or its query string), a method, a status, a commit kind and
// outcome, a tail transport. So the number of series stays bounded whatever clients send.
// The one label that names tenants, `tenant` of the per-tenant series
// (tenant-metrics.ts), names at most `--metrics-tenants` of them and `other`.
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client'
import { RequestCounts } from './request-counts.js'
import type { CommitSettled, Database } from '../../database/index.js'
import type { ReplicationReporter } from '../../replication/index.js'
import { registerDatabaseMetrics } from './database-metrics.js'
import { TrendSampler } from './trend-sampler.js'
import { registerReplicationMetrics } from './replication-metrics.js'
import { registerTenantMetrics } from './tenant-metrics.js'

/** The label of a request no route matched (a 404, a 405, a refused path). */
export const unmatched_route = 'unmatched'

/** How a change-tail consumer reads: a WebSocket subscription, or an HTTP (long) poll. */
export type TailTransport = 'websocket' | 'poll'

/** What the change-tail routes report. */
export interface TailObserver {
  /** A consumer started reading (a WebSocket upgraded, a poll began). */
  opened(transport: TailTransport): void
  /** It stopped (the socket closed, the poll answered). */
  closed(transport: TailTransport): void
  /** `events` events were handed to it. */
  sent(transport: TailTransport, events: number): void
}

// Seconds. Requests: a point query takes tens of microseconds, a long poll up to 30 s.
const request_buckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
// Commits wait for the WAL's fsync: from tens of microseconds (a fast disk) up.
const commit_buckets = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
const commit_kinds = ['write', 'migration', 'catalog'] as const
const commit_outcomes = ['committed', 'conflict', 'failed'] as const
const tail_transports: readonly TailTransport[] = ['websocket', 'poll']

/** Metrics a worker thread counts itself; the opening thread adds them to its own (threads/). */
const thread_metric_names = new Set(['tenantdb_http_requests_total', 'tenantdb_http_request_duration_seconds', 'tenantdb_tail_subscribers', 'tenantdb_tail_events_sent_total'])

export type ThreadMetrics = Array<MetricObjectWithValues<MetricValue<string>>>

/** The figures of the other threads of a server on every core (src/http/threads/). */
export interface OtherThreads {
  /** Each worker's thread metrics, asked now. */
  metrics(): Promise<ThreadMetrics[]>
  /** Tail consumers reading on the workers, as last reported. */
  tailReaders(): number
}

export class ServerMetrics {
  readonly registry = new Registry()
  readonly #requests = new RequestCounts(this.registry, request_buckets)
  readonly #commits = new Counter({ name: 'tenantdb_commits_total', help: 'Commits by kind (write: queries; migration; catalog: tenant operations) and outcome (committed: durable; conflict: lost a first-committer-wins race; failed).', labelNames: ['kind', 'outcome'], registers: [this.registry] })
  readonly #commit_seconds = new Histogram({ name: 'tenantdb_commit_duration_seconds', help: 'Time from the start of a commit until it was durable (committed ones), by kind.', labelNames: ['kind'], buckets: commit_buckets, registers: [this.registry] })
  readonly #migrations = new Counter({ name: 'tenantdb_migrations_applied_total', help: 'Lazy migrations applied (one commit each).', registers: [this.registry] })
  readonly #tail_subscribers = new Gauge({ name: 'tenantdb_tail_subscribers', help: 'Change-tail consumers reading now: open WebSocket tails, polls in progress.', labelNames: ['transport'], registers: [this.registry] })
  readonly #tail_events = new Counter({ name: 'tenantdb_tail_events_sent_total', help: 'Change-tail events handed to consumers.', labelNames: ['transport'], registers: [this.registry] })
  readonly #unobserve: () => void
  /** Tail consumers reading now, both transports (the trends' figure). */
  #tailReaders = 0
  /** The one-second trend ring of GET /api/v1/trends (trend-sampler.ts). */
  readonly trends: TrendSampler
  /** The route pattern whose requests the trends count as queries. */
  readonly #queryRoute: string
  /** A server on every core: the workers' figures, added to this thread's. */
  #others: OtherThreads | null = null
  /** A worker thread: told each query's duration, for the opening thread's trends. */
  onQuery: ((ms: number) => void) | null = null

  /**
   * `namedTenants`: how many tenants the per-tenant series name (the rest are `other`);
   * null for none of those series (a worker thread: the opening thread holds every thread's usage).
   */
  constructor(db: Database, queryRoute: string, replication: ReplicationReporter | null = null, namedTenants: number | null = null) {
    this.#queryRoute = queryRoute
    this.trends = new TrendSampler(db, () => this.#tailReaders + (this.#others?.tailReaders() ?? 0))
    // Every series of a fixed label set exists from the start, at 0, so a rate over the
    // first event is right and a dashboard never meets a missing series.
    for (const kind of commit_kinds) {
      for (const outcome of commit_outcomes) this.#commits.inc({ kind, outcome }, 0)
      this.#commit_seconds.zero({ kind })
    }
    for (const transport of tail_transports) {
      this.#tail_subscribers.set({ transport }, 0)
      this.#tail_events.inc({ transport }, 0)
    }
    registerDatabaseMetrics(this.registry, db)
    if (replication !== null) registerReplicationMetrics(this.registry, replication)
    if (namedTenants !== null) registerTenantMetrics(this.registry, db, namedTenants)
    this.#unobserve = db.observeCommits((settled) => {
      this.#commitSettled(settled)
      this.trends.commit(settled)
    })
  }

  /** A request was answered: `route` is its route pattern or unmatched_route. */
  requestEnded(route: string, method: string, status: number, seconds: number): void {
    this.#requests.add(route, method, status, seconds)
    if (route === this.#queryRoute) {
      this.trends.query(seconds * 1000)
      this.onQuery?.(seconds * 1000)
    }
  }

  /** Tail consumers reading on this thread now. */
  get tailReaders(): number {
    return this.#tailReaders
  }

  /** The opening thread of a server on every core: scrapes and trends include the workers'. */
  joinThreads(others: OtherThreads): void {
    this.#others = others
  }

  /** What a worker thread counts itself (requests, tails), for the opening thread to add up. */
  async threadMetrics(): Promise<ThreadMetrics> {
    return (await this.registry.getMetricsAsJSON()).filter((m) => thread_metric_names.has(m.name))
  }

  readonly tail: TailObserver = {
    opened: (transport) => {
      this.#tailReaders += 1
      this.#tail_subscribers.inc({ transport })
    },
    closed: (transport) => {
      this.#tailReaders -= 1
      this.#tail_subscribers.dec({ transport })
    },
    sent: (transport, events) => { if (events > 0) this.#tail_events.inc({ transport }, events) },
  }

  #commitSettled({ kind, outcome, seconds }: CommitSettled): void {
    this.#commits.inc({ kind, outcome })
    if (outcome !== 'committed') return
    this.#commit_seconds.observe({ kind }, seconds)
    if (kind === 'migration') this.#migrations.inc()
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ text: string; contentType: string }> {
    if (this.#others === null) return { text: await this.registry.metrics(), contentType: this.registry.contentType }
    // Counters and histograms add up; so do the tail gauges. The database's figures are
    // this thread's alone (a worker reports none of them), so they are not doubled.
    const all = [await this.registry.getMetricsAsJSON(), ...await this.#others.metrics()]
    return { text: await AggregatorRegistry.aggregate(all).metrics(), contentType: this.registry.contentType }
  }

  /** Stops observing the database (the server closed). */
  close(): void {
    this.#unobserve()
    this.trends.close()
  }
}
