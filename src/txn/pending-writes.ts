// The writes a transaction made to one tree, for its own reads (txn-view.ts): the
// latest put or delete of each key. A bulk insert of a million rows writes a million
// entries, so they hold no JS object per entry, and no copy of the bytes either: each
// entry is a row of typed arrays holding offsets of its key and value in the commit
// being written (commit-writer.ts), whose operations already hold those bytes, and
// keys are found through an open-addressing hash table over them. (A Map of hex
// strings to Buffers held three objects and a string per row, and the garbage collector
// then took a third of a bulk insert's time; a byte arena of its own copied every key
// and value once more, profiled: docs/performance.md.)
//
// | array        | entry i                                                  |
// |--------------|----------------------------------------------------------|
// | key_at/len   | the key's bytes in the commit's operations               |
// | value_at/len | the value's bytes there; value_len -1: a delete          |
// | hash         | the key's hash (32-bit FNV-1a), so a resize rehashes nothing |
// | slots        | entry index + 1, 0 empty; linear probing; at most half full |
//
// While every key written is greater than the one before (a bulk insert of ascending
// keys, the common load), the entries are in key order and need no hash table: a key
// is looked up by one comparison with the last key, or by binary search. The first
// key written out of order builds the table (once), and it is kept from then on.
//
// Entries are never removed: a later write of the same key replaces the entry's
// offsets (its old bytes stay in the commit, as operations do). The commit's operation
// bytes are never overwritten, so a value handed out as a view of them stays valid.

/** Where the bytes are: the commit writer's buffer and where its operations begin (offsets count from there). */
export interface WrittenBytes {
  readonly bytes: Buffer
  readonly base: number
}

const entries_initial = 8

export class PendingWrites {
  readonly #source: WrittenBytes
  #count = 0
  #key_at = new Float64Array(entries_initial)
  #key_len = new Int32Array(entries_initial)
  #value_at = new Float64Array(entries_initial)
  #value_len = new Int32Array(entries_initial)
  #hash = new Int32Array(entries_initial)
  /** null while the entries are in ascending key order (see above). */
  #slots: Int32Array | null = null

  constructor(source: WrittenBytes) {
    this.#source = source
  }

  /** Entries (distinct keys) written, deletes included. */
  get size(): number {
    return this.#count
  }

  /** Makes room for `entries` more entries (see TxnView.reserveRows). */
  reserve(entries: number): void {
    if (this.#count + entries > this.#key_len.length) this.#growEntries(this.#count + entries)
  }

  /**
   * Records a write of `key`, whose bytes the commit holds at `key_at`: a put of the
   * `value_len` bytes at `value_at`, or a delete when `value_len` is -1. Replaces any
   * earlier write of `key`.
   */
  set(key: Uint8Array, key_at: number, value_at: number, value_len: number): void {
    if (this.#slots === null) {
      const last = this.#count - 1
      if (last < 0 || this.#compareKey(last, key) < 0) {
        this.#add(key, key_at, value_at, value_len, 0)
        return
      }
      const i = this.#search(key)
      if (i >= 0) {
        this.#setValue(i, value_at, value_len)
        return
      }
      this.#buildTable()
    }
    const hash = hashBytes(key, 0, key.length)
    const slots = this.#slots as Int32Array
    const mask = slots.length - 1
    let slot = hash & mask
    for (;;) {
      const held = slots[slot] as number
      if (held === 0) break
      const i = held - 1
      if (this.#hash[i] === hash && this.#compareKey(i, key) === 0) {
        this.#setValue(i, value_at, value_len)
        return
      }
      slot = (slot + 1) & mask
    }
    const i = this.#add(key, key_at, value_at, value_len, hash)
    if (this.#count * 2 > slots.length) this.#rehash(slots.length * 2)
    else slots[slot] = i + 1
  }

  /** The entry of `key`, or -1 if this transaction did not write it. */
  find(key: Uint8Array): number {
    const slots = this.#slots
    if (slots === null) return this.#search(key)
    const hash = hashBytes(key, 0, key.length)
    const mask = slots.length - 1
    let slot = hash & mask
    for (;;) {
      const held = slots[slot] as number
      if (held === 0) return -1
      const i = held - 1
      if (this.#hash[i] === hash && this.#compareKey(i, key) === 0) return i
      slot = (slot + 1) & mask
    }
  }

  /** Whether the entries are in ascending key order (entry i's key < entry i+1's). */
  get sorted(): boolean {
    return this.#slots === null
  }

  /**
   * For sorted entries: the first entry whose key is not below `key` (`after`: above
   * it), or `size` if none is.
   */
  lowerBound(key: Uint8Array, after: boolean): number {
    let lo = 0
    let hi = this.#count
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const order = this.#compareKey(mid, key)
      if (order < 0 || (after && order === 0)) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** For sorted entries: the entry of `key` by binary search, or -1. */
  #search(key: Uint8Array): number {
    const last = this.#count - 1
    if (last < 0) return -1
    const order = this.#compareKey(last, key)
    if (order < 0) return -1 // the common case of an ascending load: one comparison
    if (order === 0) return last
    const i = this.lowerBound(key, false)
    return i < this.#count && this.#compareKey(i, key) === 0 ? i : -1
  }

  #add(key: Uint8Array, key_at: number, value_at: number, value_len: number, hash: number): number {
    if (this.#count === this.#key_len.length) this.#growEntries()
    const i = this.#count++
    this.#hash[i] = hash
    this.#key_at[i] = key_at
    this.#key_len[i] = key.length
    this.#setValue(i, value_at, value_len)
    return i
  }

  /** Leaves key order behind: hashes every entry into a table. */
  #buildTable(): void {
    const { bytes, base } = this.#source
    for (let i = 0; i < this.#count; i += 1) {
      const at = base + (this.#key_at[i] as number)
      this.#hash[i] = hashBytes(bytes, at, at + (this.#key_len[i] as number))
    }
    let slot_count = entries_initial * 2
    while (slot_count < this.#count * 4) slot_count *= 2
    this.#rehash(slot_count)
  }

  /** Whether entry `i` is a delete. */
  deleted(i: number): boolean {
    return (this.#value_len[i] as number) < 0
  }

  /** Entry `i`'s key, a view of the commit's bytes. */
  key(i: number): Buffer {
    return this.#view(this.#key_at[i] as number, this.#key_len[i] as number)
  }

  /** Entry `i`'s value, a view of the commit's bytes, or null for a delete. */
  value(i: number): Buffer | null {
    const len = this.#value_len[i] as number
    return len < 0 ? null : this.#view(this.#value_at[i] as number, len)
  }

  /** Entry `i`'s key in hex (conflict keys). */
  keyHex(i: number): string {
    const { bytes, base } = this.#source
    const at = base + (this.#key_at[i] as number)
    return bytes.toString('hex', at, at + (this.#key_len[i] as number))
  }

  /** An independent copy (a copied tree starts with its source's writes; the bytes are shared, never overwritten). */
  clone(): PendingWrites {
    const copy = new PendingWrites(this.#source)
    copy.#count = this.#count
    copy.#key_at = this.#key_at.slice()
    copy.#key_len = this.#key_len.slice()
    copy.#value_at = this.#value_at.slice()
    copy.#value_len = this.#value_len.slice()
    copy.#hash = this.#hash.slice()
    copy.#slots = this.#slots === null ? null : this.#slots.slice()
    return copy
  }

  #setValue(i: number, value_at: number, value_len: number): void {
    this.#value_at[i] = value_at
    this.#value_len[i] = value_len
  }

  /** The sign of Buffer.compare(entry i's key, key). */
  #compareKey(i: number, key: Uint8Array): number {
    const len = this.#key_len[i] as number
    const arena = this.#source.bytes
    const at = this.#source.base + (this.#key_at[i] as number)
    const n = Math.min(len, key.length)
    for (let j = 0; j < n; j += 1) {
      const a = arena[at + j] as number
      const b = key[j] as number
      if (a !== b) return a < b ? -1 : 1
    }
    return len === key.length ? 0 : len < key.length ? -1 : 1
  }

  #view(at: number, len: number): Buffer {
    const { bytes, base } = this.#source
    return Buffer.from(bytes.buffer, bytes.byteOffset + base + at, len)
  }

  #growEntries(at_least = 0): void {
    const n = Math.max(this.#key_len.length * 2, at_least)
    this.#key_at = grow(this.#key_at, new Float64Array(n))
    this.#key_len = grow(this.#key_len, new Int32Array(n))
    this.#value_at = grow(this.#value_at, new Float64Array(n))
    this.#value_len = grow(this.#value_len, new Int32Array(n))
    this.#hash = grow(this.#hash, new Int32Array(n))
  }

  #rehash(slot_count: number): void {
    const slots = new Int32Array(slot_count)
    const mask = slot_count - 1
    for (let i = 0; i < this.#count; i += 1) {
      let slot = (this.#hash[i] as number) & mask
      while (slots[slot] !== 0) slot = (slot + 1) & mask
      slots[slot] = i + 1
    }
    this.#slots = slots
  }
}

function grow<T extends Float64Array | Int32Array>(from: T, to: T): T {
  to.set(from)
  return to
}

/** 32-bit FNV-1a of bytes [from, to), mixed so the low bits (the slot) depend on every byte. */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5 | 0
  for (let i = from; i < to; i += 1) h = Math.imul(h ^ (bytes[i] as number), 0x01000193)
  h ^= h >>> 16
  h = Math.imul(h, 0x45d9f3b)
  return (h ^ (h >>> 16)) | 0
}
