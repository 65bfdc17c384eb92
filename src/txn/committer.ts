// The one way a transaction view becomes an engine commit, for queries, lazy
// migrations and tenant operations alike: validate it first-committer-wins
// (src/mvcc/), persist the auto-id marks, queue it, all in one synchronous step; then,
// when the engine settles the commit durable, publish its (lsn, payload) to every
// subscriber (the change feed's wake-up and its recent-commits shortcut). A commit
// made elsewhere never reaches the subscribers, so every commit of the service is
// made here, and the engine is closed here too: subscribers hear that no commit will
// follow, so nothing waits for one forever. Observers (the metrics, docs/operations.md
// "Metrics") hear how every commit settled and how long it took. `catalogGeneration`
// counts the commits and applied frames that may change the catalog (every kind but
// `write`): a cache of what the catalog says (the HTTP layer's verified tokens) is
// good while the number stays the one it was filled at.
import { performance } from 'node:perf_hooks'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { CodedError } from '../coded-error.js'
import { commitMeta, type CloseReport, type Engine, type Snapshot } from '../engine/index.js'
import { ConflictError, ConflictLog } from '../mvcc/index.js'
import { AutoIds } from './auto-ids.js'
import type { CommitGate } from './commit-gate.js'
import { LiveUsage, type StorageQuota, type Stored } from './live-usage.js'
import { decodeCommitHeader, encodeCommitHeader, type CommitKind } from './commit-header.js'
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

/** A synchronous commit asked of a replicated database: nothing was written; use the asynchronous commit. */
export class SyncCommitRefusedError extends CodedError<'not_allowed_here'> {
  constructor() {
    super('not_allowed_here', 'a synchronous commit cannot wait for replication: this database replicates; use run() instead of runSync()')
  }
}

/** What a commit grew its tenant by, once counted (undone if it is not written). */
interface Growth { stored: Stored | undefined }

type Accepted = ReturnType<ConflictLog['accept']>

/** Told of every commit made here once it settles. Must not throw. */
export type CommitObserver = (settled: CommitSettled) => void

export class Committer {
  readonly #engine: Engine
  /** First-committer-wins bookkeeping of every write of this database. */
  readonly conflicts = new ConflictLog()
  /** Auto-id counters, outside every transaction's conflict set (auto-ids.ts). */
  readonly autoIds: AutoIds
  /** What each tenant holds (its storage quota and usage). */
  readonly live: LiveUsage
  readonly #listeners = new Set<CommitListener>()
  readonly #observers = new Set<CommitObserver>()
  /** Replication's say on commits (commit-gate.ts); none on a server of its own. */
  #gate: CommitGate | null = null
  /**
   * The LSN this node became primary at: a transaction whose snapshot is older was
   * begun while frames were applied past the conflict log, so it cannot be validated
   * and loses as a conflict (docs/replication.md, "Failover").
   */
  #writable_from = 0
  /** Told of the tenant of every frame applied from a primary that changes a catalog or schema. */
  #frame_tenant: (tenant: string) => void = () => {}
  /**
   * Counts commits and applied frames that are not plain writes (a tenant operation,
   * a token change, a migration): caches of what they change (verified tokens, lazy
   * migration, auto ids) are good while it stays the same. Kept in a shared buffer once
   * other threads read this database (`shareGeneration`), read from one when attached.
   */
  #generation: Int32Array<ArrayBufferLike> = new Int32Array(1)
  /** Attached: the opener's count last seen here, and who forgets when it moves. */
  #seen_generation = 0
  #generation_moved: (() => void) | null = null

  constructor(engine: Engine) {
    this.#engine = engine
    this.autoIds = new AutoIds(() => engine.snapshot())
    this.live = new LiveUsage(() => engine.snapshot())
  }

  /**
   * The newest durable version, for reading within one synchronous stretch of code
   * (Engine.snapshot); code that reads across an await takes a `lease`.
   */
  head(): Snapshot {
    this.#followGeneration()
    return this.#engine.snapshot()
  }

  /** The newest durable version, readable until `unlease`d. */
  lease(): Snapshot {
    this.#followGeneration()
    return this.#engine.lease()
  }

  /**
   * A number that changes whenever a commit that is not a `write` (a catalog or a
   * migration commit, made here or applied from a primary) becomes part of the newest
   * version: bumped once it is, so a reader that sees the number unchanged since it last
   * read the catalog knows the catalog is the same (the commit's own caller hears of it
   * only after the bump).
   * (See #generation: on a server on every core, one count for every thread.)
   */
  get catalogGeneration(): number {
    return Atomics.load(this.#generation, 0)
  }

  /** The generation count in memory other threads can read (`followGeneration`). */
  shareGeneration(): SharedArrayBuffer {
    if (!(this.#generation.buffer instanceof SharedArrayBuffer)) {
      const shared = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT))
      shared[0] = this.#generation[0] as number
      this.#generation = shared
    }
    return this.#generation.buffer as SharedArrayBuffer
  }

  /**
   * Attached from another thread: the opener's generation count, read before every
   * snapshot is handed out; `moved` runs before the first read after it changed, so no
   * read here trusts a cache that a tenant operation made stale, even one whose news
   * (`heard`) has not arrived yet.
   */
  followGeneration(shared: SharedArrayBuffer, moved: () => void): void {
    this.#generation = new Int32Array(shared)
    this.#seen_generation = Atomics.load(this.#generation, 0)
    this.#generation_moved = moved
  }

  #followGeneration(): void {
    if (this.#generation_moved === null) return
    const now = Atomics.load(this.#generation, 0)
    if (now === this.#seen_generation) return
    this.#seen_generation = now
    this.#generation_moved()
  }

  /** A commit or frame that is not a plain write became durable. */
  #catalogChanged(): void {
    Atomics.add(this.#generation, 0, 1)
  }

  /**
   * A durable commit another thread of this process made on the shared engine (an
   * attached database, docs/architecture.md "Every core"): the subscribers (the change
   * tail) hear of it as of one made here, in LSN order.
   */
  heard(lsn: number, payload: Buffer): void {
    this.#engine.headMoved()
    for (const listener of this.#listeners) listener.committed(lsn, payload)
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
  async commit(view: TxnView, tenant: string, kind: CommitKind, at: Date = new Date(), quota?: StorageQuota): Promise<number> {
    const started = performance.now()
    let accepted
    try {
      accepted = this.#accept(view, tenant)
    } catch (err) {
      this.#settled(kind, err instanceof ConflictError ? 'conflict' : 'failed', started, view.rowWrites)
      // A conflict is found without any I/O; a client retrying at once would spin on
      // microtasks and starve the event loop, so the commit it lost to could never
      // complete. One turn of the loop before failing keeps retry loops fair.
      await yieldToLoop()
      throw err
    }
    const growth: Growth = { stored: undefined }
    let lsn: number
    let payload: Buffer
    try {
      payload = this.#payload(view, tenant, kind, at, quota, growth)
      lsn = await this.#engine.commitPayload(payload)
    } catch (err) {
      this.#failed(accepted, tenant, growth, kind, started, view)
      throw err
    }
    this.#durable(accepted, lsn, kind)
    for (const listener of this.#listeners) listener.committed(lsn, payload)
    if (this.#gate !== null) {
      try {
        await this.#gate.acknowledged(lsn)
      } catch (err) {
        this.#settled(kind, 'failed', started, view.rowWrites)
        throw err
      }
    }
    this.#settled(kind, 'committed', started, view.rowWrites)
    return lsn
  }

  /**
   * `commit` on this thread, for an embedder's synchronous write (docs/architecture.md,
   * "Synchronous commits"): validated the same way, written and synced before this
   * returns its LSN, blocking the thread meanwhile. The subscribers hear of it when its
   * completion arrives, in LSN order with the commits before it. A database with a
   * replication gate refuses it (its acknowledgement waits for the stream): nothing
   * is written.
   */
  commitSync(view: TxnView, tenant: string, kind: CommitKind, at: Date = new Date(), quota?: StorageQuota): number {
    const started = performance.now()
    let accepted
    try {
      if (this.#gate !== null) {
        this.admit()
        throw new SyncCommitRefusedError()
      }
      accepted = this.#accept(view, tenant)
    } catch (err) {
      this.#settled(kind, err instanceof ConflictError ? 'conflict' : 'failed', started, view.rowWrites)
      throw err
    }
    const growth: Growth = { stored: undefined }
    let lsn: number
    try {
      const payload = this.#payload(view, tenant, kind, at, quota, growth)
      lsn = this.#engine.commitPayloadSync(payload, (durable) => {
        for (const listener of this.#listeners) listener.committed(durable, payload)
      })
    } catch (err) {
      this.#failed(accepted, tenant, growth, kind, started, view)
      throw err
    }
    this.#durable(accepted, lsn, kind)
    this.#settled(kind, 'committed', started, view.rowWrites)
    return lsn
  }

  /** The validating step: the gate, commits begun before this node was primary, first-committer-wins. */
  #accept(view: TxnView, tenant: string): Accepted {
    this.admit()
    if (view.snapshot.lsn < this.#writable_from) throw new ConflictError('the data (this node became the primary after the transaction began)')
    return this.conflicts.accept(view.snapshot.lsn, () => view.conflictKeys(), new Set([tenantStateKey(tenant), ...view.dependencies()]))
  }

  /**
   * Still in the validating step: the tenant's usage (a commit over its quota is
   * refused before anything is queued; what it grew by is kept in `growth`) and the
   * auto-id marks, which reach the engine in commit order; then the payload.
   */
  #payload(view: TxnView, tenant: string, kind: CommitKind, at: Date, quota: StorageQuota | undefined, growth: Growth): Buffer {
    if (kind !== 'catalog') growth.stored = this.live.apply(view, tenant, quota)
    this.autoIds.persist(view, tenant)
    return view.payload(encodeCommitHeader(tenant, at, kind, view.opKinds(), view.restored))
  }

  /** A commit that was accepted and then not written: its conflict entry and usage go back. */
  #failed(accepted: Accepted, tenant: string, growth: Growth, kind: CommitKind, started: number, view: TxnView): void {
    this.conflicts.settle(accepted, null)
    // A commit refused by its quota counted nothing; one that failed after was not written.
    if (growth.stored !== undefined) this.live.undo(tenant, growth.stored)
    this.#settled(kind, 'failed', started, view.rowWrites)
  }

  #durable(accepted: Accepted, lsn: number, kind: CommitKind): void {
    this.conflicts.settle(accepted, lsn)
    if (kind !== 'write') this.#catalogChanged()
  }

  /** Throws NotPrimaryError when the gate does not admit commits now (a tenant operation asks before any work). */
  admit(): void {
    this.#gate?.admit()
  }

  /**
   * Replication's gate on every commit from now on; `frameTenant` is told the tenant of
   * each applied frame that is a migration or a tenant operation, whose caches (lazy
   * migration, auto ids) must be forgotten.
   */
  setGate(gate: CommitGate, frameTenant: (tenant: string) => void): void {
    this.#gate = gate
    this.#frame_tenant = frameTenant
  }

  /**
   * This node becomes primary at the engine's head: transactions begun before lose as
   * conflicts, auto-id counters are read again from the data the frames brought, and
   * the engine takes local commits.
   */
  promote(): void {
    this.#writable_from = this.#engine.headLsn()
    this.autoIds.forgetAll()
    this.live.forgetAll()
    this.#engine.setFollower(false)
  }

  /** This node stops taking local commits: the engine applies a primary's frames. */
  demote(): void {
    this.#engine.setFollower(true)
  }

  /**
   * Applies a primary's frames (follower mode), in one WAL batch, and tells the
   * subscribers of each, as of a commit made here: the change tail follows a
   * follower as it follows a primary. Resolves once all are durable; a frame the
   * engine refuses rejects, and the frames after it are refused too.
   */
  async applyFrames(frames: ReadonlyArray<{ lsn: number; payload: Buffer }>): Promise<void> {
    const applied = frames.map(({ lsn, payload }) => this.#engine.applyFrame(lsn, payload))
    const results = await Promise.allSettled(applied)
    for (const [i, result] of results.entries()) {
      if (result.status === 'rejected') throw result.reason
      const { lsn, payload } = frames[i] as { lsn: number; payload: Buffer }
      const header = decodeCommitHeader(commitMeta(payload))
      // The frame brought its tenant's usage mark: read it again.
      if (header !== null) this.live.forget(header.tenant)
      if (header !== null && header.kind !== 'write') {
        this.#catalogChanged()
        this.#frame_tenant(header.tenant)
      }
      for (const listener of this.#listeners) listener.committed(lsn, payload)
    }
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

