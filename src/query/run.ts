// Running one query text for one tenant: parse, bring the tenant's data to the
// loaded schema (lazy migration, once), check, execute, and commit writes as one
// engine commit. Every statement or atomic block reads one snapshot for its whole
// life; writes are validated first-committer-wins (src/mvcc/) and become visible once
// durable.
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { CodecError } from '../codec/index.js'
import type { Engine, Snapshot } from '../engine/index.js'
import { ConflictError, ConflictLog } from '../mvcc/index.js'
import type { Statement, Value } from '../lang/ast.js'
import { EelError, diagnostic } from '../lang/diagnostic.js'
import type { SchemaIR } from '../schema/ir.js'
import { query_rows_max, query_time_ms_max } from '../limits.js'
import { AutoIds } from './auto-ids.js'
import { check, type CheckedStatement } from './check.js'
import { encodeCommitHeader } from './commit-header.js'
import { QueryError } from './errors.js'
import { execute, type StatementResult } from './execute.js'
import { KeyedMutex } from './keyed-mutex.js'
import { checkParamValues } from './param-values.js'
import { StatementCache } from './statement-cache.js'
import { appliedSchema, migrate } from './migrate.js'
import type { QueryResult } from './result.js'
import { TxnView } from './txn-view.js'

export interface LoadedSchema {
  ir: SchemaIR
  fingerprint: string
}

/** The conflict key that changes to a tenant's state (suspend, delete) write. */
export const tenantStateKey = (tenant: string) => `tenant ${tenant}`

/**
 * What the runner asks of the tenant catalog (src/tenants/, above this layer), on the
 * very snapshot a statement or migration reads: a write whose snapshot already holds
 * a suspend or delete fails instead of landing after it (one whose snapshot does not
 * hold it conflicts at commit).
 */
export interface TenantGuard {
  /** Whether `tenant` exists in `snapshot`: a tenant that does not is never migrated. */
  exists(snapshot: Snapshot, tenant: string): boolean
  /** Throws unless a statement may run on `tenant` in `snapshot` (it exists and is not suspended). */
  checkStatement(snapshot: Snapshot, tenant: string): void
}

/** Without a catalog (a bare runner), every tenant exists. */
const no_catalog: TenantGuard = { exists: () => true, checkStatement: () => {} }

export interface QueryOptions {
  /** Read this snapshot (a named snapshot's pin) instead of the newest version; writes are refused. */
  snapshot?: Snapshot
  /** The time `now()` returns (default: the start of the query). */
  now?: Date
  rows_max?: number
  time_ms_max?: number
}

/** What queries of one database share: the engine, the schema, the write locks. */
export class QueryRunner {
  readonly engine: Engine
  readonly schema: LoadedSchema
  readonly #locks = new KeyedMutex()
  /** First-committer-wins bookkeeping of every write of this database. */
  readonly conflicts = new ConflictLog()
  /** Tenants whose migration to the loaded schema is blocked, with the reason. */
  readonly #blocked = new Map<string, string>()
  readonly #migrated = new Set<string>()
  /** Parsed query texts (parsing depends on the text alone). */
  readonly statements = new StatementCache()
  /** Auto-id counters, outside every transaction's conflict set (auto-ids.ts). */
  readonly autoIds: AutoIds

  /** Called with the LSN and payload of every durable commit this runner makes (the change feed's wake-up). */
  readonly onCommit: (lsn: number, payload: Buffer) => void
  readonly #guard: TenantGuard

  constructor(engine: Engine, schema: LoadedSchema, onCommit: (lsn: number, payload: Buffer) => void = () => {}, guard: TenantGuard = no_catalog) {
    this.engine = engine
    this.schema = schema
    this.onCommit = onCommit
    this.#guard = guard
    this.autoIds = new AutoIds(() => engine.snapshot())
  }

  async #commit(view: TxnView, header: Buffer): Promise<number> {
    const payload = view.payload(header)
    const lsn = await this.engine.commitPayload(payload)
    this.onCommit(lsn, payload)
    return lsn
  }

  async run(tenant: string, text: string, params: Record<string, Value> = {}, options: QueryOptions = {}): Promise<QueryResult> {
    const started = Date.now()
    const statement = this.statements.statement(text)
    if (statement.kind === 'tenant_op' || statement.kind === 'collection_decl' || statement.kind === 'query_decl' || statement.kind === 'drop_collection_decl') {
      const tenantOp = statement.kind === 'tenant_op'
      throw new EelError([diagnostic(text, statement.span, 'not_allowed_here',
        tenantOp ? 'tenant operations are not allowed here' : 'schema declarations are not allowed here',
        { hint: tenantOp ? 'use POST /ops' : 'declare them in a schema file loaded at start' })])
    }
    if (!this.#migrated.has(tenant)) await this.ensureMigrated(tenant)
    checkParamValues(params)
    const checked = check(statement, this.schema.ir, text, params)
    const writes = isWrite(checked.statement)
    if (writes && options.snapshot !== undefined) {
      throw new QueryError('readonly_snapshot', 'writes are not allowed under a snapshot pin; the snapshot is read-only')
    }
    const now = options.now ?? new Date(started)
    const examined = { rows: 0 }
    // Held across every await of the statement: its pages stay where they are until it ends.
    const leased = options.snapshot === undefined ? this.engine.lease() : undefined
    const snapshot = options.snapshot ?? (leased as Snapshot)
    let release: (() => void) | undefined
    try {
      if (leased !== undefined) this.#guard.checkStatement(snapshot, tenant)
      // Only a writer is ever validated, so only a writer's snapshot keeps conflict entries alive.
      release = writes ? this.conflicts.begin(snapshot.lsn) : undefined
      const view = new TxnView(snapshot)
      const result = await execute(checked.statement, {
        view,
        tenant,
        eval: { params: checked.params, now, integerOps: checked.integerOps },
        deadline_ms: started + (options.time_ms_max ?? query_time_ms_max),
        rows_max: options.rows_max ?? query_rows_max,
        examined,
        ids: this.autoIds,
      })
      const lsn = view.opCount > 0 ? await this.#commitChecked(tenant, snapshot.lsn, view, encodeCommitHeader(tenant, now, 'write', view.changes)) : undefined
      return shown(result, lsn, { elapsed_ms: Date.now() - started, rows_examined: examined.rows })
    } catch (err) {
      // Values the codecs refuse (NaN, a lone surrogate, nesting too deep) came from the user.
      if (err instanceof CodecError) throw new QueryError('type_error', err.message)
      throw asQueryConflict(err)
    } finally {
      release?.()
      if (leased !== undefined) this.engine.unlease(leased)
    }
  }

  /**
   * First-committer-wins: validates the view's writes against every transaction its
   * snapshot does not contain and queues the commit in the same synchronous step.
   */
  async #commitChecked(tenant: string, snapshotLsn: number, view: TxnView, header: Buffer): Promise<number> {
    let accepted
    try {
      accepted = this.conflicts.accept(snapshotLsn, () => view.conflictKeys(), new Set([tenantStateKey(tenant), ...view.dependsOn]))
    } catch (err) {
      // A conflict is found without any I/O; a client retrying at once would spin on
      // microtasks and starve the event loop, so the commit it lost to could never
      // complete. One turn of the loop before failing keeps retry loops fair.
      await yieldToLoop()
      throw err
    }
    try {
      // Still in the validating step: the auto-id marks reach the engine in commit order.
      this.autoIds.persist(view, tenant)
      const lsn = await this.#commit(view, header)
      this.conflicts.settle(accepted, lsn)
      return lsn
    } catch (err) {
      this.conflicts.settle(accepted, null)
      throw err
    }
  }

  /**
   * Brings a tenant to the loaded schema once per process, as one atomic commit. A
   * migration racing a change of the tenant's state (a suspend, a delete) fails with
   * `conflict`, having changed nothing.
   */
  async ensureMigrated(tenant: string): Promise<void> {
    if (this.#migrated.has(tenant)) return
    const blocked = this.#blocked.get(tenant)
    if (blocked !== undefined) throw new QueryError('migration_blocked', blocked)
    try {
      await this.#locks.run(tenant, async () => {
        if (this.#migrated.has(tenant)) return
        const snapshot = this.engine.lease()
        try {
          const view = new TxnView(snapshot)
          // Migrating a deleted tenant would bring its meta tree back; the statement's own check reports it.
          if (!this.#guard.exists(view.snapshot, tenant)) return
          if (appliedSchema(view, tenant)?.fingerprint !== this.schema.fingerprint) {
            const outcome = await migrate(view, tenant, this.schema.ir, this.schema.fingerprint, new Date())
            if (outcome.blocked !== null) {
              this.#blocked.set(tenant, outcome.blocked)
              throw new QueryError('migration_blocked', outcome.blocked)
            }
            await this.#commitChecked(tenant, view.snapshot.lsn, view, encodeCommitHeader(tenant, new Date(), 'migration'))
            // A rename or drop moved or removed counters: read them again from the migrated data.
            this.autoIds.forget(tenant)
          }
          this.#migrated.add(tenant)
        } finally {
          this.engine.unlease(snapshot)
        }
      })
    } catch (err) {
      throw asQueryConflict(err)
    }
  }

  /**
   * Commits a view built outside a query (tenant operations), under the same
   * first-committer-wins rules. Resolves with its LSN.
   */
  commitView(tenant: string, view: TxnView, kind: 'catalog' | 'write'): Promise<number> {
    return this.#commitChecked(tenant, view.snapshot.lsn, view, encodeCommitHeader(tenant, new Date(), kind, view.changes))
  }

  /** Forgets what this runner knows of a tenant (after it was deleted or replaced). */
  forget(tenant: string): void {
    this.#migrated.delete(tenant)
    this.#blocked.delete(tenant)
    this.autoIds.forget(tenant)
  }

  /** The blocked reason of a tenant's migration, if it was tried and blocked. */
  blockedReason(tenant: string): string | undefined {
    return this.#blocked.get(tenant)
  }
}

/**
 * The response: the statement's result without its `writes` flag, with the LSN of a
 * write. Built field by field (an object rest and spread cost more than a point read).
 */
function shown(result: StatementResult, lsn: number | undefined, stats: QueryResult['stats']): QueryResult {
  const out: Omit<QueryResult, 'stats'> & { stats?: QueryResult['stats'] } = { columns: result.columns, rows: result.rows }
  if (result.plan !== undefined) out.plan = result.plan
  if (result.truncated !== undefined) out.truncated = result.truncated
  const results = (result as Pick<QueryResult, 'results'>).results // atomic blocks only
  if (results !== undefined) out.results = results
  if (lsn !== undefined) out.lsn = lsn
  out.stats = stats // last, as responses always showed it
  return out as QueryResult
}

/** A lost first-committer-wins race, as the query error users meet. */
function asQueryConflict(err: unknown): unknown {
  return err instanceof ConflictError ? new QueryError('conflict', err.message) : err
}

function isWrite(statement: CheckedStatement): boolean {
  switch (statement.kind) {
    case 'insert': case 'upsert': return true
    case 'pipeline': return ['update', 'delete'].includes(statement.stages.at(-1)?.kind ?? '')
    case 'atomic': return statement.statements.some(isWrite)
    case 'explain': return false
  }
}
