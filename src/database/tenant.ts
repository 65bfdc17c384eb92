// One tenant of an open database (docs/api.md, "Embedding API"): queries, optionally on a named
// snapshot; the change tail, polled or live; collections, schema status, snapshots and
// diffs. Every call obeys the tenant rules of src/tenants/rules.ts first, so this API
// and the HTTP routes (which only call it) answer alike.
import { longPollTail, subscribe, type EventHandler, type LongPollOptions, type SubscribeFilter, type SubscribeOptions, type Subscription, type TailPage } from '../cdc/index.js'
import type { Snapshot } from '../engine/index.js'
import type { Value } from '../lang/ast.js'
import { diff_rows_default, diff_rows_max } from '../limits.js'
import { appliedSchema } from '../migration/index.js'
import type { SchemaIR } from '../schema/ir.js'
import type { PreparedStatement, QueryResult, Transaction, TransactionOptions } from '../query/index.js'
import { listSnapshots, pinName, requireActive, requireCollection, requireQueryable, requireTenant, splitSource, TenantError } from '../tenants/index.js'
import { rowsTree, TxnView } from '../txn/index.js'
import { decodeKey, decodeRow } from '../codec/index.js'
import type { DatabaseParts } from './parts.js'
import { usageReport, type TenantUsageReport } from './usage.js'

export interface TenantQueryOptions {
  /** Read the named snapshot of this tenant instead of its head; writes are refused. */
  snapshot?: string
}

export interface DiffRequest {
  /** A snapshot of this tenant, or `tenant@snapshot` of another (a fork's source at the fork point). */
  from: string
  /** A snapshot name, or `head` (the default). */
  to?: string
  collection?: string
  /** Most rows in all (default diff_rows_default, at most diff_rows_max). */
  limit?: number
}

export interface DiffResult {
  from: { name: string; lsn: number }
  to: { name: string; lsn: number }
  collections: Record<string, { added: Array<Record<string, Value>>; removed: Array<Record<string, Value>>; changed: Array<{ key: Value; before: Record<string, Value>; after: Record<string, Value> }> }>
  truncated: boolean
}

export class Tenant {
  readonly name: string
  readonly #db: DatabaseParts

  /** Made by `db.tenant(name)`. */
  constructor(db: DatabaseParts, name: string) {
    this.#db = db
    this.name = name
  }

  /** This tenant's usage, what it holds and its limits (docs/operations.md, "Isolation"). */
  usage(): TenantUsageReport {
    return usageReport(this.#db, this.name, requireTenant(this.#db.committer.head(), this.name).limits)
  }

  /** Runs one pipeline or atomic block (docs/api.md for the result's shape). */
  async query(text: string, params: Record<string, Value> = {}, options: TenantQueryOptions = {}): Promise<QueryResult> {
    const head = this.#db.committer.head()
    requireQueryable(head, this.name)
    const snapshot = options.snapshot === undefined ? undefined : this.#pinned(head, options.snapshot)
    try {
      return await this.#db.runner.run(this.name, text, params, { time_ms_max: this.#db.query_time_ms_max, ...(snapshot === undefined ? {} : { snapshot }) })
    } finally {
      snapshot?.release()
    }
  }

  /**
   * `text` as a prepared statement (docs/api.md, "Prepared statements"): parsed now,
   * checked once per shape of its parameters, with synchronous `get`, `all` and
   * `iterate` for reads and `run` for writes. Resolves once the tenant's data is ready
   * (its lazy migration applied); a syntax error rejects with the EelError.
   */
  async prepare(text: string): Promise<PreparedStatement> {
    requireQueryable(this.#db.committer.head(), this.name)
    const statement = this.#db.runner.prepare(this.name, text, this.#db.query_time_ms_max)
    await statement.ready()
    return statement
  }

  /**
   * Runs `fn` as one transaction: the statements it runs through `tx.query` read one
   * snapshot and see each other's writes, and commit together when `fn` resolves, or not
   * at all (docs/api.md, "Transactions in code"). Resolves with what `fn` resolved with.
   */
  async transaction<T>(fn: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    requireQueryable(this.#db.committer.head(), this.name)
    return this.#db.runner.transaction(this.name, fn, { time_ms_max: this.#db.query_time_ms_max, ...options })
  }

  /** A page of change events after `after` (exclusive); waits up to `wait_ms` for one. */
  tail(options: LongPollOptions = {}): Promise<TailPage> {
    const { collection, ...rest } = options
    const only = oneCollection(collection)
    try {
      this.#tailable(only)
    } catch (err) {
      return Promise.reject(err)
    }
    return longPollTail(this.#db.engine, this.#db.notifier, this.name, only === undefined ? rest : { ...rest, collection: only })
  }

  /** The backlog after `after`, then live events, each once, in LSN order. */
  subscribe(filter: SubscribeFilter, onEvent: EventHandler, options: SubscribeOptions = {}): Subscription {
    const { collection, ...rest } = filter
    const only = oneCollection(collection)
    this.#tailable(only)
    return subscribe(this.#db.engine, this.#db.notifier, this.name, only === undefined ? rest : { ...rest, collection: only }, onEvent, options)
  }

  /** The change tail of an active tenant, of all its collections or of one the schema declares. */
  #tailable(collection: string | undefined): void {
    requireActive(this.#db.committer.head(), this.name)
    if (collection !== undefined) requireCollection(this.#db.schema.ir, collection)
  }

  /** Collections with row counts kept without scanning, and their indexes; applies a pending migration. */
  async collections(): Promise<{ tenant: string; collections: Array<{ name: string; rows: number; indexes: string[] }> }> {
    requireActive(this.#db.committer.head(), this.name)
    await this.#db.migrator.ensure(this.name)
    const snapshot = this.#db.committer.head()
    requireTenant(snapshot, this.name)
    const counts = new Map(snapshot.trees().map((t) => [t.name, t.count]))
    const collections = this.#db.schema.ir.collections.map((c) => ({
      name: c.name,
      rows: counts.get(rowsTree(this.name, c.name)) ?? 0,
      indexes: c.indexes.map((i) => i.name),
    }))
    return { tenant: this.name, collections }
  }

  /** The loaded schema and this tenant's migration status; never migrates (docs/api.md, "Tenants"). */
  schema(): { fingerprint: string; ir: SchemaIR; tenant: { applied_fingerprint: string | null; pending: boolean; blocked: string | null } } {
    const view = new TxnView(this.#db.committer.head())
    requireTenant(view.snapshot, this.name)
    const applied = appliedSchema(view, this.name)?.fingerprint ?? null
    const blocked = this.#db.migrator.blockedReason(this.name) ?? null
    return {
      fingerprint: this.#db.schema.fingerprint,
      ir: this.#db.schema.ir,
      tenant: { applied_fingerprint: applied, pending: applied !== this.#db.schema.fingerprint, blocked },
    }
  }

  snapshots(): { tenant: string; snapshots: Array<{ name: string; lsn: number; created_at: string }> } {
    const snapshot = this.#db.committer.head()
    requireTenant(snapshot, this.name)
    return { tenant: this.name, snapshots: listSnapshots(snapshot, this.name).map(({ name, lsn, created_at }) => ({ name, lsn, created_at })) }
  }

  /** Added, removed and changed rows between two versions (cost grows with the changes). */
  diff(request: DiffRequest): DiffResult {
    const head = this.#db.committer.head()
    requireActive(head, this.name)
    if (typeof request.from !== 'string' || request.from === '') {
      throw new TenantError('bad_request', 'diff needs from=<snapshot> (and optionally to=<snapshot|head>)')
    }
    const limit = request.limit ?? diff_rows_default
    if (!Number.isSafeInteger(limit) || limit < 1) throw new TenantError('bad_request', `limit must be an integer of at least 1, got ${String(limit)}`)
    const only = oneCollection(request.collection)
    if (only !== undefined) requireCollection(this.#db.schema.ir, only)
    // `other@snapshot`: that tenant's rows at its snapshot, against this tenant's.
    const [fromTenant, fromSnapshot] = request.from.includes('@') ? splitSource(request.from) : [this.name, request.from]
    if (fromTenant !== this.name) requireTenant(head, fromTenant)
    const from = pinnedOf(head, fromTenant, fromSnapshot ?? '')
    const toName = request.to ?? 'head'
    let to: Snapshot
    try {
      to = toName === 'head' ? head : this.#pinned(head, toName)
    } catch (err) {
      from.release()
      throw err
    }
    try {
      return this.#diff(request, only, Math.min(limit, diff_rows_max), from, fromTenant, to, toName)
    } finally {
      from.release()
      if (to !== head) to.release()
    }
  }

  #diff(request: DiffRequest, only: string | undefined, limit: number, from: Snapshot, fromTenant: string, to: Snapshot, toName: string): DiffResult {
    let left = limit
    let truncated = false
    const collections: DiffResult['collections'] = {}
    const names = only === undefined ? this.#db.schema.ir.collections.map((c) => c.name) : [only]
    for (const name of names) {
      const { entries, truncated: more } = from.diff(to, rowsTree(fromTenant, name), left, rowsTree(this.name, name))
      truncated ||= more
      const result: DiffResult['collections'][string] = { added: [], removed: [], changed: [] }
      for (const entry of entries) {
        if (entry.before === null) result.added.push(decodeRow(entry.after as Buffer))
        else if (entry.after === null) result.removed.push(decodeRow(entry.before))
        else result.changed.push({ key: decodeKey(entry.key)[0] ?? null, before: decodeRow(entry.before), after: decodeRow(entry.after) })
      }
      left -= entries.length
      collections[name] = result
      if (left <= 0) {
        truncated ||= names.indexOf(name) < names.length - 1
        break
      }
    }
    return { from: { name: request.from, lsn: from.lsn }, to: { name: toName, lsn: to.lsn }, collections, truncated }
  }

  /** The named snapshot's version, to be released by the caller. */
  #pinned(head: Snapshot, snapshot: string): Snapshot {
    return pinnedOf(head, this.name, snapshot)
  }
}

/** Snapshot `snapshot` of `tenant`, to be released by the caller. */
function pinnedOf(head: Snapshot, tenant: string, snapshot: string): Snapshot {
  const pinned = head.pin(pinName(tenant, snapshot))
  if (pinned === null) throw new TenantError('unknown_snapshot', `tenant '${tenant}' has no snapshot '${snapshot}'`)
  return pinned
}

/** The collection a tail or diff is limited to: none given, or empty, is every collection. */
function oneCollection(collection: string | undefined): string | undefined {
  return collection === '' ? undefined : collection
}
