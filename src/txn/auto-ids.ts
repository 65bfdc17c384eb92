// Auto ids as database sequences (docs/architecture.md "Auto ids"). A collection
// without a declared primary field numbers its rows from a counter kept in memory per
// tenant and collection, outside every transaction's conflict set, so concurrent
// inserts never conflict over it. Gaps are allowed (an id taken by a transaction that
// then fails is not taken again); duplicates never are.
//
// The counter is persisted as a high-water mark, `auto/<collection>` in the tenant's
// meta tree: every commit that writes a row of the collection puts the counter's
// value at the moment it is validated and queued (the committer, one synchronous step),
// so the marks reach the engine in commit order and the stored one only grows. A
// committed row's id is below the mark of its own commit, which is durable with it;
// after a restart (or a kill -9) the counter starts at the stored mark, or after the
// largest stored id if that is higher, so no id of a committed row is issued again,
// not even after the highest rows were deleted.
import { decodeKey } from '../codec/index.js'
import type { Snapshot } from '../engine/index.js'
import { autoIdKey, metaTree, rowsTree } from './layout.js'
import type { TxnView } from './txn-view.js'

export class AutoIds {
  /** Next id per tenant, then per collection; loaded from the newest version on first use. */
  readonly #next = new Map<string, Map<string, number>>()
  readonly #head: () => Snapshot

  /** `head`: the newest durable version (where a counter not yet in memory is read from). */
  constructor(head: () => Snapshot) {
    this.#head = head
  }

  /**
   * The next ids of `collection` for the rows of one statement, one per call; the view's
   * commit will persist the counter. The tenant's counters are found, and the view told,
   * once per statement, not once per row.
   */
  taker(view: TxnView, tenant: string, collection: string): () => number {
    const counters = this.#counters(tenant)
    let noted = false
    return () => {
      if (!noted) {
        view.notesAutoId(collection)
        noted = true
      }
      const id = counters.get(collection) ?? this.#load(tenant, collection)
      counters.set(collection, id + 1)
      return id
    }
  }

  /** A row of `collection` with id `id` is written: later ids come after it. */
  note(view: TxnView, tenant: string, collection: string, id: unknown): void {
    const counters = this.#counters(tenant)
    const next = counters.get(collection) ?? this.#load(tenant, collection)
    counters.set(collection, typeof id === 'number' && id >= next ? Math.floor(id) + 1 : next)
    view.notesAutoId(collection)
  }

  /**
   * Puts the high-water mark of every collection the view wrote rows of. Called after
   * validation and before queuing, in the same synchronous step, and outside the
   * conflict set: concurrent writers all put it, and the last one queued holds the
   * largest value.
   */
  persist(view: TxnView, tenant: string): void {
    const counters = this.#next.get(tenant)
    for (const collection of view.autoIdCollections()) {
      const next = counters?.get(collection)
      if (next !== undefined) view.putOutsideConflicts(metaTree(tenant), autoIdKey(collection), Buffer.from(String(next)))
    }
  }

  /** The next id `take` would give now, taking none (a restore keeps it, so no id is issued twice). */
  peek(tenant: string, collection: string): number {
    return this.#counters(tenant).get(collection) ?? this.#load(tenant, collection)
  }

  /** Forgets a tenant's counters (it was deleted, replaced by a fork, or migrated). */
  forget(tenant: string): void {
    this.#next.delete(tenant)
  }

  /** Forgets every counter: frames applied from a primary may have moved any of them. */
  forgetAll(): void {
    this.#next.clear()
  }

  #counters(tenant: string): Map<string, number> {
    let counters = this.#next.get(tenant)
    if (counters === undefined) {
      counters = new Map()
      this.#next.set(tenant, counters)
    }
    return counters
  }

  /**
   * The stored mark, or after the largest stored id if that is higher (a collection
   * that had a declared primary field before has rows but no mark).
   */
  #load(tenant: string, collection: string): number {
    const head = this.#head()
    const stored = head.get(metaTree(tenant), autoIdKey(collection))
    const mark = stored === null ? 1 : Number(stored.toString())
    const [last] = head.range(rowsTree(tenant, collection), { reverse: true, limit: 1 })
    const largest = last === undefined ? 0 : decodeKey(last[0])[0]
    const after = typeof largest === 'number' ? Math.floor(largest) + 1 : 1
    return Math.max(mark, after, 1)
  }
}
