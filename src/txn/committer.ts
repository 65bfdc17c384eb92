// The one way a transaction view becomes an engine commit, for queries, lazy
// migrations and tenant operations alike: validate it first-committer-wins
// (src/mvcc/), persist the auto-id marks, queue it, all in one synchronous step; then,
// when the engine settles the commit durable, publish its (lsn, payload) to every
// subscriber (the change feed's wake-up and its recent-commits shortcut). A commit
// made elsewhere never reaches the subscribers, so every commit of the service is
// made here, and the engine is closed here too: subscribers hear that no commit will
// follow, so nothing waits for one forever. Observers (the metrics, docs/operations.md
// "Metrics") hear how every commit settled and how long it took.
import { performance } from 'node:perf_hooks'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { CloseReport, Engine, Snapshot } from '../engine/index.js'
import { ConflictError, ConflictLog } from '../mvcc/index.js'
import { AutoIds } from './auto-ids.js'
import { encodeCommitHeader, type CommitKind } from './commit-header.js'
import type { TxnView } from './txn-view.js'

/** The conflict key that changes to a tenant's state (suspend, delete) write, and every commit of the tenant depends on. */
export const tenantStateKey = (tenant: string) => `tenant ${tenant}`

export interface CommitListener {
  /** A durable commit: its LSN and the exact payload given to the engine. Must not throw. */
  committed(lsn: number, payload: Buffer): void
  /** The engine closed (or failed to close): no commit follows. Must not throw. */
  closed(): void
}

/** How a commit settled: durable, lost a first-committer-wins race (nothing written), or failed. */
export type CommitOutcome = 'committed' | 'conflict' | 'failed'

export interface CommitSettled {
  kind: CommitKind
  outcome: CommitOutcome
  /** From the call to commit() until it settled (durable, for a committed one). */
  seconds: number
  /** Rows the commit wrote (inserted, updated or deleted); written only if committed. */
  rows: number
}

/** Told of every commit made here once it settles. Must not throw. */
export type CommitObserver = (settled: CommitSettled) => void

export class Committer {
  readonly #engine: Engine
  /** First-committer-wins bookkeeping of every write of this database. */
  readonly conflicts = new ConflictLog()
  /** Auto-id counters, outside every transaction's conflict set (auto-ids.ts). */
  readonly autoIds: AutoIds
  readonly #listeners = new Set<CommitListener>()
  readonly #observers = new Set<CommitObserver>()

  constructor(engine: Engine) {
    this.#engine = engine
    this.autoIds = new AutoIds(() => engine.snapshot())
  }

  /**
   * The newest durable version, for reading within one synchronous stretch of code
   * (Engine.snapshot); code that reads across an await takes a `lease`.
   */
  head(): Snapshot {
    return this.#engine.snapshot()
  }

  /** The newest durable version, readable until `unlease`d. */
  lease(): Snapshot {
    return this.#engine.lease()
  }

  unlease(snapshot: Snapshot): void {
    this.#engine.unlease(snapshot)
  }

  /**
   * Marks a writer running on a snapshot at `lsn` (conflict entries it could meet are
   * kept until it ends); returns its release function.
   */
  begin(lsn: number): () => void {
    return this.conflicts.begin(lsn)
  }

  /** Tells `listener` of every durable commit made here, and of the close; returns the unsubscribe function. */
  subscribe(listener: CommitListener): () => void {
    this.#listeners.add(listener)
    return () => { this.#listeners.delete(listener) }
  }

  /** Tells `observer` how every commit made here from now on settles; returns the unsubscribe function. */
  observe(observer: CommitObserver): () => void {
    this.#observers.add(observer)
    return () => { this.#observers.delete(observer) }
  }

  /**
   * Commits `view` as a commit of `tenant`: validated against every transaction its
   * snapshot does not contain (its writes, its claims, its tenant's state and what it
   * depends on), queued in the same synchronous step, and resolved with its LSN once
   * durable. A lost race rejects with ConflictError, having written nothing.
   */
  async commit(view: TxnView, tenant: string, kind: CommitKind, at: Date = new Date()): Promise<number> {
    const started = performance.now()
    let accepted
    try {
      accepted = this.conflicts.accept(view.snapshot.lsn, () => view.conflictKeys(), new Set([tenantStateKey(tenant), ...view.dependencies()]))
    } catch (err) {
      this.#settled(kind, err instanceof ConflictError ? 'conflict' : 'failed', started, view.rowWrites)
      // A conflict is found without any I/O; a client retrying at once would spin on
      // microtasks and starve the event loop, so the commit it lost to could never
      // complete. One turn of the loop before failing keeps retry loops fair.
      await yieldToLoop()
      throw err
    }
    let lsn: number
    let payload: Buffer
    try {
      // Still in the validating step: the auto-id marks reach the engine in commit order.
      this.autoIds.persist(view, tenant)
      payload = view.payload(encodeCommitHeader(tenant, at, kind, view.opKinds(), view.restored))
      lsn = await this.#engine.commitPayload(payload)
    } catch (err) {
      this.conflicts.settle(accepted, null)
      this.#settled(kind, 'failed', started, view.rowWrites)
      throw err
    }
    this.conflicts.settle(accepted, lsn)
    this.#settled(kind, 'committed', started, view.rowWrites)
    for (const listener of this.#listeners) listener.committed(lsn, payload)
    return lsn
  }

  #settled(kind: CommitKind, outcome: CommitOutcome, started: number, rows: number): void {
    if (this.#observers.size === 0) return
    const settled = { kind, outcome, seconds: (performance.now() - started) / 1000, rows }
    for (const observer of this.#observers) observer(settled)
  }

  /**
   * Closes the engine (queued commits complete, a checkpoint, the lock released), then
   * tells every subscriber: after the close, so a reader it wakes meets the closed engine.
   */
  async close(): Promise<CloseReport> {
    try {
      return await this.#engine.close()
    } finally {
      for (const listener of this.#listeners) listener.closed()
    }
  }
}
