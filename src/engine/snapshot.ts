import { decodeDiffBatch, decodeRangeBatch, type DiffEntry, type Entry } from './range-batch.js'
import { mapSync } from './engine-error.js'
import type { NativeSnapshot } from './native.js'

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

const utf8 = (text: string) => Buffer.from(text, 'utf8')

/** A consistent, immutable view of the database at one LSN. Reads are synchronous. */
export class Snapshot {
  readonly #native: NativeSnapshot

  constructor(handle: NativeSnapshot) {
    this.#native = handle
  }

  /** LSN of the last commit this snapshot contains. */
  get lsn(): number {
    return mapSync(() => this.#native.lsn)
  }

  get(tree: string, key: Uint8Array): Buffer | null {
    return mapSync(() => this.#native.get(utf8(tree), Buffer.from(key.buffer, key.byteOffset, key.byteLength)))
  }

  /** One batch of entries within the bounds, in key order (or reverse). */
  range(tree: string, options: RangeOptions): Entry[] {
    const native = {
      limit: options.limit,
      ...(options.lower !== undefined && { lower: Buffer.from(options.lower) }),
      ...(options.lowerInclusive !== undefined && { lowerInclusive: options.lowerInclusive }),
      ...(options.upper !== undefined && { upper: Buffer.from(options.upper) }),
      ...(options.upperInclusive !== undefined && { upperInclusive: options.upperInclusive }),
      ...(options.reverse !== undefined && { reverse: options.reverse }),
    }
    return decodeRangeBatch(mapSync(() => this.#native.range(utf8(tree), native)))
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
   * Up to `limit` differences of `tree` from this snapshot to `newer`, in key order;
   * shared subtrees are skipped unread, so the cost grows with the differences.
   */
  diff(newer: Snapshot, tree: string, limit: number): { entries: DiffEntry[]; truncated: boolean } {
    const batch = mapSync(() => this.#native.diff(newer.#native, utf8(tree), limit))
    return { entries: decodeDiffBatch(batch.entries), truncated: batch.truncated }
  }

  /** Every pin; `count` is its number of trees, `lsn` the LSN it was taken at. */
  pins(): TreeInfo[] {
    return mapSync(() => this.#native.pins()).map(toTreeInfo)
  }

  /** The version saved under pin `name`, or null. */
  pin(name: string): Snapshot | null {
    const pinned = mapSync(() => this.#native.pin(utf8(name)))
    return pinned === null || pinned === undefined ? null : new Snapshot(pinned)
  }
}

function toTreeInfo(info: { name: Buffer; count: number; lsn: number }): TreeInfo {
  return { name: info.name.toString('utf8'), count: info.count, lsn: info.lsn }
}
