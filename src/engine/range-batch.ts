// Decodes a range batch from native/src/snapshot.rs: entries of `key_len: u32 LE`,
// key, `value_len: u32 LE`, value. Keys and values are views into the one Buffer, or
// offsets into it when the batch is read into a shared buffer (RangeBatchAt). The
// batches of a batched point read (keys in, values out) and of a range with lookups are
// encoded and decoded here too.

export type Entry = [key: Buffer, value: Buffer]

export function decodeRangeBatch(batch: Buffer): Entry[] {
  const entries: Entry[] = []
  let at = 0
  while (at < batch.length) {
    const keyLength = batch.readUInt32LE(at)
    const key = batch.subarray(at + 4, at + 4 + keyLength)
    at += 4 + keyLength
    const valueLength = batch.readUInt32LE(at)
    const value = batch.subarray(at + 4, at + 4 + valueLength)
    at += 4 + valueLength
    entries.push([key, value])
  }
  return entries
}

/**
 * A range batch read in place (Snapshot.rangeAt): `count` entries whose bytes stay in
 * `buf`, located by `at` rather than by two Buffer views and an array each (those were
 * two fifths of what a scan allocated per row, docs/performance.md, P12): entry i's key
 * is [at[4i], at[4i+1]), its value [at[4i+2], at[4i+3]). Both `buf` and `at` are shared,
 * valid until the next read into them: decode what is kept first.
 */
export interface RangeBatchAt {
  buf: Buffer
  count: number
  at: Uint32Array
}

/** Decodes a range batch after its header of `entry_count: u32 LE`, the offsets into `at` (grown when short). */
export function decodeRangeBatchAt(buf: Buffer, at: Uint32Array): RangeBatchAt {
  const count = buf.readUInt32LE(0)
  if (at.length < 4 * count) at = new Uint32Array(4 * count)
  let entry = 4
  for (let i = 0; i < count; i += 1) {
    const keyLength = buf.readUInt32LE(entry)
    at[4 * i] = entry + 4
    at[4 * i + 1] = entry += 4 + keyLength
    const valueLength = buf.readUInt32LE(entry)
    at[4 * i + 2] = entry + 4
    at[4 * i + 3] = entry += 4 + valueLength
  }
  if (entry !== buf.length) throw new Error(`a range batch of ${buf.length} bytes did not end where its ${count} entries do`)
  return { buf, count, at }
}

/** One difference: `before` null when added, `after` null when removed. */
export interface DiffEntry {
  key: Buffer
  before: Buffer | null
  after: Buffer | null
}

const absent = 0xffffffff

/** Decodes a diff batch from native/src/snapshot.rs (lengths of 0xFFFFFFFF are absent). */
export function decodeDiffBatch(batch: Buffer): DiffEntry[] {
  const entries: DiffEntry[] = []
  let at = 0
  const take = (): Buffer | null => {
    const length = batch.readUInt32LE(at)
    at += 4
    if (length === absent) return null
    const slice = batch.subarray(at, at + length)
    at += length
    return slice
  }
  while (at < batch.length) {
    const key = take() as Buffer
    entries.push({ key, before: take(), after: take() })
  }
  return entries
}

/** The keys of a batched point read: each `key_len: u32 LE`, key. */
export function encodeKeyBatch(keys: readonly Uint8Array[]): Buffer {
  let bytes = 0
  for (const key of keys) bytes += 4 + key.length
  const out = Buffer.allocUnsafe(bytes)
  let at = 0
  for (const key of keys) {
    at = out.writeUInt32LE(key.length, at)
    out.set(key, at)
    at += key.length
  }
  return out
}

/** The answer of a batched point read: `count` values, views into `batch`, null where absent. */
export function decodeValueBatch(batch: Buffer, count: number): Array<Buffer | null> {
  const values = new Array<Buffer | null>(count)
  let at = 0
  for (let i = 0; i < count; i += 1) {
    const length = batch.readUInt32LE(at)
    at += 4
    if (length === absent) {
      values[i] = null
      continue
    }
    values[i] = batch.subarray(at, at + length)
    at += length
  }
  if (at !== batch.length) throw new Error(`a batched read answered ${batch.length} bytes for ${count} keys, ${at} expected`)
  return values
}

/**
 * A range with lookups (native/src/snapshot.rs): `count` entries whose bytes stay in
 * `buf`, located by `at` rather than by a Buffer view each (a view costs more than
 * reading a short row): entry i's key is [at[6i], at[6i+1]), its value
 * [at[6i+2], at[6i+3]), its match [at[6i+4], at[6i+5]), the match's start
 * `lookup_absent` when it has none.
 */
export interface LookupBatch {
  buf: Buffer
  count: number
  at: Uint32Array
}

/** The start of an absent match in LookupBatch.at (never an offset: the batch is under 4 GiB). */
export const lookup_absent = absent

/** Decodes a range with lookups: a header of `entry_count: u32 LE`, `matches_at: u32 LE`, the entries, then a match per entry. */
export function decodeLookupBatch(buf: Buffer): LookupBatch {
  const count = buf.readUInt32LE(0)
  const at = new Uint32Array(count * 6)
  let entry = 8
  let match = buf.readUInt32LE(4)
  for (let i = 0; i < count; i += 1) {
    const keyLength = buf.readUInt32LE(entry)
    at[6 * i] = entry + 4
    at[6 * i + 1] = entry += 4 + keyLength
    const valueLength = buf.readUInt32LE(entry)
    at[6 * i + 2] = entry + 4
    at[6 * i + 3] = entry += 4 + valueLength
    const matchLength = buf.readUInt32LE(match)
    match += 4
    if (matchLength === absent) {
      at[6 * i + 4] = absent
      continue
    }
    at[6 * i + 4] = match
    at[6 * i + 5] = match += matchLength
  }
  if (entry !== buf.readUInt32LE(4) || match !== buf.length) throw new Error(`a range with lookups of ${buf.length} bytes did not end where its ${count} entries and matches do`)
  return { buf, count, at }
}
