// The writes a transaction made to one tree, for its own reads (txn-view.ts): the
// latest put or delete of each key. A bulk insert of a million rows writes a million
// entries, so they hold no JS object per entry: keys and values are copied into one
// growing byte arena, entries are rows of typed arrays, and keys are found through an
// open-addressing hash table over the arena's bytes. (A Map of hex strings to Buffers
// held three objects and a string per row; the garbage collector then took a third of
// a bulk insert's time, profiled.)
//
// | array        | entry i                                                  |
// |--------------|----------------------------------------------------------|
// | key_at/len   | the key's bytes in the arena                             |
// | value_at/len | the value's bytes in the arena; value_len -1: a delete   |
// | hash         | the key's hash (32-bit FNV-1a), so a resize rehashes nothing |
// | slots        | entry index + 1, 0 empty; linear probing; at most half full |
//
// While every key written is greater than the one before (a bulk insert of ascending
// keys, the common load), the entries are in key order and need no hash table: a key
// is looked up by one comparison with the last key, or by binary search. The first
// key written out of order builds the table (once), and it is kept from then on.
//
// Entries are never removed: a later write of the same key replaces the entry's value
// (its old bytes stay in the arena until the transaction ends). Arena bytes are never
// overwritten, so a value handed out as a view of the arena stays valid.

const arena_bytes_initial = 4096
const entries_initial = 64

export class PendingWrites {
  #arena = Buffer.allocUnsafe(arena_bytes_initial)
  #arena_at = 0
  #count = 0
  #key_at = new Float64Array(entries_initial)
  #key_len = new Int32Array(entries_initial)
  #value_at = new Float64Array(entries_initial)
  #value_len = new Int32Array(entries_initial)
  #hash = new Int32Array(entries_initial)
  /** null while the entries are in ascending key order (see above). */
  #slots: Int32Array | null = null

  /** Entries (distinct keys) written, deletes included. */
  get size(): number {
    return this.#count
  }

  /** Makes room for `entries` more entries of about `bytes` bytes in all (see TxnView.reserve). */
  reserve(entries: number, bytes: number): void {
    if (this.#arena_at + bytes > this.#arena.length) this.#growArena(this.#arena_at + bytes)
    if (this.#count + entries > this.#key_len.length) this.#growEntries(this.#count + entries)
  }

  /** Records a put of `value`, or a delete when null, replacing any earlier write of `key`. */
  set(key: Uint8Array, value: Uint8Array | null): void {
    if (this.#slots === null) {
      const last = this.#count - 1
      if (last < 0 || this.#compareKey(last, key) < 0) {
        this.#add(key, value, 0)
        return
      }
      const i = this.#search(key)
      if (i >= 0) {
        this.#setValue(i, value)
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
        this.#setValue(i, value)
        return
      }
      slot = (slot + 1) & mask
    }
    const i = this.#add(key, value, hash)
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

  #add(key: Uint8Array, value: Uint8Array | null, hash: number): number {
    if (this.#count === this.#key_len.length) this.#growEntries()
    const i = this.#count++
    this.#hash[i] = hash
    this.#key_at[i] = this.#append(key)
    this.#key_len[i] = key.length
    this.#setValue(i, value)
    return i
  }

  /** Leaves key order behind: hashes every entry into a table. */
  #buildTable(): void {
    for (let i = 0; i < this.#count; i += 1) {
      const at = this.#key_at[i] as number
      this.#hash[i] = hashBytes(this.#arena, at, at + (this.#key_len[i] as number))
    }
    let slot_count = entries_initial * 2
    while (slot_count < this.#count * 4) slot_count *= 2
    this.#rehash(slot_count)
  }

  /** Whether entry `i` is a delete. */
  deleted(i: number): boolean {
    return (this.#value_len[i] as number) < 0
  }

  /** Entry `i`'s key, a view of the arena. */
  key(i: number): Buffer {
    return this.#view(this.#key_at[i] as number, this.#key_len[i] as number)
  }

  /** Entry `i`'s value, a view of the arena, or null for a delete. */
  value(i: number): Buffer | null {
    const len = this.#value_len[i] as number
    return len < 0 ? null : this.#view(this.#value_at[i] as number, len)
  }

  /** Entry `i`'s key in hex (conflict keys). */
  keyHex(i: number): string {
    const at = this.#key_at[i] as number
    return this.#arena.toString('hex', at, at + (this.#key_len[i] as number))
  }

  /** An independent copy (a copied tree starts with its source's writes). */
  clone(): PendingWrites {
    const copy = new PendingWrites()
    copy.#arena = Buffer.from(this.#arena.subarray(0, this.#arena_at))
    copy.#arena_at = this.#arena_at
    copy.#count = this.#count
    copy.#key_at = this.#key_at.slice()
    copy.#key_len = this.#key_len.slice()
    copy.#value_at = this.#value_at.slice()
    copy.#value_len = this.#value_len.slice()
    copy.#hash = this.#hash.slice()
    copy.#slots = this.#slots === null ? null : this.#slots.slice()
    return copy
  }

  #setValue(i: number, value: Uint8Array | null): void {
    if (value === null) {
      this.#value_len[i] = -1
      return
    }
    this.#value_at[i] = this.#append(value)
    this.#value_len[i] = value.length
  }

  /** The sign of Buffer.compare(entry i's key, key). */
  #compareKey(i: number, key: Uint8Array): number {
    const len = this.#key_len[i] as number
    const arena = this.#arena
    const at = this.#key_at[i] as number
    const n = Math.min(len, key.length)
    for (let j = 0; j < n; j += 1) {
      const a = arena[at + j] as number
      const b = key[j] as number
      if (a !== b) return a < b ? -1 : 1
    }
    return len === key.length ? 0 : len < key.length ? -1 : 1
  }

  #view(at: number, len: number): Buffer {
    return Buffer.from(this.#arena.buffer, this.#arena.byteOffset + at, len)
  }

  /** Copies `bytes` to the end of the arena; returns where they start. */
  #append(bytes: Uint8Array): number {
    const at = this.#arena_at
    const end = at + bytes.length
    if (end > this.#arena.length) this.#growArena(Math.max(this.#arena.length * 2, end))
    this.#arena.set(bytes, at)
    this.#arena_at = end
    return at
  }

  #growArena(bytes: number): void {
    const grown = Buffer.allocUnsafe(bytes)
    grown.set(this.#arena.subarray(0, this.#arena_at))
    this.#arena = grown
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
