import { decodeDiffBatch, decodeLookupBatch, decodeRangeBatch, decodeRangeBatchAt, decodeValueBatch, encodeKeyBatch, type DiffEntry, type Entry, type LookupBatch, type RangeBatchAt } from './range-batch.js'
import { mapSync } from './engine-error.js'
import type { NativeSnapshot } from './native.js'
import { treeNameBytes } from './tree-names.js'
import { lookup_buffer_bytes, lookup_buffer_bytes_kept_max, range_buffer_bytes, range_buffer_bytes_kept_max, read_buffer_bytes } from '../limits.js'

export interface RangeOptions {
  lower?: Uint8Array
  /** Default true. */
  lowerInclusive?: boolean
  upper?: Uint8Array
  /** Default true. */
  upperInclusive?: boolean
  reverse?: boolean
  /** Entries in this batch (at most 10 000). */
  limit: number
}

export interface TreeInfo {
  name: string
  /** Entries in the tree, kept on every change (no scan). */
  count: number
  /** LSN of the tree's last change. */
  lsn: number
}

const utf8 = treeNameBytes

/**
 * The buffer point reads copy into (shared: reads are synchronous, and each copies
 * its value out before returning).
 */
const readBuffer = Buffer.allocUnsafeSlow(read_buffer_bytes)

/**
 * The buffer ranges with lookups are written into (shared: each batch is decoded
 * before the next is read; grown up to lookup_buffer_bytes_kept_max).
 */
let lookupBuffer = Buffer.allocUnsafeSlow(lookup_buffer_bytes)

/**
 * The buffer ranges read in place (rangeAt) are written into, and the offsets of their
 * entries (shared: each batch is decoded before the next is read; the buffer grown up
 * to range_buffer_bytes_kept_max).
 */
let rangeBuffer = Buffer.allocUnsafeSlow(range_buffer_bytes)
let rangeOffsets: Uint32Array = new Uint32Array(4 * 1000)

/** What `getInto` returns for an absent key; below it, `-2 - length` for a value too large. */
const absent = -1

/** A consistent, immutable view of the database at one LSN. Reads are synchronous. */
export class Snapshot {
  readonly #native: NativeSnapshot
  /** A snapshot never changes, so its LSN is read across the binding once. */
  #lsn: number | undefined
  #epoch: number | undefined

  constructor(handle: NativeSnapshot) {
    this.#native = handle
  }

  /** The generation of the newest meta record when it was taken (docs/format.md, "Space map"). */
  get epoch(): number {
    this.#epoch ??= mapSync(() => this.#native.epoch)
    return this.#epoch
  }

  /** LSN of the last commit this snapshot contains. */
  get lsn(): number {
    this.#lsn ??= mapSync(() => this.#native.lsn)
    return this.#lsn
  }

  get(tree: string, key: Uint8Array): Buffer | null {
    const value = this.getTransient(tree, key)
    return value === null || value.buffer !== readBuffer.buffer ? value : Buffer.from(value)
  }

  /**
   * `get`, but a small value comes back as a view of the shared read buffer, valid only
   * until the next read: for a caller that decodes it at once (a prepared read decodes
   * the row from it instead of from a copy).
   */
  getTransient(tree: string, key: Uint8Array): Buffer | null {
    const name = utf8(tree)
    const keyBytes = Buffer.isBuffer(key) ? key : Buffer.from(key.buffer, key.byteOffset, key.byteLength)
    const length = mapSync(() => this.#native.getInto(name, keyBytes, readBuffer))
    if (length === absent) return null
    if (length >= 0) return readBuffer.subarray(0, length)
    const exact = Buffer.allocUnsafe(-2 - length)
    const again = mapSync(() => this.#native.getInto(name, keyBytes, exact))
    // The snapshot is immutable: the second read finds the same value.
    if (again !== exact.length) throw new Error(`snapshot read of ${tree} changed between two reads`)
    return exact
  }

  /**
   * The values of `keys` of `tree`, in their order (null where absent), read in one
   * call: views into one Buffer, valid for as long as they are held.
   */
  getMany(tree: string, keys: readonly Uint8Array[]): Array<Buffer | null> {
    if (keys.length === 0) return []
    const batch = mapSync(() => this.#native.getMany(utf8(tree), encodeKeyBatch(keys)))
    return decodeValueBatch(batch, keys.length)
  }

  /** One batch of entries within the bounds, in key order (or reverse). */
  range(tree: string, options: RangeOptions): Entry[] {
    return decodeRangeBatch(mapSync(() => this.#native.range(utf8(tree), nativeRange(options))))
  }

  /**
   * `range`, its entries located in a shared buffer rather than each a pair of views
   * (a scan: docs/performance.md, P12): valid until the next rangeAt, so decode what is
   * kept first.
   */
  rangeAt(tree: string, options: RangeOptions): RangeBatchAt {
    const name = utf8(tree)
    const range = nativeRange(options)
    let out = rangeBuffer
    let length = mapSync(() => this.#native.rangeInto(name, range, out))
    if (length > out.length) {
      out = Buffer.allocUnsafeSlow(length)
      if (length <= range_buffer_bytes_kept_max) rangeBuffer = out
      const again = mapSync(() => this.#native.rangeInto(name, range, out))
      // The snapshot is immutable: the second read writes the same bytes.
      if (again !== length) throw new Error(`a range of ${tree} changed between two reads`)
    }
    const batch = decodeRangeBatchAt(out.subarray(0, length), rangeOffsets)
    rangeOffsets = batch.at
    return batch
  }

  /**
   * `range`, and for each entry the value of `other` under the one-value key that field
   * `field` of the entry's row holds (absent when the row has no such field, or it is
   * null, a list or a record): a lookup by primary key straight after a range read, in
   * one engine call (src/query/exec/lookup.ts says when it is used). The batch's bytes are
   * a shared buffer's, valid until the next rangeLookup: decode it first.
   */
  rangeLookup(tree: string, options: RangeOptions, field: string, other: string): LookupBatch {
    const args = [utf8(tree), nativeRange(options), Buffer.from(field), utf8(other)] as const
    let out = lookupBuffer
    let length = mapSync(() => this.#native.rangeLookupInto(...args, out))
    if (length > out.length) {
      out = Buffer.allocUnsafeSlow(length)
      if (length <= lookup_buffer_bytes_kept_max) lookupBuffer = out
      const again = mapSync(() => this.#native.rangeLookupInto(...args, out))
      // The snapshot is immutable: the second read writes the same bytes.
      if (again !== length) throw new Error(`a range with lookups of ${tree} changed between two reads`)
      length = again
    }
    return decodeLookupBatch(out.subarray(0, length))
  }

  /** Every entry within the bounds, batch by batch (`batch` entries per crossing). */
  *scan(tree: string, options: Omit<RangeOptions, 'limit'> = {}, batch = 1000): Generator<Entry> {
    let bounds: Omit<RangeOptions, 'limit'> = options
    for (;;) {
      const entries = this.range(tree, { ...bounds, limit: batch })
      yield* entries
      const last = entries.at(-1)
      if (last === undefined || entries.length < batch) return
      bounds = options.reverse === true
        ? { ...bounds, upper: last[0], upperInclusive: false }
        : { ...bounds, lower: last[0], lowerInclusive: false }
    }
  }

  trees(): TreeInfo[] {
    return mapSync(() => this.#native.trees()).map(toTreeInfo)
  }

  treeInfo(name: string): TreeInfo | null {
    const info = mapSync(() => this.#native.treeInfo(utf8(name)))
    return info === null || info === undefined ? null : toTreeInfo(info)
  }

  /**
   * Up to `limit` differences of `tree` from this snapshot to `newer` (or to `newerTree`
   * of `newer`: a fork's tree against its source's), in key order; shared subtrees are
   * skipped unread, so the cost grows with the differences.
   */
  diff(newer: Snapshot, tree: string, limit: number, newerTree: string = tree): { entries: DiffEntry[]; truncated: boolean } {
    const batch = mapSync(() => this.#native.diff(newer.#native, utf8(tree), limit, newerTree === tree ? undefined : utf8(newerTree)))
    return { entries: decodeDiffBatch(batch.entries), truncated: batch.truncated }
  }

  /** Every pin; `count` is its number of trees, `lsn` the LSN it was taken at. */
  pins(): TreeInfo[] {
    return mapSync(() => this.#native.pins()).map(toTreeInfo)
  }

  /**
   * Lets go of the version now: the page slots only it reaches may be reused, and any
   * later read of this snapshot fails. (A snapshot never released is let go when the
   * garbage collector takes it.)
   */
  release(): void {
    mapSync(() => this.#native.release())
  }

  /** The version saved under pin `name`, or null; release it when done. */
  pin(name: string): Snapshot | null {
    const pinned = mapSync(() => this.#native.pin(utf8(name)))
    return pinned === null || pinned === undefined ? null : new Snapshot(pinned)
  }
}

function nativeRange(options: RangeOptions) {
  return {
    limit: options.limit,
    ...(options.lower !== undefined && { lower: Buffer.from(options.lower) }),
    ...(options.lowerInclusive !== undefined && { lowerInclusive: options.lowerInclusive }),
    ...(options.upper !== undefined && { upper: Buffer.from(options.upper) }),
    ...(options.upperInclusive !== undefined && { upperInclusive: options.upperInclusive }),
    ...(options.reverse !== undefined && { reverse: options.reverse }),
  }
}

function toTreeInfo(info: { name: Buffer; count: number; lsn: number }): TreeInfo {
  return { name: info.name.toString('utf8'), count: info.count, lsn: info.lsn }
}
