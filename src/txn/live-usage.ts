// What each tenant holds, for its storage quota and its usage (docs/operations.md,
// "Isolation"): its live bytes (the key and value bytes of its rows and index entries)
// and its rows. Kept as a mark, `usage/live` in the tenant's meta tree (decimal text
// `<bytes> <rows>`), which every commit of the tenant's data puts in the step that
// validates it (the committer, one synchronous step, as the auto-id marks), from what
// the commit adds (TxnView.storedGrowth): the marks reach the engine in commit order,
// and a fork or restore, which copy the meta tree, copy the mark with the data it
// counts. A tenant without a mark (its data is older than the mark) is counted once by
// reading its trees, and the next commit writes the mark.
import type { Snapshot } from '../engine/index.js'
import { metaTree, rowsPrefix, tenantPrefix } from './layout.js'
import type { TxnView } from './txn-view.js'
import { QueryError } from '../query-error.js'

export interface Stored {
  bytes: number
  rows: number
}

/** A tenant's storage quota (src/tenants/tenant-limits.ts): what it may hold at most. */
export type StorageQuota = Partial<Record<'storage_bytes' | 'storage_rows', number>>

export const live_usage_key = Buffer.from('usage/live')

export class LiveUsage {
  /** Per tenant, what it holds after every commit validated here; loaded on first use. */
  readonly #held = new Map<string, Stored>()
  /** Tenants whose mark this process wrote or read (a commit that adds nothing need not put it again). */
  readonly #marked = new Set<string>()
  readonly #head: () => Snapshot

  constructor(head: () => Snapshot) {
    this.#head = head
  }

  /** What `tenant` holds after every commit validated so far. */
  current(tenant: string): Stored {
    let held = this.#held.get(tenant)
    if (held === undefined) {
      held = this.#load(tenant)
      this.#held.set(tenant, held)
    }
    return held
  }

  /**
   * In the validating step of a commit of `tenant`'s data: what it adds, refused with
   * `quota_exceeded` (nothing written) if it grows the tenant past `quota` (writes that shrink it always
   * pass), else counted and put as the new mark.
   */
  apply(view: TxnView, tenant: string, quota: StorageQuota | undefined): Stored {
    const prefix = tenantPrefix(tenant)
    const meta = metaTree(tenant)
    const rows = rowsPrefix(tenant)
    const snapshot = view.snapshot
    const growth = view.storedGrowth((tree) => tree.startsWith(prefix) && tree !== meta, (tree) => tree.startsWith(rows), (tree) => treeSize(snapshot, tree))
    const held = this.current(tenant)
    const after = { bytes: held.bytes + growth.bytes, rows: held.rows + growth.rows }
    if (quota?.storage_bytes !== undefined && growth.bytes > 0 && after.bytes > quota.storage_bytes) throw overQuota(tenant, 'storage_bytes', after.bytes, quota.storage_bytes)
    if (quota?.storage_rows !== undefined && growth.rows > 0 && after.rows > quota.storage_rows) throw overQuota(tenant, 'storage_rows', after.rows, quota.storage_rows)
    if (growth.bytes === 0 && growth.rows === 0 && this.#marked.has(tenant)) return growth
    this.#held.set(tenant, after)
    this.#marked.add(tenant)
    view.putOutsideConflicts(meta, live_usage_key, Buffer.from(`${after.bytes} ${after.rows}`))
    return growth
  }

  /**
   * A commit `apply` counted failed before it was written: its growth is taken back.
   * (Reading the mark again instead would lose the growth of the commits validated
   * before it and still in flight, which the engine's head does not hold yet.)
   */
  undo(tenant: string, growth: Stored): void {
    const held = this.#held.get(tenant)
    if (held !== undefined) this.#held.set(tenant, { bytes: held.bytes - growth.bytes, rows: held.rows - growth.rows })
  }

  /** Forgets a tenant (deleted, forked into, restored, or a commit of it failed). */
  forget(tenant: string): void {
    this.#held.delete(tenant)
    this.#marked.delete(tenant)
  }

  /** Forgets every tenant: frames applied from a primary may have changed any. */
  forgetAll(): void {
    this.#held.clear()
    this.#marked.clear()
  }

  #load(tenant: string): Stored {
    const head = this.#head()
    const mark = head.get(metaTree(tenant), live_usage_key)
    if (mark !== null) {
      const [bytes, rows] = mark.toString().split(' ').map(Number)
      this.#marked.add(tenant)
      return { bytes: bytes ?? 0, rows: rows ?? 0 }
    }
    const prefix = tenantPrefix(tenant)
    const held = { bytes: 0, rows: 0 }
    for (const tree of head.trees()) {
      if (!tree.name.startsWith(prefix) || tree.name === metaTree(tenant)) continue
      const size = treeSize(head, tree.name)
      held.bytes += size.bytes
      if (tree.name.startsWith(rowsPrefix(tenant))) held.rows += size.rows
    }
    return held
  }
}

/** The key and value bytes of a tree, read whole, and its entries. */
function treeSize(snapshot: Snapshot, tree: string): Stored {
  const info = snapshot.treeInfo(tree)
  if (info === null || info.count === 0) return { bytes: 0, rows: 0 }
  let bytes = 0
  for (const [key, value] of snapshot.scan(tree)) bytes += key.length + value.length
  return { bytes, rows: info.count }
}

function overQuota(tenant: string, quota: keyof StorageQuota, after: number, max: number): QueryError {
  const what = quota === 'storage_bytes' ? 'bytes' : 'rows'
  return new QueryError('quota_exceeded',
    `tenant '${tenant}' would hold ${after} ${what}, over its quota ${quota} of ${max}: nothing was written; delete rows or ask for a larger quota`,
    { quota })
}
