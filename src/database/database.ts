// The embedding API (docs/api.md, "Embedding API"): what the HTTP server and embedders call.
//
//   const db = await Database.open('./data', { schema: ['app.eel'] })
//   const r = await db.tenant('default').query('users | where age > $a | take 5', { a: 30 })
//   await db.ops({ op: 'fork', name: 'default', target: 'staging' })
//   const page = await db.tenant('default').tail({ after: 0, collection: 'users' })
//   await db.close()
import type { BackupArchive } from '../backup/index.js'
import { CommitNotifier } from '../cdc/index.js'
import { Engine, type SharedEngine, type CloseReport, type EngineOptions, type EngineStats, type WorkProgress } from '../engine/index.js'
import type { Value } from '../lang/ast.js'
import { EelError, diagnostic } from '../lang/diagnostic.js'
import { appliedSchema, Migrator, type FrozenAt } from '../migration/index.js'
import { QueryRunner, type QueryResult } from '../query/index.js'
import { Governor, type IsolationOptions, type SharedIsolation, type TenantUsage } from '../isolation/index.js'
import { loadSchema, type LoadedSchema } from '../schema/index.js'
import { default_tenant, listTenants, opRequestOf, readTenant, readTenantCached, requireQueryable, runTenantOp, writeTenant, type OpResult, type TenantOpContext, type TenantOpRequest, type TenantRecord } from '../tenants/index.js'
import { Committer, commits_elsewhere, metaTree, tenantsWithData, TxnView, type CommitObserver } from '../txn/index.js'
import { query_time_ms_max } from '../limits.js'
import { version } from '../version.js'
import { archiveOf } from './backup.js'
import { registerParts } from './internals.js'
import type { DatabaseParts } from './parts.js'
import { Replica } from './replica.js'
import { Tenant } from './tenant.js'
import { usageReport, type TenantUsageReport } from './usage.js'

export interface OpenOptions extends EngineOptions {
  /** Schema files (`.eel`), loaded now. */
  schema?: string[]
  /**
   * Instead of schema files: the schema this tenant was last migrated to (none if it
   * never was), and no migration at all: any other tenant at another schema answers
   * `migration_blocked` (docs/language.md, "Lazy migration"). What `tenantdb query`
   * opens a directory with when given no `--schema`.
   */
  appliedSchemaOf?: string
  /** Time one query may run before `query_timeout` (default query_time_ms_max). */
  queryTimeMsMax?: number
  /** Every tenant's default limits and how long a statement waits for its budget (docs/operations.md, "Isolation"). */
  isolation?: IsolationOptions
}

/**
 * What another thread of this process needs to read this database (`Database.attach`),
 * as `postMessage` carries it: what the engine is attached by, the loaded schema, the
 * query time limit and the count of catalog changes (Committer.catalogGeneration).
 */
export interface SharedDatabase {
  engine: SharedEngine
  schema: LoadedSchema
  query_time_ms_max: number
  generation: SharedArrayBuffer
  /** The budgets every thread charges, and the server's default limits. */
  isolation: SharedIsolation
}

/** A tenant whose data a migration to the loaded schema would not bring over, and why. */
export interface BlockedMigration {
  tenant: string
  reason: string
}

export class Database {
  /** The schema files loaded at open, as IR with its fingerprint. */
  readonly schema: LoadedSchema
  readonly #parts: DatabaseParts
  readonly #ops: TenantOpContext
  readonly #opened_ms = Date.now()
  /** What replication drives (docs/replication.md). */
  readonly replica: Replica

  private constructor(engine: Engine, committer: Committer, schema: LoadedSchema, query_time_ms_max: number, frozen: FrozenAt | undefined, governor: Governor) {
    this.schema = schema
    // A tenant with data but no record (written by a QueryRunner without the catalog) is still migrated.
    const migrator = new Migrator(committer, schema, (snapshot, name) => readTenantCached(snapshot, name) !== null || snapshot.treeInfo(metaTree(name)) !== null, frozen)
    const runner = new QueryRunner(committer, schema, {
      ready: (name) => migrator.ready(name),
      checkStatement: (snapshot, name) => requireQueryable(snapshot, name),
      limits: (snapshot, name) => readTenantCached(snapshot, name)?.limits,
    }, governor)
    this.#ops = {
      committer,
      schema: schema.ir,
      engine,
      forget: (name) => {
        migrator.forget(name)
        committer.autoIds.forget(name)
        committer.live.forget(name)
      },
    }
    this.#parts = { engine, committer, runner, migrator, notifier: CommitNotifier.following(committer), schema, query_time_ms_max, ops: this.#ops }
    registerParts(this, this.#parts)
    this.replica = new Replica(this.#parts, () => this.#ensureDefaultTenant())
  }

  /** Opens (creating if needed) a database directory and loads the schema files. */
  static async open(dir: string, options: OpenOptions = {}): Promise<Database> {
    const { schema: paths = [], appliedSchemaOf, queryTimeMsMax = query_time_ms_max, isolation, ...engineOptions } = options
    if (appliedSchemaOf !== undefined && paths.length > 0) throw new TypeError('open with schema files or appliedSchemaOf, not both')
    const files = await loadSchema(paths)
    const engine = await Engine.open(dir, engineOptions)
    try {
      const committer = new Committer(engine)
      const applied = appliedSchemaOf === undefined ? undefined : appliedSchema(new TxnView(committer.head()), appliedSchemaOf)
      const schema = applied === undefined || applied === null ? files : { ...applied, files: [] }
      const frozen = appliedSchemaOf === undefined ? undefined : { tenant: appliedSchemaOf, fingerprint: applied?.fingerprint ?? null }
      const db = new Database(engine, committer, schema, queryTimeMsMax, frozen, new Governor(isolation))
      // A follower commits nothing: its primary made the tenant, or makes it once promoted.
      if (engineOptions.follower !== true) await db.#ensureDefaultTenant()
      return db
    } catch (err) {
      await engine.close()
      throw err
    }
  }

  /**
   * The database another thread of this process opened and `share`d, read here through
   * the same engine (docs/architecture.md, "Every core"). Everything that only reads
   * works as on the opener; anything that would commit (a write, a lazy migration, a
   * tenant operation, a token change) fails with CommitElsewhereError before writing,
   * to be run again on the opener. Caches a catalog change makes stale are forgotten
   * before the next read after it; the change tail hears the opener's commits through
   * `heard`. `close()` lets go of the engine and leaves the database open.
   */
  static attach(shared: SharedDatabase): Database {
    const engine = Engine.attach(shared.engine)
    const committer = new Committer(engine)
    const db = new Database(engine, committer, shared.schema, shared.query_time_ms_max, undefined, new Governor({}, shared.isolation))
    const { migrator } = db.#parts
    committer.setGate(commits_elsewhere, () => {})
    committer.followGeneration(shared.generation, () => {
      migrator.forgetAll()
      committer.autoIds.forgetAll()
    })
    return db
  }

  /** What `Database.attach` needs on another thread; the opener keeps serving commits. */
  share(): SharedDatabase {
    const { engine, committer, schema, query_time_ms_max, runner } = this.#parts
    return { engine: engine.share(), schema, query_time_ms_max, generation: committer.shareGeneration(), isolation: runner.governor.share() }
  }

  /**
   * On an attached database: a durable commit the opener made, in LSN order (its
   * `Replica.subscribe` delivers them), for the change tail here.
   */
  heard(lsn: number, payload: Buffer): void {
    this.#parts.committer.heard(lsn, payload)
  }

  /** The tenant `default` always exists. */
  async #ensureDefaultTenant(): Promise<void> {
    const { committer } = this.#parts
    const snapshot = committer.lease()
    try {
      const view = new TxnView(snapshot)
      if (readTenant(view, default_tenant) !== null) return
      writeTenant(view, { name: default_tenant, state: 'active', created_at: new Date().toISOString(), parent: null })
      await committer.commit(view, default_tenant, 'catalog')
    } finally {
      committer.unlease(snapshot)
    }
  }

  tenant(name: string): Tenant {
    return new Tenant(this.#parts, name)
  }

  /** Tenant operations (docs/api.md, "Operations"); a request of any other shape is a TenantError `bad_request`. */
  async ops(request: TenantOpRequest): Promise<OpResult> {
    // Refused before any work on a node that may not commit (a replication follower).
    this.#parts.committer.admit()
    const result = await runTenantOp(this.#ops, request)
    // A tenant made later under the same name starts its usage at 0.
    const { op, name } = request as { op?: unknown; name?: unknown }
    if (op === 'delete' && typeof name === 'string' && !name.includes('@')) this.#parts.runner.governor.usage.forget(name)
    return result
  }

  /**
   * The tenants whose lazy migration to the loaded schema would be blocked, with the
   * reason, computed as the migration would be but applying nothing (`serve` logs them
   * at start). Migrations stay lazy: each is applied when its tenant is first touched.
   */
  async blockedMigrations(): Promise<BlockedMigration[]> {
    const { committer, migrator } = this.#parts
    const blocked: BlockedMigration[] = []
    for (const tenant of tenantsWithData(committer.head())) {
      const reason = await migrator.check(tenant)
      if (reason !== null) blocked.push({ tenant, reason })
    }
    return blocked
  }

  /**
   * How many tenants' lazy migrations are known to be blocked: found by
   * `blockedMigrations()` (which `serve` runs at start) or by a query that touched the
   * tenant. Cheap: nothing is computed.
   */
  migrationsBlocked(): number {
    return this.#parts.migrator.blockedCount
  }

  /**
   * Tells `observer` how every commit of this database settles from now on (queries,
   * migrations, tenant operations): its kind, `committed`, `conflict` or `failed`, and
   * the seconds from the start of the commit until then. Returns the unsubscribe
   * function. The observer runs on the commit path: it must be quick and must not throw.
   */
  observeCommits(observer: CommitObserver): () => void {
    return this.#parts.committer.observe(observer)
  }

  /**
   * One statement as the embedded `db.run` accepts it (docs/language.md): a query of
   * tenant `default` (or `options.tenant`), or a tenant operation.
   */
  async run(text: string, params: Record<string, Value> = {}, options: { tenant?: string } = {}): Promise<QueryResult | OpResult> {
    const statement = this.#parts.runner.statements.statement(text)
    if (statement?.kind === 'tenant_op') return this.ops(opRequestOf(statement))
    if (statement !== undefined && statement.kind !== 'pipeline' && statement.kind !== 'insert' && statement.kind !== 'upsert' && statement.kind !== 'explain' && statement.kind !== 'atomic') {
      throw new EelError([diagnostic(text, statement.span, 'not_allowed_here', 'schema declarations are not allowed here', { hint: 'declare them in a schema file loaded at start' })])
    }
    return this.tenant(options.tenant ?? default_tenant).query(text, params)
  }

  tenants(): { tenants: Array<TenantRecord & { schema: { fingerprint: string | null; pending: boolean } }> } {
    const snapshot = this.#parts.committer.head()
    return {
      tenants: listTenants(snapshot).map((record) => {
        const applied = this.tenant(record.name).schema().tenant.applied_fingerprint
        return { ...record, schema: { fingerprint: applied, pending: applied !== this.schema.fingerprint } }
      }),
    }
  }

  /** Liveness (docs/api.md, "Health and stats"). */
  health(): { ok: true; tenant: string; version: string } {
    return { ok: true, tenant: default_tenant, version }
  }

  /** Health detail (docs/api.md, "Health and stats"). */
  healthDetail() {
    const s = this.#parts.engine.stats()
    // Why the engine stopped writing (a failed fsync, a caught panic), or null.
    const fail_stopped = this.#parts.engine.failStopped()
    return {
      ok: fail_stopped === null,
      fail_stopped,
      corruption: {
        total: s.corruption_total,
        reports: s.corruption.map((r) => ({
          id: r.id, file: r.file, page: r.page, kind: r.kind, count: r.count,
          first_seen: new Date(r.first_seen_ms).toISOString(), last_seen: new Date(r.last_seen_ms).toISOString(),
        })),
      },
      wal: { current_lsn: s.current_lsn, checkpoint_lsn: s.checkpoint_lsn, lag_bytes: s.lag_bytes, bytes: s.wal_bytes },
      recovery: { replayed_frames: s.replayed_frames, open_micros: s.open_micros },
      fsync: { count: s.fsync.count, sum_micros: s.fsync.sum_micros, max_micros: s.fsync.max_micros, buckets: s.fsync.buckets },
      checkpoints: s.checkpoints,
      cache: s.cache,
      page_count: s.page_count,
      pages: pagesOf(s),
      db_dir: s.db_dir,
      isolation: { defaults: this.#parts.runner.governor.defaults, budget_wait_ms_max: this.#parts.runner.governor.wait_ms_max },
    }
  }

  /**
   * Every tenant's usage since the server started, what it holds and the limits that
   * apply to it (docs/operations.md, "Isolation"). On the opening thread of a server,
   * the statements of every thread (workers post theirs).
   */
  usage(): TenantUsageReport[] {
    return listTenants(this.#parts.committer.head()).map((record) => usageReport(this.#parts, record.name, record.limits))
  }

  /**
   * What this thread's statements used since the last call, per tenant: an attached
   * database's (a worker thread's) for the opening thread's `mergeUsage`
   * (docs/architecture.md, "Every core"). Always empty on the opener.
   */
  drainUsage(): Array<[string, TenantUsage]> {
    return this.#parts.runner.governor.usage.drain()
  }

  /** Counts what another thread's statements used (its `drainUsage`) as this database's. */
  mergeUsage(deltas: ReadonlyArray<[string, TenantUsage]>): void {
    this.#parts.runner.governor.usage.merge(deltas)
  }

  /** Stats (docs/api.md, "Health and stats"). */
  stats() {
    const s = this.#parts.engine.stats()
    return {
      page_count: s.page_count,
      wal_bytes: s.wal_bytes,
      checkpoint_lsn: s.checkpoint_lsn,
      corruption_count: s.corruption_total,
      db_dir: s.db_dir,
      tenants: listTenants(this.#parts.committer.head()).length,
      cache: s.cache,
      pages: pagesOf(s),
      uptime_s: Math.floor((Date.now() - this.#opened_ms) / 1000),
      refusals: this.#refusals(),
    }
  }

  /** Statements refused or stopped by a limit since the server started, every tenant's, by code. */
  #refusals(): { rate_limited: number; quota_exceeded: number; statement_limit: number } {
    const out = { rate_limited: 0, quota_exceeded: 0, statement_limit: 0 }
    for (const [, used] of this.#parts.runner.governor.usage.entries()) {
      for (const code of refusal_codes) out[code] += used[code]
    }
    return out
  }

  /**
   * An online backup (docs/operations.md, "Backup and restore"): once a running
   * checkpoint or compaction has finished, an archive of the whole directory at one
   * LSN (`lsn`: every commit acknowledged before this call, named snapshots included)
   * of exactly `bytes` bytes (docs/format.md, "Backup archive"). Reads and writes go on
   * while it streams; checkpoints and compaction wait until it ends. Read the stream to
   * its end, or destroy it: either ends the backup.
   */
  async backup(): Promise<BackupArchive> {
    return archiveOf(await this.#parts.engine.beginBackup())
  }

  /**
   * The long work running now and how far it has come, or null: a compaction's tree
   * rewrite (entries), a checkpoint writing or moving pages (pages). Reads counters the
   * storage core keeps, never waiting: poll it while `ops({op: 'compact'})` runs, for a
   * progress line (docs/architecture.md, "Progress").
   */
  progress(): WorkProgress | null {
    return this.#parts.engine.progress()
  }

  /**
   * Completes queued commits, checkpoints and releases the directory lock. On a full
   * disk the checkpoint is skipped and the report says so (nothing is lost).
   */
  close(): Promise<CloseReport> {
    return this.#parts.committer.close()
  }
}

const refusal_codes = ['rate_limited', 'quota_exceeded', 'statement_limit'] as const satisfies ReadonlyArray<keyof TenantUsage>

/**
 * The page file by its slots (docs/format.md, "Space map"): its size, the slots in use,
 * the free ones a checkpoint reuses, and those freed but held back (for the older meta
 * record, or a reader of an older version) or not yet released.
 */
function pagesOf(s: EngineStats): { file_bytes: number; live: number; free: number; pending: number; releasing: number } {
  return { file_bytes: s.page_file_bytes, ...s.space }
}
