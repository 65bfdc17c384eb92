// A transaction's view of one snapshot: reads see the snapshot plus the writes made
// so far in this transaction (so statement 2 of an atomic block sees statement 1's
// rows), and the writes are collected as engine operations, committed all at once by
// the committer (committer.ts).
//
// Everything the commit needs besides the operations is recorded by the call that
// makes them: a row write names its kind (insert, update, delete) as it is written,
// so the commit header's letters stand at the very operations they describe; the
// keys a transaction claims, conflicts on or depends on are added through methods.
import { CommitWriter, type Entry, type LookupBatch, type RangeBatchAt, type RangeOptions, type Snapshot } from '../engine/index.js'
import { key_bytes_max, row_bytes_max } from '../limits.js'
import { op_kind_other, type RestoredFrom, type RowChangeKind } from './commit-header.js'
import { checkTreeEntrySize } from './entry-size.js'
import { tenantPrefix } from './layout.js'
import { PendingWrites } from './pending-writes.js'

export class TxnView {
  readonly snapshot: Snapshot
  readonly #trees = new Map<string, PendingWrites>()
  /**
   * The operations, encoded as they are made (the commit crosses the binding as one
   * Buffer); created by the first write, so a read-only query allocates none.
   */
  #commit: CommitWriter | undefined
  /** Set once the commit payload was taken: a write after it would be lost. */
  #sealed = false
  /** Snapshot trees known to be empty: a read of them needs no engine call. */
  readonly #empty = new Map<string, boolean>()
  /**
   * Values claimed in unique indexes: concurrent claims of the same value conflict.
   * Each with the index entry of its latest claimant in this transaction, so a unique
   * check finds an earlier row of the same batch by one lookup, not a range read.
   */
  readonly #claims = new Map<string, Buffer | null>()
  /** Each row write: its index in the commit × 4 + its kind (row_kind_codes), one number so a bulk insert adds one small integer per row. */
  readonly #rowOps: number[] = []
  /** Trees copied in this transaction: reads of the key go to the value's snapshot tree. */
  readonly #aliases = new Map<string, string | null>()
  /** Keys this transaction conflicts on beyond the ones it writes (a tenant's state). */
  readonly #extraKeys = new Set<string>()
  /** Keys it depends on without writing them (see dependOn). */
  readonly #dependsOn = new Set<string>()
  /** Auto-id collections it wrote rows of: their counters are persisted at commit (auto-ids.ts). */
  readonly #autoIdCollections = new Set<string>()
  /** Set by a restore: the commit header says which snapshot the tenant now is (commit-header.ts). */
  #restored: RestoredFrom | null = null

  constructor(snapshot: Snapshot) {
    this.snapshot = snapshot
  }

  get(tree: string, key: Buffer): Buffer | null {
    const written = this.#trees.get(tree)
    if (written !== undefined) {
      const i = written.find(key)
      if (i >= 0) return written.value(i)
    }
    const source = this.#source(tree)
    if (source === null) return null
    // Only a tree this transaction writes is worth the emptiness check (one more call).
    if (written !== undefined && this.#emptyInSnapshot(source)) return null
    return this.snapshot.get(source, key)
  }

  /**
   * `get` of many keys of one tree, in their order: what this transaction wrote is
   * answered from its writes, the rest from the snapshot in one engine call.
   */
  getMany(tree: string, keys: readonly Buffer[]): Array<Buffer | null> {
    const out = new Array<Buffer | null>(keys.length).fill(null)
    const written = this.#trees.get(tree)
    const source = this.#source(tree)
    if (source === null) {
      // Dropped in this transaction: only what it wrote since.
      if (written !== undefined) keys.forEach((key, i) => { const j = written.find(key); if (j >= 0) out[i] = written.value(j) })
      return out
    }
    if (written === undefined) {
      const found = this.snapshot.getMany(source, keys)
      for (let i = 0; i < found.length; i += 1) out[i] = found[i] as Buffer | null
      return out
    }
    const asked: Buffer[] = []
    const at: number[] = []
    for (const [i, key] of keys.entries()) {
      const j = written.find(key)
      if (j >= 0) out[i] = written.value(j)
      else {
        asked.push(key)
        at.push(i)
      }
    }
    if (this.#emptyInSnapshot(source)) return out
    const found = this.snapshot.getMany(source, asked)
    for (let k = 0; k < found.length; k += 1) out[at[k] as number] = found[k] as Buffer | null
    return out
  }

  /**
   * Whether `tree` holds `key` (get without the value: a key of a tree empty in the
   * snapshot and not written here costs no allocation and no engine call).
   */
  has(tree: string, key: Uint8Array): boolean {
    const written = this.#trees.get(tree)
    if (written !== undefined) {
      const i = written.find(key)
      if (i >= 0) return !written.deleted(i)
    }
    const source = this.#source(tree)
    if (source === null) return false
    if (written !== undefined && this.#emptyInSnapshot(source)) return false
    return this.snapshot.get(source, key as Buffer) !== null
  }

  /**
   * Whether the snapshot holds no entry of `tree`: inserting many rows into a new
   * collection then checks each key for a duplicate without crossing the binding.
   * (A copied tree's entries are read from its source, so `tree` is the source.)
   */
  #emptyInSnapshot(tree: string): boolean {
    let empty = this.#empty.get(tree)
    if (empty === undefined) {
      empty = (this.snapshot.treeInfo(tree)?.count ?? 0) === 0
      this.#empty.set(tree, empty)
    }
    return empty
  }

  /** The snapshot tree that holds `tree`'s committed entries, or null if it was dropped. */
  #source(tree: string): string | null {
    const alias = this.#aliases.get(tree)
    return alias === undefined ? tree : alias
  }

  /** Makes `to` a copy of `from` (O(1) in the engine), replacing `to`. */
  copyTree(from: string, to: string): void {
    this.#aliases.set(to, this.#source(from))
    const commit = this.#write()
    this.#trees.set(to, this.#trees.get(from)?.clone() ?? new PendingWrites(commit))
    commit.op({ op: 'copy_tree', from, to })
  }

  /**
   * Operations without an overlay: they take effect when the commit is applied.
   * A tenant's pin holds its trees alone (those under `tenantPrefix`), so it keeps no
   * other tenant's pages (docs/operations.md, "Disk space").
   */
  pinTenant(name: string, tenant: string): void {
    this.#write().op({ op: 'pin_prefix', name, prefix: tenantPrefix(tenant) })
  }

  unpin(name: string): void {
    this.#write().op({ op: 'unpin', name })
  }

  copyTreeFromPin(pin: string, from: string, to: string): void {
    this.#trees.delete(to)
    this.#aliases.set(to, null)
    this.#write().op({ op: 'copy_tree_from_pin', pin, from, to })
  }

  compactTree(tree: string): void {
    this.#write().op({ op: 'compact_tree', tree })
  }

  /**
   * Claims `value` (a unique index's values) for this transaction: a concurrent claim
   * of it conflicts. `entry`: the index entry this transaction puts for it.
   */
  claim(value: string, entry: Buffer | null = null): void {
    this.#claims.set(value, entry)
  }

  /** The index entry the latest claim of `value` in this transaction put, if any. */
  claimant(value: string): Buffer | null | undefined {
    return this.#claims.get(value)
  }

  /** Whether this transaction put (true), deleted (false) or never wrote (undefined) `key` of `tree`. */
  written(tree: string, key: Uint8Array): boolean | undefined {
    const pending = this.#trees.get(tree)
    const i = pending === undefined ? -1 : pending.find(key)
    return i < 0 ? undefined : !(pending as PendingWrites).deleted(i)
  }

  /** One batch of the entries the snapshot holds (this transaction's writes not merged in). */
  committedRange(tree: string, options: RangeOptions): Entry[] {
    const source = this.#source(tree)
    return source === null ? [] : this.snapshot.range(source, options)
  }

  /** Makes this transaction conflict on `key` beyond the keys it writes (a tenant's state). */
  conflictOn(key: string): void {
    this.#extraKeys.add(key)
  }

  /**
   * Makes this transaction depend on `key` without writing it (beyond its own tenant's
   * state): it fails if a transaction it does not see wrote it (a fork depends on its
   * source's state, a delete on the tenant's snapshots).
   */
  dependOn(key: string): void {
    this.#dependsOn.add(key)
  }

  /** The keys added by dependOn. */
  dependencies(): ReadonlySet<string> {
    return this.#dependsOn
  }

  /** Notes that this transaction writes rows of auto-id collection `collection`. */
  notesAutoId(collection: string): void {
    this.#autoIdCollections.add(collection)
  }

  /** The collections noted by notesAutoId. */
  autoIdCollections(): ReadonlySet<string> {
    return this.#autoIdCollections
  }

  dropTree(tree: string): void {
    this.#aliases.set(tree, null)
    this.#trees.delete(tree)
    this.#write().op({ op: 'drop_tree', tree })
  }

  /** Both are copied: `key` and `value` may be scratch buffers the caller reuses. */
  put(tree: string, key: Uint8Array, value: Uint8Array): void {
    if (key.length > key_bytes_max || value.length > row_bytes_max) checkTreeEntrySize(tree, key, value)
    this.#put(this.#write(), tree, key, value)
  }

  /**
   * A put that is in the commit but not in the conflict set and not read back by this
   * view: an auto-id high-water mark, put once the transaction was validated.
   */
  putOutsideConflicts(tree: string, key: Uint8Array, value: Uint8Array): void {
    if (key.length > key_bytes_max || value.length > row_bytes_max) checkTreeEntrySize(tree, key, value)
    this.#write().put(tree, key, value)
  }

  delete(tree: string, key: Uint8Array): void {
    this.#delete(this.#write(), tree, key)
  }

  /**
   * Makes room at once for `rows` more row puts into `tree` of about `bytes_per_row`
   * bytes of key and value each (a bulk insert knows its row count after encoding its
   * first row): the commit buffer and the pending writes then grow once, not by
   * doubling and copying all they hold each time.
   */
  reserveRows(tree: string, rows: number, bytes_per_row: number): void {
    // Each put adds its tag, the tree's name and three lengths to its key and value;
    // the commit header adds a letter per operation to its fields (commit-header.ts).
    const name_bytes = Buffer.byteLength(tree)
    this.#write().reserve(rows * (bytes_per_row + 13 + name_bytes), header_fields_bytes + name_bytes + this.opCount + rows)
    this.#pending(tree).reserve(rows)
  }

  /** A row put into a rows tree, as an insert (`i`) or an update (`u`): the change feed reports it. */
  putRow(tree: string, key: Uint8Array, value: Uint8Array, kind: 'i' | 'u'): void {
    if (key.length > key_bytes_max || value.length > row_bytes_max) checkTreeEntrySize(tree, key, value)
    const commit = this.#write()
    this.#rowOps.push(commit.count * 4 + row_kind_codes[kind])
    this.#put(commit, tree, key, value)
  }

  /** A row deleted from a rows tree: the change feed reports it. */
  deleteRow(tree: string, key: Uint8Array): void {
    const commit = this.#write()
    this.#rowOps.push(commit.count * 4 + row_kind_codes.d)
    this.#delete(commit, tree, key)
  }

  /** A put into the commit, which the pending writes of `tree` then point into. */
  #put(commit: CommitWriter, tree: string, key: Uint8Array, value: Uint8Array): void {
    const key_at = commit.put(tree, key, value)
    this.#pending(tree, commit).set(key, key_at, key_at + key.length + 4, value.length)
  }

  #delete(commit: CommitWriter, tree: string, key: Uint8Array): void {
    this.#pending(tree, commit).set(key, commit.delete(tree, key), 0, -1)
  }

  /**
   * One letter per operation so far, in order: the row change kind of a row write,
   * `op_kind_other` for every other operation (the commit header's `ops`); empty when
   * no row was written.
   */
  opKinds(): string {
    if (this.#rowOps.length === 0) return ''
    // A one-row write (the commonest commit): its letter, without a buffer.
    if (this.opCount === 1) return row_kind_strings[(this.#rowOps[0] as number) & 3] as string
    const letters = Buffer.alloc(this.opCount, op_kind_other)
    for (const op of this.#rowOps) letters[op >>> 2] = row_kind_letters[op & 3] as number
    return letters.toString('latin1')
  }

  /**
   * What this transaction adds to the key and value bytes of the trees `counts` names,
   * and to the rows of those among them `isRows` names (live-usage.ts): each written
   * key's size now less its size in the snapshot (one batched read per tree), each row
   * inserted or deleted; a tree dropped or replaced counts as `treeSize` of what it
   * held, less, and of its new source, more.
   */
  storedGrowth(counts: (tree: string) => boolean, isRows: (tree: string) => boolean, treeSize: (tree: string) => { bytes: number; rows: number }): { bytes: number; rows: number } {
    let bytes = 0
    let rows = 0
    const resize = (tree: string, sign: number) => {
      const size = treeSize(tree)
      bytes += sign * size.bytes
      if (isRows(tree)) rows += sign * size.rows
    }
    for (const [tree, alias] of this.#aliases) {
      if (!counts(tree)) continue
      resize(tree, -1)
      if (alias !== null) resize(alias, 1)
    }
    let rowsWritten = false
    let rowKeys = 0
    for (const [tree, pending] of this.#trees) if (counts(tree) && isRows(tree)) rowKeys += pending.size
    let inserts = 0
    for (const op of this.#rowOps) if ((op & 3) === row_kind_codes.i) inserts += 1
    // Only inserts, each of a key it checked absent (and the new rows' index entries,
    // which end with their new keys): nothing written was there before, so nothing is
    // read back (the common write, a batch of inserts, pays no lookup).
    const onlyNew = inserts === this.#rowOps.length && inserts === rowKeys
    for (const [tree, pending] of this.#trees) {
      if (!counts(tree)) continue
      rowsWritten ||= isRows(tree)
      const keys: Buffer[] = []
      for (let i = 0; i < pending.size; i += 1) {
        const key = pending.key(i)
        keys.push(key)
        bytes += pending.deleted(i) ? 0 : key.length + (pending.value(i)?.length ?? 0)
      }
      const source = this.#source(tree)
      if (onlyNew || source === null || this.#emptyInSnapshot(source)) continue
      const before = this.snapshot.getMany(source, keys)
      for (let i = 0; i < keys.length; i += 1) {
        const old = before[i]
        if (old !== null && old !== undefined) bytes -= (keys[i] as Buffer).length + old.length
      }
    }
    // Row writes name no tree, and go to one tenant's rows trees: counted if those are.
    if (rowsWritten) for (const op of this.#rowOps) rows += (op & 3) === row_kind_codes.i ? 1 : (op & 3) === row_kind_codes.d ? -1 : 0
    return { bytes, rows }
  }

  /** Row writes so far (inserts, updates, deletes). */
  get rowWrites(): number {
    return this.#rowOps.length
  }

  /** Marks this commit as a restore of its tenant to a snapshot (the change tail reports it). */
  noteRestored(from: RestoredFrom): void {
    this.#restored = from
  }

  /** What noteRestored marked, if anything. */
  get restored(): RestoredFrom | null {
    return this.#restored
  }

  /** Operations written so far. */
  get opCount(): number {
    return this.#commit?.count ?? 0
  }

  /** The commit payload with `meta` as its header; the view takes no writes after it. */
  payload(meta: Uint8Array): Buffer {
    this.#sealed = true
    const payload = (this.#commit ?? new CommitWriter()).finish(meta)
    this.payloadBytes = payload.length
    return payload
  }

  /** The size of the commit payload once taken (a tenant's written bytes: src/isolation/). */
  payloadBytes = 0

  #write(): CommitWriter {
    if (this.#sealed) throw new Error('a transaction view was written after its commit payload was taken')
    this.#commit ??= new CommitWriter()
    return this.#commit
  }

  /** What first-committer-wins compares: every key written, every unique value claimed. */
  conflictKeys(): Set<string> {
    const keys = new Set([...this.#claims.keys(), ...this.#extraKeys])
    for (const [tree, pending] of this.#trees) for (let i = 0; i < pending.size; i += 1) keys.add(`${tree} ${pending.keyHex(i)}`)
    for (const [tree] of this.#aliases) keys.add(`${tree} *`)
    return keys
  }

  /**
   * One batch of entries within the bounds, merging this transaction's writes into
   * the snapshot's entries in key order.
   */
  /**
   * `range` of `tree` with each entry's match in `other` under the key in field `field`
   * of its row, in one engine call (Snapshot.rangeLookup), when this transaction has
   * written neither tree; null when it has (the caller then reads and looks up through
   * `range` and `getMany`, which merge its writes).
   */
  rangeLookup(tree: string, options: RangeOptions, field: string, other: string): LookupBatch | null {
    const pending = this.#trees.get(tree)
    const pendingOther = this.#trees.get(other)
    if ((pending !== undefined && pending.size > 0) || (pendingOther !== undefined && pendingOther.size > 0)) return null
    const source = this.#source(tree)
    const otherSource = this.#source(other)
    if (source === null || otherSource === null) return null
    return this.snapshot.rangeLookup(source, options, field, otherSource)
  }

  /**
   * `range` read in place (Snapshot.rangeAt), when this transaction has not written
   * `tree` and it exists; null otherwise (the caller then reads through `range`, which
   * merges the writes).
   */
  rangeAt(tree: string, options: RangeOptions): RangeBatchAt | null {
    const pending = this.#trees.get(tree)
    if (pending !== undefined && pending.size > 0) return null
    const source = this.#source(tree)
    return source === null ? null : this.snapshot.rangeAt(source, options)
  }

  range(tree: string, options: RangeOptions): Entry[] {
    const source = this.#source(tree)
    const committed = (bounds: RangeOptions): Entry[] => (source === null ? [] : this.snapshot.range(source, bounds))
    const pending = this.#trees.get(tree)
    if (pending === undefined || pending.size === 0) return committed(options)
    const reverse = options.reverse === true
    const mine: { key: Buffer; value: Buffer | null }[] = []
    if (pending.sorted) {
      // In key order already: the bounds by binary search, and no more than a batch
      // (the merge below takes at most `limit` puts, and the deletes among them).
      const from = options.lower === undefined ? 0 : pending.lowerBound(options.lower, options.lowerInclusive === false)
      const to = options.upper === undefined ? pending.size : pending.lowerBound(options.upper, options.upperInclusive !== false)
      let puts = 0
      for (let j = 0; j < to - from && puts < options.limit; j += 1) {
        const i = reverse ? to - 1 - j : from + j
        const value = pending.value(i)
        if (value !== null) puts += 1
        mine.push({ key: pending.key(i), value })
      }
    } else {
      for (let i = 0; i < pending.size; i += 1) {
        const key = pending.key(i)
        if (withinBounds(key, options)) mine.push({ key, value: pending.value(i) })
      }
      mine.sort((a, b) => Buffer.compare(a.key, b.key) * (reverse ? -1 : 1))
    }
    const out: Entry[] = []
    let bounds: RangeOptions = options
    let mineAt = 0
    for (;;) {
      const theirs = committed({ ...bounds, limit: options.limit })
      for (const [key, value] of theirs) {
        while (mineAt < mine.length && before(mine[mineAt]!.key, key, reverse)) {
          const p = mine[mineAt++]!
          if (p.value !== null) out.push([p.key, p.value])
          if (out.length === options.limit) return out
        }
        if (mineAt < mine.length && Buffer.compare(mine[mineAt]!.key, key) === 0) {
          const p = mine[mineAt++]!
          if (p.value !== null) out.push([p.key, p.value])
        } else {
          out.push([key, value])
        }
        if (out.length === options.limit) return out
      }
      const last = theirs.at(-1)
      if (last === undefined || theirs.length < options.limit) break
      bounds = reverse ? { ...bounds, upper: last[0], upperInclusive: false } : { ...bounds, lower: last[0], lowerInclusive: false }
    }
    for (; mineAt < mine.length && out.length < options.limit; mineAt += 1) {
      const p = mine[mineAt]!
      if (p.value !== null) out.push([p.key, p.value])
    }
    return out
  }

  #pending(tree: string, commit: CommitWriter = this.#write()): PendingWrites {
    let pending = this.#trees.get(tree)
    if (pending === undefined) {
      pending = new PendingWrites(commit)
      this.#trees.set(tree, pending)
    }
    return pending
  }
}

/** The commit header's bytes besides its `ops` letters and the tenant's name (commit-header.ts), with room to spare. */
const header_fields_bytes = 160

/** A row change kind as the two low bits of a #rowOps entry, and back to its letter's byte. */
const row_kind_codes: Readonly<Record<RowChangeKind, number>> = { i: 1, u: 2, d: 3 }
const row_kind_letters = [0, 0x69, 0x75, 0x64] // -, i, u, d
const row_kind_strings = ['', 'i', 'u', 'd']

function before(a: Buffer, b: Buffer, reverse: boolean): boolean {
  const order = Buffer.compare(a, b)
  return reverse ? order > 0 : order < 0
}

function withinBounds(key: Buffer, options: Omit<RangeOptions, 'limit'>): boolean {
  if (options.lower !== undefined) {
    const order = Buffer.compare(key, Buffer.from(options.lower))
    if (order < 0 || (order === 0 && options.lowerInclusive === false)) return false
  }
  if (options.upper !== undefined) {
    const order = Buffer.compare(key, Buffer.from(options.upper))
    if (order > 0 || (order === 0 && options.upperInclusive === false)) return false
  }
  return true
}
